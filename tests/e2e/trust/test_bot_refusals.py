"""Refusals are private, in plain words, and change nothing; a double click counts once; a button
forged from another server reaches nothing."""

from __future__ import annotations

import asyncio

from devkit.fake_discord import FakeMessage, FakeUser
from tests.e2e.helpers.record import Move, record_moves
from tests.e2e.helpers.server import Spades, game_over_message, name_of, refused
from tests.e2e.helpers.table import Table, Turn, start_game
from tests.record_check import check_record


async def click_twice(spades: Spades, user: FakeUser, message: FakeMessage, custom_id: str) -> list[str]:
    """The same button clicked twice at once (a double click, or two devices): both answers update
    the panel; the panel's text after each, in the order they were answered."""
    first, second = await asyncio.gather(spades.fake.click_button(user, message, custom_id),
                                         spades.fake.click_button(user, message, custom_id))
    texts = []
    for inter in (first, second):
        response = await spades.fake.wait_for_response(inter)
        assert response.type == 7 and response.message is message, response
    for snapshot in message.history[-2:]:
        texts.append("\n".join(str(c.get("content", "")) for c in _texts(snapshot["components"])))
    return texts


def _texts(components: list[dict[str, object]]) -> list[dict[str, object]]:
    found = []
    for component in components:
        if component.get("type") == 10:
            found.append(component)
        inner = component.get("components")
        if isinstance(inner, list):
            found.extend(_texts(inner))
    return found


async def test_refusals_change_nothing_and_double_clicks_count_once(spades: Spades) -> None:
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    dave = spades.member("Dave")  # on the server, not in the game
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol], target=50, mercy=50)
    turn = await table.whose_turn()
    assert turn is not None and turn.phase == "bid"
    bidder = turn.user
    idle = [u for u in table.players if u is not bidder]
    before = await spades.record(alice, channel)
    tbl = table.table_message()

    # Out of turn, by command and on the panel (told on the panel itself).
    refused(await spades.command(idle[0], channel, "bid", bid="3"), f"It's {name_of(bidder)}'s turn.")
    assert await spades.choices(idle[0], channel, "bid", "bid", "") == []
    # Not a player.
    refused(await spades.command(dave, channel, "bid", bid="3"), "You're not playing in this game.")
    refused(await spades.click(dave, tbl, table.hand_button), "You're not playing in this game.")
    refused(await spades.command(dave, channel, "hand"), "You're not playing in this game.")
    refused(await spades.command(dave, channel, "join"), "The game has already started.")
    refused(await spades.command(dave, channel, "new"), "There's already a game in this channel.")
    refused(await spades.command(bob if bidder is not bob else carol, channel, "cancel"),
            "Only the host or a member with Manage Server")
    refused(await spades.command(dave, channel, "settings", target=100), "Only members with Manage Server")
    # What people type.
    refused(await spades.command(bidder, channel, "bid", bid="banana"), "“banana” isn't a bid")
    refused(await spades.command(bidder, channel, "bid", bid="-1"), "A bid can't be negative")
    refused(await spades.command(bidder, channel, "bid", bid="²"), "“²” isn't a bid")
    refused(await spades.command(bidder, channel, "bid", bid="18"), "Bids go from 0 (nil) to 17.")
    refused(await spades.command(bidder, channel, "bid", bid="blind nil"), "Blind nil needs you to be 100 points")
    long = await spades.command(bidder, channel, "bid", bid="9" * 5000)
    refused(long, "isn't a bid")
    assert len(long.content) < 300
    refused(await spades.command(bidder, channel, "play", card="AS"), "Bidding isn't finished yet.")
    refused(await spades.command(bidder, channel, "play", card="the joker"), "isn't a card")
    refused(await spades.command(alice, channel, "record", game="deadbeef"),
            "There's no game “deadbeef” on this server")
    spades.fake.grant_manage_guild(spades.guild, dave)
    refused(await spades.command(dave, channel, "settings", rules="nil=maybe"), "nil can't be “maybe”")
    refused(await spades.command(dave, channel, "settings", rules="bogus"), "isn't key=value")
    refused(await spades.command(dave, channel, "settings", rules="turn_timeout=abc"), "turn_timeout can't be “abc”")
    refused(await spades.command(dave, channel, "settings", rules="mode=foo"), "Unknown mode “foo”")
    refused(await spades.command(dave, channel, "settings", mode="solo", rules="nil_pass=one_two"),
            "nil_pass is for partners, and solo has none")
    huge = await spades.command(dave, channel, "settings", rules="x" * 1900 + "=1")
    refused(huge, "Unknown rule option")
    assert len(huge.content) < 2000

    assert await spades.record(alice, channel) == before  # nothing changed

    # A double click on a bid button bids once; the second click is told why on the panel.
    done, again = await click_twice(spades, bidder, turn.panel, f"spades:bid:{table.game_id}:3")
    assert "You: bid 3" in done and "You: bid 3" in again
    assert any("⚠️" in text for text in (done, again))  # one of the two clicks came too late
    table.moves.append(Move(table.seat_of(bidder), "bid", "3", "panel"))
    await table.play_moves(2)  # the other two bids

    # Playing: illegal cards, a card from someone else's hand, out of turn, and a double click.
    checked: set[str] = set()
    while len(checked) < 4:
        turn = await table.whose_turn()
        assert turn is not None and turn.phase == "play"
        snapshot = await spades.record(alice, channel)
        held, legal = table.held_cards(turn.panel), table.enabled_cards(turn.panel)
        illegal = [c for c in held if c not in legal]
        someone = next(u for u in table.players if u is not turn.user)
        theirs = table.held_cards(table.panels[someone.id])[0]
        if illegal and "illegal" not in checked:
            answer = await spades.command(turn.user, channel, "play", card=illegal[0])
            assert answer.ephemeral and ("You must follow" in answer.content
                                         or "Spades haven't been broken" in answer.content), answer.content
            checked.add("illegal")
        elif "not yours" not in checked:
            refused(await spades.command(turn.user, channel, "play", card=theirs), "You don't have the")
            checked.add("not yours")
        elif "out of turn" not in checked:
            refused(await spades.command(someone, channel, "play", card=theirs), f"It's {name_of(turn.user)}'s turn.")
            checked.add("out of turn")
        else:
            await double_click_a_card(spades, table, turn)
            checked.add("double click")
            continue
        assert await spades.record(alice, channel) == snapshot
        await table.act(turn)

    await table.play_moves()
    await game_over_message(spades, channel)
    record = await spades.record(carol, channel)
    check_record(record)
    assert record_moves(record) == table.acknowledged()  # each double click counted once


async def double_click_a_card(spades: Spades, table: Table, turn: Turn) -> None:
    card = table.enabled_cards(turn.panel)[0]
    custom_id = table.card_id(turn.panel, card)
    done, again = await click_twice(spades, turn.user, turn.panel, custom_id)
    assert any("⚠️" in text for text in (done, again)), (done, again)
    assert card not in table.held_cards(turn.panel) or "hand 2" in turn.panel.text
    table.moves.append(Move(table.seat_of(turn.user), "play", card, "panel"))


async def test_a_button_forged_from_another_server_reaches_nothing(spades: Spades) -> None:
    fake = spades.fake
    alice, bob = spades.member("Alice"), spades.member("Bob")
    channel = spades.channel("spades")
    table = Table(spades, channel, [alice, bob])
    lobby = await table.open(alice)

    mallory = fake.create_user("Mallory")
    theirs = fake.create_guild("Elsewhere", mallory)  # Mallory manages her own server
    elsewhere = fake.create_channel(theirs, "games")
    their_lobby = await spades.command(mallory, elsewhere, "new")
    for action in ("join", "cancel"):
        forged = f"spades:lobby:{table.game_id}:{action}"
        for component in their_lobby.components[0]["components"]:
            if component["custom_id"].endswith(f":{action}"):
                component["custom_id"] = forged
        refused(await spades.click(mallory, their_lobby, forged), "That game isn't running any more.")
    assert "Mallory" not in lobby.content and "1. Alice (host)" in lobby.content
    answer = await spades.click(bob, lobby, f"spades:lobby:{table.game_id}:join")  # still open here
    assert answer is lobby and "2. Bob" in lobby.content
