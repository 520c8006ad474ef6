"""A Swiss tournament run by the bot through the fake Discord: seven players sign up in cutthroat,
three rounds are seated by the bot, each table plays in its own thread (computer players in the
two short tables), the bot is killed with SIGKILL in the middle of round 2 and started again, and
at the end everyone's points match their games and the podium is posted once."""

from __future__ import annotations

import asyncio
import re
from collections import defaultdict
from fractions import Fraction

import pytest

from devkit.fake_discord import FakeChannel, FakeMessage, FakeUser, models
from tests.e2e.helpers.server import Spades, refused
from tests.e2e.helpers.table import Table
from tests.e2e.helpers.tournament import FAST, GAME_FOOTER, is_podium, signed_up

POINTS = (3, 1, 0)  # cutthroat: by place at the table


def _points(scores: list[int]) -> list[Fraction]:
    """Tournament points of a table from its final scores: tied places share their points."""
    places = [1 + sum(1 for other in scores if other > score) for score in scores]
    shared = []
    for place in places:
        count = places.count(place)
        shared.append(Fraction(sum(POINTS[place - 1:place - 1 + count]), count))
    return shared


async def _tables(spades: Spades, channel: FakeChannel, round_number: int, players: list[FakeUser]) -> list[Table]:
    """The round's threads, each with its game's table; the players seated in each."""
    fake = spades.fake

    def opened() -> list[FakeChannel] | None:
        threads = [t for t in fake.threads_of(channel) if (t.name or "").startswith(f"Round {round_number} ")]
        ready = [t for t in threads if any(GAME_FOOTER.search(m.text) for m in t.messages.values() if not m.deleted)]
        return ready if len(ready) == 3 and len(threads) == 3 else None

    threads = await fake.wait_until(opened, 15, f"round {round_number}'s three threads with their tables")
    tables = []
    for thread in threads:
        welcome = next(m for m in thread.messages.values() if "your table for round" in m.content)
        seated = [u for u in players if f"<@{u.id}>" in welcome.content]
        footer = next(GAME_FOOTER.search(m.text) for m in thread.messages.values() if GAME_FOOTER.search(m.text))
        assert footer is not None
        table = Table(spades, thread, seated, game_id=footer[1])
        await table.wait_table(lambda m: "to bid" in m.text or "to play" in m.text, "the table")
        table.read_seats()
        tables.append(table)
    assert sorted(len(t.players) for t in tables) == [2, 2, 3]  # 3 + 2 + 2, a computer at each short table
    return tables


async def _play(tables: list[Table], moves: int | None = None) -> None:
    await asyncio.gather(*(table.play_moves(moves) for table in tables))


@pytest.mark.parametrize("bot_env", [FAST])
async def test_seven_players_three_rounds_a_sigkill_in_round_two_and_one_podium(spades: Spades) -> None:
    fake = spades.fake
    organiser = spades.member("Olga")
    fake.grant_manage_guild(spades.guild, organiser)
    names = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus"]
    players = [spades.member(name) for name in names]
    channel = spades.channel("tourney")

    outsider = spades.member("Hal")
    refused(await spades.command(outsider, channel, "tournament new"), "Manage Server")
    signup = await spades.command(organiser, channel, "tournament new", target=50, mercy=50, rounds=3)
    assert "Sign-up is open" in signup.content and not signup.ephemeral
    refused(await spades.command(organiser, channel, "tournament new"), "already a tournament")
    join_id = next(c for c in signup.custom_ids() if c.endswith(":join"))
    for index, user in enumerate(players):
        if index % 2:
            answer = await spades.command(user, channel, "tournament join")
        else:
            answer = await spades.click(user, signup, join_id)
        assert answer.ephemeral and "You're in" in answer.content
    refused(await spades.click(players[0], signup, join_id), "already in")
    await fake.wait_until(lambda: all(n in signup.content for n in names), 5, "the entrants on the sign-up message")
    refused(await spades.command(players[0], channel, "tournament start"), "organiser")

    started = await spades.command(organiser, channel, "tournament start")
    await fake.wait_until(lambda: "Round 1 is seated" in started.content, 15, "round 1 to be seated")  # after a defer
    assert started.ephemeral
    refused(await spades.command(outsider, channel, "tournament join"), "Round 1 is being played")

    round1 = await _tables(spades, channel, 1, players)
    await _play(round1)
    await fake.wait_for_message(channel, lambda m: "standings after round 1 of 3" in m.content, timeout=15)

    round2 = await _tables(spades, channel, 2, players)
    await _play(round2, 4)  # everyone is in the middle of round 2's first hand…
    assert spades.bot is not None
    spades.bot.kill()
    assert await spades.bot.wait_exit() == -9
    await spades.bot.restart()
    for table in round2:  # …and after the restart the same threads and games go on
        await table.reopen_panels()
    await _play(round2)
    await fake.wait_for_message(channel, lambda m: "standings after round 2 of 3" in m.content, timeout=15)

    round3 = await _tables(spades, channel, 3, players)
    await _play(round3)
    podium = await fake.wait_for_message(channel, is_podium, timeout=20)
    assert podium.attachments and podium.attachments[0].filename == "podium.png"

    # Everyone's points are those their games gave, and the podium ranks by them.
    expected: dict[str, Fraction] = defaultdict(Fraction)
    for table in [*round1, *round2, *round3]:
        record = await spades.record(table.players[0], table.channel)
        final = record["final"]
        assert final is not None
        for seat_name, points in zip(table.seat_names, _points(final["scores"]), strict=True):
            expected[seat_name] += points
    shown = {}
    for line in podium.content.splitlines():
        found = re.search(r"\*\*(\w+)\*\* — ([\d½⅓⅔¼¾]+) pts", line)
        if found:
            shown[found[1]] = found[2]
    assert set(shown) == set(names)
    for name in names:
        whole, part = divmod(expected[name], 1)
        text = (str(int(whole)) if whole or not part else "") + {0: "", Fraction(1, 2): "½", Fraction(1, 3): "⅓",
                                                                  Fraction(2, 3): "⅔"}[part]
        assert shown[name] == text, (name, shown, expected)
    order = list(shown)  # as the podium lists them
    assert [expected[n] for n in order] == sorted((expected[n] for n in order), reverse=True)

    # Each round's tables were in their own threads, nobody was seated twice, and the podium is out once.
    assert len(fake.threads_of(channel)) == 9
    for table in [*round1, *round2, *round3]:  # a game-over post waits its turn in the budget: wait for it

        def game_overs(table: Table = table) -> list[FakeMessage]:
            return [m for m in table.channel.messages.values() if m.content.startswith("## 🏆") and "wins" in m.content]

        await fake.wait_until(lambda: game_overs() or None, 15, f"the game-over post in {table.channel}")
        assert len(game_overs()) == 1
    await spades.bot.restart()
    await asyncio.sleep(0.5)
    podiums = [m for m in channel.messages.values() if is_podium(m) and not m.deleted]
    assert len(podiums) == 1
    standings = await spades.command(outsider, channel, "tournament standings")
    assert "standings after round 3 of 3" in standings.content
    assert "Traceback" not in spades.bot.log_text()


async def test_a_missing_thread_permission_is_one_clear_refusal_and_cancel_ends_it(spades: Spades) -> None:
    fake = spades.fake
    organiser, ann = spades.member("Olga"), spades.member("Ann")
    fake.grant_manage_guild(spades.guild, organiser)
    channel = spades.channel("tourney")
    role = fake.bot_role(spades.guild)
    fake.set_channel_overwrite(channel, role, deny=models.CREATE_PUBLIC_THREADS)
    refused(await spades.command(organiser, channel, "tournament new"), "**Create Public Threads**")
    assert not fake.threads_of(channel) and not channel.visible_messages()  # nothing was opened

    fake.remove_channel_overwrite(channel, role)
    signup = await spades.command(organiser, channel, "tournament new", mode="partners")
    refused(await spades.command(ann, channel, "tournament join"), "name your partner")
    refused(await spades.command(ann, channel, "tournament cancel"), "Only the organiser")
    cancelled = await spades.command(organiser, channel, "tournament cancel")
    assert cancelled.ephemeral and cancelled.content == "Tournament cancelled."
    await fake.wait_until(lambda: "was cancelled" in signup.content and not signup.buttons(), 5,
                          "the sign-up message to say it was cancelled")
    refused(await spades.command(ann, channel, "tournament join"), "no tournament in this channel")


@pytest.mark.parametrize("bot_env", [FAST])
async def test_a_call_posted_before_a_crash_is_used_again_not_posted_twice(spades: Spades) -> None:
    """The server's thread limit refuses round 1's thread after its call went out; the bot is killed,
    the limit lifted, and the restarted bot starts the thread from that same call."""
    fake = spades.fake
    organiser = spades.member("Olga")
    players = [spades.member(name) for name in ("Ann", "Ben", "Cat")]
    channel = spades.channel("tourney")
    await signed_up(spades, channel, organiser, players, rounds=1)
    fake.nonce_window = 0.0  # Discord's nonce dedupes for minutes only: finding the call must not rely on it
    fake.max_active_threads = 0
    started = await spades.command(organiser, channel, "tournament start")
    await fake.wait_until(lambda: "Round 1 is seated" in started.content, 15, "round 1 to be seated")
    notice = await fake.wait_for_message(channel, lambda m: "as many active threads as Discord allows" in m.content)
    assert f"<@{organiser.id}>" in notice.content and not fake.threads_of(channel)

    assert spades.bot is not None
    spades.bot.kill()
    assert await spades.bot.wait_exit() == -9
    fake.max_active_threads = 1000
    await spades.bot.restart()
    [table] = await fake.wait_until(lambda: fake.threads_of(channel) or None, 15, "round 1's thread")
    calls = [m for m in channel.visible_messages() if m.content.startswith("**Round 1 · Table 1:**")]
    assert [m.id for m in calls] == [table.id]  # one call, and the thread hangs from it
    welcome = await fake.wait_for_message(table, lambda m: "your table for round 1" in m.content)
    await fake.wait_for_message(table, lambda m: GAME_FOOTER.search(m.text) is not None)
    assert [m.id for m in table.visible_messages() if "your table for round" in m.content] == [welcome.id]
    assert "Traceback" not in spades.bot.log_text()


@pytest.mark.parametrize("bot_env", [{**FAST, "TOURNAMENT_ROUND_PAUSE": "600"}])
async def test_between_rounds_the_organiser_drops_and_replaces_players_with_commands(spades: Spades) -> None:
    """Round 1 ends at once (everyone leaves their game, so it is cancelled and decided by the score);
    then `leave player:` and `join player: replacing:` shape round 2, which `start` seats now."""
    fake = spades.fake
    organiser = spades.member("Olga")
    ann, ben, cat, dan, eve = (spades.member(name) for name in ("Ann", "Ben", "Cat", "Dan", "Eve"))
    channel = spades.channel("tourney")
    signup = await signed_up(spades, channel, organiser, [ann, ben, cat, dan], rounds=2)
    await spades.command(organiser, channel, "tournament start")
    threads = await fake.wait_until(lambda: fake.threads_of(channel) if len(fake.threads_of(channel)) == 2 else None,
                                    15, "round 1's two threads")
    for thread in threads:
        welcome = await fake.wait_for_message(thread, lambda m: "your table for round 1" in m.content)
        await fake.wait_for_message(thread, lambda m: GAME_FOOTER.search(m.text) is not None)
        for user in (ann, ben, cat, dan):
            if f"<@{user.id}>" in welcome.content:
                await spades.command(user, thread, "leave")
    await fake.wait_for_message(channel, lambda m: "standings after round 1 of 2" in m.content, timeout=15)

    refused(await spades.command(ann, channel, "tournament leave", player=ben), "Only the organiser")
    refused(await spades.command(organiser, channel, "tournament join", player=eve), "replacing:")
    dropped = await spades.command(organiser, channel, "tournament leave", player=dan)
    assert dropped.content == "Dan is out of the tournament." and not dropped.ephemeral
    replaced = await spades.command(organiser, channel, "tournament join", player=eve, replacing=cat)
    assert replaced.content == "Eve takes over Cat's entry."
    refused(await spades.command(dan, channel, "tournament join"), "You left this tournament")
    await fake.wait_until(lambda: "Dan (out)" in signup.content and "Eve" in signup.content, 5,
                          "the sign-up message to show the drop and the replacement")

    started = await spades.command(organiser, channel, "tournament start")
    await fake.wait_until(lambda: "Round 2 is seated" in started.content, 15, "round 2 to be seated")
    [table] = await fake.wait_until(
        lambda: [t for t in fake.threads_of(channel) if (t.name or "").startswith("Round 2 ")] or None, 15,
        "round 2's thread")
    welcome = await fake.wait_for_message(table, lambda m: "your table for round 2" in m.content)
    assert all(f"<@{u.id}>" in welcome.content for u in (ann, ben, eve))
    assert all(f"<@{u.id}>" not in welcome.content for u in (cat, dan))
    await fake.wait_until(lambda: all(thread.archived for thread in threads), 5,
                          "round 1's threads archived (once their games' last posts are out)")
    assert spades.bot is not None and "Traceback" not in spades.bot.log_text()
