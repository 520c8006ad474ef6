"""Hand scoring and the end of the game: the last trick scores the hand; a target, mercy, moon,
cancel or forfeit ends the game."""

from __future__ import annotations

from collections.abc import Sequence

from bot.engine.contracts import moon_taken
from bot.engine.errors import IllegalAction, WrongPhase
from bot.engine.events import Cancelled, Forfeited
from bot.engine.game.state import Ending, GameState, HandResult, Phase
from bot.engine.scoring import game_end, score_side

LAST_TRICK_BONUS = 10  # house rule `last_trick`


class HandEnd(GameState):
    """Scores the hand the last trick ends, and ends the game."""

    __slots__ = ()

    def _finish_hand(self) -> None:
        rules = self.rules
        seats = self.seats
        hand_points = [0] * seats
        new_bags = [0] * seats
        last_winner = self._log[-1].tricks[-1].winner
        for side in range(self.sides):
            members = self.side_seats(side)
            result = score_side(
                rules,
                [self.bids[s] or 0 for s in members],
                [self.blind[s] for s in members],
                [self._tricks_won[s] for s in members],
                self._side_bags[side],
            )
            points = result.points + (LAST_TRICK_BONUS if rules.last_trick and last_winner in members else 0)
            self._side_scores[side] += points
            self._side_bags[side] = result.bags
            for s in members:
                hand_points[s] = points
                new_bags[s] = result.new_bags
        contract_made: list[bool | None] = [None] * seats
        nil_made: list[bool | None] = [None] * seats
        for s in range(seats):
            if self.bids[s] == 0:
                nil_made[s] = self._tricks_won[s] == 0
            else:
                team = self.side_seats(self.side_of(s))
                contract = sum(self.bids[m] or 0 for m in team if self.bids[m])
                taken = sum(self._tricks_won[m] for m in team
                            if self.bids[m] or rules.nil_tricks_help_partner)
                contract_made[s] = taken >= contract
        self._log[-1].result = HandResult(
            tuple(self._tricks_won), tuple(hand_points), self.bags, self.scores,
            tuple(new_bags), tuple(contract_made), tuple(nil_made),
        )
        self._turn = None
        self._phase = Phase.DEALING
        mooned = [side for side in range(self.sides) if moon_taken(
            rules, self.tricks_per_hand, [(self.bids[s] or 0, self._tricks_won[s]) for s in self.side_seats(side)])]
        if mooned:
            self._end(Ending.MOON, mooned)
        else:
            self._check_game_end()

    def _check_game_end(self) -> None:
        outcome = game_end(self.rules, self._side_scores)
        if outcome is not None:
            ending, winning_sides = outcome
            self._end(Ending(ending), winning_sides)

    def _end(self, ending: Ending, winning_sides: Sequence[int]) -> None:
        self._ended = ending
        self._winners = tuple(sorted(s for side in winning_sides for s in self.side_seats(side)))
        self._phase = Phase.OVER
        self._turn = None

    def verify_cancel(self) -> None:
        if self._phase is Phase.OVER:
            raise WrongPhase("The game is already over.")

    def cancel(self) -> Cancelled:
        """End the game with no result (nothing counts toward ratings)."""
        self.verify_cancel()
        event = Cancelled()
        self._end(Ending.CANCELLED, ())
        self._events.append(event)
        return event

    def verify_forfeit(self, seat: int) -> None:
        self.verify_cancel()
        if not isinstance(seat, int) or not 0 <= seat < self.seats:
            raise IllegalAction(f"There is no seat {seat!r} in this game.")

    def forfeit(self, seat: int) -> Forfeited:
        """End the game: the forfeiting side loses; the best-placed other side wins."""
        self.verify_forfeit(seat)
        event = Forfeited(seat)
        loser = self.side_of(seat)
        others = [side for side in range(self.sides) if side != loser]
        top = max(self._side_scores[side] for side in others)
        self._end(Ending.FORFEIT, [side for side in others if self._side_scores[side] == top])
        self._events.append(event)
        return event

    def places(self) -> tuple[int, ...]:
        """Final place per seat (1 is first; ties share a place; a forfeiting side is last)."""
        # A forfeit ends the game, so it is the last event: no need to search them all (a table's
        # public view asks on every move).
        last = self._events[-1] if self._ended is Ending.FORFEIT else None
        forfeiter = self.side_of(last.seat) if isinstance(last, Forfeited) else None
        standings = [(side != forfeiter, score) for side, score in enumerate(self._side_scores)]
        side_places = [1 + sum(other > mine for other in standings) for mine in standings]
        return tuple(side_places[side] for side in self._seat_side)
