"""Leaving can't dodge a loss, and a losing host can't cancel one away: through the fake Discord, a
person who leaves a running game keeps their loss (across a restart too), a game nobody is left in
ends decided by the score, and a host's cancel once cards are dealt needs the others' agreement."""

from __future__ import annotations

from devkit.fake_discord import FakeChannel, FakeUser
from tests.e2e.helpers.server import Spades, game_over_message, refused
from tests.e2e.helpers.table import Table, start_game


async def _against_computers(spades: Spades, channel: FakeChannel, people: list[FakeUser]) -> Table:
    """A cutthroat game of these people (the first hosts) and computer players for the other seats."""
    table = Table(spades, channel, list(people))
    host, *others = people
    await table.open(host, target=50, mercy=50)
    for user in others:
        await spades.command(user, channel, "join")
    for _ in range(3 - len(people)):
        await spades.command(host, channel, "addbot", level="easy")
    await spades.command(host, channel, "start")
    await table.wait_table(lambda m: "▶ **" in m.text, "the table")
    table.read_seats()
    return table


async def _stats(spades: Spades, user: FakeUser, channel: FakeChannel) -> str:
    """The first line of `/spades stats` (games and wins), with plain spaces."""
    return (await spades.command(user, channel, "stats")).content.splitlines()[0].replace("\xa0", " ")


async def test_the_only_person_leaving_mid_hand_keeps_their_loss_across_a_restart(spades: Spades) -> None:
    alice = spades.member("Alice")
    channel = spades.channel("spades")
    table = await _against_computers(spades, channel, [alice])
    await table.play_moves(2)
    answer = await spades.command(alice, channel, "leave")
    assert answer.ephemeral and answer.content == "You left the game: it counts as a loss for you."
    over = await game_over_message(spades, channel)
    assert "By forfeit" in over.content
    assert not any("was cancelled" in m.content for m in channel.visible_messages())
    record = await spades.record(alice, channel, table.game_id)
    assert record["final"]["ended"] == "forfeit" and table.seat_of(alice) not in record["final"]["winners"]
    assert await _stats(spades, alice, channel) == "**Alice** — 1 game, 0 wins (0%)"

    assert spades.bot is not None
    await spades.bot.restart()
    assert await _stats(spades, alice, channel) == "**Alice** — 1 game, 0 wins (0%)"


async def test_two_people_leave_one_after_the_other_and_both_losses_count(spades: Spades) -> None:
    alice, bob = spades.member("Alice"), spades.member("Bob")
    channel = spades.channel("spades")
    table = await _against_computers(spades, channel, [alice, bob])
    await table.play_moves(2)
    await spades.command(alice, channel, "leave")
    refused(await spades.command(alice, channel, "leave"), "You're not in this game.")
    await spades.command(bob, channel, "leave")
    await game_over_message(spades, channel)
    for user, name in ((alice, "Alice"), (bob, "Bob")):
        assert await _stats(spades, user, channel) == f"**{name}** — 1 game, 0 wins (0%)"


async def test_a_hosts_cancel_once_dealt_waits_for_every_other_persons_agreement(spades: Spades) -> None:
    alice, bob, carol, dave = (spades.member(n) for n in ("Alice", "Bob", "Carol", "Dave"))
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol], target=50, mercy=50)
    await table.play_moves(3)
    request = await spades.command(alice, channel, "cancel")
    assert not request.ephemeral and "The host asks to cancel this game" in request.content
    assert f"<@{bob.id}>" in request.content and f"<@{carol.id}>" in request.content
    agree = f"spades:agree_cancel:{table.game_id}"
    refused(await spades.click(alice, request, agree), "Only the other people seated")
    refused(await spades.command(bob, channel, "cancel"), "Only the host or a member with Manage Server")
    answer = await spades.click(bob, request, agree)
    assert answer is request and f"<@{bob.id}>" not in request.content and f"<@{carol.id}>" in request.content
    await table.play_moves(1)  # the game goes on meanwhile
    answer = await spades.click(carol, request, agree)
    assert answer is request and request.content == "Everyone agreed: the game is cancelled."
    notice = await spades.fake.wait_for_message(channel, lambda m: "was cancelled" in m.content)
    assert "with every player's agreement" in notice.content
    refused(await spades.command(bob, channel, "bid", bid="3"), "There's no game in this channel.")

    # A member with Manage Server cancels outright, and is named.
    spades.fake.grant_manage_guild(spades.guild, dave)
    other = spades.channel("other")
    await start_game(spades, other, [alice, bob, carol], target=50, mercy=50)
    answer = await spades.command(dave, other, "cancel")
    assert answer.ephemeral and answer.content == "Game cancelled."
    notice = await spades.fake.wait_for_message(other, lambda m: "was cancelled" in m.content)
    assert "cancelled by Dave, who manages this server" in notice.content
