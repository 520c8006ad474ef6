"""A database holding one of everything the bot keeps, built through the store's own API: games in
every status (one played to the end and rated, one mid-hand with posts owed), seasons (one ended with
its podium owed, one running with a rhythm), hints, a review, server settings and a tournament with
its events, a table and a post owed."""

from __future__ import annotations

import time
from typing import Any

from bot.engine import Mode
from bot.store import HintTaken, Post, Store, open_store
from tests.store.helpers import GUILD, channel_of, finished_game, random_game, result, seats_for, store_game

CHANNEL = 31
GAMES = ("full", "quick", "mid", "lobby", "gone")


async def fill(store: Store) -> None:
    now = time.time()
    spring = await store.start_season(GUILD, "Spring", channel_id=CHANNEL, started_at=now - 100, started_by=5)
    full = random_game("full", "cutthroat", actions=5_000, seed=1, target=100)  # a seed whose game ends
    assert full.is_over
    await store_game(store, full)
    await store.add_hint("full", HintTaken(0, 1, "bid", None, now - 90))
    await store.add_hint("full", HintTaken(1, 2, "play", 3, now - 80))
    await store.finish_game("full", [result(0, "1", 510, 1), result(1, "2", 300, 2), result(2, "3", -40, 3)],
                            posts=[Post("game_over", {"winner": "player1"})])
    await store.save_review("full", 0, 1, "You bid 4 with three sure tricks.")
    await store.end_season(spring.season_id, now - 50, posts=[Post("podium", {"season": "Spring"})])
    await store.start_season(GUILD, "Summer", channel_id=CHANNEL, started_at=now - 40, ends_at=now + 10**6)
    await store.set_season_rhythm(GUILD, "monthly", CHANNEL)
    await finished_game(store, "quick", "solo", [result(0, "1", 250, 1), result(1, "2", 100, 2),
                                                  result(2, "bot:hard", 90, 3), result(3, "4", -10, 4)])
    await store_game(store, random_game("mid", "partners", actions=40, seed=5), seats_for("partners", bots=[1]))
    await store.add_posts("mid", [Post("table", {"refresh": 1}), Post("hand_dealt", {"hand": 2})])
    await store.create_game("lobby", guild_id=GUILD, channel_id=channel_of("lobby"), mode=Mode.SOLO.value,
                            rules={"target": 300}, host_id=1, seats=seats_for("solo")[:2])
    await store_game(store, random_game("gone", "cutthroat", actions=8, seed=9))
    await store.cancel_game("gone", posts=[Post("cancelled", {"why": "everyone left"})])
    await store.update_settings(GUILD, {"bot_move_delay": 2.5, "mode": "partners"})
    await store.create_tournament("cup", guild_id=GUILD, channel_id=CHANNEL + 1, organiser_id=9,
                                  setup={"mode": "cutthroat", "rounds": 3, "seed": 5}, deadline=now + 600)
    await store.append_tournament_events(
        "cup", 1, [{"type": "join", "entrant": "1", "name": "ann", "members": ["1"]},
                   {"type": "join", "entrant": "2", "name": "bo", "members": ["2"]}],
        posts=[Post("standings", {"round": 0})])
    await store.set_tournament_table("cup", 1, 1, thread_id=77, game_id="mid")


async def build(url: str) -> None:
    store = await open_store(url)
    try:
        await fill(store)
    finally:
        await store.close()


async def what_players_see(url: str) -> dict[str, Any]:
    """Everything the bot shows or acts on, read through the store: boards, stats, seasons, games
    (replayed), what is owed to Discord, settings, hints, reviews, the tournament."""
    store = await open_store(url)
    try:
        seasons = await store.seasons(GUILD)
        recovery = await store.recover()
        return {
            "boards": [await store.leaderboard(GUILD, mode, sort, min_games=1, season_id=season)
                       for mode in ("cutthroat", "solo") for sort in ("rating", "wins", "points")
                       for season in (None, *(s.season_id for s in seasons))],
            "stats": [await store.player_stats(GUILD, user) for user in (1, 2, 3, 4)],
            "history": await store.rating_history(GUILD, 1),
            "seasons": seasons,
            "rhythm": await store.season_rhythm(GUILD),
            "records": [await store.game_record(game_id) for game_id in GAMES],
            "games": [await store.get_game(game_id) for game_id in GAMES],
            "recovered": sorted(stored.info.game_id for stored in recovery.games),
            "posts": await store.pending_posts(),
            "season_posts": await store.pending_season_posts(),
            "tournament_posts": await store.pending_tournament_posts(),
            "tournament": await store.load_tournament("cup"),
            "settings": await store.get_settings(GUILD),
            "hints": await store.game_hints("full"),
            "review": await store.review("full", 0, 1),
        }
    finally:
        await store.close()
