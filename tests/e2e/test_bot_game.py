"""Three people play a whole cutthroat game through Discord, by commands and by buttons."""

from __future__ import annotations

from tests.e2e.conftest import Spades, record_moves, start_game
from tests.record_check import check_record


async def test_three_players_play_a_whole_game(spades: Spades) -> None:
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol], target=50, mercy=50)
    assert table.lobby is not None and "Target 50 · mercy=50" in table.lobby.content
    assert sorted(table.seat_names) == ["Alice", "Bob", "Carol"]

    await table.play_moves()

    over = await spades.fake.wait_for_message(channel, lambda m: m.content.startswith("🏆"))
    record = await spades.record(alice, channel)
    check_record(record)
    assert record["game_id"] == table.game_id and record["final"] is not None
    assert record_moves(record) == table.acknowledged()
    ways = {(move.kind, move.how) for move in table.moves}
    assert {("bid", "dm"), ("play", "command"), ("play", "table"), ("play", "panel")} <= ways, ways

    # What everyone sees at the end: the winner, the final scores, the summary, the final table.
    names = [player["name"] for player in record["players"]]
    winners = [names[seat] for seat in record["final"]["winners"]]
    assert over.content.splitlines()[0].startswith(f"🏆 **{' & '.join(winners)}**")
    for name, score in zip(names, record["final"]["scores"], strict=True):
        assert f"{name}: {score}" in over.content
    assert "Leaderboard:" in over.content
    summary = await spades.fake.wait_for_message(channel, lambda m: m.content.startswith("**Hand 1 scored**"))
    assert all(name in summary.content for name in names)
    await table.wait_table(lambda m: "The game is over." in m.content and not m.buttons(), "the final table")

    board = await spades.command(bob, channel, "leaderboard")
    assert not board.ephemeral
    assert any(board.content.splitlines()[1].startswith(f"#1 **{winner}**") for winner in winners), board.content
    stats = await spades.command(carol, channel, "stats", user=alice)
    assert stats.content.startswith(f"**Alice** — 1 games, {int('Alice' in winners)} wins")
