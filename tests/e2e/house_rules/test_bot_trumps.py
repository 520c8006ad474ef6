"""The house rule `trumps` through Discord: a partners game under suicide, nil passing and jokers and
deuces, played to its end by two people and two computer players. The panel shows the jokers and
the 2♦ among the spades, by strength; the record holds to the order and is valid."""

from __future__ import annotations

import pytest

from tests.e2e.helpers.computers import FAST, non_nil, start_with_two_computers
from tests.e2e.helpers.server import Spades, game_over_message
from tests.e2e.helpers.table import Table
from tests.record_check import check_record

# Jokers & deuces, strongest first: big joker, little joker, 2♠, 2♦, then A♠ down to 3♠.
SPADES_BY_STRENGTH = ["BJ", "LJ", "2S", "2D", *(f"{rank}S" for rank in "A K Q J 10 9 8 7 6 5 4 3".split())]


@pytest.mark.parametrize("bot_env", FAST)
async def test_a_partners_game_under_suicide_nil_pass_and_jokers_and_deuces(spades: Spades) -> None:
    alice, bob = spades.member("Alice"), spades.member("Bob")
    channel = spades.channel("jokers")
    assert "Jokers & deuces" in await spades.choices(alice, channel, "new", "rules", "jok")
    table = Table(spades, channel, [alice, bob], bid_policy=non_nil)
    lobby = await table.open(alice, mode="partners", rules="Jokers & deuces, bidding=suicide nil_pass=one_two",
                             target=50, mercy=50)
    assert "**Jokers & deuces:** big joker, little joker, 2♠ and 2♦ are the top spades" in lobby.text, lobby.text
    assert "**Suicide:**" in lobby.text
    rules = await spades.command(bob, channel, "rules")
    assert "**Jokers & deuces:** big joker, little joker, 2♠ and 2♦ are the top spades, above the A♠; the 2♦ is " \
           "a spade. 2♣ and 2♥ are out" in rules.content, rules.content
    five = await spades.command(alice, spades.channel("five"), "new", mode="five", rules="Jokers & deuces")
    assert five.ephemeral and five.content.endswith(
        "trumps=jokers_deuces needs the four deuces, and five plays without some: use trumps=standard."), five.content
    await start_with_two_computers(spades, table, lobby)

    # Whenever a person passes or plays, their panel shows the spades first, strongest first, with
    # the jokers and the 2♦ among them.
    seen_top: set[str] = set()
    while (turn := await table.whose_turn()) is not None:
        if turn.phase in ("pass", "play"):
            held = table.held_cards(turn.panel)
            spades_held = [card for card in held if card in SPADES_BY_STRENGTH]
            assert held[:len(spades_held)] == sorted(spades_held, key=SPADES_BY_STRENGTH.index), held
            assert not {"2C", "2H"} & set(held)
            seen_top |= {"BJ", "LJ", "2D"} & set(held)
        await table.act(turn)
    assert seen_top, "the seeded deals gave the people a joker or the 2♦ to show"
    await game_over_message(spades, channel)
    record = await spades.record(alice, channel)
    check_record(record)  # the deck, one nil a team, the passes, every trick's winner under the order
    assert (record["rules"]["trumps"], record["rules"]["bidding"], record["rules"]["nil_pass"]) == \
        ("jokers_deuces", "suicide", "one_two")
    assert record["final"]["ended"] in ("target", "mercy")
    assert all(hand["passes"] for hand in record["hands"])
    tops = [trick for hand in record["hands"] for trick in hand["tricks"]
            if {"BJ", "LJ", "2D"} & {card for _, card in trick["plays"]}]
    assert tops, "a joker or the 2♦ was played"
