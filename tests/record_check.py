"""An independent checker of `spades-record/1` documents (docs/record-format.md).

It deliberately shares no code with `bot.engine`: it re-derives trick winners and scores from the
record alone, the way anyone checking a game would, so a bug in the engine can't hide behind it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from tests.house_check import check_bid, check_side_bids, moon_side, side_points

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
DEFAULT_RULES = {
    "target": 500, "nil": True, "blind_nil": True, "blind_nil_deficit": 100, "no_exact_total": False,
    "spades_must_break": True, "set_penalty": "minus", "nil_value": 100, "blind_nil_value": 200,
    "bag_limit": 10, "bag_penalty": 100, "nil_tricks_help_partner": False, "mercy": None,
    "leftover": "last", "jokers": False, "first_lead": "dealer_left", "first_trick": "free", "must_overtrump": False,
    "fast_finish": True, "nil_pass": "off", "trumps": "standard", "teams": "solo", "identical": "first",
}
SIX_SIDES = {"solo": 6, "pairs": 3, "trios": 2}


# The cards above the A♠ under each `trumps`, lowest first: they are spades whatever they show.
TOP_SPADES = {"standard": ["LJ", "BJ"], "deuces_high": ["2H", "2C", "2D", "2S"],
              "jokers_deuces": ["2D", "2S", "LJ", "BJ"]}


def _order(rules: dict[str, Any]) -> tuple[Callable[[str], str], Callable[[str], int]]:
    """The suit each card is played as, and its strength, under the record's trumps."""
    top = TOP_SPADES[rules.get("trumps", "standard")]

    def suit(card: str) -> str:
        return "S" if card in top else card[-1]

    def strength(card: str) -> int:
        return 13 + top.index(card) if card in top else RANKS.index(card[:-1])

    return suit, strength


SEATS = {"cutthroat": 3, "solo": 4, "partners": 4, "duo": 2, "five": 5, "six": 6}


def _deck(rules: dict[str, Any], mode: str) -> Counter[str]:
    """The cards in play, each with how many copies (two in six: two decks without their 2♣)."""
    deck = {r + s for r in RANKS for s in "SHDC"}
    if rules["jokers"]:
        deck |= {"BJ", "LJ"}
        if mode != "cutthroat":
            deck -= {"2C", "2D"}
    if rules.get("trumps") == "jokers_deuces":
        deck |= {"BJ", "LJ"}
        if mode != "cutthroat":
            deck -= {"2C", "2H"}
    if mode == "five":
        deck -= {"2D", "2H"}
    if mode == "six":
        return Counter({card: 2 for card in deck - {"2C"}})
    return Counter(deck)


def _take(cards: Counter[str], card: str) -> None:
    cards[card] -= 1
    if not cards[card]:
        del cards[card]


def _check_draws(hand: dict[str, Any], deal: dict[int, list[str]], deck: Counter[str], seats: int,
                 shown: bool) -> None:
    """Duo: turns alternate from the dealer's left, two cards a turn, one kept and one discarded;
    ``deal`` is what was kept and ``set_aside`` what was discarded. A public record shows only the
    viewer's own draws."""
    draws = hand.get("draws", [])
    cards = [d["card"] for d in draws]
    assert len(cards) == len(set(cards)) and set(cards) <= set(deck), "each card is drawn once"
    if shown:
        assert len({d["seat"] for d in draws}) <= 1 and set(deal) >= {d["seat"] for d in draws}
        return
    assert set(cards) == set(deck), "the whole stock is drawn"
    first = (hand["dealer"] + 1) % seats
    for turn, (a, b) in enumerate(zip(draws[::2], draws[1::2], strict=True)):
        assert a["seat"] == b["seat"] == (first + turn) % seats, "the draw alternates"
        assert a["kept"] != b["kept"], "of two cards drawn one is kept"
    for seat in range(seats):
        kept = {d["card"] for d in draws if d["seat"] == seat and d["kept"]}
        assert kept == set(deal[seat]), "a seat's hand is the cards it kept"
    assert set(hand["set_aside"]) == {d["card"] for d in draws if not d["kept"]}


def _lowest_club(rules: dict[str, Any], cards: Counter[str]) -> str | None:
    suit, strength = _order(rules)
    clubs = [c for c in cards if suit(c) == "C"]
    return min(clubs, key=strength) if clubs else None


def _house_play_ok(rules: dict[str, Any], cards: Counter[str], card: str, plays: list[Any], first_trick: bool) -> bool:
    """The house rules of play (first_trick, must_overtrump) for a seat whose cards are known."""
    suit, strength = _order(rules)
    led = suit(plays[0][1]) if plays else None
    if first_trick and rules["first_trick"] == "no_spades" and suit(card) == "S" and led != "S":
        return all(suit(c) == "S" for c in cards)
    if first_trick and rules["first_trick"] == "lowest_club" and led in (None, "C") and _lowest_club(rules, cards):
        return card == _lowest_club(rules, cards)
    spades = [strength(c) for _, c in plays if suit(c) == "S"]
    if rules["must_overtrump"] and led not in (None, "S") and spades and all(suit(c) != led for c in cards):
        twin_beats = rules.get("identical") == "last"

        def beats(c: str) -> bool:
            return suit(c) == "S" and (strength(c) > max(spades) or (twin_beats and strength(c) == max(spades)))
        return not any(beats(c) for c in cards) or beats(card)
    return True


def _exchange(rules: dict[str, Any], teams: list[list[int]], hand: dict[str, Any], bids: list[dict[str, Any]],
              held: dict[int, Counter[str] | None], complete: bool) -> None:
    """nil_pass: the passes fit the bids (1 card each, 2 for a blind nil, between the partners of a
    team with a nil), and the cards change hands (where the hands are known)."""
    passes = hand.get("passes", [])
    nil_of = {b["seat"]: (b["bid"] == 0, b["blind"]) for b in bids}
    expected = {}
    if rules["nil_pass"] == "one_two" and len(bids) == len(held):
        for team in (t for t in teams if len(t) == 2):
            if any(nil_of[s][0] for s in team):
                count = 2 if any(nil_of[s] == (True, True) for s in team) else 1
                expected.update({team[0]: (team[1], count), team[1]: (team[0], count)})
    for p in passes:
        to, count = expected[p["from"]]
        assert p["to"] == to and (len(p["cards"]) == count if complete else 1 <= len(p["cards"]) <= count)
        cards = held[p["from"]]
        if cards is not None:
            assert not Counter(p["cards"]) - cards, "a seat passed a card it was not dealt"
            for card in p["cards"]:
                _take(cards, card)
    for p in passes:
        receiver = held[p["to"]]
        if receiver is not None:
            receiver.update(p["cards"])
    if complete:
        assert {p["from"] for p in passes} == set(expected), "every partner of a nil passes"


def check_record(record: dict[str, Any] | None, *, public: bool = False) -> None:
    """Raise AssertionError with a reason if the record is not a valid, consistent game.

    With ``public``, the record is the one a player is shown: while the game runs, the hand in play
    lists at most one seat's deal and no set-aside cards, and nothing holds the seed. The plays of
    the seats whose cards are hidden are still checked as far as the table shows: no card twice,
    none from a shown hand, and no card of a suit the seat has already shown it lacks.
    """
    assert record is not None, "no record"
    assert record["format"] == "spades-record/1"
    mode = record["mode"]
    assert mode in SEATS
    rules = record["rules"]
    assert set(DEFAULT_RULES) <= set(rules), "rules must list every option"
    suit, strength = _order(rules)
    seats = SEATS[mode]
    deck = _deck(rules, mode)
    assert [p["seat"] for p in record["players"]] == list(range(seats))
    for p in record["players"]:
        assert p["kind"] in ("human", "bot") and isinstance(p["name"], str) and isinstance(p["id"], str)
    tricks_per_hand = 13 if mode == "duo" else deck.total() // seats
    final = record["final"]
    running = final is None
    if public and running:
        assert "seed" not in record, "a running game's public record must not hold the seed"

    sides = 2 if mode == "partners" else SIX_SIDES[rules["teams"]] if mode == "six" else seats

    def side(seat: int) -> int:
        return seat % sides

    teams = [[s for s in range(seats) if side(s) == sd] for sd in range(sides)]
    scores = [0] * sides
    bags = [0] * sides
    previous_dealer = None
    for index, hand in enumerate(record["hands"]):
        assert hand["number"] == index + 1
        if previous_dealer is not None:
            assert hand["dealer"] == (previous_dealer + 1) % seats, "the deal passes to the left"
        previous_dealer = hand["dealer"]
        complete = "result" in hand
        if not complete:
            assert index == len(record["hands"]) - 1, "only the last hand may be unfinished"
            assert running or final["ended"] in ("cancelled", "forfeit"), "a hand was left unfinished"
        deal = {int(k): list(v) for k, v in hand["deal"].items()}
        if public and running and not complete:
            assert len(deal) <= 1 and set(deal) <= set(range(seats)), "only the viewer's own deal is public"
            assert hand["set_aside"] == [], "the set-aside cards are secret while the hand runs"
            # In duo the viewer's hand is known once the draw is over.
            assert all(len(cards) == tricks_per_hand or (mode == "duo" and not cards and not hand["bids"])
                       for cards in deal.values())
            shown = [c for cards in deal.values() for c in cards]
            assert not Counter(shown) - deck
            if mode == "duo":
                _check_draws(hand, deal, deck, seats, shown=True)
        else:
            assert sorted(deal) == list(range(seats))
            all_cards = [c for cards in deal.values() for c in cards] + list(hand["set_aside"])
            if mode == "duo" and not hand["bids"] and not all(deal.values()):
                assert not complete and not deal[0] and not hand["set_aside"], "a hand stopped in its draw"
                continue
            assert Counter(all_cards) == deck, "deal uses the deck"
            assert all(len(cards) == tricks_per_hand for cards in deal.values())
            if mode == "duo":
                _check_draws(hand, deal, deck, seats, shown=False)
            if mode == "cutthroat" and len(deck) % seats and rules["leftover"] == "two_clubs":
                assert hand["set_aside"] == ["2C"]
        # Bids: in order from the dealer's left, in range, total rule.
        first = (hand["dealer"] + 1) % seats
        bids = hand["bids"]
        assert [b["seat"] for b in bids] == [(first + i) % seats for i in range(len(bids))]
        for b in bids:
            low = 0 if rules["nil"] or b["blind"] else 1
            assert low <= b["bid"] <= tricks_per_hand
            assert not (b["blind"] and mode == "duo"), "no blind bids in duo: the draw shows the cards"
            own_spades = sum(suit(c) == "S" for c in deal[b["seat"]]) if b["seat"] in deal else None
            check_bid(rules, b, own_spades)
        if len(bids) == seats:
            for sd in range(sides):
                check_side_bids(rules, [b["bid"] for b in bids if side(b["seat"]) == sd])
        if rules["no_exact_total"] and len(bids) == seats:
            assert sum(b["bid"] for b in bids) != tricks_per_hand
        # Tricks: legal plays, right winners. Only the unfinished hand's last trick may be incomplete.
        tricks = hand["tricks"]
        assert not tricks or len(bids) == seats, "play starts once everyone has bid"
        assert len(tricks) <= tricks_per_hand
        held: dict[int, Counter[str] | None] = {s: Counter(deal[s]) if s in deal else None for s in range(seats)}
        _exchange(rules, teams, hand, bids, held, complete)
        shown_cards = sum((cards for cards in held.values() if cards is not None), Counter[str]())
        leader = first
        if rules["first_lead"] == "two_clubs":
            if all(cards is not None for cards in held.values()):
                # The lowest club; of two identical ones, the first holder from the dealer's left.
                lowest = min((c for c in shown_cards if suit(c) == "C"), key=strength)
                leader = next(s for s in ((first + i) % seats for i in range(seats)) if held[s][lowest])  # type: ignore[index]
            elif hand["tricks"]:  # a running hand's public record: only the viewer's deal is known
                leader = hand["tricks"][0]["leader"]
        voids: dict[int, set[str]] = {s: set() for s in range(seats)}
        played: Counter[str] = Counter()
        broken = False
        won = [0] * seats
        for number, trick in enumerate(tricks, start=1):
            assert trick["leader"] == leader
            plays = trick["plays"]
            assert plays, "a trick holds at least one card"
            assert [s for s, _ in plays] == [(leader + i) % seats for i in range(len(plays))]
            led = suit(plays[0][1])
            for position, (seat, card) in enumerate(plays):
                assert played[card] < deck[card], f"{card} played too often or not in the deck"
                played[card] += 1
                cards = held[seat]
                if cards is None:
                    assert shown_cards[card] < deck[card], f"seat {seat} played {card} from another seat's hand"
                    assert suit(card) not in voids[seat], f"seat {seat} reneged earlier in the hand"
                    if position == 0 and led == "S" and rules["spades_must_break"] and not broken:
                        voids[seat] |= {"H", "D", "C"}
                    elif position > 0 and suit(card) != led:
                        voids[seat].add(led)
                else:
                    assert cards[card], f"seat {seat} played {card} it does not hold"
                    if position == 0:
                        if led == "S" and rules["spades_must_break"] and not broken:
                            assert all(suit(c) == "S" for c in cards), "spades led before broken"
                    elif suit(card) != led:
                        assert all(suit(c) != led for c in cards), f"seat {seat} reneged"
                    assert _house_play_ok(rules, cards, card, plays[:position], number == 1), \
                        f"seat {seat} broke a house rule of play with {card}"
                    _take(cards, card)
                if suit(card) == "S":
                    broken = True
            if len(plays) < seats:
                assert not complete and number == len(tricks), "only the last trick of a running hand is unfinished"
                assert trick["winner"] is None, "an unfinished trick has no winner yet"
                continue
            assert len(plays) == seats
            spades = [(s, c) for s, c in plays if suit(c) == "S"]
            pool = spades or [(s, c) for s, c in plays if suit(c) == led]
            # Of two identical cards the first played wins (max keeps the first), or the last.
            winner = max(pool[::-1] if rules.get("identical") == "last" else pool, key=lambda sc: strength(sc[1]))[0]
            assert trick["winner"] == winner
            won[winner] += 1
            leader = winner
        if "fast_finish" in hand:  # the last tricks played themselves: only in a finished hand, with the rule on
            assert complete and rules["fast_finish"] and 2 <= hand["fast_finish"]["from_trick"] <= len(tricks)
        elif complete:  # with the rule on, at least the last trick (one card each) plays itself
            assert not rules["fast_finish"], "a hand played to its last card under fast_finish"
        if not complete:
            continue
        assert len(tricks) == tricks_per_hand and all(not h for h in held.values())
        result = hand["result"]
        assert result["tricks_won"] == won
        bid_of = {b["seat"]: b for b in bids}
        for sd in range(sides):
            members = [s for s in range(seats) if side(s) == sd]
            points, new_bags = side_points(rules, [bid_of[s] for s in members], [won[s] for s in members])
            bags[sd] += new_bags
            if rules.get("last_trick") and tricks[-1]["winner"] in members:
                points += 10
            while bags[sd] >= rules["bag_limit"]:
                bags[sd] -= rules["bag_limit"]
                points -= rules["bag_penalty"]
            scores[sd] += points
            for s in members:
                assert result["hand_points"][s] == points, f"hand {index + 1} seat {s} points"
                assert result["bags"][s] == bags[sd]
                assert result["scores"][s] == scores[sd]
    if running:
        return
    per_seat = [scores[side(s)] for s in range(seats)]
    assert final["scores"] == per_seat
    if final["ended"] == "moon":
        last = record["hands"][-1]
        mooned = moon_side(rules, last, [[s for s in range(seats) if side(s) == sd] for sd in range(sides)],
                           tricks_per_hand)
        assert mooned is not None, "a moon ending needs a side that bid and took every trick"
        assert final["winners"] == [s for s in range(seats) if side(s) == mooned]
    elif final["ended"] in ("target", "mercy"):
        assert record["hands"] and all("result" in hand for hand in record["hands"])
        top = max(scores)
        assert scores.count(top) == 1, "a tie for the lead plays another hand"
        if final["ended"] == "target":
            assert top >= rules["target"]
        else:
            assert rules["mercy"] is not None and min(scores) <= -rules["mercy"]
        assert final["winners"] == [s for s in range(seats) if scores[side(s)] == top]
    elif final["ended"] == "cancelled":
        assert final["winners"] == []
    else:
        assert final["ended"] == "forfeit"
