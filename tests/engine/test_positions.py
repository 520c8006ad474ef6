"""A hand-built position for each rule; errors are checked word for word as players see them."""

from __future__ import annotations

import pytest

from bot.engine import (
    BIG_JOKER,
    LITTLE_JOKER,
    Game,
    IllegalBid,
    IllegalCard,
    Mode,
    NotYourTurn,
    Phase,
    Rules,
    WrongPhase,
    parse_card,
    seat_view,
)
from tests.engine.helpers import cards, deal, new_game, play_out, refused


def bid_all(game: Game, *bids: int) -> None:
    for bid in bids:
        seat = game.turn
        assert seat is not None
        game.bid(seat, bid)


def test_seat_left_of_dealer_bids_and_leads_first_and_the_deal_rotates():
    game = new_game(dealer=1)
    deal(game, {})
    assert game.dealer == 1 and game.turn == 2
    bid_all(game, 3, 4, 5)
    assert game.phase is Phase.PLAYING and game.turn == 2
    play_out(game, {})
    assert game.phase is Phase.DEALING and game.dealer == 2
    game.deal()
    assert game.turn == 0 and game.hand_logs[-1].dealer == 2


def test_out_of_turn_bid_names_whose_turn_it_is():
    game = new_game()
    deal(game, {})
    with refused(NotYourTurn, "It's alice's turn."):
        game.bid(1, 3)
    assert game.bids == [None, None, None] and len(game.events) == 1


def test_following_suit_is_enforced():
    game = new_game()
    deal(game, {0: "AH", 1: "2H 3S"})
    bid_all(game, 3, 3, 3)
    game.play(0, parse_card("AH"))
    with refused(IllegalCard, "You must follow hearts."):
        game.play(1, parse_card("3S"))
    assert not game.can_play(1, parse_card("3S"))
    assert all(c // 13 == 2 for c in game.legal_cards(1))
    game.play(1, parse_card("2H"))


def test_a_void_player_may_trump_and_that_breaks_spades():
    hearts = " ".join(f"{r}H" for r in "2 3 4 5 6 7 8 9 10 J Q K A".split())
    game = new_game()
    deal(game, {0: hearts, 1: "2S"})
    bid_all(game, 3, 3, 3)
    assert not game.spades_broken
    game.play(0, parse_card("AH"))
    game.play(1, parse_card("2S"))
    game.play(2, game.legal_cards(2)[0])
    assert game.spades_broken and game.hand_logs[-1].tricks[0].winner == 1


def test_spades_cannot_be_led_before_broken():
    game = new_game()
    deal(game, {0: "AS 2H"})
    bid_all(game, 3, 3, 3)
    with refused(IllegalCard, "Spades haven't been broken: lead another suit."):
        game.play(0, parse_card("AS"))
    assert parse_card("AS") not in game.legal_cards(0)


def test_spades_can_be_led_when_holding_only_spades():
    spades = " ".join(f"{r}S" for r in "2 3 4 5 6 7 8 9 10 J Q K A".split())
    game = new_game("solo")
    deal(game, {0: spades})
    bid_all(game, 5, 2, 2, 2)
    game.play(0, parse_card("AS"))
    assert game.spades_broken


def test_spades_must_break_off_allows_a_spade_lead():
    game = new_game(rules=Rules(spades_must_break=False))
    deal(game, {0: "AS 2H"})
    bid_all(game, 3, 3, 3)
    game.play(0, parse_card("AS"))


def test_a_joker_is_a_spade_for_breaking():
    game = new_game(rules=Rules(jokers=True))
    assert game.tricks_per_hand == 18
    deal(game, {0: "LJ 2H", 1: "BJ", 2: "AS"})
    bid_all(game, 3, 3, 3)
    with refused(IllegalCard, "Spades haven't been broken: lead another suit."):
        game.play(0, LITTLE_JOKER)


def test_joker_trick_order_big_beats_little_beats_ace():
    game = new_game(rules=Rules(jokers=True, spades_must_break=False))
    deal(game, {0: "LJ", 1: "AS 2C", 2: "BJ 3C"})
    bid_all(game, 3, 3, 3)
    game.play(0, LITTLE_JOKER)
    with refused(IllegalCard, "You must follow spades."):
        game.play(1, parse_card("2C"))
    game.play(1, parse_card("AS"))
    game.play(2, BIG_JOKER)
    assert game.hand_logs[-1].tricks[0].winner == 2


def test_little_joker_beats_the_ace_of_spades():
    game = new_game(rules=Rules(jokers=True, spades_must_break=False))
    deal(game, {0: "AS", 1: "LJ 2C", 2: "3S"})
    bid_all(game, 3, 3, 3)
    for seat, card in ((0, "AS"), (1, "LJ"), (2, "3S")):
        game.play(seat, parse_card(card))
    assert game.hand_logs[-1].tricks[0].winner == 1


@pytest.mark.parametrize(("leftover", "aside"), [("two_clubs", ["2C"]), ("last", None)])
def test_cutthroat_sets_one_card_aside(leftover, aside):
    game = Game.new("g", "cutthroat", Rules(leftover=leftover), seed=3)
    game.deal()
    log = game.hand_logs[-1]
    assert [len(h) for h in log.deal] == [17, 17, 17] and len(log.set_aside) == 1
    if aside:
        assert log.set_aside == tuple(cards(" ".join(aside)))


def _behind_by_170() -> Game:
    """After one hand, alice (seat 0) is set on 17 (-170) and both others made 1 or more."""
    game = new_game()
    deal(game, {0: "2C 3C 4C 5C 2D 3D 4D 5D 2H 3H 4H 5H 2S 3S 4S 5S 6C"})
    play_out(game, {0: 17, 1: 1, 2: 1})
    assert game.scores[0] == -170 and min(game.scores[1:]) >= 10
    return game


def test_blind_nil_eligibility_hides_the_cards_until_the_choice():
    game = _behind_by_170()
    game.deal()
    assert game.blind_nil_eligible(0) and not game.blind_nil_eligible(1)
    view = seat_view(game, 0)
    assert view.cards_hidden and view.hand == () and view.legal_bids == ()
    for seat in (1, 2):
        assert not set(seat_view(game, seat).hand) & set(game.hand_of(0))
    assert game.dealer == 0 and game.turn == 1
    with refused(IllegalBid, "Blind nil needs you to be 100 points behind."):
        game.bid(1, 0, blind=True)
    game.bid(1, 3)
    game.bid(2, 3)
    with refused(IllegalBid, "First choose: bid blind nil, or show your cards."):
        game.bid(0, 4)
    assert game.can_bid(0, 0, blind=True)
    game.bid(0, 0, blind=True)
    assert game.blind == [True, False, False] and not game.cards_hidden(0)
    assert seat_view(game, 0).hand == game.hand_of(0)


def test_showing_cards_ends_the_blind_nil_option():
    game = _behind_by_170()
    game.deal()
    game.reveal(0)
    assert seat_view(game, 0).hand == game.hand_of(0)
    game.bid(1, 3)
    game.bid(2, 3)
    with refused(IllegalBid, "You've seen your cards, so blind nil is no longer possible."):
        game.bid(0, 0, blind=True)


def test_blind_nil_off_never_hides_cards():
    game = new_game(rules=Rules(blind_nil=False))
    deal(game, {0: "2C 3C 4C 5C 2D 3D 4D 5D 2H 3H 4H 5H 2S 3S 4S 5S 6C"})
    play_out(game, {0: 17, 1: 1, 2: 1})
    game.deal()
    assert not any(game.cards_hidden(s) for s in range(3))


def test_with_nil_off_blind_nil_is_still_its_own_option():
    """A seat whose cards are hidden for a blind nil decision can bid it even when open nil is off."""
    game = new_game(rules=Rules(nil=False, blind_nil_deficit=0))
    deal(game, {})
    assert game.cards_hidden(0) and seat_view(game, 0).can_blind_nil
    game.bid(0, 0, blind=True)
    game.reveal(1)
    with refused(IllegalBid, "Nil is off in this game: bid 1 to 17."):
        game.bid(1, 0)
    assert seat_view(game, 1).legal_bids == tuple(range(1, 18))


def test_no_exact_total_refuses_the_last_bidders_exact_bid():
    game = new_game(rules=Rules(no_exact_total=True))
    deal(game, {})
    game.bid(0, 6)
    assert 11 in game.legal_bids(1)
    game.bid(1, 5)
    assert 6 not in game.legal_bids(2) and 5 in game.legal_bids(2)
    with refused(IllegalBid, "Bids can't total 17."):
        game.bid(2, 6)
    game.bid(2, 7)


def test_bid_range_and_nil_option():
    game = new_game(rules=Rules(nil=False))
    deal(game, {})
    assert game.legal_bids(0) == tuple(range(1, 18))
    with refused(IllegalBid, "Nil is off in this game: bid 1 to 17."):
        game.bid(0, 0)
    with refused(IllegalBid, "Bids go from 1 to 17."):
        game.bid(0, 18)


def test_playing_during_bidding_and_after_the_game_is_refused():
    game = new_game()
    deal(game, {0: "AH"})
    with refused(WrongPhase, "Bidding isn't finished yet."):
        game.play(0, parse_card("AH"))
    game.cancel()
    with refused(WrongPhase, "The game is over."):
        game.bid(0, 3)
    assert game.ended == "cancelled" and game.winners == ()


def test_a_card_not_held_is_refused_by_name():
    game = new_game()
    deal(game, {1: "QH"})
    bid_all(game, 3, 3, 3)
    with refused(IllegalCard, "You don't have the Q♥."):
        game.play(0, parse_card("QH"))


def _tie_bids(tricks: tuple[int, ...]) -> tuple[int, int, int] | None:
    """Bids that make seats 0 and 1 tie for the lead at 50 or more, given each seat's tricks."""

    def score(bid: int, taken: int) -> int:
        return 10 * bid + taken - bid if taken >= bid else -10 * bid

    return next(
        ((b0, b1, b2)
         for b0 in range(1, 18) for b1 in range(1, 18) for b2 in range(1, 18)
         if score(b0, tricks[0]) == score(b1, tricks[1]) >= 50 > score(b2, tricks[2])),
        None,
    )


def test_a_tie_at_the_target_plays_another_hand():
    # Lowest-card play ignores bids, so a scratch run of a seeded deal tells each seat's tricks;
    # bids are then chosen so that two seats tie for the lead above the target.
    rules = Rules(target=50, nil=False)
    for seed in range(100):
        scratch = Game("t", Mode.CUTTHROAT, rules, seed=seed, first_dealer=2, names=["a", "b", "c"])
        scratch.deal()
        play_out(scratch, {0: 1, 1: 1, 2: 1})
        bids = _tie_bids(scratch.tricks_won)
        if bids:
            break
    assert bids is not None
    game = Game("t", Mode.CUTTHROAT, rules, seed=seed, first_dealer=2, names=["a", "b", "c"])
    game.deal()
    play_out(game, dict(enumerate(bids)))
    assert game.scores[0] == game.scores[1] >= 50 > game.scores[2]
    assert not game.is_over and game.phase is Phase.DEALING
    game.deal()
    assert game.phase is Phase.BIDDING


def test_mercy_ends_the_game_and_the_highest_score_wins():
    game = new_game(rules=Rules(mercy=150))
    deal(game, {0: "2C 3C 4C 5C 2D 3D 4D 5D 2H 3H 4H 5H 2S 3S 4S 5S 6C"})
    play_out(game, {0: 17, 1: 1, 2: 1})
    assert game.is_over and game.ended == "mercy"
    top = max(game.scores)
    assert game.winners == tuple(s for s in range(3) if game.scores[s] == top)
    with refused(WrongPhase, "The game is over."):
        game.deal()


def test_set_penalty_zero_scores_a_set_contract_as_nothing():
    game = new_game(rules=Rules(set_penalty="zero"))
    deal(game, {0: "2C 3C 4C 5C 2D 3D 4D 5D 2H 3H 4H 5H 2S 3S 4S 5S 6C"})
    play_out(game, {0: 17, 1: 1, 2: 1})
    assert game.scores[0] == 0


def test_bags_carry_over_and_bag_out_more_than_once():
    rules = Rules(bag_limit=5, bag_penalty=50, target=1000, nil=False)
    game = new_game(rules=rules)
    bag_outs = 0
    for _ in range(6):
        game.deal()
        before = game.bags[0]
        play_out(game, {0: 1, 1: 1, 2: 1})
        result = game.hand_logs[-1].result
        assert result is not None
        bags_taken = result.new_bags[0]
        outs = (before + bags_taken) // 5
        bag_outs += outs
        assert result.bags[0] == (before + bags_taken) % 5
        expected = (10 + bags_taken if result.tricks_won[0] >= 1 else -10) - 50 * outs
        assert result.hand_points[0] == expected
    assert bag_outs >= 2


def test_partners_with_one_nil():
    game = new_game("partners")
    deal(game, {1: "2C 3C 4C 2D 3D 4D 2H 3H 4H 2S 3S 4S 5C"})
    play_out(game, {0: 5, 1: 0, 2: 3, 3: 2})
    result = game.hand_logs[-1].result
    assert result is not None
    won = result.tricks_won
    nil = 100 if won[1] == 0 else -100
    team1_tricks = won[3]
    contract = 10 * 2 + (team1_tricks - 2) if team1_tricks >= 2 else -20
    assert result.hand_points[1] == result.hand_points[3] == contract + nil
    team0 = won[0] + won[2]
    assert result.hand_points[0] == (80 + team0 - 8 if team0 >= 8 else -80)


def test_partners_with_both_nil():
    game = new_game("partners")
    deal(game, {1: "2C 3C 4C 2D 3D 4D 2H 3H 4H 2S 3S 4S 5C", 3: "5D 6D 7D 5H 6H 7H 6C 7C 8C 5S 6S 7S 8D"})
    play_out(game, {0: 6, 1: 0, 2: 6, 3: 0})
    result = game.hand_logs[-1].result
    assert result is not None
    expected = sum(100 if result.tricks_won[s] == 0 else -100 for s in (1, 3))
    assert result.hand_points[1] == result.hand_points[3] == expected
    assert result.bags[1] == 0


def test_forfeit_ends_the_game_for_the_other_seats():
    game = new_game()
    deal(game, {})
    game.forfeit(1)
    assert game.is_over and game.ended == "forfeit" and 1 not in game.winners
    assert game.places()[1] == 3
