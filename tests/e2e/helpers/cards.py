"""Cards as players see and type them: a button's label (``10♥``, ``Big🃏``) and a record's code
(``10H``, ``BJ``) are two forms of one card."""

from __future__ import annotations

SUIT_LETTERS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_WORDS = {"2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven", "8": "eight",
              "9": "nine", "10": "ten", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}

JOKER_LABELS = {"Big🃏": "BJ", "Little🃏": "LJ"}
JOKER_WORDS = {"BJ": "big joker", "LJ": "little joker"}


def card_code(label: str) -> str:
    """A button label (``10♥``, ``Big🃏``) in record form (``10H``, ``BJ``)."""
    return JOKER_LABELS.get(label) or label[:-1] + SUIT_LETTERS[label[-1]]


def card_texts(code: str) -> list[str]:
    """The ways a player may type one card: ``AS``, ``as``, ``A♠``, ``ace of spades`` (a joker:
    ``BJ``, ``bj``, ``Big🃏``, ``big joker``)."""
    if code in JOKER_WORDS:
        label = next(shown for shown, joker in JOKER_LABELS.items() if joker == code)
        return [code, code.lower(), label, JOKER_WORDS[code]]
    rank, suit = code[:-1], code[-1]
    symbol = next(s for s, letter in SUIT_LETTERS.items() if letter == suit)
    return [code, code.lower(), rank + symbol, f"{RANK_WORDS[rank]} of {SUIT_WORDS[suit]}"]

