"""Invariants every game keeps, whatever the mode and rules, shared by the property tests: what each
seat's view shows (checked at every step) and the cards and scores of the game played."""

from __future__ import annotations

from bot.engine import Game, mask_of, seat_view


def check_views(game: Game) -> None:
    """No seat's view ever holds another seat's cards; a hidden seat sees none of its own."""
    for seat in range(game.seats):
        view = seat_view(game, seat)
        own = mask_of(view.hand)
        if game.cards_hidden(seat):
            assert own == 0
        else:
            assert own == game.hand_mask(seat)
        others = 0
        for other in range(game.seats):
            if other != seat:
                others |= game.hand_mask(other)
        assert own & others == 0
        assert set(view.legal_cards) <= set(view.hand)
        # Duo: a seat sees its own discards and the card it drew, nobody else's.
        other_discards = mask_of(c for other in range(game.seats) if other != seat for c in game.discards_of(other))
        assert mask_of(view.discards) & (others | other_discards) == 0
        assert view.drawn is None or (game.turn == seat and view.drawn not in game.hand_of(seat))


def check_invariants(game: Game) -> None:
    """Every dealt card is played once per hand, and the scores are the sum of the hands' points."""
    sides = game.sides
    totals = [0] * sides
    for hand in game.hand_logs:
        dealt = [c for h in hand.deal for c in h]
        played = [c for t in hand.tricks for _, c in t.plays]
        assert len(set(played)) == len(played), "no card is played twice"
        if hand.result is None:
            assert set(played) <= set(dealt)
            continue
        assert sorted(played) == sorted(dealt), "every dealt card is played exactly once"
        assert len(hand.tricks) == game.tricks_per_hand
        assert sum(hand.result.tricks_won) == game.tricks_per_hand
        for side in range(sides):
            seat = game.side_seats(side)[0]
            totals[side] += hand.result.hand_points[seat]
            assert hand.result.scores[seat] == totals[side]
    assert list(game.scores) == [totals[game.side_of(s)] for s in range(game.seats)]
