"""The house rules of scoring (RULES.md "House rules" › Scoring), figures worked out by hand."""

from __future__ import annotations

import pytest

from bot.engine import Rules, score_side

D = Rules()


@pytest.mark.parametrize(
    ("rules", "bids", "blinds", "tricks", "bags_before", "points", "bags_after"),
    [
        # overtricks
        pytest.param(Rules(overtricks="none"), [5], [False], [8], 9, 50, 9, id="none: 50, no bag counted"),
        pytest.param(Rules(overtricks="negative"), [5], [False], [8], 0, 47, 0, id="negative: 50 - 3"),
        pytest.param(Rules(overtricks="quicksand"), [7], [False], [9], 0, 50, 0, id="quicksand: 70 - 20 (file 003)"),
        pytest.param(Rules(overtricks="quicksand"), [7], [False], [5], 0, -20, 0,
                     id="quicksand set: -10 a missing trick"),
        pytest.param(Rules(overtricks="quicksand", set_penalty="zero"), [7], [False], [5], 0, -20, 0,
                     id="quicksand's set beats set_penalty"),
        # double back
        pytest.param(Rules(double_back=True), [2], [False], [4], 0, -40, 2, id="double back: bid 2 took 4 -> -40"),
        pytest.param(Rules(double_back=True), [2], [False], [3], 0, 21, 1, id="double back: 3 of 2 is fine"),
        pytest.param(Rules(double_back=True, overtricks="none"), [3], [False], [7], 0, -60, 0,
                     id="double back with no overs (file 003's pairing)"),
        # seven bonus
        pytest.param(Rules(seven_bonus=True), [7], [False], [7], 0, 80, 0, id="seven: 7 made -> 80 (file 003)"),
        pytest.param(Rules(seven_bonus=True), [9], [False], [10], 0, 121, 1, id="seven: 9 made -> 120 + 1 bag"),
        pytest.param(Rules(seven_bonus=True), [7], [False], [6], 0, -70, 0, id="seven: no bonus when set"),
        pytest.param(Rules(seven_bonus=True), [4, 3], [False, False], [4, 4], 0, 81, 1,
                     id="seven: a team's contract counts"),
        # 10-for-200
        pytest.param(Rules(ten_for_200=True), [10], [False], [10], 0, 200, 0, id="10-for-200 made"),
        pytest.param(Rules(ten_for_200=True), [6, 4], [False, False], [7, 5], 0, 202, 2,
                     id="10-for-200: a team's 10, tricks over 10 are bags"),
        pytest.param(Rules(ten_for_200=True), [10], [False], [9], 0, -200, 0, id="10-for-200 failed"),
        pytest.param(Rules(ten_for_200=True, ten_for_200_loss=100), [10], [False], [9], 0, -100, 0,
                     id="10-for-200 failed, loss 100"),
        pytest.param(Rules(ten_for_200=True, seven_bonus=True), [10], [False], [10], 0, 200, 0,
                     id="10-for-200 is worth 200, no seven bonus"),
        pytest.param(D, [10], [False], [10], 0, 100, 0, id="without the option a 10 is a 10"),
        # trailing blind bids
        pytest.param(Rules(blind_bids=True), [5], [True], [7], 0, 100, 0, id="blind 5 made: 20 a trick, no bags"),
        pytest.param(Rules(blind_bids=True), [5], [True], [4], 0, -50, 0, id="blind 5 set: -10 a trick"),
        pytest.param(Rules(blind_bids=True), [4, 3], [True, False], [4, 3], 0, 110, 0,
                     id="blind 4 + open 3: 80 + 30"),
        pytest.param(Rules(blind_bids=True, seven_bonus=True), [7], [True], [7], 0, 150, 0,
                     id="blind 7 with the seven bonus"),
        # double nil
        pytest.param(Rules(double_nil="double"), [0, 0], [False, False], [0, 0], 0, 400, 0,
                     id="double nil made: 2x200"),
        pytest.param(Rules(double_nil="double"), [0, 0], [False, False], [0, 1], 0, 0, 0, id="double nil failed: 0"),
        pytest.param(Rules(double_nil="double"), [0, 0], [True, True], [0, 0], 0, 800, 0,
                     id="double blind nil made: 800 (file 003)"),
        pytest.param(Rules(double_nil="double"), [0, 4], [False, False], [0, 4], 0, 140, 0,
                     id="one nil is still scored alone"),
        pytest.param(D, [0, 0], [False, False], [0, 1], 0, 0, 0, id="separate: +100 - 100"),
    ],
)
def test_house_scoring(rules, bids, blinds, tricks, bags_before, points, bags_after):
    result = score_side(rules, bids, blinds, tricks, bags_before)
    assert (result.points, result.bags) == (points, bags_after)


def test_overtricks_without_bags_never_bag_out():
    result = score_side(Rules(overtricks="negative", bag_limit=3), [1], [False], [13], 2)
    assert (result.points, result.bags, result.bag_outs, result.new_bags) == (10 - 12, 2, 0, 12)
