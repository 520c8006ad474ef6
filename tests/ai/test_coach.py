"""Hints: the reason given in words for each kind of position, and a hint that depends only on what
the seat can see."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.ai import BLIND_NIL, REVEAL, Move
from bot.ai.coach import advise, bid_reason, blind_nil_reason, only_card_reason, play_reason
from bot.engine import Game, Mode, Phase, Rules, SeatView, card_label, parse_card, seat_view
from bot.engine.modes import deck_for, tricks_for
from bot.engine.names import named


def deal_with(mode: Mode, rules: Rules, fixed: Mapping[int, Sequence[str]]) -> list[list[int]]:
    """A deal where the given seats hold the given cards (first copies in six); the rest of the deck
    goes round in order."""
    per = tricks_for(mode, rules)
    hands = [[parse_card(c) for c in fixed.get(s, ())] for s in range(mode.seats)]
    taken = {c for hand in hands for c in hand}
    rest = [c for c in deck_for(mode, rules) if c not in taken]
    for seat in range(mode.seats):
        while len(hands[seat]) < per:
            hands[seat].append(rest.pop(0))
    return hands


def position(mode: Mode, fixed: Mapping[int, Sequence[str]], bids: Sequence[int], plays: Sequence[str],
             first_dealer: int, rules: Rules | None = None) -> SeatView:
    """The view of the seat on turn after the given bids (in order) and plays (by whoever is on turn)."""
    rules = rules or Rules()
    game = Game("coach", mode, rules, 0, first_dealer, [f"P{s}" for s in range(mode.seats)])
    hands = deal_with(mode, rules, fixed)
    game.deal(hands, [c for c in deck_for(mode, rules) if not any(c in h for h in hands)])
    for bid in bids:
        assert game.turn is not None
        if game.cards_hidden(game.turn):
            game.reveal(game.turn)
        game.bid(game.turn, bid)
    for code in plays:
        assert game.turn is not None
        game.play(game.turn, parse_card(code))
    assert game.turn is not None
    return seat_view(game, game.turn)


def card(code: str) -> int:
    return parse_card(code)


def test_covering_a_partners_nil_says_which_card_goes_over_which():
    # Dealer 1: seat 2 (nil) leads the Q♥, seat 3 follows low, seat 0 holds the K♥.
    view = position(Mode.PARTNERS, {0: ["KH", "3H", "AS"], 2: ["QH", "2C"], 3: ["2H"]},
                    [0, 3, 4, 3], ["QH", "2H"], first_dealer=1)
    assert view.seat == 0
    assert play_reason(view, card("KH")) == "cover your partner's nil: play the K♥ over the Q♥"
    assert play_reason(view, card("3H")) == ("you can't take this trick off your partner: "
                                             "keep your good cards and throw the 3♥")


def test_six_pairs_cover_the_partner_across_the_table():
    # Six pairs: seats 0 and 3 are partners. Dealer 2: seat 3 (nil) leads the Q♥, seats 4 and 5
    # follow low, and seat 0 is told to cover its partner, not to take a trick it doesn't need.
    pairs = Rules(teams="pairs")
    view = position(Mode.SIX, {0: ["KH", "4H", "AS"], 3: ["QH"], 4: ["2H"], 5: ["3H"]},
                    [0, 3, 3, 2, 3, 3], ["QH", "2H", "3H"], first_dealer=2, rules=pairs)
    assert view.seat == 0
    assert play_reason(view, card("KH")) == "cover your partner's nil: play the K♥ over the Q♥"
    assert play_reason(view, card("4H")) == ("you can't take this trick off your partner: "
                                             "keep your good cards and throw the 4♥")
    # Without the nil, seat 0 needs the side's tricks (its 2 and its partner's 3), and its partner's
    # Q♥ is winning the trick.
    hearts = {0: ["KH", "4H", "AS"], 3: ["QH"], 4: ["2H"], 5: ["3H"]}
    need = position(Mode.SIX, hearts, [3, 3, 3, 2, 3, 3], ["QH", "2H", "3H"], first_dealer=2, rules=pairs)
    assert play_reason(need, card("KH")) == "you still need 5 tricks: take this one with the K♥"
    assert play_reason(need, card("4H")) == ("your partner's Q♥ is winning the trick: "
                                             "throw the 4♥ and keep your winners")
    # Leading: the A♥ is the highest heart still out, though its twin is in another hand.
    lead = position(Mode.SIX, {0: ["AH", "KH"]}, [3, 3, 3, 3, 3, 3], [], first_dealer=5, rules=pairs)
    assert lead.seat == 0
    assert play_reason(lead, card("AH")) == "you still need 6 tricks: lead the A♥, the highest heart still out"
    assert play_reason(lead, card("KH")) == "you still need 6 tricks: lead the K♥ and keep your winners for later"
    # Seat 1's partner is seat 4, who has bid 3.
    bid = position(Mode.SIX, {}, [3, 3, 3, 3], [], first_dealer=2, rules=pairs)
    assert bid.seat == 1
    assert bid_reason(bid, 0, 0.4) == "your hand is low and your partner's bid of 3 can cover you"


def test_six_trios_name_both_teammates_bids():
    # Six trios: seats 0, 2 and 4 against 1, 3 and 5; dealer 5, so seat 4 bids after 0 and 2.
    view = position(Mode.SIX, {}, [3, 2, 4, 3], [], first_dealer=5, rules=Rules(teams="trios"))
    assert view.seat == 4
    assert bid_reason(view, 0, 0.4) == "your hand is low and your teammates' bids of 3 and 4 can cover you"
    solo = position(Mode.SIX, {}, [3, 2, 4, 3], [], first_dealer=5)
    assert bid_reason(solo, 0, 0.4).startswith("your hand is low: played out, it took only 0.4 tricks")


def test_a_nil_bidder_is_told_to_go_under():
    view = position(Mode.CUTTHROAT, {0: ["KD"], 1: ["5D", "9D"]}, [4, 0, 5], ["KD"], first_dealer=2)
    assert view.seat == 1
    assert play_reason(view, card("5D")) == "keep your nil: the 5♦ goes under the K♦"


def test_trumping_in_and_ducking_a_bag_are_named():
    # Seat 1 has no diamonds but a spade: still needing tricks, it trumps in rather than throw its ace.
    no_diamonds = {0: ["KD", "QD", "JD", "10D", "9D", "8D", "7D", "6D", "5D", "4D", "3D", "2D"],
                   1: ["4S", "AC"], 2: ["AD"]}
    view = position(Mode.CUTTHROAT, no_diamonds, [4, 3, 5], ["KD"], first_dealer=2)
    assert view.seat == 1
    assert play_reason(view, card("4S")) == "you still need 3 tricks: trump in with the 4♠"
    assert play_reason(view, card("AC")) == ("you still need 3 tricks, but not this one: "
                                             "keep your winners and throw the A♣")
    # Seat 1 bid 1 and took the first trick; on the third it may duck the Q♣ or win it with the K♣.
    clubs = {0: ["2C", "JC", "QC"], 1: ["AC", "4C", "5C", "KC"], 2: ["3C", "6C", "7C"]}
    ducking = position(Mode.CUTTHROAT, clubs, [4, 1, 5], ["2C", "AC", "3C", "4C", "6C", "JC", "QC"],
                       first_dealer=2)
    assert ducking.seat == 1 and ducking.tricks_won[1] == 1
    assert play_reason(ducking, card("5C")) == "your bid is made: duck under the Q♣ with the 5♣ to avoid a bag"
    assert play_reason(ducking, card("KC")) == ("your bid is made: take the trick with the K♣, "
                                                f"to set {named('P0')}, who still needs tricks")


HEARTS = {0: ["2H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "AH"], 1: ["KH"], 2: ["3H"]}


def test_setting_an_opponents_nil_and_following_with_the_only_card():
    # Seat 1 bid nil; seat 0 leads before it, seat 2 plays after it.
    hearts = HEARTS
    lead = position(Mode.CUTTHROAT, hearts, [4, 0, 5], [], first_dealer=2)
    assert lead.seat == 0
    assert play_reason(lead, card("2H")) == f"set {named('P1')}'s nil: lead the low 2♥ so they must go under it"
    after = position(Mode.CUTTHROAT, hearts, [4, 0, 5], ["2H", "KH"], first_dealer=2)
    assert after.seat == 2
    assert play_reason(after, card("3H")) == f"let {named('P1')}'s K♥ win: a nil bidder who takes a trick loses the nil"
    assert only_card_reason(after) == "it's your only heart, and you must follow suit"


def test_bid_and_blind_nil_reasons_are_plain_words():
    assert bid_reason(position(Mode.CUTTHROAT, {}, [], [], 0), 4, 4.4) == (
        "played out, your hand took about 4.4 tricks on average")
    assert "leaves room for the bags" in bid_reason(position(Mode.CUTTHROAT, {}, [], [], 0), 3, 5.0)
    level = position(Mode.CUTTHROAT, {}, [], [], 0)
    assert blind_nil_reason(level, REVEAL) == ("Look at your cards", "blind nil isn't open to you now")
    assert blind_nil_reason(level, BLIND_NIL) == (
        "Bid blind nil", "you are far behind, and a blind nil here is made about 11 times in 100: "
                         "worth the risk to catch up")


def test_a_forced_card_is_hinted_without_search():
    hearts = HEARTS
    view = position(Mode.CUTTHROAT, hearts, [4, 0, 5], ["2H", "KH"], first_dealer=2)
    hint = advise(view, seed=0, budget="1it")
    assert hint.move == Move.play(card("3H"))
    assert hint.text == "Play the 3♥ — it's your only heart, and you must follow suit."


def _same_view_other_deal() -> tuple[SeatView, SeatView, Game, Game]:
    """Two games a few tricks in where seat 0 sees exactly the same, but seats 1 and 2 hold
    different cards (same suits, so every play so far stays legal)."""
    games = []
    for swap in (False, True):
        game = Game("same-view", Mode.CUTTHROAT, Rules(), 0, 2, ["A", "B", "C"])
        base = Game.new("shuffle", Mode.CUTTHROAT, Rules(), seed=11)
        base.deal()
        hands = [list(base.hand_of(s)) for s in range(3)]
        if swap:  # trade each seat-1 heart with a seat-2 heart
            h1 = [c for c in hands[1] if 26 <= c < 39]
            h2 = [c for c in hands[2] if 26 <= c < 39]
            for a, b in zip(h1, h2, strict=False):
                hands[1][hands[1].index(a)], hands[2][hands[2].index(b)] = b, a
        game.deal(hands, base.hand_logs[-1].set_aside)
        games.append(game)
    # The same public moves in both: low cards, always legal in both games (suits are the same).
    for _ in range(3):
        assert games[0].turn is not None
        games[0].bid(games[0].turn, 4)
        games[1].bid(games[1].turn or 0, 4)
    while len(games[0].hand_logs[-1].tricks) < 3 or games[0].turn != 0:
        seat = games[0].turn
        assert seat is not None and games[0].phase is Phase.PLAYING
        both = [c for c in games[0].legal_cards(seat) if c in games[1].legal_cards(seat)]
        assert both, "the fixed deal allows the same plays in both games"
        games[0].play(seat, both[0])
        games[1].play(seat, both[0])
    return seat_view(games[0], 0), seat_view(games[1], 0), games[0], games[1]


def test_a_hint_never_uses_a_card_the_seat_cannot_see():
    mine, other, game, twin = _same_view_other_deal()
    assert [game.hand_of(s) for s in (1, 2)] != [twin.hand_of(s) for s in (1, 2)]
    assert mine == other._replace(game_id=mine.game_id)
    first, second = advise(mine, seed=5, budget="60it"), advise(other, seed=5, budget="60it")
    assert first == second
    assert first.move.kind == "play" and first.move.value in mine.legal_cards


def test_a_hint_is_the_hard_players_move_with_its_reason():
    view = position(Mode.PARTNERS, {0: ["KH", "3H", "AS"], 2: ["QH", "2C"], 3: ["2H"]},
                    [0, 3, 4, 3], ["QH", "2H"], first_dealer=1)
    hint = advise(view, seed=1, budget="40it")
    assert hint.move.kind == "play" and hint.move.value in view.legal_cards
    assert hint.advice == f"Play the {card_label(hint.move.value)}"
    assert hint.reason == play_reason(view, hint.move.value)
    assert hint.text.startswith(hint.advice + " — ")
