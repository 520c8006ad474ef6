"""What goes wrong around a game: the table deleted by a moderator, a dropped gateway connection,
rate limits, the table posted again; a game cancelled by its host; a lobby whose message never
made it to the channel."""

from __future__ import annotations

import asyncio
import time

from tests.e2e.helpers.record import record_moves
from tests.e2e.helpers.server import Spades, game_over_message, refused
from tests.e2e.helpers.table import TURN_LINE, Table, Turn, game_id_of, start_game
from tests.record_check import check_record


async def test_game_goes_on_through_deleted_table_dropped_gateway_and_rate_limits(spades: Spades) -> None:
    fake = spades.fake
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol], target=50, mercy=50)
    await table.play_moves(4)

    # A moderator deletes the table: the next move brings it back, buttons and all.
    deleted = table.table_message()
    fake.delete_message(deleted)
    await table.play_moves(1)
    posted = await table.wait_table(lambda m: m.id != deleted.id and "▶ **" in m.text, "the table, again")
    assert table.hand_button in posted.custom_ids()

    # The gateway connection drops; interactions sent meanwhile are answered after the RESUME.
    await fake.drop_gateway()
    await table.play_moves(3)
    await fake.wait_for_resume()

    # Discord rate-limits the table edits and an acknowledgement: retried, nothing lost.
    fake.rate_limit_next("PATCH", "/channels/{channel_id}/messages/{message_id}", retry_after=0.3, times=2)
    fake.rate_limit_next("POST", "/interactions/{interaction_id}/{token}/callback", retry_after=0.1)
    await table.play_moves(6)

    # /spades table posts the table at the bottom; the old one is removed.
    answer = await spades.command(bob, channel, "table")
    assert answer.ephemeral and answer.content == "Here's the table."
    again = await table.wait_table(lambda m: m.id != posted.id and "▶ **" in m.text, "the table reposted")
    await fake.wait_until(lambda: posted.deleted, what="the old table to go")
    assert again.custom_ids()

    await table.play_moves()
    await game_over_message(spades, channel)
    record = await spades.record(alice, channel)
    check_record(record)
    assert record_moves(record) == table.acknowledged()
    assert any(r.status == 429 for r in fake.requests)


async def test_host_cancels_a_game_and_nothing_counts(spades: Spades) -> None:
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol], target=50, mercy=50)
    await table.play_moves(5)

    request = await spades.command(alice, channel, "cancel")  # once dealt, the others must agree
    for user in (bob, carol):
        await spades.click(user, request, f"spades:agree_cancel:{table.game_id}")
    assert request.content == "Everyone agreed: the game is cancelled."
    notice = await spades.fake.wait_for_message(channel, lambda m: "was cancelled" in m.content)
    assert "Nothing counts toward the leaderboard" in notice.content
    await table.wait_table(lambda m: not m.buttons(), "the table without buttons")
    refused(await spades.command(bob, channel, "bid", bid="3"), "There's no game in this channel.")

    record = await spades.record(carol, channel, table.game_id)
    check_record(record)
    assert record["final"]["ended"] == "cancelled"
    assert record_moves(record) == table.acknowledged()  # the unfinished trick included
    board = await spades.command(bob, channel, "leaderboard")
    assert board.content.startswith("No finished cutthroat games")

    lobby = await spades.command(bob, channel, "new")  # the channel is free again
    assert "new game" in lobby.content and "1. Bob (host)" in lobby.content


async def test_a_lobby_whose_message_never_arrived_can_be_shown_and_used(spades: Spades) -> None:
    fake = spades.fake
    alice, bob = spades.member("Alice"), spades.member("Bob")
    channel = spades.channel("spades")
    # Discord refuses the answer to /spades new: the lobby exists, but nobody ever saw it.
    fake.fail_requests("POST", "/interactions/{interaction_id}/{token}/callback", 400, 50035, times=1)
    failed = await spades.command(alice, channel, "new")
    assert failed.ephemeral and "new game" not in failed.content
    refused(await spades.command(bob, channel, "new"), "There's already a lobby in this channel.")

    answer = await spades.command(bob, channel, "table")
    assert answer.ephemeral and answer.content == "Here's the game."
    lobby = await fake.wait_for_message(channel, lambda m: "new game" in m.content and not m.ephemeral)
    table = Table(spades, channel, [alice, bob], game_id=game_id_of(lobby))
    assert await spades.click(bob, lobby, f"spades:lobby:{table.game_id}:join") is lobby
    assert "2. Bob" in lobby.content


async def test_a_panel_refused_by_rate_limits_for_ten_seconds_is_current_again_soon_after(spades: Spades) -> None:
    """Discord answers 429 to every edit of one player's panel for ten seconds while the others
    play on to her turn. The panel is not given up: within two seconds of the storm's end it shows
    her turn (it used to stay stale for good, still looking live)."""
    fake = spades.fake
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol], target=300)
    await table.play_moves(3)  # the bids
    while True:  # until Alice has played by her panel and her turn has passed
        turn = await table.whose_turn()
        assert turn is not None
        await table.act(turn, "panel" if turn.user is alice else None)
        if turn.user is alice and table.phase_in(table.panels[alice.id]) is None:
            break
    click = max((i for i in fake.interactions.values() if i.user is alice and i.type == 3), key=lambda i: i.id)
    storm = fake.force_429_on_token(click.token, seconds=10.0, retry_after=1.0)  # her panel's edits

    def turn_on_table() -> str | None:
        match = TURN_LINE.search(table.table_message().text)
        return match["name"] if match is not None else None

    def next_step() -> Turn | str | None:
        """Someone else's turn on their panel, or Alice's on a table brought up to date since the
        last move (her panel can't say so yet)."""
        shown = table.whose_turn_now()
        if shown is not None:
            return shown
        table_now = table.table_message()
        return "Alice" if turn_on_table() == "Alice" and len(table_now.history) > versions else None

    versions = len(table.table_message().history)
    while isinstance(step := await fake.wait_until(next_step, 10, "the next turn"), Turn):
        assert step.user is not alice  # Bob and Carol play on while Alice's panel is refused
        versions = len(table.table_message().history)
        await table.act(step)
    panel = table.panels[alice.id]
    assert table.phase_in(panel) is None  # her turn, and her panel can't say so yet
    await asyncio.sleep(max(0.0, storm.until - time.monotonic()))  # the storm ends
    assert storm.hits >= 3  # the bot kept trying, a second apart as told, never giving the panel up

    def current() -> bool:
        return turn_on_table() == "Alice" and table.phase_in(panel) == "play"

    await fake.wait_until(current, 2.0, "Alice's panel to show the game as it is",
                          lambda: f"panel: {panel.text}\ntable: {table.table_message().text}")
