"""House rules through Discord: a partners game under suicide played to its end by two people and two
computer players, the bids the rules force made by the bot; a preset chosen by autocomplete (and a
server's own preset saved with /spades settings); each game ends with a valid record."""

from __future__ import annotations

import pytest

from tests.e2e.helpers.computers import FAST, non_nil, start_with_two_computers
from tests.e2e.helpers.server import Spades, game_over_message
from tests.e2e.helpers.table import Table
from tests.record_check import check_record


@pytest.mark.parametrize("bot_env", FAST)
async def test_a_partners_game_under_suicide(spades: Spades) -> None:
    alice, bob = spades.member("Alice"), spades.member("Bob")
    channel = spades.channel("suicide")
    assert "Suicide" in await spades.choices(alice, channel, "new", "rules", "sui")
    table = Table(spades, channel, [alice, bob], bid_policy=non_nil)
    lobby = await table.open(alice, mode="partners", rules="Suicide", target=50, mercy=50)
    assert "**Suicide:** in each team one player bids nil" in lobby.text
    await start_with_two_computers(spades, table, lobby)
    assert "bidding=suicide" in table.table_message().text  # the footer names the rules

    await table.play_moves()

    await game_over_message(spades, channel)
    record = await spades.record(alice, channel)
    check_record(record)  # one nil a team, the others at least 4, every hand re-scored
    assert record["rules"]["bidding"] == "suicide" and record["final"]["ended"] in ("target", "mercy")
    forced = 0
    for hand in record["hands"]:
        for team in ((0, 2), (1, 3)):
            first, second = [b for b in hand["bids"] if b["seat"] in team]
            # the team's first bidder didn't bid nil: the second had to, and the bot bid it
            assert bool(second.get("forced")) == (first["bid"] != 0), hand["bids"]
            forced += bool(second.get("forced"))
    people = {table.seat_of(alice), table.seat_of(bob)}
    assert forced and all(b.get("forced") or b["bid"] >= 4  # people here bid 4 when the choice is theirs
                          for hand in record["hands"] for b in hand["bids"] if b["seat"] in people)


@pytest.mark.parametrize("bot_env", FAST)
async def test_a_preset_chosen_by_autocomplete_and_a_server_preset(spades: Spades) -> None:
    alice = spades.member("Alice")
    channel = spades.channel("whiz")
    offered = await spades.choices(alice, channel, "new", "rules", "")
    assert offered[:2] == ["Whiz", "Mirrors"] and "Short game" in offered
    [whiz] = await spades.choices(alice, channel, "new", "rules", "whi")
    table = Table(spades, channel, [alice])
    lobby = await table.open(alice, mode="solo", rules=f"{whiz}, last_trick=on", target=50, mercy=50)
    assert "**Whiz:**" in lobby.text and "**Last trick:**" in lobby.text
    for _ in range(3):
        await spades.command(alice, channel, "addbot", level="normal")
    await spades.fake.wait_until(lambda: "Every seat is taken" in lobby.content, what="a full lobby")
    await spades.command(alice, channel, "start")
    await table.wait_table(lambda m: "▶ **" in m.text, "the table")
    table.read_seats()
    await table.play_moves()
    await game_over_message(spades, channel)
    record = await spades.record(alice, channel)
    check_record(record)  # every bid is the bidder's spades or nil
    assert (record["rules"]["bidding"], record["rules"]["last_trick"]) == ("whiz", True)

    spades.fake.grant_manage_guild(spades.guild, alice)
    saved = await spades.command(alice, channel, "settings", rules="Short game, seven_bonus=on",
                                 preset_save="Friday night")
    assert saved.ephemeral and "Preset **Friday night** saved" in saved.content
    assert await spades.choices(alice, channel, "new", "rules", "fri") == ["Friday night"]
    lobby = await spades.command(alice, channel, "new", mode="solo", rules="Friday night")
    assert "**Seven or more:**" in lobby.text and "To **250** points" in lobby.text
    cup = spades.channel("cup")
    assert "Short game" in await spades.choices(alice, cup, "tournament new", "rules", "short")
    signup = await spades.command(alice, cup, "tournament new", rules="Short game")
    assert "Sign-up is open" in signup.content and "to 250" in signup.content
