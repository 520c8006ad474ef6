"""A season through Discord: an admin starts one, games are played in two seasons, the leaderboard
shows each season and all time, and each end posts its podium once, also an end that passed while
the bot was stopped (the bot's season clock is set days ahead when it starts again)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from devkit.fake_discord import FakeChannel, FakeMessage, FakeUser
from tests.e2e.helpers.server import Spades, name_of, refused
from tests.e2e.helpers.table import play_game
from tests.store.helpers import run_sql

DAYS_AHEAD = 4 * 24 * 3600  # how far the season clock runs ahead once the bot is started again


def lines_of(board: FakeMessage) -> list[str]:
    return board.content.splitlines()[1:]


def podiums_of(channel: FakeChannel, season: str) -> list[FakeMessage]:
    return [m for m in channel.messages.values()
            if not m.deleted and m.content.startswith(f"## 🏆 Season “{season}” is over")]


async def play(spades: Spades, channel: FakeChannel, players: list[FakeUser]) -> list[str]:
    """A whole short game; the names of its winners."""
    over = await play_game(spades, channel, players)
    return [name_of(user) for user in players if name_of(user) in over.content.splitlines()[0]]


async def test_a_season_from_start_to_podium_also_across_a_stop(spades: Spades) -> None:
    owner = spades.owner
    alice, bob, carol, dave = (spades.member(name) for name in ("Alice", "Bob", "Carol", "Dave"))
    first, second, podiums = spades.channel("spades"), spades.channel("spades-2"), spades.channel("podiums")
    assert spades.bot is not None

    # Only Manage Server starts a season; the podium goes where the admin says.
    refused(await spades.command(alice, first, "season start", name="Spring"), "Only members with Manage Server")
    refused(await spades.command(owner, first, "season start", name="Spring", end="someday"), "isn't a date")
    started = await spades.command(owner, first, "season start", name="Spring", channel=podiums)
    assert not started.ephemeral and "Season “Spring” has started" in started.content
    assert f"<#{podiums.id}>" in started.content and "fresh rating" in started.content
    refused(await spades.command(owner, first, "season start", name="Summer"), "“Spring” is running")

    spring_winners = await play(spades, first, [alice, bob, carol])
    board = await spades.command(bob, first, "leaderboard")
    assert "(season “Spring”)" in board.content.splitlines()[0]
    assert sorted(line.split("**")[1] for line in lines_of(board)) == ["Alice", "Bob", "Carol"]

    refused(await spades.command(bob, first, "season end"), "Only members with Manage Server")
    ended = await spades.command(owner, first, "season end")
    assert "Season “Spring” has ended" in ended.content
    podium = await spades.fake.wait_for_message(podiums, lambda m: m.content.startswith("## 🏆 Season “Spring”"))
    medals = [line for line in podium.content.splitlines() if line[:1] in "🥇🥈🥉"]
    assert len(medals) == 3 and any(f"🥇 **{name}**" in medals[0] for name in spring_winners), podium.content
    [picture] = podium.attachments
    assert picture.filename == "podium.png" and picture.data.startswith(b"\x89PNG")

    # Summer, started in the podiums channel, ends tomorrow; Dave plays in it, Carol doesn't.
    tomorrow = (datetime.now(tz=UTC) + timedelta(days=1)).strftime("%Y-%m-%d")
    summer = await spades.command(owner, podiums, "season start", name="Summer", end=tomorrow)
    assert f"It ends at the end of {tomorrow} (UTC)." in summer.content
    await play(spades, second, [alice, bob, dave])

    assert await spades.choices(bob, first, "leaderboard", "season", "") == ["all time", "Summer", "Spring"]
    assert await spades.choices(bob, first, "stats", "season", "spr") == ["Spring"]
    by_default = await spades.command(bob, first, "leaderboard")
    assert "(season “Summer”)" in by_default.content.splitlines()[0]
    assert sorted(line.split("**")[1] for line in lines_of(by_default)) == ["Alice", "Bob", "Dave"]
    spring = await spades.command(bob, first, "leaderboard", season="spring")
    assert "(season “Spring”, final)" in spring.content.splitlines()[0]
    assert sorted(line.split("**")[1] for line in lines_of(spring)) == ["Alice", "Bob", "Carol"]
    all_time = await spades.command(bob, first, "leaderboard", season="all time", sort="wins")
    assert "(all time)" in all_time.content.splitlines()[0]
    assert sorted(line.split("**")[1] for line in lines_of(all_time)) == ["Alice", "Bob", "Carol", "Dave"]
    refused(await spades.command(bob, first, "leaderboard", season="Winter"), "no season “Winter”")

    stats = await spades.command(carol, first, "stats", user=alice)
    assert stats.content.startswith("**Alice** — 2\u00a0games") and "**Season “Summer”**: 1\u00a0game" in stats.content
    [card] = stats.attachments
    assert card.filename == "stats.png" and card.data.startswith(b"\x89PNG")
    in_spring = await spades.command(dave, first, "stats", season="Spring")
    assert "**Season “Spring”** (ended): no finished game yet." in in_spring.content

    # The bot stops before Summer's end and starts again days later: the podium is posted then, once.
    await spades.bot.stop()
    spades.bot.extra_env["SEASON_CLOCK_OFFSET"] = str(DAYS_AHEAD)
    await spades.bot.restart()
    late = await spades.fake.wait_for_message(podiums, lambda m: m.content.startswith("## 🏆 Season “Summer”"))
    assert "🥇" in late.content and "Carol" not in late.content and late.attachments
    url = f"sqlite:///{spades.db_path}"
    owed = "SELECT count(*) FROM outbox WHERE season_id IS NOT NULL"
    await spades.fake.wait_until(lambda: run_sql(url, owed) == [[(0,)]], 5, "the podium to be confirmed")
    await spades.bot.restart()
    listed = await spades.command(alice, first, "season list")
    assert listed.ephemeral and "“Summer” — " in listed.content and "**running**" not in listed.content
    after_end = await spades.command(bob, first, "leaderboard")
    assert "(all time)" in after_end.content.splitlines()[0]
    assert run_sql(url, owed) == [[(0,)]]
    assert len(podiums_of(podiums, "Summer")) == 1 and len(podiums_of(podiums, "Spring")) == 1

    # A monthly rhythm: this month's season (by the bot's clock) starts at once, podiums here.
    month = (datetime.now(tz=UTC) + timedelta(seconds=DAYS_AHEAD)).strftime("%Y-%m")
    settings = await spades.command(owner, first, "settings", season_rhythm="monthly")
    assert "Seasons: a new one every calendar month" in settings.content
    listed = await spades.command(alice, first, "season list")
    assert f"• “{month}” — **running**" in listed.content and "every calendar month" in listed.content
    assert "Traceback" not in spades.bot.log_text()
