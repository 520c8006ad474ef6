"""A player who leaves a running game forfeits their seat: a computer player takes it over at once
and the game goes on with the others."""

from __future__ import annotations

from tests.e2e.helpers.record import record_moves
from tests.e2e.helpers.server import Spades, name_of
from tests.e2e.helpers.table import start_game


async def test_player_leaves_mid_game_and_a_computer_takes_the_seat(spades: Spades) -> None:
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol], target=50, mercy=50)
    await table.play_moves(4)  # the bids and the first card

    turn = await table.whose_turn()
    assert turn is not None and turn.phase == "play"
    leaver = turn.user
    name = name_of(leaver)
    seat = table.seat_of(leaver)
    answer = await spades.command(leaver, channel, "leave")
    assert answer.ephemeral and answer.content == "You left the game: it counts as a loss for you."
    notice = await spades.fake.wait_for_message(channel, lambda m: "left the game" in m.content)
    assert notice.content == f"{name} left the game; {name} (bot) plays their seat now."

    table.players.remove(leaver)
    del table.panels[leaver.id]
    await table.play_moves(8)  # the others go on; the computer plays the empty seat
    await table.wait_table(lambda m: f"**{name} (bot)**" in m.text, "the table to show the computer's seat")
    table.read_seats()
    assert table.seat_names[seat] == f"{name} (bot)"
    refused_hand = await spades.command(leaver, channel, "hand")
    assert refused_hand.ephemeral and refused_hand.content == "You're not playing in this game."

    record = await spades.record(alice, channel)
    acknowledged = table.acknowledged()
    by_people = [move for move in record_moves(record) if move in acknowledged]
    by_computer = [move for move in record_moves(record) if move not in acknowledged]
    assert by_people == acknowledged  # in order, none lost or doubled
    assert len(by_computer) >= 2 and all(move[:2] == ("play", seat) for move in by_computer)
