"""The hand by direct message: one post per deal with the dealt hand sorted and a link back to the
table, no buttons that could go stale, never edited (the panel follows the cards). A player whose
direct messages are closed still plays: the channel is told once, and **My hand** shows the cards."""

from __future__ import annotations

import pytest

from tests.e2e.helpers.cards import card_code
from tests.e2e.helpers.server import Spades, every_card_by_hand
from tests.e2e.helpers.table import start_game


def cards_in(text: str) -> int:
    """Cards listed in a hand's direct message: a line per suit, ranks after the suit's symbol."""
    return sum(len(line.split()) - 1 for line in text.splitlines() if line[:1] in ("♠", "♥", "♦", "♣"))


@pytest.mark.parametrize("bot_env", [{"HAND_PAUSE": "2"}])
async def test_the_hands_direct_message_follows_the_hand(spades: Spades) -> None:
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    spades.fake.fail_dms_for(carol)
    channel = spades.channel("spades")
    await every_card_by_hand(spades)  # the first hand is 3 bids and 3 × 17 cards
    table = await start_game(spades, channel, [alice, bob, carol], target=300)

    def notices() -> list[str]:
        return [m.content for m in channel.messages.values() if "can't send Carol direct messages" in m.content]

    notice = await spades.fake.wait_for_message(channel, lambda m: "can't send Carol direct messages" in m.content)
    assert "**My hand**" in notice.content and "/spades hand" in notice.content
    assert not any(s in notice.content for s in "♠♥♦♣")  # no cards in the channel

    panel = table.panels[carol.id]
    cards = [b for b in panel.buttons() if b["custom_id"].startswith(f"spades:card:{table.game_id}:")]
    assert "hand 1" in panel.text and (cards == [] or len({card_code(b["label"]) for b in cards}) == 17)

    [dm] = [m for m in spades.fake.dm_channels[alice.id].messages.values() if "**Your hand** · " in m.content]
    assert not dm.buttons() and f"/channels/{spades.guild.id}/{channel.id}" in dm.content
    held = cards_in(dm.content)
    assert held == 17
    await table.play_moves(3 + 3 * 17)  # the whole first hand
    await spades.fake.wait_for_message(channel, lambda m: m.text.startswith("### Hand 1 scored"))
    assert table.find_table() is None  # the hand's table became its summary; the next deal waits a moment
    await table.wait_table(lambda m: "hand 2" in m.text and "▶ **" in m.text, "the second hand's table")
    for user in (alice, bob):
        await table.hand_dm(user, 2)
    await spades.fake.wait_until(lambda: "hand 2" in table.panels[carol.id].text, 5, "Carol's panel, hand 2")
    assert dm.edited_at is None and cards_in(dm.content) == 17  # hand 1's deal, as it was dealt
    dms = [m for m in spades.fake.dm_channels[alice.id].messages.values() if "**Your hand** · " in m.content]
    assert len(dms) == 2  # one post per deal
    assert notices() == [notice.content]  # told once, not again for the second hand
    opened = [int(r.body["recipient_id"]) for r in spades.fake.requests if r.template == "/users/@me/channels"]
    assert sorted(opened) == sorted(u.id for u in (alice, bob, carol))  # each DM opened once, not per hand
    carol_dms = spades.fake.dm_channels.get(carol.id)
    assert carol_dms is None or not carol_dms.messages
