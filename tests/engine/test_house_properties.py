"""Random whole games under a wide mix of the house rules of bidding and scoring: every move the
engine offers is one it accepts, the independent record checker re-scores every hand, replays
rebuild the same state, and no seat's view holds another's cards."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine import Game, Mode, Rules, export_record
from tests.engine.helpers import fit_mode, random_game
from tests.engine.invariants import check_invariants, check_views
from tests.record_check import check_record

house_rule_sets = st.builds(
    Rules,
    target=st.sampled_from([100, 200]),
    nil=st.booleans(),
    blind_nil=st.booleans(),
    blind_nil_deficit=st.sampled_from([0, 50, 100]),
    bag_limit=st.sampled_from([3, 10]),
    nil_tricks_help_partner=st.booleans(),
    set_penalty=st.sampled_from(["minus", "zero"]),
    bidding=st.sampled_from(["standard", "whiz", "mirrors", "suicide", "fredieu"]),
    min_bid=st.sampled_from([1, 2, 4]),
    ten_for_200=st.booleans(),
    ten_for_200_loss=st.sampled_from([100, 200]),
    moon=st.booleans(),
    double_nil=st.sampled_from(["separate", "double"]),
    blind_bids=st.booleans(),
    overtricks=st.sampled_from(["bags", "none", "negative", "quicksand"]),
    double_back=st.booleans(),
    seven_bonus=st.booleans(),
    last_trick=st.booleans(),
    teams=st.sampled_from(["solo", "pairs", "trios"]),
    identical=st.sampled_from(["first", "last"]),
    trumps=st.sampled_from(["standard", "deuces_high", "jokers_deuces"]),
)


def fit_house(mode: Mode, rules: Rules) -> Rules:
    """Drop what the mode refuses (RULES.md: suicide needs teams, double nil teams of two; whiz,
    mirrors and suicide need nil; whiz and mirrors no least bid; duo no blind bids, as the draw shows the cards)."""
    rules = fit_mode(mode, rules)
    if rules.teams == "trios" or (mode is not Mode.PARTNERS and rules.teams != "pairs"):
        rules = rules.with_options(double_nil="separate")
    if mode is not Mode.PARTNERS and rules.teams == "solo":
        rules = rules.with_options(bidding="standard" if rules.bidding == "suicide" else rules.bidding)
    if rules.bidding in ("whiz", "mirrors"):
        rules = rules.with_options(nil=True, min_bid=1)
    if rules.bidding == "suicide":
        rules = rules.with_options(nil=True)
    if mode.draws:
        rules = rules.with_options(blind_bids=False)
    rules.check_mode(mode)
    return rules


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(mode=st.sampled_from(list(Mode)), rules=house_rule_sets, seed=st.integers(0, 2**32))
def test_random_games_under_house_rules(mode, rules, seed):
    game = random_game(mode, fit_house(mode, rules), seed, on_step=check_views)
    check_invariants(game)
    text = json.dumps(game.to_json())
    rebuilt = Game.from_json(json.loads(text))
    assert json.dumps(rebuilt.to_json()) == text
    assert (rebuilt.scores, rebuilt.bags, rebuilt.phase, rebuilt.winners, rebuilt.ended) == (
        game.scores, game.bags, game.phase, game.winners, game.ended)
    check_record(json.loads(json.dumps(export_record(game))))
