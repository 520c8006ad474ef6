"""The easy and normal players: fast rule-based play (well under a millisecond a decision)."""

from __future__ import annotations

from bot.ai.base import REVEAL, Move
from bot.ai.bidding import blind_move, calibration, honour_count, nearest_legal, normal_bid
from bot.ai.drawing import keeps_drawn
from bot.ai.habits import VERSIONS
from bot.ai.passing import pass_choice
from bot.ai.policy import easy_card, normal_card
from bot.ai.sim import PlayState
from bot.engine import SeatView

LATEST = max(VERSIONS)


class NormalPlayer:
    """Calibrated bids per mode; play that covers, ducks, minds bags and nils, and sets the leader.
    ``version`` picks an earlier version's habits (``normal-v1``), kept as a yardstick."""

    def __init__(self, seed: int | None = None, version: int = LATEST) -> None:
        self.seed = seed
        self.habits = VERSIONS[version]
        self.level = "normal" if version == LATEST else f"normal-v{version}"

    def choose(self, view: SeatView) -> Move:
        if view.to_pass:
            return Move.pass_card(pass_choice(view))
        if view.legal_cards:
            return Move.play(self.card(PlayState.from_view(view), view.seat))
        if view.drawn is not None:
            return Move.draw(keeps_drawn(view))
        if view.cards_hidden:
            return blind_move(view, self.habits)
        return Move.bid(self.bid(view))

    def card(self, state: PlayState, seat: int) -> int:
        return normal_card(state, seat, self.habits)

    def bid(self, view: SeatView) -> int:
        return normal_bid(view, self.habits)


class EasyPlayer(NormalPlayer):
    """Bids its sure tricks (honours, spade length, ruffs) uncalibrated, never bids nil nor blind nil,
    plays plainly."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.level = "easy"

    def choose(self, view: SeatView) -> Move:
        if view.cards_hidden:
            return REVEAL
        return super().choose(view)

    def card(self, state: PlayState, seat: int) -> int:
        return easy_card(state, seat)

    def bid(self, view: SeatView) -> int:
        hand = sum(1 << c for c in view.hand)
        wanted = max(1, round(honour_count(hand, calibration(view.mode, view.rules))))
        return nearest_legal(wanted, tuple(b for b in view.legal_bids if b > 0) or view.legal_bids)
