"""``normal-v1`` is today's code path frozen as a yardstick: it must keep playing exactly as the normal
player did before the coach's changes, or measuring progress against it would mean nothing."""

from __future__ import annotations

import hashlib
import json

import pytest

from bot.ai import ALL_LEVELS, LEVELS, make_player
from bot.engine import Game, Mode, Rules, export_record, seat_tallies
from bot.selfplay import play_game

# The hands (deals, bids, every card) of three seeded games per rule set, as played by the normal player
# of commit 7c708de (before normal-v1 existed), four normal players at the table.
FINGERPRINTS = [
    ("cutthroat", Rules(target=300), "2a1d1e854975646097f7"),
    ("cutthroat", Rules(target=300, jokers=True, blind_nil_deficit=0), "2517b68ff74d879e73d9"),
    ("solo", Rules(target=300, no_exact_total=True), "4a6d2cd5b78eb4a0d018"),
    ("partners", Rules(target=300, blind_nil_deficit=50), "f80f774dda4756b6a7ec"),
]


def play(level: str, mode: Mode, rules: Rules, seed: int) -> Game:
    """Every card played by the players (no fast finish), as when the fingerprints were taken."""
    game = Game.new(f"yardstick-{seed}", mode, rules.with_options(fast_finish=False), seed)
    return play_game(game, [make_player(level, seed=s) for s in range(mode.seats)], None, 500)


@pytest.mark.parametrize(("mode", "rules", "fingerprint"), FINGERPRINTS, ids=[f[0] for f in FINGERPRINTS])
def test_normal_v1_plays_exactly_as_the_first_normal_player(mode, rules, fingerprint):
    digest = hashlib.sha256()
    for seed in range(3):
        game = play("normal-v1", Mode(mode), rules, seed)
        digest.update(json.dumps(export_record(game)["hands"]).encode())
    assert digest.hexdigest()[:20] == fingerprint


def test_the_fingerprints_cover_nils_and_blind_nils():
    """The frozen games go through the decisions that changed since, so the fingerprints guard them."""
    nils = blinds = 0
    for mode, rules, _ in FINGERPRINTS:
        for seed in range(3):
            for tally in seat_tallies(play("normal-v1", Mode(mode), rules, seed)):
                nils += tally.nils_tried - tally.blind_nils_tried
                blinds += tally.blind_nils_tried
    assert nils > 0 and blinds > 0


def test_the_yardstick_is_offline_only():
    assert "normal-v1" in ALL_LEVELS and "normal-v1" not in LEVELS
    assert make_player("normal-v1").level == "normal-v1"
    assert make_player("normal").level == "normal"
