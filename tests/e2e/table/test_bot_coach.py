"""Hints and reviews through Discord: a hint on the panel in a game with computer players, refused in
plain words among people only; a review after the game, private to each player, and the second
time served at once from what was kept."""

from __future__ import annotations

from tests.e2e.helpers.cards import card_code
from tests.e2e.helpers.server import Spades, game_over_message, refused, settled
from tests.e2e.helpers.table import Table, play_game, start_game


async def test_a_hint_on_the_panel_with_computer_players_and_none_among_people(spades: Spades) -> None:
    alice = spades.member("Alice")
    channel = spades.channel("with-bots")
    table = Table(spades, channel, [alice])
    await table.open(alice, target=50, mercy=50)
    for level in ("easy", "normal"):
        await spades.command(alice, channel, "addbot", level=level)
    await spades.command(alice, channel, "start")
    await table.wait_table(lambda m: "▶ **" in m.text, "the table")
    table.read_seats()
    turn = await table.whose_turn()
    assert turn is not None and turn.user is alice
    hint_id = f"spades:hint:{table.game_id}"
    assert hint_id in turn.panel.custom_ids()
    answer = await spades.click(alice, turn.panel, hint_id)
    text = await settled(spades, answer, "the hint")
    assert answer.ephemeral and answer.visible_to is alice
    assert text.startswith(("💡 Bid ", "💡 Look at your cards", "💡 Bid blind nil")) and " — " in text
    await table.act(turn)
    turn = await table.whose_turn()
    assert turn is not None
    if turn.phase == "play":  # a card hint names a card Alice holds and may play now
        answer = await spades.click(alice, turn.panel, hint_id)
        text = await settled(spades, answer, "the card hint")
        card = text.removeprefix("💡 Play the ").split(" — ")[0]
        assert card_code(card) in table.enabled_cards(turn.panel), (text, table.enabled_cards(turn.panel))
    record = await spades.record(alice, channel)
    seat = table.seat_of(alice)
    assert [h["seat"] for h in record["hints"]][:1] == [seat] and record["hints"][0]["phase"] == "bid"
    assert set(record["hints"][0]) == {"seat", "hand", "phase", "trick", "at"}

    # Among people only, no Hint button; asked for by typing, it is refused in words.
    bob, carol = spades.member("Bob"), spades.member("Carol")
    people = spades.channel("people")
    rated = await start_game(spades, people, [alice, bob, carol])
    turn = await rated.whose_turn()
    assert turn is not None
    assert not any(c.startswith("spades:hint:") for c in turn.panel.custom_ids())
    answer = await spades.command(turn.user, people, "bid", bid="hint")
    await settled(spades, answer, "the refusal")
    refused(answer, "No hints in a game among people only")


async def test_a_review_after_the_game_is_private_and_kept(spades: Spades) -> None:
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("reviews")
    await play_game(spades, channel, [alice, bob, carol])
    over = await game_over_message(spades, channel)
    first = await spades.command(alice, channel, "review")
    assert first.ephemeral and first.visible_to is alice and first.text.startswith("🔎 Reviewing your game")
    text = await settled(spades, first, "Alice's review")
    lines = text.splitlines()
    assert lines[0].startswith("**Review of game `") and lines[0].endswith("for Alice, by the hard computer player")
    assert {"**Bids**", "**Costliest plays**", "**Turning points**"} <= set(lines)
    assert lines[lines.index("**Bids**") + 1].startswith("Hand 1: you bid ")

    review_id = next(c for c in over.custom_ids() if c.startswith("spades:review:"))
    bobs = await spades.click(bob, over, review_id)
    assert bobs.ephemeral and bobs.visible_to is bob
    assert "for Bob, by the hard computer player" in (await settled(spades, bobs, "Bob's review")).splitlines()[0]

    again = await spades.command(alice, channel, "review")  # kept: the review itself at once, no note first
    assert again.ephemeral and again.visible_to is alice and not again.loading
    assert again.text == text
    dave = spades.member("Dave")
    refused(await spades.command(dave, channel, "review"), "You haven't finished a game in this channel yet")
