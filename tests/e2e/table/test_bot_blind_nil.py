"""Blind nil: a player who may bid it sees no card anywhere until they choose **Blind nil** or
**Show my cards** on their panel (with `blind_nil_deficit:0` everyone may, from the first hand)."""

from __future__ import annotations

from devkit.fake_discord import FakeMessage
from tests.e2e.helpers.record import Move, record_moves
from tests.e2e.helpers.server import Spades, game_over_message, name_of, refused
from tests.e2e.helpers.table import start_game
from tests.record_check import check_record

SUITS = "♥♦♣"  # ♠ is in the game's title; the other suits only ever show with cards


def shows_cards(message: FakeMessage) -> bool:
    return any(s in message.text for s in SUITS) or any(
        b["custom_id"].startswith("spades:card:") for b in message.buttons())


async def test_blind_nil_hides_the_cards_until_the_player_chooses(spades: Spades) -> None:
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol], target=50, mercy=50, blind_nil_deficit=0)
    game = table.game_id
    for user in table.players:
        dms = spades.fake.dm_channels.get(user.id)
        assert dms is None or not dms.messages  # the hand's DM waits for the choice
        panel = table.panels[user.id]
        assert not shows_cards(panel)
        assert set(panel.custom_ids()) == {f"spades:bid:{game}:blind", f"spades:reveal:{game}"}
    assert not any(s in table.table_message().text for s in SUITS)

    by_seat = [next(u for u in table.players if name_of(u) == table.seat_names[s]) for s in range(3)]
    first_name = table.table_message().text.split("▶ **")[1].split("**")[0]
    first = next(u for u in by_seat if name_of(u) == first_name)
    second = by_seat[(by_seat.index(first) + 1) % 3]
    third = by_seat[(by_seat.index(first) + 2) % 3]

    # Blind nil counts only on one's turn: the panel says so, and the cards stay hidden.
    early = table.panels[third.id]
    answer = await spades.click(third, early, f"spades:bid:{game}:blind")
    assert answer is early and f"It's {first_name}'s turn." in early.text and not shows_cards(early)

    # The first bidder bids blind nil from the panel: only then are the cards shown.
    panel = table.panels[first.id]
    assert await spades.click(first, panel, f"spades:bid:{game}:blind") is panel
    assert "You: bid blind nil" in panel.text and shows_cards(panel)
    table.moves.append(Move(table.seat_of(first), "bid", "blind nil", "panel"))
    hand_dm = await spades.fake.wait_for_dm(first, lambda m: "**Your hand** · " in m.content)
    assert shows_cards(hand_dm) and not hand_dm.buttons()  # the deal, now that the choice is made

    # The second must choose before bidding; after showing the cards blind nil is gone.
    refused(await spades.command(second, channel, "bid", bid="3"), "First choose: bid blind nil, or look at your",
            "**Show my cards** on your panel", "`/spades bid show my cards`")
    panel = table.panels[second.id]
    assert await spades.click(second, panel, f"spades:reveal:{game}") is panel
    assert shows_cards(panel) and "**Your turn to bid.**" in panel.text
    assert panel.find_component(f"spades:bid:{game}:blind") is None
    refused(await spades.command(second, channel, "bid", bid="blind nil"), "blind nil is no longer possible")
    assert (await spades.command(second, channel, "bid", bid="3")).content == "You bid **3**."
    table.moves.append(Move(table.seat_of(second), "bid", "3", "command"))
    await spades.fake.wait_until(lambda: "You: bid 3" in panel.text, 5, "the panel to show the bid")

    # The third shows the cards, then bids from the same panel.
    panel = table.panels[third.id]
    assert await spades.click(third, panel, f"spades:reveal:{game}") is panel
    await spades.fake.wait_until(lambda: "**Your turn to bid.**" in panel.text, 5, "the third bidder's turn")
    assert await spades.click(third, panel, f"spades:bid:{game}:4") is panel and "You: bid 4" in panel.text
    table.moves.append(Move(table.seat_of(third), "bid", "4", "panel"))

    await table.play_moves()
    await game_over_message(spades, channel)
    record = await spades.record(alice, channel)
    check_record(record)
    assert record["hands"][0]["bids"][0] == {"seat": table.seat_of(first), "bid": 0, "blind": True}
    assert record_moves(record) == table.acknowledged()
    summary = await spades.fake.wait_for_message(channel, lambda m: m.text.startswith("### Hand 1 scored"))
    assert f"**{first_name}** bid blind nil" in summary.text
