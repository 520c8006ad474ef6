"""The rules of Spades as a pure, typed, replayable state machine. No I/O here."""

from bot.engine.cards import (
    ACCEPTED_FORMS,
    BIG_JOKER,
    LITTLE_JOKER,
    Card,
    card_code,
    card_label,
    card_name,
    cards_of,
    display_sorted,
    mask_of,
    parse_card,
)
from bot.engine.errors import (
    BadRecord,
    CardParseError,
    EngineError,
    IllegalAction,
    IllegalBid,
    IllegalCard,
    NotYourTurn,
    RuleError,
    WrongPhase,
)
from bot.engine.events import (
    BidMade,
    Cancelled,
    CardPassed,
    CardPlayed,
    Dealt,
    Drew,
    Event,
    FastFinished,
    Forfeited,
    Revealed,
    event_from_json,
    event_to_json,
)
from bot.engine.game import GAME_FORMAT, Ending, Game, HandLog, HandResult, Phase, TrickLog
from bot.engine.record import RECORD_FORMAT, SeatTally, default_players, export_record, seat_tallies, start_hand
from bot.engine.rules import OPTIONS, Mode, Rules
from bot.engine.scoring import SideScore, game_end, score_side
from bot.engine.tournaments.events import TournamentEvent, tournament_event_from_json, tournament_event_to_json
from bot.engine.tournaments.swiss import (
    POINTS_BY_PLACE,
    Entrant,
    RoundResult,
    Standing,
    Table,
    TableResult,
    decide_unfinished,
    points_for_places,
    seat_round,
    standings,
    units_per_table,
)
from bot.engine.tournaments.tournament import TOURNAMENT_FORMAT, Stage, Tournament, table_result
from bot.engine.view import (
    PublicHand,
    RecordView,
    SeatView,
    TableView,
    public_record,
    record_for,
    seat_view,
    seat_views,
    table_view,
)

__all__ = [
    "ACCEPTED_FORMS", "BIG_JOKER", "GAME_FORMAT", "LITTLE_JOKER", "OPTIONS", "POINTS_BY_PLACE",
    "RECORD_FORMAT", "TOURNAMENT_FORMAT", "BadRecord", "BidMade", "Cancelled", "Card", "CardParseError", "CardPassed",
    "CardPlayed", "Dealt", "Drew", "Ending", "EngineError", "Entrant", "Event", "FastFinished", "Forfeited", "Game",
    "HandLog",
    "HandResult", "IllegalAction", "IllegalBid", "IllegalCard", "Mode", "NotYourTurn", "Phase", "PublicHand",
    "RecordView", "Revealed",
    "RoundResult", "RuleError", "Rules", "SeatTally", "SeatView", "SideScore", "Stage", "Standing", "Table",
    "TableResult", "TableView", "Tournament", "TournamentEvent", "TrickLog", "WrongPhase", "card_code", "card_label",
    "card_name", "cards_of", "decide_unfinished", "default_players", "display_sorted", "event_from_json",
    "event_to_json", "export_record", "game_end", "mask_of", "parse_card", "points_for_places",
    "public_record", "record_for", "score_side", "seat_round", "seat_tallies", "seat_view", "seat_views", "standings",
    "start_hand", "table_result", "table_view",
    "tournament_event_from_json", "tournament_event_to_json", "units_per_table",
]
