"""Blind nil: a player who may bid it sees no card anywhere until they choose **Blind nil** or
**Show my cards** (with `blind_nil_deficit:0` everyone may, from the first hand)."""

from __future__ import annotations

from tests.e2e.conftest import Move, Spades, record_moves, refused, start_game
from tests.fake_discord import FakeMessage
from tests.record_check import check_record

SUITS = "♠♥♦♣"


def shows_cards(message: FakeMessage) -> bool:
    return any(s in message.content for s in SUITS) or any(
        b["custom_id"].startswith("spades:card:") for b in message.buttons())


async def test_blind_nil_hides_the_cards_until_the_player_chooses(spades: Spades) -> None:
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol], target=50, mercy=50, blind_nil_deficit=0)
    game = table.game_id
    dms = {user.id: table.latest_dm(user) for user in table.players}
    for dm in dms.values():
        assert dm is not None and "Choose **Blind nil** or **Show my cards**" in dm.content
        assert not shows_cards(dm)
        assert {b["custom_id"] for b in dm.buttons()} == {f"spades:bid:{game}:blind", f"spades:reveal:{game}"}
    assert not any(s in table.table_message().content for s in SUITS if s != "♠")

    order = [next(u for u in table.players if (u.global_name or u.username) == table.seat_names[s])
             for s in range(3)]
    tbl = table.table_message()
    first_name = tbl.content.split("Turn: **")[1].split("**")[0]
    first = next(u for u in order if u.global_name == first_name)
    second = order[(order.index(first) + 1) % 3]
    third = order[(order.index(first) + 2) % 3]

    # Blind nil from the direct message counts only on one's turn; the cards stay hidden meanwhile.
    early = dms[third.id]
    assert early is not None and "counts when it's your turn" in early.content
    refused(await spades.click(third, early, f"spades:bid:{game}:blind"), f"It's {first_name}'s turn.")
    assert not shows_cards(early)

    # The first bidder bids blind nil straight from the direct message.
    dm = dms[first.id]
    assert dm is not None
    answer = await spades.click(first, dm, f"spades:bid:{game}:blind")
    assert answer is dm and dm.content.startswith("You bid **blind nil**.") and shows_cards(dm)
    table.moves.append(Move(table.seat_of(first), "bid", "blind nil", "dm"))

    # The second looks at the cards from the direct message, then bids by command.
    dm = dms[second.id]
    assert dm is not None
    refused(await spades.command(second, channel, "bid", bid="3"), "First choose: bid blind nil, or show your cards.")
    shown = await spades.click(second, dm, f"spades:reveal:{game}")
    assert shown is dm and shows_cards(dm) and "It's your turn to bid." in dm.content
    assert dm.find_component(f"spades:bid:{game}:blind") is None
    refused(await spades.command(second, channel, "bid", bid="blind nil"), "blind nil is no longer possible")
    assert (await spades.command(second, channel, "bid", bid="3")).content.startswith("You bid **3**.")
    table.moves.append(Move(table.seat_of(second), "bid", "3", "command"))

    # The third presses Bid on the table: still hidden, so first the choice; then the bid buttons.
    panel = await spades.click(third, tbl, f"spades:table:{game}:act")
    assert panel.ephemeral and not shows_cards(panel) and "Choose **Blind nil**" in panel.content
    revealed = await spades.click(third, panel, f"spades:reveal:{game}")
    assert revealed is panel and shows_cards(panel)
    bids = await spades.click(third, panel, f"spades:table:{game}:act")
    assert "Choose your bid:" in bids.content and bids.find_component(f"spades:bid:{game}:blind") is None
    assert (await spades.click(third, bids, f"spades:bid:{game}:4")).content.startswith("You bid **4**.")
    table.moves.append(Move(table.seat_of(third), "bid", "4", "table"))

    await table.play_moves()
    await spades.fake.wait_for_message(channel, lambda m: m.content.startswith("🏆"))
    record = await spades.record(alice, channel)
    check_record(record)
    assert record["hands"][0]["bids"][0] == {"seat": table.seat_of(first), "bid": 0, "blind": True}
    assert record_moves(record) == table.acknowledged()
    summary = await spades.fake.wait_for_message(channel, lambda m: m.content.startswith("**Hand 1 scored**"))
    assert f"{first_name}: bid blind nil" in summary.content
