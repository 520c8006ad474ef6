"""Presets: named rule sets, so a table picks its house rules by one name instead of ten options.

The built-in ones are defined here, once; a server adds its own (`/spades settings preset_save`).
A rules text (`/spades new rules:`, `/spades settings rules:`) is preset names and ``key=value``
pairs, comma- or space-separated, later ones winning: ``Whiz, overtricks=negative``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.engine.errors import RuleError
from bot.engine.rules import OPTIONS

Preset = Mapping[str, Any]

PRESETS: dict[str, Preset] = {
    "Whiz": {"bidding": "whiz"},
    "Mirrors": {"bidding": "mirrors"},
    "Suicide": {"bidding": "suicide"},  # team modes
    "Jokers & deuces": {"trumps": "jokers_deuces"},
    "Short game": {"target": 250, "bag_limit": 5, "bag_penalty": 50},  # file 003's 5 / 50, file 002's 250
    "No deductions": {"set_penalty": "zero", "bag_penalty": 0},  # a set scores 0, bags cost nothing
}
NAME_LIMIT = 40


def built_in_presets() -> dict[str, Preset]:
    """The built-in presets whose options this version of the rules knows."""
    return {name: rules for name, rules in PRESETS.items() if all(key in OPTIONS for key in rules)}


def preset_name(text: str) -> str:
    """A name a server may save a preset under: short, plain words, not a built-in one's."""
    name = " ".join(text.split())
    if not name or len(name) > NAME_LIMIT or any(c in name for c in "=,"):
        raise RuleError(f"A preset's name is 1 to {NAME_LIMIT} characters, without “=” or “,”.")
    built_in = find_preset(name, PRESETS)
    if built_in is not None:
        raise RuleError(f"“{built_in[0]}” is a built-in preset: choose another name.")
    return name


def find_preset(name: str, presets: Mapping[str, Preset]) -> tuple[str, Preset] | None:
    """The preset called ``name`` (any case), as it is spelt, with its options."""
    wanted = " ".join(name.split()).casefold()
    return next(((known, rules) for known, rules in presets.items() if known.casefold() == wanted), None)


def rules_options(text: str, presets: Mapping[str, Preset]) -> dict[str, Any]:
    """The options a rules text stands for, unchecked (``Rules.from_options`` checks them): each
    comma-separated part is a preset's name, then ``key=value`` pairs, or pairs alone."""
    options: dict[str, Any] = {}
    for part in text.split(","):
        words = part.split()
        named = []
        while words and "=" not in words[0]:
            named.append(words.pop(0))
        if named:
            found = find_preset(" ".join(named), presets)
            if found is None:
                known = ", ".join(presets)
                raise RuleError(f"“{' '.join(named)}” isn't key=value (e.g. nil=off) nor a preset: {known}.")
            options.update(found[1])
        for pair in words:
            key, _, value = pair.partition("=")
            if not key or not value:
                raise RuleError(f"“{pair}” isn't key=value, e.g. nil=off or bag_limit=5.")
            options[key.strip().lower()] = value
    return options
