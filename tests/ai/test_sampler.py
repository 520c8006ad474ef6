"""The hard player's deals: consistent with its hand, the cards played, hand sizes and shown voids."""

from __future__ import annotations

import random

import pytest

from bot.ai import make_player
from bot.ai.drive import computer_players, drive
from bot.ai.places import in_places
from bot.ai.sampler import Sampler, shown_voids
from bot.engine import Game, Phase, Rules, mask_of, seat_view
from bot.engine.card_order import card_order
from bot.engine.cards import CLUBS, FIRST_SPADE, SUIT_MASKS, TWO_OF_CLUBS
from bot.engine.modes import sets_aside
from tests.ai.conftest import RULE_SETS, random_positions
from tests.engine.helpers import cards, deal_hands, new_game


@pytest.mark.parametrize(("mode", "rules"), RULE_SETS, ids=[f"{m}-{r.changed()}" for m, r in RULE_SETS])
def test_sampled_deals_respect_what_is_known(mode, rules):
    rng = random.Random(2)
    checked = 0
    order = card_order(rules)  # the players see cards as places (bot/ai/places.py)
    for game, seen in random_positions(mode, rules, seed=11):
        if seen.phase is not Phase.PLAYING:
            continue
        view = in_places(seen)
        voids = shown_voids(view)
        for seat in range(view.seats):  # the inference never contradicts the real hands
            assert order.places(game.hand_mask(seat)) & voids[seat] == 0
        sampler = Sampler(view, rng)
        for _ in range(5):
            hands = sampler.deal_fitting_bids()
            assert hands[view.seat] == mask_of(view.hand)
            dealt = 0
            for seat, hand in enumerate(hands):
                assert hand.bit_count() == view.hand_sizes[seat]
                assert dealt & hand == 0
                assert hand & view.played_mask == 0
                if seat != view.seat:
                    assert hand & voids[seat] == 0
                dealt |= hand
            left_over = order.places(mask_of(game.deck())) & ~dealt & ~view.played_mask
            assert left_over.bit_count() == len(game.hand_logs[-1].set_aside)
            if rules.leftover == "two_clubs" and sets_aside(game.mode, rules):
                assert not dealt >> order.place[TWO_OF_CLUBS] & 1
        checked += 1
    assert checked > 20


def test_voids_are_read_from_play():
    for game, view in random_positions("cutthroat", Rules(), seed=4, hands=3):
        if view.phase is Phase.PLAYING and len(view.tricks) > 8:
            voids = shown_voids(view)
            assert any(voids)
            for seat in range(3):
                assert game.hand_mask(seat) & voids[seat] == 0
            return
    raise AssertionError("no position late enough")


def test_in_duo_the_other_players_sampled_hand_holds_the_cards_a_drawer_keeps() -> None:
    """Of the cards seat 0 can't see, spades, aces and kings go to the other player's hand (not to its
    discards) far more often than the half that chance would give them."""
    game = Game.new("duo-sampling", "duo", Rules(), seed=8)
    drive(game, computer_players([make_player("normal", s) for s in range(2)]),
          until=lambda g: g.phase is Phase.BIDDING)
    view = seat_view(game, 0)
    sampler = Sampler(view, random.Random(1))
    unseen = mask_of(view.unseen_cards())
    high = sum(1 << c for c in range(54) if c >= FIRST_SPADE or c % 13 >= 11) & unseen
    in_hand = sum((sampler.deal()[1] & high).bit_count() for _ in range(200)) / 200
    share = 13 / unseen.bit_count()  # the other player holds 13 of the cards seat 0 can't see
    assert in_hand > 1.2 * share * high.bit_count()


def test_house_rules_of_play_tell_what_a_seat_does_not_hold():
    game = new_game("solo", Rules(must_overtrump=True, first_trick="lowest_club"))
    deal_hands(game, "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
               "9S JS QS KS AS 2C 3C 4C 5C 6C 7C 8C 9C",
               "10S 2S AC 2D 3D 4D 5D 6D 7D 8D 9D 10D JD",
               "10C JC QC KC QD KD AD 3S 4S 5S 6S 7S 8S")
    for seat in range(4):
        game.bid(seat, 1)
    for seat, card in zip(range(4), cards("5H 9S 10S QD"), strict=True):
        game.play(seat, card)
    voids = shown_voids(seat_view(game, 2))
    # Seat 0 led a heart to the first trick, so it holds no club; seat 3 discarded under the 10♠,
    # so it holds no spade above it.
    assert voids[0] & SUIT_MASKS[CLUBS] == SUIT_MASKS[CLUBS]
    assert voids[3] & mask_of(cards("JS QS KS AS")) == mask_of(cards("JS QS KS AS"))
    assert not voids[3] & mask_of(cards("3S 8S"))
    for seat in range(4):
        assert game.hand_mask(seat) & voids[seat] == 0
