"""Three people play a whole cutthroat game through Discord, by their panels and by commands."""

from __future__ import annotations

from tests.e2e.helpers.record import record_moves
from tests.e2e.helpers.server import Spades, game_over_message
from tests.e2e.helpers.table import start_game
from tests.record_check import check_record


async def test_three_players_play_a_whole_game(spades: Spades) -> None:
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol], target=50, mercy=50)
    rules = await spades.command(bob, channel, "rules")
    assert rules.ephemeral and "**Cutthroat** — 3 players" in rules.content and "`jokers`" in rules.content
    assert "nil_tricks_help_partner" not in rules.content and "+10 a trick bid" in rules.content
    helped = await spades.command(carol, channel, "help")
    assert helped.ephemeral and "**My hand**" in helped.content and "/spades new" in helped.content
    assert table.lobby is not None and "To **50** points · mercy=50" in table.lobby.content
    assert sorted(table.seat_names) == ["Alice", "Bob", "Carol"]

    await table.play_moves()

    over = await game_over_message(spades, channel)
    record = await spades.record(alice, channel)
    check_record(record)
    assert record["game_id"] == table.game_id and record["final"] is not None
    assert record_moves(record) == table.acknowledged()
    ways = {(move.kind, move.how) for move in table.moves}
    assert {("bid", "panel"), ("play", "command"), ("play", "panel")} <= ways, ways

    # What everyone sees at the end: the winner, the standings, the chart, a Rematch button.
    names = [player["name"] for player in record["players"]]
    winners = [names[seat] for seat in record["final"]["winners"]]
    assert over.content.splitlines()[0] == f"## 🏆 {' & '.join(winners)} wins!"
    for name, score in zip(names, record["final"]["scores"], strict=True):
        assert f"**{name}** — {str(score).replace('-', '−')}\u00a0pts" in over.content  # a real minus sign
    assert "rating provisional (1 of 5\u00a0games)" in over.content
    [chart] = over.attachments
    assert chart.filename == "scores.png" and chart.data.startswith(b"\x89PNG")
    assert f"spades:rematch:{table.game_id}" in over.custom_ids()
    summary = await spades.fake.wait_for_message(channel, lambda m: m.text.startswith("### Hand 1 scored"))
    assert all(name in summary.text for name in names) and "Last trick:" in summary.text
    last = len(record["hands"])  # the table of the last hand became its summary: no buttons left to press
    final = await spades.fake.wait_for_message(channel, lambda m: m.text.startswith(f"### Hand {last} scored"))
    assert not final.buttons() and table.find_table() is None

    board = await spades.command(bob, channel, "leaderboard")
    assert not board.ephemeral
    assert any(board.content.splitlines()[1].startswith(f"#1 **{winner}**") for winner in winners), board.content
    stats = await spades.command(carol, channel, "stats", user=alice)
    assert stats.content.startswith(f"**Alice** — 1\u00a0game, {int('Alice' in winners)}\u00a0win")
    score = await spades.command(carol, channel, "score")  # still there for the channel's last game
    assert "final scores" in score.content and "Hand" in score.content
