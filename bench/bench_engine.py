"""Random legal hands through the engine's public API; prints a JSON line of figures.

Target (issue 2): at least 4,000 cutthroat hands per second on one core. A bare bitmask loop is
measured in the same run for comparison, because these machines are noisy and only same-run figures
compare. Every other mode is measured too (issue 34: hands per second in each mode), duo's draw
included, and six in each of its teams (target: above 1,000 hands a second).
"""

from __future__ import annotations

import json
import random
import statistics
import time

from bot.engine import Game, Mode, Phase, Rules


def play_random_hands(hands: int, seed: int, mode: Mode = Mode.CUTTHROAT, fast_finish: bool = True,
                      teams: str = "solo") -> float:
    """Seconds to play ``hands`` whole hands (deal or draw, bids, every card) with random legal choices."""
    rng = random.Random(seed)
    choice = rng.choice
    rules = Rules(target=1000, mercy=None, blind_nil=False, fast_finish=fast_finish, teams=teams)
    game = Game.new("bench", mode, rules, seed=seed)
    played = 0
    start = time.perf_counter()
    while played < hands:
        if game.is_over:
            game = Game.new("bench", mode, rules, seed=seed + played)
        game.deal()
        played += 1
        while game.phase is Phase.DRAWING:
            seat = game.turn
            assert seat is not None
            game.draw(seat, rng.random() < 0.5)
        while game.phase is Phase.BIDDING:
            seat = game.turn
            assert seat is not None
            game.bid(seat, choice(game.legal_bids(seat)))
        while game.phase is Phase.PLAYING:
            seat = game.turn
            assert seat is not None
            game.play(seat, choice(game.legal_cards(seat)))
    return time.perf_counter() - start


def bare_bitmask_hands(hands: int, seed: int) -> float:
    """The floor: the same random hands with nothing but bitmask arithmetic (no rules API)."""
    rng = random.Random(seed)
    suit_masks = [0x1FFF << (13 * s) for s in range(4)]
    start = time.perf_counter()
    for _ in range(hands):
        deck = list(range(52))
        rng.shuffle(deck)
        hand_masks = [sum(1 << c for c in deck[i * 17:(i + 1) * 17]) for i in range(3)]
        leader = 0
        for _trick in range(17):
            led = -1
            best = (-1, -1)
            for k in range(3):
                seat = (leader + k) % 3
                hand = hand_masks[seat]
                legal = hand & suit_masks[led] if led >= 0 else hand
                legal = legal or hand
                cards = [c for c in range(52) if legal >> c & 1]
                card = rng.choice(cards)
                hand_masks[seat] = hand ^ (1 << card)
                if led < 0:
                    led = card // 13
                key = card + 100 if card >= 39 else (card if card // 13 == led else -1)
                if key > best[0]:
                    best = (key, seat)
            leader = best[1]
    return time.perf_counter() - start


def main() -> None:
    hands = 4000
    engine_rates = []
    bare_rates = []
    by_mode: dict[str, list[float]] = {mode.value: [] for mode in Mode if mode not in (Mode.CUTTHROAT, Mode.SIX)}
    by_mode.update({f"six {teams}": [] for teams in ("solo", "pairs", "trios")})
    plain_rates = []  # fast_finish off: what looking for a settled ending costs (net of the cards it plays)
    for run in range(5):
        engine_rates.append(hands / play_random_hands(hands, seed=run))
        bare_rates.append(hands / bare_bitmask_hands(hands, seed=run))
        plain_rates.append(hands / play_random_hands(hands, seed=run, fast_finish=False))
        for name in by_mode:
            mode, _, teams = name.partition(" ")
            by_mode[name].append(hands / play_random_hands(hands, seed=run, mode=Mode(mode), teams=teams or "solo"))
    engine, plain = statistics.median(engine_rates), statistics.median(plain_rates)
    print(json.dumps({
        "bench": "engine",
        "hands_per_run": hands,
        "runs": len(engine_rates),
        "engine_hands_per_second_median": round(engine),
        "without_fast_finish_hands_per_second_median": round(plain),
        "fast_finish_us_per_trick": round((1 / engine - 1 / plain) / 17 * 1e6, 1),
        "bare_bitmask_hands_per_second_median": round(statistics.median(bare_rates)),
        "engine_hands_per_second_median_by_mode": {mode: round(statistics.median(rates))
                                                   for mode, rates in by_mode.items()},
        "target_hands_per_second": 4000,
        "six_target_hands_per_second": 1000,
    }))


if __name__ == "__main__":
    main()
