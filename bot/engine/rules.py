"""Game modes and the rule set: every option of docs/rules.md, its default, and what it allows."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from bot.engine.errors import RuleError


class Mode(StrEnum):
    CUTTHROAT = "cutthroat"
    SOLO = "solo"
    PARTNERS = "partners"
    # House rules, more modes (RULES.md): two players who draw their hands, and five players.
    DUO = "duo"
    FIVE = "five"
    SIX = "six"  # two decks; its teams are the rule set's ``teams``

    @property
    def seats(self) -> int:
        return _SEATS[self]

    @property
    def draws(self) -> bool:
        """Hands are drawn from a stock, card by card, instead of dealt (``duo``)."""
        return self is Mode.DUO

    @classmethod
    def parse(cls, value: str | Mode) -> Mode:
        try:
            return cls(str(value).strip().lower())
        except ValueError:
            allowed = ", ".join(m.value for m in cls)
            raise RuleError(f"Unknown mode “{value}”: use one of {allowed}.") from None


_SEATS = {Mode.CUTTHROAT: 3, Mode.SOLO: 4, Mode.PARTNERS: 4, Mode.DUO: 2, Mode.FIVE: 5, Mode.SIX: 6}

_TRUE = {"true", "on", "yes", "1", "y"}
_FALSE = {"false", "off", "no", "0", "n"}
_NONE = {"none", "off", "null", "no", "", "0"}  # an optional number is off; 0 too, as /spades new takes it


@dataclass(frozen=True)
class _Option:
    kind: str  # "bool", "int", "choice", "optional_int"
    low: int = 0
    high: int = 0
    choices: tuple[str, ...] = ()
    help: str = ""

    def describe(self) -> str:
        if self.kind == "bool":
            return "true or false"
        if self.choices:
            return " or ".join(self.choices)
        if self.kind == "optional_int":
            return f"a number from {self.low} to {self.high}, or 0 (none) for off"
        return f"a number from {self.low} to {self.high}"


OPTIONS: dict[str, _Option] = {
    "target": _Option("int", 50, 1000, help="points to win"),
    "nil": _Option("bool", help="nil bids allowed (off: the minimum bid is 1)"),
    "blind_nil": _Option("bool", help="blind nil allowed for a player far enough behind"),
    "blind_nil_deficit": _Option("int", 0, 1000, help="points behind the leader needed for blind nil"),
    "no_exact_total": _Option("bool", help="the last bidder may not make the bids total the tricks"),
    "spades_must_break": _Option("bool", help="spades can't be led until broken"),
    "set_penalty": _Option("choice", choices=("minus", "zero"), help="a set contract scores −10×bid or 0"),
    "nil_value": _Option("int", 0, 1000, help="points for nil made (lost when failed)"),
    "blind_nil_value": _Option("int", 0, 1000, help="points for blind nil made (lost when failed)"),
    "bag_limit": _Option("int", 1, 100, help="bags that trigger the bag penalty"),
    "bag_penalty": _Option("int", 0, 1000, help="points lost each time the bag limit is reached"),
    "nil_tricks_help_partner": _Option("bool", help="partners: a nil bidder's tricks count for the partner"),
    "mercy": _Option("optional_int", 50, 1000, help="the game ends when someone drops to −mercy"),
    "leftover": _Option("choice", choices=("last", "two_clubs"), help="cutthroat: the card set aside"),
    "jokers": _Option("bool", help="both jokers as top spades (cutthroat: 18 cards each; else 2♣ 2♦ out)"),
    "hints": _Option("choice", choices=("auto", "on", "off"),
                     help="the Hint button (auto: on in games with a computer player, off among people only)"),
    # -- house rules: bidding and scoring (RULES.md "House rules"; bot/engine/bidding_rules.py, contracts.py)
    "bidding": _Option("choice", choices=("standard", "whiz", "mirrors", "suicide", "fredieu"),
                       help="whiz, mirrors (bid your spades), suicide (one nil a team) or fredieu (nil or 4+)"),
    "min_bid": _Option("int", 1, 13, help="the least non-nil contract (a team's, in team modes)"),
    "ten_for_200": _Option("bool", help="a contract of exactly 10 scores +200 made"),
    "ten_for_200_loss": _Option("int", 100, 200, choices=("100", "200"), help="what a failed 10 for 200 loses"),
    "moon": _Option("bool", help="a contract of every trick, made, wins the game at once"),
    "double_nil": _Option("choice", choices=("separate", "double"),
                          help="team modes: two nils on a team scored alone, or as a double nil"),
    "blind_bids": _Option("bool", help="a side far enough behind may bid blind 1 to 7 before looking"),
    "overtricks": _Option("choice", choices=("bags", "none", "negative", "quicksand"),
                          help="what each trick over the contract scores"),
    "double_back": _Option("bool", help="taking twice the contract or more scores −20 a trick bid"),
    "seven_bonus": _Option("bool", help="a made contract of 7+ scores +10 for each trick bid above 6"),
    "last_trick": _Option("bool", help="the winner of the last trick scores +10"),
    # House rules of cards and play (RULES.md "Cards and play"; bot/engine/play_rules.py)
    "first_lead": _Option("choice", choices=("dealer_left", "two_clubs"), help="who leads first: the lowest club?"),
    "first_trick": _Option("choice", choices=("free", "no_spades", "lowest_club"), help="limits on the first trick"),
    "must_overtrump": _Option("bool", help="who can't follow must beat a spade on the trick"),
    "fast_finish": _Option("bool", help="a settled hand plays itself out"),
    "nil_pass": _Option("choice", choices=("off", "one_two"), help="partners of a nil trade 1 card (blind: 2)"),
    # House rules, six players (RULES.md "More modes"; bot/engine/modes.py)
    "teams": _Option("choice", choices=("solo", "pairs", "trios"),
                     help="six: each for themselves, three pairs (seats 1+4, 2+5, 3+6) or two trios (1, 3, 5)"),
    "identical": _Option("choice", choices=("first", "last"),
                         help="six: of two identical cards on a trick, the first or the last played ranks higher"),
    # House rules of trumps (RULES.md "Cards and play"; bot/engine/card_order.py)
    "trumps": _Option("choice", choices=("standard", "deuces_high", "jokers_deuces"),
                      help="the top spades: deuces high (2♠ 2♦ 2♣ 2♥), or jokers and deuces (jokers, 2♠, 2♦)"),
}

# Options whose default changed how every game plays, and how games played before they existed.
_BEFORE_IT_EXISTED: dict[str, object] = {"fast_finish": False}

# Jokers replace the 2♣ and 2♦ in four-seat modes; other modes have no reading for them.
_JOKER_MODES = frozenset({"cutthroat", "solo", "partners"})
_TEAM_MODES = frozenset({"partners"})  # where nil_pass has partners to pass to
# The trump orders need the four deuces (jokers_deuces: and room for the jokers) in the deck.
_TRUMPS_MODES = frozenset({"cutthroat", "solo", "partners", "duo"})
NO_BLIND = ("whiz", "mirrors")  # the bidding styles without blind bids


@dataclass(frozen=True, slots=True)
class Rules:
    """A game's rule set; saved with the game so it always finishes under the rules it began with."""

    target: int = 500
    nil: bool = True
    blind_nil: bool = True
    blind_nil_deficit: int = 100
    no_exact_total: bool = False
    spades_must_break: bool = True
    set_penalty: str = "minus"
    nil_value: int = 100
    blind_nil_value: int = 200
    bag_limit: int = 10
    bag_penalty: int = 100
    nil_tricks_help_partner: bool = False
    mercy: int | None = None
    leftover: str = "last"
    jokers: bool = False
    hints: str = "auto"  # not a rule of play: whether players may ask the hard player for a hint
    # -- house rules: bidding and scoring
    bidding: str = "standard"
    min_bid: int = 1
    ten_for_200: bool = False
    ten_for_200_loss: int = 200
    moon: bool = False
    double_nil: str = "separate"
    blind_bids: bool = False
    overtricks: str = "bags"
    double_back: bool = False
    seven_bonus: bool = False
    last_trick: bool = False
    # House rules of cards and play
    first_lead: str = "dealer_left"
    first_trick: str = "free"
    must_overtrump: bool = False
    fast_finish: bool = True
    nil_pass: str = "off"
    # House rules, six players
    teams: str = "solo"
    identical: str = "first"
    # House rules of trumps
    trumps: str = "standard"

    def __post_init__(self) -> None:
        for name, option in OPTIONS.items():
            _check(name, option, getattr(self, name))

    @classmethod
    def from_options(cls, options: Mapping[str, object], base: Rules | None = None) -> Rules:
        """Build from text or typed values (``{"target": "200", "mercy": "none"}``); later keys win.
        An optional number (mercy) given as 0 is off, like none."""
        values: dict[str, Any] = {}
        for key, raw in options.items():
            name = key.strip().lower()
            if name not in OPTIONS:
                known = ", ".join(OPTIONS)
                raise RuleError(f"Unknown rule option “{key}”. Options are: {known}.")
            values[name] = _convert(name, OPTIONS[name], raw)
        return dataclasses.replace(base or cls(), **values)

    @classmethod
    def from_saved(cls, options: Mapping[str, object]) -> Rules:
        """The rules of a saved game or record: an option added since it was saved plays as games
        did before it existed, so the game finishes under the rules it started with."""
        return cls.from_options({**_BEFORE_IT_EXISTED, **options})

    def with_options(self, **options: object) -> Rules:
        return Rules.from_options(options, base=self)

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in OPTIONS}

    def check_mode(self, mode: Mode) -> None:
        """Options that only make sense for some modes are refused for the others."""
        if self.jokers and mode.value not in _JOKER_MODES:
            raise RuleError(f"jokers isn't played in {mode.value}: use jokers=false.")
        refused = self._six_refusal(mode)
        if refused:
            raise RuleError(refused)
        if self.trumps != "standard" and self.jokers:
            raise RuleError(f"trumps={self.trumps} sets the top spades itself: use jokers=false.")
        if self.trumps != "standard" and mode.value not in _TRUMPS_MODES:
            raise RuleError(f"trumps={self.trumps} needs the four deuces, and {mode.value} plays without some: "
                            "use trumps=standard.")
        if self.nil_pass != "off" and mode.value not in _TEAM_MODES and self.teams != "pairs":
            raise RuleError(f"nil_pass is for partners, and {mode.value} has none: use nil_pass=off.")
        if self.blind_bids and mode.draws:
            raise RuleError("blind_bids can't be played in duo: players see every card they draw; use blind_bids=off.")
        refused = self._bidding_refusal(teams=mode is Mode.PARTNERS or self.teams != "solo")
        if refused:
            raise RuleError(refused)

    def _bidding_refusal(self, teams: bool) -> str | None:
        """Why the bidding house rules can't be played together or in a mode (with or without teams)."""
        if self.bidding == "suicide" and not teams:
            return "bidding=suicide is for team modes (one nil a team): use another bidding style."
        if self.bidding == "suicide" and not self.nil:
            return "bidding=suicide needs nil=on: one player of each team bids nil."
        if self.double_nil == "double" and not teams:
            return "double_nil=double is for team modes (both members of a team bid nil)."
        if self.bidding in NO_BLIND and not self.nil:
            return f"bidding={self.bidding} needs nil=on: a player without spades bids nil."
        if self.bidding in NO_BLIND and self.min_bid > 1:
            return f"bidding={self.bidding} has no least bid: use min_bid=1."
        return None

    def _six_refusal(self, mode: Mode) -> str | None:
        """teams and identical are six's; in six, the rules written for teams of two stay with pairs."""
        if mode is not Mode.SIX:
            if self.teams != "solo":
                return f"teams is for six; {mode.value} has its own seating: use teams=solo."
            if self.identical != "first":
                return f"identical is for six's two decks; {mode.value} plays one: use identical=first."
            return None
        if self.jokers:
            return "jokers isn't played in six: use jokers=false."
        if self.nil_pass != "off" and self.teams != "pairs":
            return "nil_pass in six is for teams=pairs (one partner to pass to): use nil_pass=off."
        if self.double_nil == "double" and self.teams == "trios":
            return "double_nil=double is for teams of two: use double_nil=separate with teams=trios."
        return None

    def changed(self) -> dict[str, Any]:
        """The options that differ from the defaults, for short lobby and table lines."""
        default = Rules()
        return {k: v for k, v in self.to_dict().items() if getattr(default, k) != v}


def _convert(name: str, option: _Option, raw: object) -> object:
    if isinstance(raw, str):
        text = raw.strip().lower()
        if option.kind == "bool":
            if text in _TRUE:
                return True
            if text in _FALSE:
                return False
        elif option.kind == "optional_int" and text in _NONE:
            return None
        elif option.kind == "choice":
            return text
        else:
            try:
                return int(text)
            except ValueError:
                pass
        raise RuleError(f"{name} can't be “{raw}”: it takes {option.describe()}.")
    if option.kind == "optional_int" and type(raw) is int and raw == 0:
        return None
    return raw


def _check(name: str, option: _Option, value: object) -> None:
    ok: bool
    if option.kind == "bool":
        ok = isinstance(value, bool)
    elif option.kind == "choice":
        ok = value in option.choices
    elif option.kind == "optional_int" and value is None:
        ok = True
    else:
        ok = isinstance(value, int) and not isinstance(value, bool) and option.low <= value <= option.high
        ok = ok and (not option.choices or str(value) in option.choices)
    if not ok:
        raise RuleError(f"{name} can't be {value!r}: it takes {option.describe()}.")
