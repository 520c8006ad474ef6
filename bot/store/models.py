"""Plain values the store takes and returns, so callers never see rows or SQL."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from bot.engine import Game

GameStatus = Literal["lobby", "playing", "finished", "cancelled"]
LeaderboardSort = Literal["rating", "wins", "win_rate", "points"]

BOT_KEY_PREFIX = "bot:"


def player_key(user_id: int | None = None, bot_level: str | None = None) -> str:
    """The rating identity: a Discord user id as text, or `bot:<level>` so beating a hard bot counts."""
    if (user_id is None) == (bot_level is None):
        raise ValueError("give exactly one of user_id and bot_level")
    return str(user_id) if user_id is not None else BOT_KEY_PREFIX + str(bot_level)


@dataclass(frozen=True, slots=True)
class ShardSet:
    """The Discord shards one bot process serves, out of `count`: a guild is on shard
    `(guild_id >> 22) % count`, Discord's own rule, so the store can pick a process's games in SQL."""

    count: int
    ids: frozenset[int]

    def __post_init__(self) -> None:
        if self.count < 1 or not self.ids or not all(0 <= shard < self.count for shard in self.ids):
            raise ValueError(f"shards {sorted(self.ids)} of {self.count}: give at least one, each below {self.count}")

    def owns(self, guild_id: int) -> bool:
        return (guild_id >> 22) % self.count in self.ids


@dataclass(frozen=True, slots=True)
class Seat:
    """Who sits in a seat: a Discord user, or a computer player of some level."""

    seat: int
    name: str
    user_id: int | None = None
    bot_level: str | None = None
    left_user_id: int | None = None  # the human who left this seat mid-game, if any
    left_name: str | None = None

    def __post_init__(self) -> None:
        player_key(self.user_id, self.bot_level)  # validates: exactly one kind of occupant

    @property
    def is_bot(self) -> bool:
        return self.bot_level is not None

    @property
    def player_key(self) -> str:
        return player_key(self.user_id, self.bot_level)


class Unchanged(Enum):
    """Marks an argument that leaves the stored value as it is."""

    UNCHANGED = "unchanged"


UNCHANGED = Unchanged.UNCHANGED


@dataclass(frozen=True, slots=True)
class Deadline:
    """A turn timer the service must honour after a restart: what happens (`kind`) at unix time `at`."""

    kind: str
    at: float


@dataclass(frozen=True, slots=True)
class Post:
    """A message owed to Discord by a saved action, kept in the action's own transaction (the outbox)
    so a crash right after the save can't lose it. The store never interprets `payload`."""

    kind: str  # e.g. "hand_scored", "hand_dealt", "game_over", "cancelled": any text (a newer bot's too)
    payload: dict[str, Any]  # JSON-ready

    def __post_init__(self) -> None:
        if not self.kind or not isinstance(self.payload, dict):
            raise ValueError(f"a post needs a kind and a JSON object payload, got {self.kind!r}: {self.payload!r}")


@dataclass(frozen=True, slots=True)
class PendingPost:
    """A post not yet reported delivered, with the channel of the game that owes it."""

    post_id: int  # increasing in the order posts were saved; never reused
    game_id: str
    guild_id: int
    channel_id: int
    kind: str
    payload: dict[str, Any]
    created_at: float


@dataclass(frozen=True, slots=True)
class GameInfo:
    """A game's row and seats, without its event log."""

    game_id: str
    guild_id: int
    channel_id: int
    mode: str
    rules: dict[str, Any]
    status: GameStatus
    host_id: int | None
    created_at: float
    started_at: float | None
    ended_at: float | None
    lobby_message_id: int | None
    table_message_id: int | None
    deadline: Deadline | None
    seats: tuple[Seat, ...]


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A game read back: its row, and the engine game rebuilt from its events (None in the lobby)."""

    info: GameInfo
    game: Game | None


@dataclass(frozen=True, slots=True)
class DamagedGame:
    """An unfinished game that could not be rebuilt; its rows are left as they are for inspection."""

    game_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class Recovery:
    """What start-up found: the games to resume, and those set aside."""

    games: tuple[StoredGame, ...]
    damaged: tuple[DamagedGame, ...]


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat's figures at the end of a game, computed by the caller.

    In partners `final_score` and `place` are the team's, repeated for both members.
    `bids_made`/`bids_set` count contracts (non-nil bids) made and set; `hands` is hands played.
    """

    seat: int
    player_key: str
    name: str
    final_score: int
    place: int
    won: bool
    hands: int
    bids_made: int
    bids_set: int
    nils_tried: int
    nils_made: int
    bags: int

    @property
    def is_bot(self) -> bool:
        return self.player_key.startswith(BOT_KEY_PREFIX)


@dataclass(frozen=True, slots=True)
class RatingChange:
    """What one human's finished game did to their rating (ordinal) and leaderboard rank.

    `*_before` are None for a player's first rated game in this server and mode; `games` counts
    their rated games in this server and mode up to and including this one.
    """

    seat: int
    player_key: str
    name: str
    rating_before: float | None
    rating_after: float
    rank_before: int | None
    rank_after: int
    games: int


@dataclass(frozen=True, slots=True)
class FinishOutcome:
    """The answer to `finish_game`; `already_finished` means an earlier call did the work."""

    game_id: str
    changes: tuple[RatingChange, ...]
    already_finished: bool


@dataclass(frozen=True, slots=True)
class GameSummary:
    """A game for a channel's history: its row and, once finished, each seat's result."""

    info: GameInfo
    results: tuple[SeatResult, ...]


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    """One human on a server's leaderboard for a mode. `points` is the total of final scores."""

    rank: int
    user_id: int
    name: str
    games: int
    wins: int
    win_rate: float
    points: int
    average_score: float
    rating: float
    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class ModeRating:
    """A player's rating in one mode on one server; `rank` is their place on its rating leaderboard."""

    mode: str
    rating: float
    mu: float
    sigma: float
    rank: int
    games: int
    wins: int


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """A player's record on a server, for one mode or (mode None) all modes together."""

    guild_id: int
    user_id: int
    mode: str | None
    games: int
    wins: int
    win_rate: float
    average_score: float
    bids_made: int
    bids_total: int
    nils_made: int
    nils_tried: int
    hands: int
    bags: int
    bags_per_hand: float
    ratings: tuple[ModeRating, ...]
    hinted_games: int = 0  # games in which the player asked for at least one hint


@dataclass(frozen=True, slots=True)
class HintTaken:
    """A player asked for a hint: which seat, in which hand and trick (None while bidding), when.
    What was advised is not kept: it came from the seat's cards."""

    seat: int
    hand: int
    phase: Literal["bid", "blind_nil", "pass", "play"]
    trick: int | None
    asked_at: float

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "hand": self.hand, "phase": self.phase, "trick": self.trick,
                "at": self.asked_at}


SeasonRhythm = Literal["monthly"]


@dataclass(frozen=True, slots=True)
class Season:
    """A season of a server's leaderboard: its games are rated again from scratch beside all time.

    `ends_at` is the planned end, if one was set; `ended_at` is when it ended (None while it runs),
    which is the planned end when that passed while the bot was down.
    """

    season_id: int
    guild_id: int
    name: str
    channel_id: int  # where its podium is posted
    started_by: int | None  # None when the server's rhythm started it
    rhythm: SeasonRhythm | None
    started_at: float
    ends_at: float | None
    ended_at: float | None

    @property
    def running(self) -> bool:
        return self.ended_at is None


@dataclass(frozen=True, slots=True)
class RhythmDue:
    """A server on a rhythm with no season running, nor one of the name the rhythm gives now."""

    guild_id: int
    rhythm: SeasonRhythm
    channel_id: int


@dataclass(frozen=True, slots=True)
class SeasonPost:
    """A post owed by a season (its podium), not yet reported delivered."""

    post_id: int
    season: Season
    kind: str
    payload: dict[str, Any]
    created_at: float


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A player's ratings (ordinals) after one finished game: all time in its mode, and in the
    season it counted in (None outside any season)."""

    game_id: str
    mode: str
    finished_at: float
    rating: float
    season_id: int | None
    season_rating: float | None


TournamentStatus = Literal["open", "over", "cancelled"]


@dataclass(frozen=True, slots=True)
class TournamentInfo:
    """A tournament's row: where it runs, who set it up, and its setup (opaque to the store)."""

    tournament_id: str
    guild_id: int
    channel_id: int  # the channel of its sign-up message; its tables play in threads under it
    organiser_id: int
    setup: dict[str, Any]
    message_id: int | None
    deadline_at: float | None  # what is due next: sign-up closing, a round's time limit, the next round
    status: TournamentStatus
    created_at: float


@dataclass(frozen=True, slots=True)
class TournamentTable:
    """Where one table of a round plays: its thread and the game in it, each once it exists."""

    round: int
    table: int
    thread_id: int | None
    game_id: str | None


@dataclass(frozen=True, slots=True)
class StoredTournament:
    """A tournament as stored: its row, its event log in order, and its tables' threads and games."""

    info: TournamentInfo
    events: tuple[dict[str, Any], ...]
    tables: tuple[TournamentTable, ...]


@dataclass(frozen=True, slots=True)
class TournamentPost:
    """A post owed by a tournament (a round's standings, the podium), not yet reported delivered."""

    post_id: int
    info: TournamentInfo
    kind: str
    payload: dict[str, Any]
