"""Building hand-made positions: explicit deals, a known dealer, names for readable errors."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

import pytest
from hypothesis import strategies as st

from bot.ai.drive import turns
from bot.engine import EngineError, Game, Mode, Phase, Rules, parse_card
from bot.engine.cards import BASE

NAMES = {2: ["alice", "bob"], 3: ["alice", "bob", "carol"], 4: ["alice", "bob", "carol", "dave"],
         5: ["alice", "bob", "carol", "dave", "erin"], 6: ["alice", "bob", "carol", "dave", "erin", "frank"]}


def cards(text: str) -> list[int]:
    return [parse_card(word) for word in text.split()]


def new_game(mode: str = "cutthroat", rules: Rules | None = None, dealer: int | None = None) -> Game:
    """A game whose first dealer is the seat *before* 0 unless given, so seat 0 bids and leads first."""
    m = Mode(mode)
    first = dealer if dealer is not None else m.seats - 1
    return Game("test", m, rules or Rules(), seed=7, first_dealer=first, names=NAMES[m.seats])


def deal(game: Game, fixed: Mapping[int, str], set_aside: str | None = None) -> None:
    """Deal the given cards to the given seats and the rest of the deck, in order, to the others (six:
    a card named twice is both copies)."""
    hands = {seat: cards(text) for seat, text in fixed.items()}
    aside = cards(set_aside) if set_aside is not None else []
    rest = list(game.deck())
    for card in (*(c for h in hands.values() for c in h), *aside):
        rest.remove(next(c for c in rest if c & BASE == card))
    for seat in range(game.seats):
        hand = hands.setdefault(seat, [])
        while len(hand) < game.tricks_per_hand:
            hand.append(rest.pop(0))
    aside += rest
    game.deal([hands[s] for s in range(game.seats)], aside)


def deal_hands(game: Game, *texts: str) -> None:
    """Deal exactly these hands, seat by seat (no card set aside)."""
    game.deal([cards(text) for text in texts])


Policy = Callable[[Game, int], int]


def lowest(game: Game, seat: int) -> int:
    return game.legal_cards(seat)[0]


def play_out(game: Game, bids: Mapping[int, int], policy: Policy = lowest) -> None:
    """Bid as given (revealing hidden cards first), then play the hand out with ``policy``."""
    while game.phase is Phase.BIDDING:
        seat = game.turn
        assert seat is not None
        if game.cards_hidden(seat):
            game.reveal(seat)
        game.bid(seat, bids[seat])
    while game.phase is Phase.PLAYING:
        seat = game.turn
        assert seat is not None
        game.play(seat, policy(game, seat))


@contextmanager
def refused(kind: type[EngineError], message: str) -> Iterator[None]:
    """The action must raise ``kind`` with exactly the message a player would read."""
    with pytest.raises(kind) as info:
        yield
    assert str(info.value) == message


rule_sets = st.builds(
    Rules,
    target=st.sampled_from([50, 100, 150]),
    nil=st.booleans(),
    blind_nil=st.booleans(),
    blind_nil_deficit=st.sampled_from([0, 50, 100]),
    no_exact_total=st.booleans(),
    spades_must_break=st.booleans(),
    set_penalty=st.sampled_from(["minus", "zero"]),
    nil_value=st.sampled_from([50, 100]),
    blind_nil_value=st.sampled_from([100, 200]),
    bag_limit=st.sampled_from([3, 5, 10]),
    bag_penalty=st.sampled_from([0, 50, 100]),
    nil_tricks_help_partner=st.booleans(),
    mercy=st.sampled_from([None, 50, 100]),
    leftover=st.sampled_from(["last", "two_clubs"]),
    jokers=st.booleans(),
    first_lead=st.sampled_from(["dealer_left", "two_clubs"]),
    first_trick=st.sampled_from(["free", "no_spades", "lowest_club"]),
    must_overtrump=st.booleans(),
    fast_finish=st.booleans(),
    nil_pass=st.sampled_from(["off", "one_two"]),
    teams=st.sampled_from(["solo", "pairs", "trios"]),
    identical=st.sampled_from(["first", "last"]),
    trumps=st.sampled_from(["standard", "deuces_high", "jokers_deuces"]),
)


def fit_mode(mode: Mode, rules: Rules) -> Rules:
    """Drop what the mode refuses: nil passing needs teams of two; duo, five and six deal no jokers;
    teams and identical are six's; five and six have not the four deuces the trump orders need;
    those orders set the top spades without jokers."""
    if mode is not Mode.SIX:
        rules = rules.with_options(teams="solo", identical="first")
    if mode is not Mode.PARTNERS and rules.teams != "pairs":
        rules = rules.with_options(nil_pass="off")
    if mode in (Mode.DUO, Mode.FIVE, Mode.SIX):
        rules = rules.with_options(jokers=False)
    if mode in (Mode.FIVE, Mode.SIX):
        rules = rules.with_options(trumps="standard")
    if rules.trumps != "standard":
        rules = rules.with_options(jokers=False)
    return rules


def random_game(mode: Mode, rules: Rules, seed: int, on_step: Callable[[Game], None] | None = None) -> Game:
    """A whole seeded game of random legal moves (now and then a cancel or a forfeit), checking that
    the can_/legal_ answers agree; ``on_step`` sees the game before every action and at the end."""
    rng = random.Random(seed)
    game = Game.new(f"prop-{seed}", mode, rules, seed=seed)
    steps = 0

    def before_each_action(game: Game) -> bool:
        """``on_step`` sees every state, a deal's too; the game is never stopped here."""
        nonlocal steps
        if on_step is not None:
            on_step(game)
        steps += 1
        assert steps < 20_000, "a game must end"
        return False

    for seat in turns(game, until=before_each_action):
        chance = rng.random()
        if chance < 0.002:
            game.cancel()
            break
        if chance < 0.003:
            game.forfeit(rng.randrange(game.seats))
            break
        if game.phase is Phase.DRAWING:
            assert game.can_draw(seat, True) and game.can_draw(seat, False)
            assert not game.can_draw((seat + 1) % game.seats, True)
            game.draw(seat, rng.random() < 0.5)
        elif game.phase is Phase.BIDDING:
            if game.cards_hidden(seat):
                blind = [b for b in range(8) if game.can_bid(seat, b, blind=True)]
                if blind and rng.random() < 0.5:
                    game.bid(seat, rng.choice(blind) if len(blind) > 1 else blind[0], blind=True)
                else:
                    game.reveal(seat)
                continue
            legal = game.legal_bids(seat)
            assert legal, "a seat whose turn it is always has a legal bid"
            for bid in range(-1, game.tricks_per_hand + 2):
                assert game.can_bid(seat, bid) == (bid in legal)
            game.bid(seat, rng.choice(legal))
        elif game.phase is Phase.PASSING:
            count = game.cards_to_pass(seat)
            hand = game.hand_of(seat)
            assert count and not game.can_pass(seat, hand[:count + 1]) and not game.legal_cards(seat)
            game.pass_cards(seat, rng.sample(hand, rng.randint(1, count)))  # now and then one at a time
        else:
            legal = game.legal_cards(seat)
            assert legal
            for card in game.hand_of(seat):
                assert game.can_play(seat, card) == (card in legal)
            game.play(seat, rng.choice(legal))
    if on_step is not None:
        on_step(game)
    return game
