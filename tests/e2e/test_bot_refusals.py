"""Refusals are private, in plain words, and change nothing; a double click counts once."""

from __future__ import annotations

import asyncio

from tests.e2e.conftest import Move, Spades, Table, Turn, card_code, record_moves, refused, start_game
from tests.fake_discord import FakeMessage, FakeUser
from tests.record_check import check_record


async def click_twice(spades: Spades, user: FakeUser, message: FakeMessage, custom_id: str) -> list[FakeMessage]:
    """The same button clicked twice at once (a double click, or two devices)."""
    first, second = await asyncio.gather(spades.fake.click_button(user, message, custom_id),
                                         spades.fake.click_button(user, message, custom_id))
    answers = []
    for inter in (first, second):
        response = await spades.fake.wait_for_response(inter)
        assert response.message is not None
        answers.append((response.type, response.message))
    answers.sort(key=lambda pair: -pair[0])  # the update of the panel (type 7) first, then the refusal (4)
    assert [kind for kind, _ in answers] == [7, 4], answers
    return [message for _, message in answers]


def name(user: FakeUser) -> str:
    return user.global_name or user.username


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
    act, hand = f"spades:table:{table.game_id}:act", f"spades:table:{table.game_id}:hand"

    # Out of turn, by command and by button.
    refused(await spades.command(idle[0], channel, "bid", bid="3"), f"It's {name(bidder)}'s turn.")
    refused(await spades.click(idle[1], tbl, act), f"It's {name(bidder)}'s turn.")
    assert await spades.choices(idle[0], channel, "bid", "bid", "") == []
    # Not a player.
    refused(await spades.command(dave, channel, "bid", bid="3"), "You're not playing in this game.")
    refused(await spades.click(dave, tbl, hand), "You're not playing in this game.")
    refused(await spades.command(dave, channel, "hand"), "You're not playing in this game.")
    refused(await spades.command(dave, channel, "join"), "The game has already started.")
    refused(await spades.command(dave, channel, "new"), "There's already a game in this channel.")
    refused(await spades.command(bob if bidder is not bob else carol, channel, "cancel"),
            "Only the host or a member with Manage Server")
    refused(await spades.command(dave, channel, "settings", target=100), "Only members with Manage Server")
    # Bad options.
    refused(await spades.command(bidder, channel, "bid", bid="banana"), "“banana” isn't a bid")
    refused(await spades.command(bidder, channel, "bid", bid="18"), "Bids go from 0 (nil) to 17.")
    refused(await spades.command(bidder, channel, "bid", bid="blind nil"), "Blind nil needs you to be 100 points")
    refused(await spades.command(bidder, channel, "play", card="AS"), "Bidding isn't finished yet.")
    refused(await spades.command(bidder, channel, "play", card="the joker"), "isn't a card")
    refused(await spades.command(alice, channel, "record", game="deadbeef"), "There's no game `deadbeef`")
    refused(await spades.command(alice, spades.channel("other"), "new", mode="solo", jokers=True),
            "jokers is a cutthroat option")
    spades.fake.grant_manage_guild(spades.guild, dave)
    refused(await spades.command(dave, channel, "settings", rules="nil=maybe"), "nil")
    refused(await spades.command(dave, channel, "settings", rules="bogus"), "isn't key=value")

    assert await spades.record(bob, channel) == before  # nothing changed
    assert (await table.hand(bidder)).content == turn.panel.content

    # A double click on a bid button bids once.
    panel = await spades.click(bidder, tbl, act)
    done, again = await click_twice(spades, bidder, panel, f"spades:bid:{table.game_id}:3")
    assert done.content.startswith("You bid **3**.")
    refused(again, f"It's {table.seat_names[(table.seat_of(bidder) + 1) % 3]}'s turn.")
    table.moves.append(Move(table.seat_of(bidder), "bid", "3", "panel"))
    await table.play_moves(2)  # the other two bids

    # Playing: illegal cards, a card from someone else's hand, out of turn, and a double click.
    checked: set[str] = set()
    while len(checked) < 4:
        turn = await table.whose_turn(None)
        assert turn is not None and turn.phase == "play"
        snapshot = await spades.record(alice, channel)
        held = [card_code(b["label"]) for b in turn.panel.buttons() if b["custom_id"].startswith("spades:card:")]
        illegal = [c for c in held if c not in table.enabled_cards(turn.panel)]
        if illegal and "illegal" not in checked:
            answer = await spades.command(turn.user, channel, "play", card=illegal[0])
            assert answer.ephemeral and ("You must follow" in answer.content
                                         or "Spades haven't been broken" in answer.content), answer.content
            checked.add("illegal")
        elif "not yours" not in checked:
            someone = next(u for u in table.players if u is not turn.user)
            theirs = next(b["label"] for b in (await table.hand(someone)).buttons()
                          if b["custom_id"].startswith("spades:card:"))
            refused(await spades.command(turn.user, channel, "play", card=card_code(theirs)),
                    f"You don't have the {theirs}.")
            checked.add("not yours")
        elif "out of turn" not in checked:
            someone = next(u for u in table.players if u is not turn.user)
            theirs = next(b for b in (await table.hand(someone)).buttons() if b["custom_id"].startswith("spades:card:"))
            refused(await spades.command(someone, channel, "play", card=card_code(theirs["label"])),
                    f"It's {name(turn.user)}'s turn.")
            checked.add("out of turn")
        else:
            await double_click_a_card(spades, table, turn)
            checked.add("double click")
            continue
        assert await spades.record(alice, channel) == snapshot
        after = await table.hand(turn.user)
        assert after.content == turn.panel.content and after.components == turn.panel.components
        await table.act(turn)

    await table.play_moves()
    await spades.fake.wait_for_message(channel, lambda m: m.content.startswith("🏆"))
    record = await spades.record(carol, channel)
    check_record(record)
    assert record_moves(record) == table.acknowledged()  # each double click counted once


async def double_click_a_card(spades: Spades, table: Table, turn: Turn) -> None:
    card = table.enabled_cards(turn.panel)[0]
    custom_id = table.card_id(turn.panel, card)
    done, again = await click_twice(spades, turn.user, turn.panel, custom_id)
    assert done is turn.panel and done.find_component(custom_id) is None
    assert again.ephemeral and ("'s turn." in again.content or "You don't have the" in again.content), again.content
    table.moves.append(Move(table.seat_of(turn.user), "play", card, "panel"))
