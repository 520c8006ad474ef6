"""What a hostile member types into commands' options is refused in words and changes nothing: a
podium channel on another server, a season ending in the year 9999 or named with nothing visible,
a bot as a tournament partner or replacement, and a partner already entered (named, not numbered)."""

from __future__ import annotations

import re

from tests.e2e.helpers.hostile import leaks
from tests.e2e.helpers.server import Spades, refused


async def test_season_options_from_elsewhere_or_out_of_range_are_refused(spades: Spades) -> None:
    fake = spades.fake
    owner = spades.owner
    channel = spades.channel("spades")
    mallory = fake.create_user("Mallory")
    theirs = fake.create_guild("Elsewhere", mallory)
    their_channel = fake.create_channel(theirs, "podiums")

    refused(await spades.command(owner, channel, "season start", name="Spring", channel=their_channel),
            "must be one of this server's")
    refused(await spades.command(owner, channel, "season start", name="Spring", end="9999-12-31"), "years away")
    refused(await spades.command(owner, channel, "season start", name="\u200b\u2060"), "a name people can see")
    listed = await spades.command(owner, channel, "season list")
    assert "None yet" in listed.content  # none of them started a season
    assert not their_channel.messages


async def test_a_bot_or_someone_already_entered_cannot_be_brought_into_a_tournament(spades: Spades) -> None:
    fake = spades.fake
    organiser = spades.member("Olga")
    fake.grant_manage_guild(spades.guild, organiser)
    ann, ben, cat = spades.member("Ann"), spades.member("Ben"), spades.member("Cat")
    some_bot = fake.create_user("SomeBot", bot=True)
    fake.add_member(spades.guild, some_bot)
    channel = spades.channel("tourney")
    signup = await spades.command(organiser, channel, "tournament new", mode="partners")
    assert "Sign-up is open" in signup.content

    refused(await spades.command(ann, channel, "tournament join", partner=some_bot), "SomeBot is a bot")
    assert (await spades.command(ann, channel, "tournament join", partner=ben)).ephemeral
    answer = await spades.command(cat, channel, "tournament join", partner=ben)
    refused(answer, "Ben is already in this tournament.")
    assert not re.search(r"\d{17,}", answer.text), answer.text  # a name, never an id
    refused(await spades.command(organiser, channel, "tournament join", player=some_bot, replacing=ann),
            "SomeBot is a bot")
    await fake.wait_until(lambda: "Ann & Ben" in signup.content and "SomeBot" not in signup.content,
                          what="one entry, Ann & Ben")
    assert not leaks(fake), leaks(fake)
