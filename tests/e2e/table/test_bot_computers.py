"""Computer players fill two seats and the game is played to its end with the one person at the
table, whatever the rules ask of them on the way (a person who always bids nil falls behind and is
offered blind nil)."""

from __future__ import annotations

from tests.e2e.helpers.record import record_moves
from tests.e2e.helpers.server import Spades, game_over_message
from tests.e2e.helpers.table import Table
from tests.record_check import check_record


async def test_computer_players_fill_two_seats_and_finish_the_game(spades: Spades) -> None:
    alice = spades.member("Alice")
    channel = spades.channel("spades")
    table = Table(spades, channel, [alice], bid_policy=lambda table, user, legal: "nil")
    lobby = await table.open(alice, target=50, mercy=50)
    for level, said in (("easy", "Added an easy computer player."), ("normal", "Added a normal computer player.")):
        answer = await spades.command(alice, channel, "addbot", level=level)
        assert answer.ephemeral and answer.content == said
    await spades.fake.wait_until(lambda: "Bot 2 (normal)" in lobby.content, what="the lobby to list both bots")
    assert "Bot 1 (easy)" in lobby.content and "Every seat is taken" in lobby.content
    answer = await spades.command(alice, channel, "start")
    assert answer.ephemeral and "Dealing!" in answer.content
    await spades.fake.wait_for_dm(alice, lambda m: "**Your hand** · " in m.content and "hand 1" in m.content)
    await table.wait_table(lambda m: "▶ **" in m.text, "the table")
    table.read_seats()
    assert sorted(table.seat_names) == ["Alice", "Bot 1 (easy)", "Bot 2 (normal)"]

    await table.play_moves()

    over = await game_over_message(spades, channel)
    record = await spades.record(alice, channel)
    check_record(record)
    assert [p["kind"] for p in record["players"]].count("bot") == 2 and record["final"] is not None
    seat = table.seat_of(alice)
    mine = [move.key() for move in table.moves]
    in_record = [("bid", b["seat"], b["bid"], b["blind"]) for hand in record["hands"] for b in hand["bids"]
                 if b["seat"] == seat]
    plays = [move for move in record_moves(record) if move[0] == "play" and move[1] == seat]
    assert [m for m in mine if m[0] == "bid"] == in_record and [m for m in mine if m[0] == "play"] == plays
    winners = [record["players"][s]["name"] for s in record["final"]["winners"]]
    assert all(w in over.content.splitlines()[0] for w in winners)
