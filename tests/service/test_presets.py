"""Presets through the service: the built-in ones and a server's own, as `/spades new rules:` and
`/spades settings preset_save / preset_delete` use them; bad text is refused in words."""

from __future__ import annotations

import pytest

from bot.service import Refusal
from tests.service.conftest import ALICE, CHANNEL, GUILD, Harness


async def test_rules_text_is_presets_then_pairs(harness: Harness) -> None:
    service = await harness.boot()
    presets = service.presets
    assert await presets.options(GUILD, "Whiz, overtricks=negative") == {"bidding": "whiz", "overtricks": "negative"}
    assert await presets.options(GUILD, "short game bag_penalty=80") == {
        "target": 250, "bag_limit": 5, "bag_penalty": "80"}
    assert await presets.options(GUILD, "nil=off bag_limit=5") == {"nil": "off", "bag_limit": "5"}
    with pytest.raises(Refusal, match=r"“Whizz” isn't key=value \(e.g. nil=off\) nor a preset: Whiz, Mirrors"):
        await presets.options(GUILD, "Whizz")
    with pytest.raises(Refusal, match="“Whiz” isn't key=value"):
        await presets.options(GUILD, "nil=off Whiz")
    with pytest.raises(Refusal, match="overtricks can't be 'lots': it takes bags or none or negative or quicksand"):
        await service.new_lobby(GUILD, CHANNEL, ALICE, "alice", "solo", await presets.options(GUILD, "overtricks=lots"))


async def test_a_server_saves_its_rules_as_a_preset_and_deletes_it(harness: Harness) -> None:
    service = await harness.boot()
    presets = service.presets
    await service.update_settings(GUILD, {"last_trick": "on", "seven_bonus": "on"})
    assert await presets.save(GUILD, "  Friday   night ") == ("Friday night", {"last_trick": True, "seven_bonus": True})
    assert await presets.choices(GUILD, "") == ["Whiz", "Mirrors", "Suicide", "Jokers & deuces", "Short game",
                                                 "No deductions", "Friday night"]
    assert await presets.choices(GUILD, "NIGHT") == ["Friday night"]
    assert await presets.choices(GUILD, "", own=True) == ["Friday night"]
    live = await service.new_lobby(GUILD, CHANNEL, ALICE, "alice", "solo",
                                   await presets.options(GUILD, "friday night, target=300"))
    assert (live.rules.last_trick, live.rules.seven_bonus, live.rules.target) == (True, True, 300)
    with pytest.raises(Refusal, match="“Whiz” is a built-in preset: choose another name"):
        await presets.save(GUILD, "whiz")
    with pytest.raises(Refusal, match="“Whiz” is a built-in preset: it can't be deleted"):
        await presets.delete(GUILD, "Whiz")
    assert await presets.delete(GUILD, "FRIDAY NIGHT") == "Friday night"
    with pytest.raises(Refusal, match="This server has no preset “Friday night”"):
        await presets.delete(GUILD, "Friday night")
    assert await presets.choices(GUILD, "", own=True) == []


async def test_a_preset_that_doesnt_fit_the_mode_is_refused_with_the_reason(harness: Harness) -> None:
    service = await harness.boot()
    with pytest.raises(Refusal, match="bidding=suicide is for team modes"):
        await service.new_lobby(GUILD, CHANNEL, ALICE, "alice", "solo", await service.presets.options(GUILD, "Suicide"))
