"""What goes wrong around a game: the table deleted by a moderator, a dropped gateway connection,
rate limits, the table posted again; a game cancelled by its host; a lobby whose message never
made it to the channel."""

from __future__ import annotations

from tests.e2e.conftest import (
    TURN_LINE,
    Spades,
    Table,
    game_id_of,
    game_over_message,
    record_moves,
    refused,
    start_game,
)
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

    answer = await spades.command(alice, channel, "cancel")
    assert answer.ephemeral and answer.content == "Game cancelled."
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
    play. The panel is not given up: within two seconds of the storm's end it shows the game as it
    is (it used to stay stale for good, still looking live)."""
    fake = spades.fake
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol], target=300)
    await table.play_moves(3)  # the bids
    while (turn := await table.whose_turn()) is not None and turn.user is not alice:
        await table.act(turn)
    assert turn is not None
    await table.act(turn, "panel")  # Alice's panel is now edited through this click's token
    click = max((i for i in fake.interactions.values() if i.user is alice and i.type == 3), key=lambda i: i.id)
    panel_edits = f"/webhooks/{fake.application_id}/{click.token}/messages/@original"
    fake.rate_limit_next("PATCH", panel_edits, retry_after=1.0, times=10)

    for _ in range(2):  # Bob and Carol play while Alice's panel is refused
        turn = await table.whose_turn()
        assert turn is not None and turn.user is not alice
        await table.act(turn)

    def storm_over() -> bool:
        return sum(1 for r in fake.requests if r.path.endswith(panel_edits) and r.status == 429) == 10

    await fake.wait_until(storm_over, 30, "ten 429s on Alice's panel")
    panel = table.panels[alice.id]

    def current() -> bool:
        match = TURN_LINE.search(table.table_message().text)
        if match is None:
            return False
        if match["name"] == "Alice":
            return table.phase_in(panel) == "play"
        return f"Waiting for **{match['name']}**" in panel.text

    await fake.wait_until(current, 2.0, "Alice's panel to show the game as it is",
                          lambda: f"panel: {panel.text}\ntable: {table.table_message().text}")
