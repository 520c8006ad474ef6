"""What the trust issue found, each as a regression test: a failed save never splits memory from
disk, owed posts survive a crash, idle lobbies close, games stay in their own server."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys

import pytest

from bot.engine import Game, Phase
from bot.service import (
    GameCancelled,
    GameOver,
    GameService,
    HandDealt,
    HandScored,
    LiveGame,
    LobbyChanged,
    Refusal,
    SaveFailed,
    TableChanged,
    TurnStarted,
)
from bot.service.deadlines import Retry
from bot.store import Post
from bot.store.sqlite import store as sqlite_backend
from tests.service.conftest import ALICE, BOB, CAROL, CHANNEL, GUILD, Harness
from tests.service.games import act_once, play_to_the_end, three_player_game, user_at
from tests.store import other_process


def _first_legal(live: LiveGame) -> tuple[int, int]:
    game = live.game
    assert game is not None and game.turn is not None
    return user_at(live, game.turn), game.legal_cards(game.turn)[0]


async def _to_play(service: GameService, live: LiveGame) -> None:
    game = live.game
    assert game is not None
    while game.phase is not Phase.PLAYING:
        await act_once(service, live)
        game = live.game
        assert game is not None


async def _stored_events(harness: Harness, live: LiveGame) -> int:
    stored = await harness.store.load_game(live.game_id)
    assert stored is not None and stored.game is not None
    return stored.game.event_count


@pytest.fixture
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_backend, "WRITER_BUSY_TIMEOUT_MS", 50)


async def test_a_card_that_cant_be_saved_stays_in_the_hand_and_counts_once_the_lock_is_gone(
        harness: Harness, short_busy_timeout: None) -> None:
    service = await harness.boot()
    live = await three_player_game(service)
    await _to_play(service, live)
    user, card = _first_legal(live)
    game = live.game
    assert game is not None
    before, hand = game.event_count, game.hand_of(game.turn or 0)
    published = len(harness.recorder.changes)
    locker = other_process.start("hold-write-lock", str(harness.path))
    try:
        assert locker.stdout is not None and locker.stdout.readline().strip() == "locked"
        with pytest.raises(SaveFailed, match="didn't count"):
            await service.play(live, user, card)
        game = live.game
        assert game is not None
        assert game.event_count == before and card in game.hand_of(game.turn or 0) and game.hand_of(
            game.turn or 0) == hand
        assert await _stored_events(harness, live) == before
        assert len(harness.recorder.changes) == published  # nobody was told of a move that didn't count
    finally:
        assert locker.stdin is not None
        locker.stdin.write("go\n")
        locker.stdin.flush()
        locker.wait(10)
    await service.play(live, user, card)
    assert live.game is not None and live.game.event_count == before + 1
    assert await _stored_events(harness, live) == before + 1


async def test_a_computer_move_that_cant_be_saved_is_retried_and_the_game_goes_on(
        harness: Harness, short_busy_timeout: None) -> None:
    service = await harness.boot(bot_move_delay=1.0)
    live = await service.new_lobby(GUILD, CHANNEL, ALICE, "alice", options={"target": "100"})
    await service.add_bot(live, ALICE, "easy")
    await service.add_bot(live, ALICE, "easy")
    await service.start(live, ALICE)
    while live.game is not None and live.game.turn is not None and not live.seats[live.game.turn].is_bot:
        await act_once(service, live)
    game = live.game
    assert game is not None
    before = game.event_count
    locker = other_process.start("hold-write-lock", str(harness.path))
    try:
        assert locker.stdout is not None and locker.stdout.readline().strip() == "locked"
        await harness.clock.advance(1.0)  # the computer player moves; its save fails
        assert live.game is not None and live.game.event_count == before
        assert isinstance(live.deadline, Retry)
    finally:
        assert locker.stdin is not None
        locker.stdin.write("go\n")
        locker.stdin.flush()
        locker.wait(10)
    for _ in range(5):
        await harness.clock.advance(1.5)
    assert live.game is not None and live.game.event_count > before
    assert await _stored_events(harness, live) == live.game.event_count


def _ends_the_hand(game: Game) -> bool:
    """Whether the card act_once plays next (the first legal one) finishes the hand."""
    if game.phase is not Phase.PLAYING or game.turn is None:
        return False
    probe = Game.from_json(game.to_json())
    probe.play(game.turn, probe.legal_cards(game.turn)[0])
    return probe.phase is not Phase.PLAYING


async def test_a_hands_summary_and_the_next_deal_are_published_after_a_crash(harness: Harness) -> None:
    service = await harness.boot()
    live = await three_player_game(service)
    game = live.game
    assert game is not None
    while not _ends_the_hand(game):
        await act_once(service, live)
        game = live.game
        assert game is not None
    harness.recorder.confirm = False  # the process dies before anything reaches Discord
    await act_once(service, live)  # the hand's last card (or the one after which the rest plays itself)
    assert harness.recorder.of(HandScored)[-1].post_id is not None
    await harness.crash()

    service = await harness.boot()
    resumed = service.game_in_channel(CHANNEL)
    assert resumed is not None and resumed.game is not None
    scored = harness.recorder.of(HandScored)
    dealt = harness.recorder.of(HandDealt)
    assert [s.hand_number for s in scored] == [1] and scored[0].post_id is not None
    assert [d.hand_number for d in dealt] == [2] and resumed.game.hand_number == 2
    assert harness.recorder.of(TableChanged)
    await harness.shutdown()

    await harness.boot()  # delivered now: nothing is repeated
    assert not harness.recorder.of(HandScored) and not harness.recorder.of(HandDealt)


async def test_the_game_over_post_survives_a_crash_after_the_last_card(harness: Harness) -> None:
    service = await harness.boot()
    live = await three_player_game(service)
    harness.recorder.confirm = False
    while live.status == "playing":
        await act_once(service, live)
    [over] = harness.recorder.of(GameOver)
    assert over.post_id is not None
    await harness.crash()

    await harness.boot()
    [again] = harness.recorder.of(GameOver)
    assert again.outcome.changes == over.outcome.changes and again.post_id == over.post_id
    await harness.shutdown()
    await harness.boot()
    assert not harness.recorder.of(GameOver)


async def test_an_idle_lobby_closes_by_itself_even_across_a_restart(harness: Harness) -> None:
    service = await harness.boot()
    live = await service.new_lobby(GUILD, CHANNEL, ALICE, "alice")
    await harness.clock.advance(20 * 60)
    await service.join(live, BOB, "bob")  # activity restarts the clock
    await harness.clock.advance(20 * 60)
    assert live.status == "lobby"
    await harness.shutdown()

    service = await harness.boot()
    resumed = service.game_in_channel(CHANNEL)
    assert resumed is not None and resumed.status == "lobby"
    await harness.clock.advance(11 * 60)
    assert resumed.status == "cancelled" and service.game_in_channel(CHANNEL) is None
    [cancelled] = harness.recorder.of(GameCancelled)
    assert "nobody started it within 30 minutes" in cancelled.reason
    await service.new_lobby(GUILD, CHANNEL, BOB, "bob")  # the channel is free again


async def test_a_button_from_another_server_or_channel_reaches_nothing(harness: Harness) -> None:
    service = await harness.boot()
    live = await service.new_lobby(GUILD, CHANNEL, ALICE, "alice")
    with pytest.raises(Refusal, match="isn't running"):
        service.require_game(live.game_id, GUILD + 1, CHANNEL)
    with pytest.raises(Refusal, match="another channel"):
        service.require_game(live.game_id, GUILD, CHANNEL + 1)
    with pytest.raises(Refusal, match="isn't running"):
        service.require_game(live.game_id, None, CHANNEL)
    assert service.require_game(live.game_id, GUILD, CHANNEL) is live


@pytest.mark.parametrize(("typed", "said"), [
    ("-1", "can't be negative"), ("²", "“²” isn't a bid"), ("٣", "isn't a bid"), ("9" * 5000, "isn't a bid"),
    ("4.5", "isn't a bid"),
])
async def test_bids_people_shouldnt_get_away_with(harness: Harness, typed: str, said: str) -> None:
    service = await harness.boot()
    live = await three_player_game(service)
    game = live.game
    assert game is not None and game.turn is not None
    if game.cards_hidden(game.turn):
        await service.reveal(live, user_at(live, game.turn))
    before = live.game.event_count if live.game else 0
    with pytest.raises(Refusal, match=said) as refused:
        await service.bid(live, user_at(live, game.turn), typed)
    assert len(str(refused.value)) < 200
    assert live.game is not None and live.game.event_count == before


@pytest.mark.parametrize(("changes", "said"), [
    ({"turn_timeout": "abc"}, "turn_timeout can't be “abc”"),
    ({"turn_timeout": "5"}, "turn_timeout can't be 5"),
    ({"mode": "foo"}, "Unknown mode “foo”"),
    ({"mode": "solo", "nil_pass": "one_two"}, "nil_pass is for partners, and solo has none"),
    ({"x" * 3000: "1"}, "Unknown rule option"),
])
async def test_settings_that_would_break_every_new_game_are_refused_now(
        harness: Harness, changes: dict[str, str], said: str) -> None:
    service = await harness.boot()
    await service.update_settings(GUILD, {"jokers": "true"})
    with pytest.raises(Refusal, match=said) as refused:
        await service.update_settings(GUILD, changes)
    assert len(str(refused.value)) < 1000
    assert await harness.store.get_settings(GUILD) == {"mode": "cutthroat", "rules": {"jokers": True}}
    await service.new_lobby(GUILD, CHANNEL, ALICE, "alice")


async def test_a_slow_player_gets_one_mention_a_quick_one_none(harness: Harness) -> None:
    service = await harness.boot()
    await service.update_settings(GUILD, {"turn_ping_delay": 5})
    live = await three_player_game(service)
    game = live.game
    assert game is not None and game.turn is not None
    first = game.turn
    await harness.clock.advance(4)
    assert not harness.recorder.of(TurnStarted)
    await harness.clock.advance(2)
    assert [(t.seat, t.token) for t in harness.recorder.of(TurnStarted)] == [(first, game.event_count)]
    await act_once(service, live)
    await act_once(service, live)  # the next player acts at once: no mention
    await harness.clock.advance(1)
    assert len(harness.recorder.of(TurnStarted)) == 1


async def test_the_next_hand_waits_for_the_pause_after_the_last_trick(harness: Harness) -> None:
    service = await harness.boot(hand_pause=3.0)
    live = await three_player_game(service)
    game = live.game
    assert game is not None
    while game.hand_number == 1 and not game.hand_logs[0].result:
        await act_once(service, live)
        game = live.game
        assert game is not None
    assert game.phase is Phase.DEALING and [d.hand_number for d in harness.recorder.of(HandDealt)] == [1]
    await harness.clock.advance(2.9)
    assert game.phase is Phase.DEALING
    await harness.clock.advance(0.2)
    assert game.hand_number == 2 and [d.hand_number for d in harness.recorder.of(HandDealt)] == [1, 2]


async def test_a_running_games_record_shows_only_what_the_asker_may_see(harness: Harness) -> None:
    service = await harness.boot()
    live = await three_player_game(service)
    await _to_play(service, live)
    await act_once(service, live)
    game = live.game
    assert game is not None
    _, mine = await service.record(GUILD, CHANNEL, ALICE)
    record = mine.document
    hand = record["hands"][-1]
    assert mine.private  # the asker's own cards: for the asker alone
    assert "seed" not in record and hand["set_aside"] == []
    assert list(hand["deal"]) == [str(live.seat_of(ALICE))]
    assert hand["tricks"][-1]["winner"] is None and len(hand["tricks"][-1]["plays"]) == 1
    _, watcher = await service.record(GUILD, CHANNEL, 99)
    assert watcher.document["hands"][-1]["deal"] == {} and not watcher.private
    with pytest.raises(Refusal, match="no game"):
        await service.record(GUILD + 1, CHANNEL, ALICE, live.game_id)


async def test_rematch_opens_the_same_game_again_and_starts_when_everyone_is_back(harness: Harness) -> None:
    service = await harness.boot(bot_move_delay=0.5)
    live = await service.new_lobby(GUILD, CHANNEL, ALICE, "alice", options={"target": "100", "mercy": "100",
                                                                            "nil": "off"})
    await service.join(live, BOB, "bob")
    await service.add_bot(live, ALICE, "easy")
    await service.start(live, ALICE)
    await play_to_the_end(harness, service, live, 0.5)
    score = await service.last_game(GUILD, CHANNEL)
    assert score.game is not None and score.game.is_over
    again, opened = await service.rematch(live.game_id, GUILD, CHANNEL, BOB, "bob")
    assert opened and again.status == "lobby" and again.rules == live.rules and again.host_id == BOB
    assert [(s.name, s.bot_level) for s in again.seats] == [("bob", None), ("Bot 1 (easy)", "easy")]
    with pytest.raises(Refusal, match="isn't one I can set up again here"):
        await service.rematch(live.game_id, GUILD + 1, CHANNEL + 5, CAROL, "carol")
    same, opened = await service.rematch(live.game_id, GUILD, CHANNEL, ALICE, "alice")
    assert same is again and not opened and again.status == "playing"


async def test_everyone_pressing_rematch_at_once_gets_one_lobby_and_a_seat_each(harness: Harness) -> None:
    service = await harness.boot()
    live = await three_player_game(service, target="100", mercy="100", nil="off")
    await play_to_the_end(harness, service, live, 0.5)
    clicks = await asyncio.gather(*(service.rematch(live.game_id, GUILD, CHANNEL, user, name)
                                    for user, name in ((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol"))))
    lobbies = {id(lobby) for lobby, _ in clicks}
    assert len(lobbies) == 1 and [opened for _, opened in clicks].count(True) == 1
    rematch = clicks[0][0]
    assert sorted(s.user_id for s in rematch.seats if s.user_id) == sorted((ALICE, BOB, CAROL))
    assert rematch.status == "playing"


async def test_a_lobby_message_is_brought_up_to_date_once_it_is_known(harness: Harness) -> None:
    """A join that came while the lobby's message was being posted had no message to edit."""
    service = await harness.boot()
    live = await service.new_lobby(GUILD, CHANNEL, ALICE, "alice")
    await service.join(live, BOB, "bob")
    harness.recorder.changes.clear()
    await service.set_lobby_message(live, 12345)
    assert harness.recorder.changes == [(live.game_id, LobbyChanged())]


DISK_FULL_GAME = """
import asyncio, json, resource, signal, sys, random
from pathlib import Path
from bot.service import GameService, SaveFailed
from bot.store import open_store
from tests.service.games import act_once, three_player_game
from tests.service.conftest import Recorder

async def main(path):
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    store = await open_store(f"sqlite:///{path}")
    service = GameService(store, Recorder(), rng=random.Random(3))
    live = await three_player_game(service)
    for _ in range(4):
        await act_once(service, live)
    before = live.game.event_count
    log = Path(f"{path}-wal")
    _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (log.stat().st_size, hard))
    report = {"before": before}
    try:
        for _ in range(3):
            await act_once(service, live)
        report["refused"] = None
    except SaveFailed as failure:
        report["refused"] = str(failure)
    report["memory"] = live.game.event_count
    report["stored"] = (await store.load_game(live.game_id)).game.event_count
    resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
    await act_once(service, live)
    report["memory_after"] = live.game.event_count
    report["stored_after"] = (await store.load_game(live.game_id)).game.event_count
    await service.close()
    await store.close()
    print(json.dumps(report))

asyncio.run(main(sys.argv[1]))
"""


def test_a_full_disk_refuses_the_move_and_memory_follows_the_disk(tmp_path: pytest.TempPathFactory) -> None:
    db = tmp_path / "full.db"  # type: ignore[operator]
    done = subprocess.run([sys.executable, "-c", DISK_FULL_GAME, str(db)], capture_output=True, text=True,
                          timeout=60, cwd=other_process.ROOT)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["refused"] is not None and "didn't count" in report["refused"]
    assert report["memory"] == report["stored"] >= report["before"]
    assert report["memory_after"] == report["stored_after"] == report["stored"] + 1


async def test_refusals_and_choices_never_name_a_card_someone_else_holds(harness: Harness) -> None:
    """What a player can learn by asking: autocomplete offers only their own legal cards, and a
    refusal names at most the card they typed."""
    from bot.engine import card_code, card_label

    service = await harness.boot()
    live = await three_player_game(service, target="100", mercy="100")
    labels = re.compile(r"(?:10|[2-9JQKA])[♠♥♦♣]")
    for _ in range(60):
        game = live.game
        if game is None or live.status != "playing":
            break
        for seat in range(3):
            user = user_at(live, seat)
            others = {card_label(c) for s in range(3) if s != seat for c in game.hand_of(s)}
            mine = set(service.card_choices(live, user))
            assert mine <= set(game.hand_of(seat))
            for card in sorted(c for s in range(3) if s != seat for c in game.hand_of(s))[:3]:
                with pytest.raises(Refusal) as refused:
                    await service.play(live, user, card_code(card))
                named = set(labels.findall(str(refused.value)))
                assert named <= {card_label(card)} and not (named - {card_label(card)}) & others
        await act_once(service, live)


async def test_an_owed_post_this_version_cant_rebuild_is_dropped_not_misread(harness: Harness) -> None:
    service = await harness.boot()
    live = await three_player_game(service)
    await harness.store.add_posts(live.game_id, [Post("from_a_newer_bot", {"x": 1})])
    await harness.shutdown()
    await harness.boot()
    assert not harness.recorder.of(GameCancelled) and not harness.recorder.of(GameOver)
    await harness.recorder.settle()
    assert [p.kind for p in await harness.store.pending_posts()] == []
