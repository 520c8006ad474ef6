"""Random whole games in every mode and option mix, checked against invariants (OpenSpiel style)."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine import EngineError, Game, Mode, Rules, export_record
from tests.engine.helpers import fit_mode, random_game, rule_sets
from tests.engine.invariants import check_invariants, check_views
from tests.record_check import check_record


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(mode=st.sampled_from(list(Mode)), rules=rule_sets, seed=st.integers(0, 2**32))
def test_random_games_keep_every_invariant(mode, rules, seed):
    game = random_game(mode, fit_mode(mode, rules), seed, on_step=check_views)
    check_invariants(game)
    # Replaying the events rebuilds the same state; JSON round-trips exactly.
    data = game.to_json()
    text = json.dumps(data)
    rebuilt = Game.from_json(json.loads(text))
    assert json.dumps(rebuilt.to_json()) == text
    assert (rebuilt.scores, rebuilt.bags, rebuilt.phase, rebuilt.winners, rebuilt.ended) == (
        game.scores, game.bags, game.phase, game.winners, game.ended)
    assert export_record(rebuilt) == export_record(game)
    check_record(json.loads(json.dumps(export_record(game))))


@settings(max_examples=30, deadline=None, derandomize=True)
@given(mode=st.sampled_from(list(Mode)), seed=st.integers(0, 2**32), cut=st.floats(0, 1))
def test_a_game_cut_short_replays_to_the_same_unfinished_state(mode, seed, cut):
    game = random_game(mode, Rules(target=100), seed)
    data = game.to_json()
    keep = int(len(data["events"]) * cut)
    partial = Game.from_json({**data, "events": data["events"][:keep]})
    record = export_record(partial)
    check_record(record)
    if not partial.is_over:
        assert record["final"] is None


@settings(max_examples=30, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32), index=st.integers(0, 10_000), garbage=st.sampled_from(
    [{"type": "play", "seat": 0, "card": "ZZ"}, {"type": "bid", "seat": 9, "bid": 3, "blind": False},
     {"type": "nope"}, {"type": "play", "seat": 1, "card": "AS"}, {}]))
def test_damaged_event_logs_are_refused_not_loaded(seed, index, garbage):
    game = random_game(Mode.CUTTHROAT, Rules(target=50), seed)
    events = game.to_json()["events"]
    position = index % (len(events) + 1)
    damaged = {**game.to_json(), "events": [*events[:position], garbage, *events[position:]]}
    try:
        Game.from_json(damaged)
    except EngineError:
        return
    # Only an action that happened to be legal at that point may replay (e.g. a real next card).
    assert garbage.get("type") == "play" and garbage.get("card") == "AS"
