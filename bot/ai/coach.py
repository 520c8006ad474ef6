"""A hint for one seat: the hard player's choice, and one line saying why in plain words.

Everything here reads a ``SeatView`` only (the seat's own cards and what is public), so a hint can
never depend on a card the seat can't see. The reason is worked out from the position the way a
player would put it (cover a partner's nil, duck a bag, trump in), not read from the search.
"""

from __future__ import annotations

from typing import NamedTuple

from bot.ai.base import BLIND_NIL, Move, forced_move
from bot.ai.bidding import blind_move, blind_nil_chance
from bot.ai.hard import Budget, HardPlayer, distinct_cards
from bot.ai.passing import pass_choice
from bot.ai.places import card_of, in_places
from bot.ai.policy import contract_need, opponents, team_mates, winners_of
from bot.ai.sim import PlayState
from bot.engine import SeatView, card_label, mask_of
from bot.engine.cards import FIRST_SPADE, SUIT_MASKS, SUIT_NAMES, SUIT_OF, Card, stronger
from bot.engine.names import named

LOW_RANKS = 7  # 2 to 8: a card a nil bidder may lead expecting to be beaten


class Hint(NamedTuple):
    move: Move
    advice: str  # "Play the K♥", "Bid 4", "Bid blind nil", "Look at your cards"
    reason: str  # one line, plain words

    @property
    def text(self) -> str:
        return f"{self.advice} — {self.reason}."


def advise(view: SeatView, seed: int, budget: str | float | Budget | None = None) -> Hint:
    """The hard player's move for ``view``'s seat, with its reason; deterministic for a given seed
    and an iteration budget (``"200it"``). Worked out on places (bot/ai/places.py), like play."""
    hint = _advise(in_places(view), seed, budget)
    if hint.move.kind in ("play", "pass"):
        return hint._replace(move=hint.move._replace(value=card_of(view, hint.move.value)))
    return hint


def _label(view: SeatView, place: int) -> str:
    return card_label(card_of(view, place))


def _advise(view: SeatView, seed: int, budget: str | float | Budget | None) -> Hint:
    player = HardPlayer(seed, budget)
    forced = forced_move(view)
    if view.cards_hidden:
        move = forced or blind_move(view)
        return Hint(move, *blind_nil_reason(view, move))
    if view.to_pass:
        card = pass_choice(view)
        why = ("a nil bidder keeps fewer winners by passing its most dangerous card" if view.bids[view.seat] == 0
               else "your low cards help your partner's nil duck under")
        return Hint(Move.pass_card(card), f"Pass the {_label(view, card)}", why)
    if view.legal_cards:
        if forced is not None:
            return Hint(forced, f"Play the {_label(view, forced.value)}", only_card_reason(view))
        candidates = distinct_cards(view.legal_cards, mask_of(view.hand), mask_of(view.unseen_cards()))
        card = candidates[0] if len(candidates) == 1 else player.play(view)
        return Hint(Move.play(card), f"Play the {_label(view, card)}", play_reason(view, card))
    candidates, predicted = player.bid_candidates(view)
    candidates = candidates or [predicted]
    values = player.bid_values(view, candidates)
    best = max(values, key=lambda v: v.reward)
    said = "nil" if best.bid == 0 else str(best.bid)
    return Hint(Move.bid(best.bid), f"Bid {said}", bid_reason(view, best.bid, best.tricks))


def blind_nil_reason(view: SeatView, move: Move) -> tuple[str, str]:
    chance = round(100 * blind_nil_chance(view))
    if move.kind == "blind_nil" and move.value:
        return f"Bid blind {move.value}", (f"you are far behind: a blind {move.value} scores 20 a trick bid and is "
                                           "made more often than not")
    if move == BLIND_NIL:
        return "Bid blind nil", (f"you are far behind, and a blind nil here is made about {chance} times in 100: "
                                 "worth the risk to catch up")
    if not view.can_blind_nil:
        return "Look at your cards", "blind nil isn't open to you now"
    return "Look at your cards", (f"a blind nil here is made only about {chance} times in 100; "
                                  "you are not far enough behind to need that gamble")


def _mates(view: SeatView) -> tuple[int, ...]:
    """The other seats of the seat's side: a partner (partners, six's pairs), two (six's trios) or none."""
    return tuple(s for s in range(view.seat % view.sides, view.seats, view.sides) if s != view.seat)


def _mate_word(view: SeatView) -> str:
    """A partner in teams of two; in six's trios, where two cover each other, a teammate."""
    return "partner" if len(_mates(view)) == 1 else "teammate"


def bid_reason(view: SeatView, bid: int, tricks: float) -> str:
    """Why a bid: what the hand took on average when the hand was played out many times."""
    if bid == 0:
        covers = [view.bids[s] for s in _mates(view) if view.bids[s]]  # a nil covers nobody
        if covers:
            bids = " and ".join(str(b) for b in covers)
            whose = f"{_mate_word(view)}'s bid" if len(covers) == 1 else f"{_mate_word(view)}s' bids"
            return f"your hand is low and your {whose} of {bids} can cover you"
        return f"your hand is low: played out, it took only {tricks:.1f} tricks on average, and a nil is worth more"
    plural = "" if bid == 1 else "s"
    if tricks >= bid + 1.5:
        return (f"played out, your hand took about {tricks:.1f} tricks on average; bidding {bid} trick{plural} "
                "leaves room for the bags you would otherwise take")
    return f"played out, your hand took about {tricks:.1f} tricks on average"


def only_card_reason(view: SeatView) -> str:
    if view.trick:
        led = SUIT_OF[view.trick[0][1]]
        if sum(SUIT_OF[c] == led for c in view.hand) == 1:
            return f"it's your only {SUIT_NAMES[led][:-1]}, and you must follow suit"
    return "it's the only card you may play"


def _clean_nil(view: SeatView, seat: int) -> bool:
    return view.bids[seat] == 0 and view.tricks_won[seat] == 0


def _is_boss(card: Card, view: SeatView) -> bool:
    """No card still out (unseen by this seat) beats ``card`` in its suit; in six either copy of a
    higher card would, and its own twin only ties it."""
    return not SUIT_MASKS[SUIT_OF[card]] & stronger(card) & mask_of(view.unseen_cards())


def play_reason(view: SeatView, card: Card) -> str:
    """One line on why ``card`` is the play, from what the seat can see (view and card as places:
    bot/ai/places.py)."""
    state = PlayState.from_view(view)
    label = _label(view, card)
    legal = mask_of(view.legal_cards)
    winners = winners_of(state, legal)
    wins = bool(winners >> card & 1)
    leading = not view.trick
    best = _label(view, state.best) if state.best >= 0 else ""
    seat, names = view.seat, [named(name) for name in view.names]
    played = {s for s, _ in view.trick}
    # The mode's teams (partners, six's pairs and trios), as the players see them: the team-mate to
    # cover is one with a clean nil, else the first.
    mates = team_mates(state, seat)
    mate = next((s for s in mates if _clean_nil(view, s)), mates[0] if mates else None)
    partner = _mate_word(view)
    if _clean_nil(view, seat):
        if leading and card < FIRST_SPADE and card % 13 < LOW_RANKS:
            return f"keep your nil: lead the low {label}, which others are likely to beat"
        if leading:
            return f"keep your nil: lead the {label} now, while others still hold cards to beat it"
        if not wins:
            return f"keep your nil: the {label} goes under the {best}"
        if len(view.trick) == view.seats - 1:
            return f"your nil is lost on this trick whatever you play: win it with the {label}"
        return f"you can't go under the {best}: play your lowest winner, the {label}, and hope a later card beats it"
    if mate is not None and _clean_nil(view, mate):
        if leading:
            return f"cover your {partner}'s nil: lead the {label}, high enough for them to play under"
        if state.best_seat == mate and wins:
            return f"cover your {partner}'s nil: play the {label} over the {best}"
        if mate not in played and wins:
            return f"cover your {partner}'s nil: play the {label} now so they can play under it"
        return f"you can't take this trick off your {partner}: keep your good cards and throw the {label}"
    victims = [s for s in opponents(state, seat) if _clean_nil(view, s)]
    if victims:
        victim = victims[0]
        if state.best_seat == victim and not wins:
            return f"let {names[victim]}'s {best} win: a nil bidder who takes a trick loses the nil"
        if victim not in played and not leading and not wins:
            return f"set {names[victim]}'s nil: play low with the {label} so they must go under it"
        if victim not in played and leading:
            return f"set {names[victim]}'s nil: lead the low {label} so they must go under it"
    need = contract_need(state, seat)
    plural = "" if need == 1 else "s"
    if need > 0:
        if leading:
            if _is_boss(card, view):
                return (f"you still need {need} trick{plural}: lead the {label}, "
                        f"the highest {SUIT_NAMES[SUIT_OF[card]][:-1]} still out")
            return f"you still need {need} trick{plural}: lead the {label} and keep your winners for later"
        if state.best_seat in mates and not wins:
            return f"your {partner}'s {best} is winning the trick: throw the {label} and keep your winners"
        if wins and card >= FIRST_SPADE and SUIT_OF[view.trick[0][1]] != SUIT_OF[card]:
            return f"you still need {need} trick{plural}: trump in with the {label}"
        if wins:
            return f"you still need {need} trick{plural}: take this one with the {label}"
        if winners:
            return f"you still need {need} trick{plural}, but not this one: keep your winners and throw the {label}"
        return f"you can't beat the {best}: throw the {label}, the card you'll miss least"
    made = "your side's bid is made" if mate is not None else "your bid is made"
    if leading:
        return f"{made}: lead the low {label} to stay clear of bags"
    if not wins:
        return f"{made}: duck under the {best} with the {label} to avoid a bag"
    if winners != legal:
        short = [s for s in opponents(state, seat) if (view.bids[s] or 0) > view.tricks_won[s]]
        if short:
            return f"{made}: take the trick with the {label}, to set {names[short[0]]}, who still needs tricks"
        return f"{made}: take the trick with the {label} now rather than a costlier one later"
    return f"{made}, but every card you may play wins here: the {label} costs you the least later"
