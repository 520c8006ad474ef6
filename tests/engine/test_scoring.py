"""The worked examples of docs/rules.md and every scoring option, table-driven."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.engine import Rules, game_end, score_side

DEFAULT = Rules()


@pytest.mark.parametrize(
    ("rules", "bids", "blinds", "tricks", "bags_before", "points", "bags_after"),
    [
        pytest.param(DEFAULT, [5], [False], [7], 0, 52, 2, id="bid 5 won 7 -> 52"),
        pytest.param(DEFAULT, [4], [False], [5], 0, 41, 1, id="bid 4 won 5 -> 41"),
        pytest.param(DEFAULT, [4], [False], [3], 0, -40, 0, id="bid 4 won 3 -> -40"),
        pytest.param(Rules(set_penalty="zero"), [4], [False], [3], 0, 0, 0, id="set_penalty=zero -> 0"),
        pytest.param(DEFAULT, [7], [False], [7], 0, 70, 0, id="bid 7 won 7 -> 70"),
        pytest.param(DEFAULT, [5], [False], [8], 0, 53, 3, id="bid 5 won 8 -> 53"),
        pytest.param(DEFAULT, [0], [False], [0], 0, 100, 0, id="nil made +100"),
        pytest.param(DEFAULT, [0], [False], [2], 0, -100, 0, id="nil failed -100, no bags"),
        pytest.param(DEFAULT, [0], [True], [0], 0, 200, 0, id="blind nil made +200"),
        pytest.param(DEFAULT, [0], [True], [1], 0, -200, 0, id="blind nil failed -200"),
        pytest.param(Rules(nil_value=50, blind_nil_value=150), [0], [True], [0], 0, 150, 0, id="values"),
        pytest.param(DEFAULT, [5], [False], [8], 8, 53 - 100, 1, id="108 with 8 bags bids 5 wins 8"),
        pytest.param(DEFAULT, [1], [False], [13], 9, 10 + 12 - 200, 1, id="two bag-outs in one hand"),
        pytest.param(Rules(bag_limit=5, bag_penalty=50), [2], [False], [8], 4, 26 - 100, 0,
                     id="5/50: 4 + 6 bags = two bag-outs"),
        # Partners: one side, two members.
        pytest.param(DEFAULT, [4, 3], [False, False], [5, 3], 0, 71, 1, id="team 7 takes 8 -> 71"),
        pytest.param(DEFAULT, [4, 3], [False, False], [2, 3], 0, -70, 0, id="team set -> -70"),
        pytest.param(DEFAULT, [4, 0], [False, False], [5, 0], 0, 41 + 100, 1, id="one nil made"),
        pytest.param(DEFAULT, [4, 0], [False, False], [3, 2], 0, -40 - 100, 0,
                     id="nil tricks don't help the partner by default"),
        pytest.param(Rules(nil_tricks_help_partner=True), [4, 0], [False, False], [3, 2], 0, 41 - 100, 1,
                     id="nil_tricks_help_partner counts them (as bags too)"),
        pytest.param(DEFAULT, [0, 0], [False, False], [0, 0], 0, 200, 0, id="both nil made"),
        pytest.param(DEFAULT, [0, 0], [False, True], [3, 0], 0, -100 + 200, 0, id="nil failed, blind made"),
    ],
)
def test_score_side(rules, bids, blinds, tricks, bags_before, points, bags_after):
    result = score_side(rules, bids, blinds, tricks, bags_before)
    assert (result.points, result.bags) == (points, bags_after)


def test_worked_example_108_points_bags_out_to_61():
    result = score_side(DEFAULT, [5], [False], [8], 8)
    assert 108 + result.points == 61 and result.bags == 1 and result.bag_outs == 1


@pytest.mark.parametrize(
    ("rules", "scores", "expected"),
    [
        pytest.param(Rules(target=500), [480, 320, 100], None, id="nobody at target"),
        pytest.param(Rules(target=500), [512, 340, 118], ("target", [0]), id="one over the target"),
        pytest.param(Rules(target=500), [510, 530, 0], ("target", [1]), id="two over: highest wins"),
        pytest.param(Rules(target=500), [520, 520, 100], None, id="tie at the top plays another hand"),
        pytest.param(Rules(target=500), [520, 520, 530], ("target", [2]), id="tie below the leader is fine"),
        pytest.param(Rules(mercy=200), [150, -200, 90], ("mercy", [0]), id="mercy at -200"),
        pytest.param(Rules(mercy=200), [150, -190, 90], None, id="not yet mercy"),
        pytest.param(Rules(), [150, -900, 90], None, id="mercy off by default"),
        pytest.param(Rules(mercy=200), [150, -250, 150], None, id="mercy with a tied lead waits"),
    ],
)
def test_game_end(rules, scores, expected):
    outcome = game_end(rules, scores)
    assert (outcome if outcome is None else (outcome[0], outcome[1])) == expected


RULES_DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def worked_examples() -> list[list[str]]:
    """The rows of the table under "Worked examples" in docs/rules.md, as cells."""
    text = RULES_DOC.read_text(encoding="utf-8")
    section = text.split("### Worked examples", 1)[1].split("\n#", 1)[0]
    rows = [line.strip("|").split("|") for line in section.splitlines() if line.startswith("| ")]
    cells = [[cell.strip() for cell in row] for row in rows[1:]]  # the first row is the header
    return [row for row in cells if not row[0].startswith("---")]


def test_the_docs_show_every_example_the_rules_require():
    shown = {(row[1], row[2], row[3], row[4]) for row in worked_examples() if row[0] == "—"}
    for bid, won, points in [("5", "7", "52"), ("4", "5", "41"), ("4", "3", "-40"), ("7", "7", "70"),
                             ("5", "8", "53"), ("nil", "0", "100"), ("nil", "1", "-100"),
                             ("blind nil", "0", "200"), ("blind nil", "2", "-200")]:
        assert (bid, won, "0", points) in shown
    assert ("5", "8", "8", "-47") in shown  # 108 with 8 bags → 61


@pytest.mark.parametrize("row", worked_examples(), ids=lambda row: " / ".join(row))
def test_the_worked_examples_in_the_docs_hold(row):
    options, bids_text, won_text, bags_before, points, bags_after = row
    rules = Rules() if options == "—" else Rules.from_options(
        dict(pair.strip().split("=") for pair in options.split(",")))
    bids = [0 if b.strip() in ("nil", "blind nil") else int(b) for b in bids_text.split("+")]
    blinds = [b.strip() == "blind nil" for b in bids_text.split("+")]
    won = [int(w) for w in won_text.split("+")]
    result = score_side(rules, bids, blinds, won, int(bags_before))
    assert (result.points, result.bags) == (int(points), int(bags_after))
