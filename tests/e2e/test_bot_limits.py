"""The bot inside Discord's rate limits: the fake enforces them here (50 counted calls a second per
token, per-route buckets, 429s with Discord's headers), and the bot paces itself so it gets none.

Play runs through what doesn't count (interaction callbacks and webhooks); what counts (a hand's
direct messages, its summary, the game-over post) is a handful of calls a hand. A 429 storm delays
what counts and loses none of it; a burst of tables ending their hands at once is paced.
"""

from __future__ import annotations

import asyncio
from functools import partial

import pytest

from devkit.fake_discord import FakeMessage
from devkit.fake_discord.ratelimits import DISCORD_LIMITS
from tests.e2e.conftest import Spades, Table, game_id_of, game_over_message, record_moves, start_game
from tests.record_check import check_record

COUNTED_PER_INTERACTION = 0.15  # the target for what counts against the global limit
# Discord's limits on in the fake; and a token allowed only 10 calls a second.
# The bot then paces its webhook edits as it does against Discord.
UNDER_LIMITS: pytest.MarkDecorator = pytest.mark.fake_discord(**DISCORD_LIMITS)
PACED = {"DISCORD_WEBHOOK_EDITS": "4"}
UNDER_TIGHT_LIMITS: pytest.MarkDecorator = pytest.mark.fake_discord(**{**DISCORD_LIMITS, "global_rate": 10})


def summaries(table: Table, hand: int) -> list[FakeMessage] | None:
    found = [m for m in table.channel.messages.values() if m.text.startswith(f"### Hand {hand} scored")]
    return found or None


@UNDER_LIMITS
@pytest.mark.parametrize("bot_env", [PACED])
async def test_a_whole_game_under_discords_limits_gets_no_429_and_makes_few_counted_calls(spades: Spades) -> None:
    fake = spades.fake
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol], target=50, mercy=50)
    counted, interactions = fake.global_calls, len(fake.interactions)

    await table.play_moves()
    await game_over_message(spades, channel)

    played = len(fake.interactions) - interactions
    assert fake.count_429s() == 0, fake.rate_limit_summary()
    assert (fake.global_calls - counted) / played <= COUNTED_PER_INTERACTION, fake.rate_limit_summary()
    record = await spades.record(alice, channel)
    check_record(record)
    assert record_moves(record) == table.acknowledged()


@UNDER_LIMITS
@pytest.mark.parametrize("bot_env", [PACED])
async def test_a_five_second_global_429_storm_mid_hand_loses_no_move_post_or_dm(spades: Spades) -> None:
    fake = spades.fake
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol], target=150, mercy=150)
    await table.play_moves(3 + 3 * 15)  # the bids and most of the first hand
    mark = fake.checkpoint()
    storm = fake.force_429("global", seconds=5.0)  # every counted call refused for 5 s
    await table.play_moves(3 * 2)  # the end of the hand: its summary and the next deal are owed now
    await table.play_moves(3)  # play goes on meanwhile, through what doesn't count

    summary = await fake.wait_until(partial(summaries, table, 1), 20, "the hand's summary, once the storm has passed")
    dms = [await table.hand_dm(user, 2, after=mark) for user in table.players]
    assert storm.hits > 0 and len(summary) == 1
    for user, dm in zip(table.players, dms, strict=True):
        if dm is not None:  # one deal message each, not two
            assert len([m for m in fake.dm_channels[user.id].messages.values() if "hand 2" in m.content]) == 1
    await table.play_moves()
    await game_over_message(spades, channel)
    record = await spades.record(alice, channel)
    check_record(record)
    assert record_moves(record) == table.acknowledged()
    assert len([m for m in channel.messages.values() if m.content.startswith("## 🏆")]) == 1


@UNDER_TIGHT_LIMITS
@pytest.mark.parametrize("bot_env", [{**PACED, "BOT_MOVE_DELAY": "0", "DISCORD_GLOBAL_RATE": "10"}])
async def test_tables_ending_their_hands_at_once_are_paced_and_lose_nothing(spades: Spades) -> None:
    """Six tables (a person and two computer players each) play their first hand's last cards at
    once under a token allowed 10 calls a second: the summaries and the next deals' messages go
    out paced, each once, and Discord never has to say no."""
    fake = spades.fake
    tables: list[Table] = []
    for n in range(6):
        person, channel = spades.member(f"Player {n}"), spades.channel(f"table-{n}")
        table = Table(spades, channel, [person], game_id=game_id_of(await spades.command(person, channel, "new",
                                                                                          target=300, nil=False)))
        for _ in range(2):
            await spades.command(person, channel, "addbot")
        await spades.command(person, channel, "start")
        await table.wait_table(lambda m: "▶ **" in m.text, "the table")
        table.read_seats()
        tables.append(table)

    async def to_last_card(table: Table) -> None:
        while (turn := await table.whose_turn()) is not None and len(table.held_cards(turn.panel)) != 1:
            await table.act(turn, "panel")

    await asyncio.gather(*(to_last_card(t) for t in tables))
    mark, refused_before = fake.checkpoint(), fake.count_429s()  # (start-up alone is over 10 calls)
    turns = [await t.whose_turn() for t in tables]
    await asyncio.gather(*(t.act(turn, "panel") for t, turn in zip(tables, turns, strict=True) if turn is not None))

    for table in tables:
        summary = await fake.wait_until(partial(summaries, table, 1), 20, "every table's summary")
        assert len(summary) == 1
        dm = await table.hand_dm(table.players[0], 2, after=mark)
        if dm is not None:
            deals = [m for m in fake.dm_channels[table.players[0].id].messages.values() if "hand 2" in m.content]
            assert len(deals) == 1
        await table.wait_table(lambda m: "hand 2" in m.text and "▶ **" in m.text, "the second hand's table")
    assert fake.count_429s() == refused_before, fake.rate_limit_summary()
