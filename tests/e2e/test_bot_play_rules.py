"""The house rules of play through Discord: the server sets them, the panel lights only the cards
they allow and says why, a typed card they forbid is refused with the reason, and the game's record
holds to them."""

from __future__ import annotations

from collections.abc import Callable

from bot.engine import fast_finish
from devkit.fake_discord import FakeMessage
from tests.e2e.conftest import Spades, card_texts, game_over_message, record_moves, refused, start_game
from tests.record_check import check_record


def summary_of(number: int) -> Callable[[FakeMessage], bool]:
    return lambda message: message.text.startswith(f"### Hand {number} scored")


async def test_first_trick_lowest_club_and_overtrump_in_a_partners_game(spades: Spades) -> None:
    alice, bob, carol, dave = (spades.member(n) for n in ("Alice", "Bob", "Carol", "Dave"))
    channel = spades.channel("spades")
    spades.fake.grant_manage_guild(spades.guild, alice)
    saved = await spades.command(alice, channel, "settings", mode="partners",
                                 rules="first_lead=two_clubs, first_trick=lowest_club must_overtrump=on")
    assert saved.ephemeral and "`first_trick` = lowest_club" in saved.content, saved.content
    assert "`must_overtrump` = on" in saved.content and "`first_lead` = two_clubs" in saved.content

    table = await start_game(spades, channel, [alice, bob, carol, dave], target=50, mercy=50)
    assert table.lobby is not None
    assert "first_lead=two_clubs" in table.lobby.content and "first_trick=lowest_club" in table.lobby.content
    rules = await spades.command(bob, channel, "rules")
    assert "`must_overtrump` = on" in rules.content

    await table.play_moves(4)  # the bids
    turn = await table.whose_turn()
    assert turn is not None and turn.phase == "play"
    [club] = table.enabled_cards(turn.panel)
    label = card_texts(club)[2]
    assert club.endswith("C")
    assert f"**Your lead.** On the first trick you must play your lowest club, {label}." in turn.panel.text
    others = [card for card in table.held_cards(turn.panel) if card != club]
    before = await spades.record(alice, channel)
    refused(await spades.command(turn.user, channel, "play", card=others[-1]),
            f"On the first trick you must play your lowest club, {label}.")
    assert await spades.choices(turn.user, channel, "play", "card", "") == [label]
    assert await spades.record(alice, channel) == before

    await table.play_moves()
    await game_over_message(spades, channel)
    record = await spades.record(carol, channel)
    check_record(record)  # every play of every hand, under the rules in the record
    assert record["rules"]["first_trick"] == "lowest_club" and record["rules"]["must_overtrump"] is True
    assert record_moves(record) == table.acknowledged()
    first = record["hands"][0]
    assert first["tricks"][0]["plays"][0] == [table.seat_of(turn.user), club]
    # Each hand's last tricks played themselves (at least the last one: one card each), and its
    # summary says who took them.
    names = [player["name"] for player in record["players"]]
    for hand in record["hands"]:
        winners = [trick["winner"] for trick in hand["tricks"][hand["fast_finish"]["from_trick"] - 1:]]
        summary = await spades.fake.wait_for_message(channel, summary_of(hand["number"]))
        assert fast_finish.summary(names, winners) in summary.text, summary.text


async def test_a_solo_game_may_be_opened_with_jokers(spades: Spades) -> None:
    alice = spades.member("Alice")
    lobby = await spades.command(alice, spades.channel("spades"), "new", mode="solo", jokers=True)
    assert not lobby.ephemeral and "jokers=on" in lobby.content, lobby.content
