"""Skill ratings with openskill's Plackett-Luce model, free of storage so every backend rates alike."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from bot.store.models import SeatResult

_MODEL = PlackettLuce()


@dataclass(frozen=True, slots=True)
class Rating:
    """A rating as stored: openskill's mu and sigma; leaderboards sort by `ordinal` (mu - 3 sigma)."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return float(_MODEL.rating(mu=self.mu, sigma=self.sigma).ordinal())


def initial_rating() -> Rating:
    """The rating of a player nobody has seen yet in this server and mode."""
    fresh = _MODEL.rating()
    return Rating(fresh.mu, fresh.sigma)


def rate_game(mode: str, results: Sequence[SeatResult], prior: Mapping[str, Rating]) -> dict[str, Rating]:
    """New ratings for every player key in one finished game.

    Each seat is its own openskill team, except in partners where seats 0+2 and 1+3 form teams.
    A team is ranked by its best place, ties allowed. A key seated twice (two computer players of
    the same level) gets the mean of its seats' updated ratings, so it moves once per game.
    """
    teams: dict[int, list[SeatResult]] = defaultdict(list)
    for result in sorted(results, key=lambda r: r.seat):
        teams[result.seat % 2 if mode == "partners" else result.seat].append(result)
    members = list(teams.values())
    start = initial_rating()
    rated = _MODEL.rate(
        [
            [_MODEL.rating(mu=r.mu, sigma=r.sigma) for r in (prior.get(m.player_key, start) for m in team)]
            for team in members
        ],
        ranks=[min(m.place for m in team) for team in members],
    )
    per_key: dict[str, list[Rating]] = defaultdict(list)
    for team, new_team in zip(members, rated, strict=True):
        for member, new in zip(team, new_team, strict=True):
            per_key[member.player_key].append(Rating(new.mu, new.sigma))
    return {
        key: Rating(sum(r.mu for r in seen) / len(seen), sum(r.sigma for r in seen) / len(seen))
        for key, seen in per_key.items()
    }
