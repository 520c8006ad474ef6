"""The hard player's search pieces: distinct candidates, exact endgames, rewards, and its bids."""

from __future__ import annotations

from bot.ai.hard import BAG_COST_SHARE, GAME_END_BONUS, HardPlayer, Scorer, distinct_cards, maxn
from bot.ai.policy import low
from bot.ai.sim import PlayState
from bot.engine import Game, Phase, Rules, mask_of, parse_card, seat_view
from bot.engine.cards import SECOND_COPY
from bot.engine.modes import SIX_DECK


def cards(*codes: str) -> list[int]:
    return [parse_card(c) for c in codes]


def test_cards_in_sequence_are_one_candidate():
    hand = mask_of(cards("QH", "JH", "9H", "2C"))
    unseen = mask_of(range(52)) & ~hand
    # Q and J touch, and with the 10 gone J and 9 do too; the 2 of clubs is another suit.
    assert distinct_cards(cards("9H", "JH", "QH"), hand, unseen & ~mask_of(cards("10H"))) == cards("9H")
    assert distinct_cards(cards("9H", "JH", "QH"), hand, unseen) == cards("9H", "JH")


def test_two_decks_cards_in_sequence_are_one_candidate_unless_a_twin_is_out():
    # Six: the twins of the 9♥ and 10♥ seen (played), so 9♥ and 10♥ play alike; an unseen twin of the
    # J♥ would tie it and not the 10♥, so the J♥ stays a candidate; the K♥'s twin is the same card.
    def twins(*codes: str) -> int:
        return mask_of(parse_card(code) + SECOND_COPY for code in codes)

    held = [*cards("9H", "10H", "JH", "KH"), parse_card("KH") + SECOND_COPY]
    hand = mask_of(held)
    unseen = mask_of(SIX_DECK) & ~hand & ~twins("9H", "10H")
    assert distinct_cards(held, hand, unseen) == cards("9H", "JH", "KH")
    assert distinct_cards(held, hand, unseen & ~twins("JH")) == cards("9H", "KH")
    assert distinct_cards(held, hand, unseen | twins("9H")) == cards("9H", "10H", "JH", "KH")


def _end_of_hand_state() -> tuple[Game, PlayState, Scorer]:
    game = Game.new("endgame", "cutthroat", Rules(target=500, fast_finish=False), seed=4)
    game.deal()
    while game.phase is Phase.BIDDING:
        game.bid(game.turn or 0, 5)
    while game.phase is Phase.PLAYING and len(game.hand_logs[-1].tricks) < game.tricks_per_hand - 2:
        game.play(game.turn or 0, game.legal_cards(game.turn or 0)[0])
    view = seat_view(game, game.turn or 0)
    state = PlayState.from_view(view, hands=[game.hand_mask(s) for s in range(3)])
    return game, state, Scorer(view)


def test_exact_search_matches_playing_its_line_through_the_engine():
    game, state, scorer = _end_of_hand_state()
    values = maxn(state.copy(), scorer)
    # Play the max-n line in the engine: each seat picks its best card by the same search.
    while game.phase is Phase.PLAYING:
        seat = game.turn or 0
        best, best_value = -1, float("-inf")
        for card in game.legal_cards(seat):
            child = state.copy()
            child.play(card)
            value = maxn(child, scorer)[seat]
            if value > best_value:
                best, best_value = card, value
        game.play(seat, best)
        state.play(best)
    assert scorer.rewards(state) == values
    result = game.hand_logs[-1].result
    assert result is not None
    # Each seat's hand points less what its new bags cost towards the next bag penalty.
    bag_cost = BAG_COST_SHARE * game.rules.bag_penalty / game.rules.bag_limit
    points = [p - bags * bag_cost for p, bags in zip(result.hand_points, result.new_bags, strict=True)]
    assert values[0] == points[0] - max(points[1], points[2])


def test_bags_cost_the_search_before_the_penalty_lands():
    """A bag scores a point now but brings a 100-point penalty nearer: the search must count it as a
    loss, or it takes more than a bag a hand. Crossing the limit pays the penalty and clears the debt."""
    _, state, scorer = _end_of_hand_state()
    state.bids = (1, 1, 1)
    while state.tricks_left:
        state.play(low(state.legal(state.turn)))
    bagged = state.side_scores()
    rewards = scorer.rewards(state)
    assert bagged[0].new_bags > 0
    assert rewards[0] < bagged[0].points - max(side.points for side in bagged[1:])
    state.bags = (9, 0, 0)  # the same tricks now cross the bag limit for seat 0
    crossed = scorer.rewards(state)
    assert state.side_scores()[0].bag_outs == 1
    assert crossed[0] < rewards[0]


def test_a_hand_that_ends_the_game_adds_the_game_result():
    _, state, scorer = _end_of_hand_state()
    scorer.scores = (600, 0, 0)  # over the target whatever happens now: seat 0 wins the game
    while state.tricks_left:
        state.play(low(state.legal(state.turn)))
    rewards = scorer.rewards(state)
    scorer.scores = (0, 0, 0)  # the same hand when it doesn't end the game
    unended = scorer.rewards(state)
    assert rewards[0] == unended[0] + GAME_END_BONUS
    assert rewards[1] == unended[1] - GAME_END_BONUS


def test_against_five_opponents_a_hand_is_scored_against_their_mean():
    """Six each for themselves: seat 0 made 3 like four others and seat 5 made 2, so seat 0 is 2
    points above the others' mean (the best of them would say level); in pairs, against the best."""
    for teams, expected in (("solo", [2.0] * 5 + [-10.0]), ("pairs", [0.0, 0.0, -10.0] * 2)):
        game = Game.new("scores", "six", Rules(teams=teams), seed=1)
        game.deal()
        view = seat_view(game, 0)
        tricks = [3, 3, 3, 3, 3, 2] if teams == "solo" else [2, 2, 1, 1, 1, 1]
        state = PlayState(view.rules, view.sides, [0] * 6, tricks, [False] * 6, tricks[:], [0] * 6, 0, 0, 0, True,
                          deck=view.deck_mask)
        assert Scorer(view).rewards(state) == expected


def test_hard_bids_are_legal_and_sensible():
    game = Game.new("bids", "cutthroat", Rules(no_exact_total=True), seed=6)
    game.deal()
    player = HardPlayer(1, "20it")
    while game.phase is Phase.BIDDING:
        seat = game.turn or 0
        move = player.choose(seat_view(game, seat))
        assert move.kind == "bid" and game.can_bid(seat, move.value)
        game.bid(seat, move.value)
    assert sum(b or 0 for b in game.bids) != game.tricks_per_hand
