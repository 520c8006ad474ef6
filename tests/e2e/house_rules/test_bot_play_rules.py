"""The house rules of play through Discord: the server sets them, the panel lights only the cards
they allow and says why, a typed card they forbid is refused with the reason, and the game's record
holds to them."""

from __future__ import annotations

from collections.abc import Callable

from bot.engine import fast_finish
from devkit.fake_discord import FakeMessage
from tests.e2e.helpers.cards import card_texts
from tests.e2e.helpers.record import record_moves
from tests.e2e.helpers.server import Spades, game_over_message, name_of, refused
from tests.e2e.helpers.table import start_game
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


async def test_nil_passing_by_panel_and_by_command_stays_between_the_partners(spades: Spades) -> None:
    """Four people play partners with nil_pass: each hand's first bidder bids nil, so that team
    trades a card each (on the panel or with /spades pass) before the first lead."""
    alice, bob, carol, dave = (spades.member(n) for n in ("Alice", "Bob", "Carol", "Dave"))
    channel = spades.channel("spades")
    spades.fake.grant_manage_guild(spades.guild, alice)
    saved = await spades.command(alice, channel, "settings", mode="partners", rules="nil_pass=one_two")
    assert "`nil_pass` = one_two" in saved.content, saved.content
    refused(await spades.command(alice, spades.channel("other"), "new", mode="solo"),
            "nil_pass is for partners, and solo has none: use nil_pass=off.")
    table = await start_game(spades, channel, [alice, bob, carol, dave], target=50, mercy=50)

    await table.play_moves(4)  # the bids: the first is a nil
    turn = await table.whose_turn()
    assert turn is not None and turn.phase == "pass"
    passer = turn.user
    partner_seat = (table.seat_of(passer) + 2) % 4
    partner = next(u for u in table.players if table.seat_of(u) == partner_seat)
    opponents = [u for u in table.players if u not in (passer, partner)]
    assert f"**Pass a card to your partner {name_of(partner)}.**" in turn.panel.text
    for opponent in opponents:
        panel = await table.panel(opponent)
        assert not table.enabled_cards(panel)
    await table.wait_table(lambda m: f"▶ **{name_of(passer)}** to pass a card" in m.text, "the table to say who passes")
    refused(await spades.command(passer, channel, "pass", cards="AS KS"), "You pass 1 card now, not 2.")
    refused(await spades.command(opponents[0], channel, "pass", cards="AS"), f"It's {name_of(passer)}'s turn.")
    refused(await spades.command(passer, channel, "play", card=table.held_cards(turn.panel)[0]),
            "Partners are passing cards first.")

    await table.play_moves(1)  # the passer's card: still nobody else sees it
    given = table.moves[-1].value
    for viewer in (partner, *opponents):
        record = await spades.record(viewer, channel)
        assert record["hands"][-1].get("passes", []) == [], record["hands"][-1]
        assert given not in table.held_cards(await table.panel(viewer))
    mine = await spades.record(passer, channel)
    assert mine["hands"][-1]["passes"] == [{"from": table.seat_of(passer), "to": partner_seat, "cards": [given]}]

    await table.play_moves(1)  # the partner's card: now they change hands
    await table.fake.wait_until(lambda: given in table.held_cards(table.panels[partner.id]), 10,
                                "the partner's panel to hold the card passed")
    assert "You passed" in table.panels[partner.id].text and "received" in table.panels[partner.id].text
    for opponent in opponents:
        assert (await spades.record(opponent, channel))["hands"][-1].get("passes", []) == []

    await table.play_moves()
    await game_over_message(spades, channel)
    record = await spades.record(carol, channel)
    check_record(record)  # the passes fit the bids and every card played was held, passes included
    assert all(len(hand["passes"]) == 2 for hand in record["hands"])
    assert record_moves(record) == table.acknowledged()
    assert {("pass", "panel"), ("pass", "command")} <= {(m.kind, m.how) for m in table.moves}
