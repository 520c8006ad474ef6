"""The one async interface the service and Discord layers use; each backend implements it.

Two backends implement it over the same SQL (`bot.store.sqlite`, `bot.store.postgresql`).

Errors: every method raises only `StoreError` subclasses for anything the database, its driver or
the operating system does (`StoreUnavailable` when it can't be used right now, `DatabaseGone` once
a SQLite file was deleted or replaced), and `ValueError`/`TypeError` for the caller's own mistakes; a
write that raises has saved nothing (see `bot.store.errors`).

The outbox: a write that owes posts to Discord (a hand summary, new deals, the game-over post…)
passes them as `Post`s and they are saved in the same transaction, so a crash right after the save
can't lose them. Whoever delivers them reads `pending_posts()` (after a restart too) and reports
them with `posts_delivered`; a post is delivered at least once. A season's podium is owed the same
way, by the transaction that ends the season (`end_season`, `pending_season_posts`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from bot.store.models import (
    UNCHANGED,
    Deadline,
    FinishOutcome,
    GameInfo,
    GameSummary,
    HintTaken,
    LeaderboardEntry,
    LeaderboardSort,
    PendingPost,
    PlayerStats,
    Post,
    RatingPoint,
    Recovery,
    RhythmDue,
    Season,
    SeasonPost,
    SeasonRhythm,
    Seat,
    SeatResult,
    ShardSet,
    StoredGame,
    StoredTournament,
    TournamentInfo,
    TournamentPost,
    TournamentStatus,
    Unchanged,
)


class Store(Protocol):
    """Durable state: every method that writes has committed before it returns."""

    async def close(self) -> None:
        """Release the database (and any shards claimed); the store is unusable afterwards."""

    async def claim_shards(self, shards: ShardSet) -> None:
        """Serve these shards for as long as the store is open: raises ShardInUseError, claiming
        none, if another bot process serves any of them. (SQLite serves one process anyway.)"""

    # -- a game's life: lobby -> playing -> finished | cancelled --------------------------------

    async def create_game(
        self,
        game_id: str,
        *,
        guild_id: int,
        channel_id: int,
        mode: str,
        rules: Mapping[str, Any],
        host_id: int | None,
        seats: Sequence[Seat] = (),
    ) -> GameInfo:
        """Open a lobby. Raises ChannelBusyError if the channel has a lobby or game in play already,
        GameStateError if the id is taken."""

    async def set_seats(self, game_id: str, seats: Sequence[Seat]) -> None:
        """Replace who sits where (joins and leaves in the lobby, a computer player taking over later)."""

    async def start_game(self, game_id: str, setup: Mapping[str, Any]) -> None:
        """Leave the lobby: keep the engine's `setup_json()`; events may be appended from now on."""

    async def set_lobby_message(self, game_id: str, message_id: int | None) -> None:
        """Remember the lobby message so its buttons can be re-attached after a restart."""

    async def set_table_message(self, game_id: str, message_id: int | None) -> None:
        """Remember the table message so it can be edited after a restart."""

    async def set_deadline(self, game_id: str, deadline: Deadline | None) -> None:
        """Set or clear the game's pending turn timer."""

    async def append_event(self, game_id: str, seq: int, event: Mapping[str, Any]) -> None:
        """Store the game's `seq`-th accepted action (counting from 1) in its own transaction.

        Raises DuplicateEventError or EventGapError unless `seq` is exactly the next one, and
        GameStateError unless the game is playing; nothing is written then.
        """

    async def append_events(
        self,
        game_id: str,
        first_seq: int,
        events: Sequence[Mapping[str, Any]],
        deadline: Deadline | Unchanged | None = UNCHANGED,
        posts: Sequence[Post] = (),
    ) -> list[int]:
        """Store one accepted action: its events from `first_seq` on, unless UNCHANGED the game's turn
        deadline, and the posts it owes, all or nothing, committed before returning (the checks of
        `append_event`; a refused action stores none of its posts). Returns the posts' ids, in order."""

    async def finish_game(
        self, game_id: str, results: Sequence[SeatResult], posts: Sequence[Post] = ()
    ) -> FinishOutcome:
        """Store results, update ratings, mark the game finished and keep `posts`, in one transaction.

        Idempotent: a second call changes nothing (adds no posts) and returns what the first one did.
        """

    async def forfeit_seat(
        self, game_id: str, seats: Sequence[Seat], standing: Sequence[SeatResult], seat: int
    ) -> None:
        """A player left a running game: save the new `seats` and `seat`'s result from `standing`
        (every seat's result as if the game ended now), rated, in one transaction. It counts
        whatever becomes of the game; finishing the game later writes the other seats only.
        Raises GameStateError if the game isn't in play or the seat has forfeited already."""

    async def cancel_game(self, game_id: str, posts: Sequence[Post] = ()) -> list[int]:
        """End the game without a result for those still seated (results of players who left
        stand) and keep `posts`, in one transaction; the posts' ids. Cancelling a cancelled game
        changes nothing and adds no posts."""

    # -- the outbox -----------------------------------------------------------------------------

    async def add_posts(self, game_id: str, posts: Sequence[Post]) -> list[int]:
        """Keep posts owed by something that saved nothing else (a table refresh, say), in any status;
        their ids."""

    async def pending_posts(self, shards: ShardSet | None = None) -> list[PendingPost]:
        """Every post not yet reported delivered (of games on `shards`, if given), whatever its
        game's status; a game's posts in the order they were saved."""

    async def posts_delivered(self, post_ids: Sequence[int]) -> None:
        """Forget these posts; ids already forgotten or never known are ignored."""

    # -- reading games back ---------------------------------------------------------------------

    async def get_game(self, game_id: str) -> GameInfo | None:
        """A game's row and seats, without replaying it."""

    async def load_game(self, game_id: str) -> StoredGame | None:
        """A game rebuilt from its events. Raises DamagedGameError if its rows cannot be replayed."""

    async def recover(self, shards: ShardSet | None = None) -> Recovery:
        """Every unfinished game (on `shards`, if given) rebuilt for start-up; unreadable ones are
        reported, not raised.

        A playing game may already be over (the process stopped between its last event and
        `finish_game`); the caller finishes it.
        """

    async def game_record(self, game_id: str) -> dict[str, Any] | None:
        """The game as a `spades-record/1` document; None if unknown or never started."""

    async def recent_games(self, guild_id: int, channel_id: int, limit: int = 10) -> list[GameSummary]:
        """A channel's games, newest first."""

    # -- leaderboards and stats -----------------------------------------------------------------

    async def leaderboard(
        self,
        guild_id: int,
        mode: str,
        sort: LeaderboardSort = "rating",
        *,
        limit: int = 10,
        offset: int = 0,
        min_games: int = 5,
        season_id: int | None = None,
    ) -> list[LeaderboardEntry]:
        """Humans on a server's leaderboard for a mode: of all time, or of one of its seasons.

        `rating` sorts by ordinal, `wins` by games won, `win_rate` by wins per game among players
        with at least `min_games`, `points` by the total of final scores. Ties share a rank.
        """

    async def player_stats(
        self, guild_id: int, user_id: int, mode: str | None = None, season_id: int | None = None
    ) -> PlayerStats:
        """A player's record on a server, in one mode or all of them, of all time or of one season."""

    async def rating_history(self, guild_id: int, user_id: int, mode: str | None = None) -> list[RatingPoint]:
        """A player's ratings after each of their finished games on a server, oldest first."""

    # -- seasons --------------------------------------------------------------------------------

    async def start_season(
        self,
        guild_id: int,
        name: str,
        *,
        channel_id: int,
        started_at: float,
        ends_at: float | None = None,
        started_by: int | None = None,
        rhythm: SeasonRhythm | None = None,
    ) -> Season:
        """Start a season; games finished from now on are rated in it too. Raises
        SeasonConflictError, writing nothing, if one is running on the server already or one of the
        server's seasons has this name (names are told apart without regard to case)."""

    async def end_season(self, season_id: int, ended_at: float, posts: Sequence[Post] = ()) -> Season | None:
        """End a running season as of `ended_at` and keep the posts it owes (its podium), in one
        transaction; no game is rated in it afterwards. None, adding no posts, if it had ended."""

    async def seasons(self, guild_id: int) -> list[Season]:
        """A server's seasons, the newest first."""

    async def due_seasons(self, now: float, shards: ShardSet | None = None) -> list[Season]:
        """Running seasons (of servers on `shards`, if given) whose planned end is `now` or earlier."""

    async def next_season_end(self, shards: ShardSet | None = None) -> float | None:
        """The earliest planned end of a running season (on `shards`, if given), if any."""

    async def set_season_rhythm(self, guild_id: int, rhythm: SeasonRhythm | None, channel_id: int | None) -> None:
        """Start a season every calendar month (podiums in `channel_id`), or stop (None)."""

    async def season_rhythm(self, guild_id: int) -> SeasonRhythm | None:
        """The server's rhythm, if it has one."""

    async def rhythms_due(self, name: str, shards: ShardSet | None = None) -> list[RhythmDue]:
        """Servers with a rhythm (on `shards`, if given) with no season running, nor one named `name`."""

    async def pending_season_posts(self, shards: ShardSet | None = None) -> list[SeasonPost]:
        """Every post owed by a season (of servers on `shards`, if given) not yet reported delivered,
        in the order they were saved; `posts_delivered` forgets them."""

    # -- hints and reviews ----------------------------------------------------------------------

    async def add_hint(self, game_id: str, hint: HintTaken) -> None:
        """Note that a seat asked for a hint (finishing the game counts them into its results)."""

    async def game_hints(self, game_id: str) -> list[HintTaken]:
        """The hints taken in a game, in the order they were asked for."""

    async def save_review(self, game_id: str, seat: int, version: int, text: str) -> None:
        """Keep a seat's review of a finished game (replacing an older reviewer's)."""

    async def review(self, game_id: str, seat: int, version: int) -> str | None:
        """A kept review by this version of the reviewer, if any."""

    # -- tournaments ------------------------------------------------------------------------------

    async def create_tournament(self, tournament_id: str, *, guild_id: int, channel_id: int, organiser_id: int,
                                setup: Mapping[str, Any], deadline: float | None = None) -> TournamentInfo:
        """Open a tournament for sign-up (`deadline`: when sign-up closes, if it does by itself).
        Raises ChannelBusyError if the channel has an open one already, GameStateError if the id is
        taken; nothing is written then."""

    async def set_tournament_message(self, tournament_id: str, message_id: int | None) -> None:
        """Remember the sign-up message, so its buttons and threads are found after a restart."""

    async def append_tournament_events(
        self, tournament_id: str, first_seq: int, events: Sequence[Mapping[str, Any]], posts: Sequence[Post] = (),
        status: TournamentStatus | None = None, deadline: float | Unchanged | None = UNCHANGED,
    ) -> list[int]:
        """Store a tournament's events from `first_seq` on (counting from 1), the posts they owe and,
        if given, the status and the deadline (what is due next) they lead to, in one transaction;
        the posts' ids. Raises DuplicateEventError or EventGapError unless `first_seq` is the next
        one, GameStateError unless the tournament is open; nothing is written then."""

    async def set_tournament_table(self, tournament_id: str, round_number: int, table: int, *,
                                   thread_id: int | None = None, game_id: str | None = None) -> None:
        """Note where a table of a round plays, as soon as its thread or game exists (None keeps
        what was stored)."""

    async def load_tournament(self, tournament_id: str) -> StoredTournament | None:
        """A tournament's row, events and tables; raises DamagedGameError if its rows can't be read."""

    async def open_tournaments(self, shards: ShardSet | None = None) -> list[StoredTournament]:
        """Every open tournament (of servers on `shards`, if given), oldest first, for start-up."""

    async def latest_tournament(self, guild_id: int, channel_id: int) -> StoredTournament | None:
        """The channel's newest tournament, open or not."""

    async def pending_tournament_posts(self, shards: ShardSet | None = None) -> list[TournamentPost]:
        """Every post owed by a tournament (of servers on `shards`, if given), in the order saved."""

    async def tournament_posts_delivered(self, post_ids: Sequence[int]) -> None:
        """Forget these tournament posts; unknown ids are ignored."""

    # -- server settings ------------------------------------------------------------------------

    async def get_settings(self, guild_id: int) -> dict[str, Any]:
        """A server's saved defaults; empty if none were set."""

    async def update_settings(self, guild_id: int, changes: Mapping[str, Any]) -> dict[str, Any]:
        """Merge `changes` into the server's settings (a None value removes the key); returns them all."""

    async def get_presets(self, guild_id: int) -> dict[str, dict[str, Any]]:
        """A server's own presets: {name: {rule option: value}}; empty if none were saved."""

    async def save_preset(self, guild_id: int, name: str, rules: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
        """Save one preset under `name` (None deletes it); returns them all."""
