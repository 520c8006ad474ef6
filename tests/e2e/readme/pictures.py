"""`python -m tests.e2e.readme.pictures FOLDER`: play a real game against the bot and picture what a player saw.

The bot runs as it ships against the fake Discord (two people and a computer player, seeded deals);
the pictures are drawn from the messages the bot really sent, by `devkit/fake_discord/picture/`:
`table.png` (the table and the player's private panel in the middle of a hand) and `game-over.png`
(the last hand's summary and the game-over post with its chart).
Then two seasons of short games: `podium.png` (the first season's podium as posted when it ended)
and `stats.png` (`/spades stats` with its card: the season beside all time, a rating line per season).
Last `six.png`: a six-player table in pairs (Alice and five computer players), at Alice's turn just
after a trick on which two identical cards fell, and her panel.

Beside each picture, `NAME.json` holds what it is drawn from: the messages as the player sees them
(text, buttons, attachments' names), ids and dates written as placeholders. The pixels depend on
Pillow's version and the podium on the day, so `tests/e2e/readme/test_pictures_current.py` compares these:
a change to what the bot shows fails it until the pictures are redrawn (`make pictures`).
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from devkit.fake_discord import BotProcess, FakeChannel, FakeDiscord, FakeUser
from devkit.fake_discord.screenshot import channel_png, shown
from tests.e2e.helpers.server import TEST_ENV, Spades, game_over_message
from tests.e2e.helpers.table import Table, play_game


async def play(folder: Path) -> None:
    fake = FakeDiscord()
    await fake.start()
    bots: list[BotProcess] = []
    try:
        with tempfile.TemporaryDirectory() as work:

            async def run(db_path: Path, extra_env: dict[str, str], **kwargs: Any) -> BotProcess:
                bot = BotProcess(fake, db_path, extra_env, **kwargs)
                bots.append(bot)
                await bot.start()
                await bot.wait_ready()
                return bot

            spades = Spades(fake, run, Path(work) / "spades.sqlite3")
            await spades.start_bot({**TEST_ENV, "BOT_MOVE_DELAY": "0.2"})
            alice, bob = spades.member("Alice"), spades.member("Bob")
            channel = spades.channel("spades")
            table = Table(spades, channel, [alice, bob])
            table.bid_policy = _steady_bid  # no nil: a game to 150 lasts into its second hand
            lobby = await table.open(alice, target=150)
            await spades.click(bob, lobby, f"spades:lobby:{table.game_id}:join")
            await spades.click(alice, lobby, f"spades:lobby:{table.game_id}:addbot")
            await spades.click(alice, lobby, f"spades:lobby:{table.game_id}:start")
            await table.wait_table(lambda m: "▶ **" in m.text, "the table")
            table.read_seats()
            for user in (alice, bob):
                await table.open_panel(user)
            while True:  # into the second hand, to a moment when it is Alice's turn to play
                turn = await table.whose_turn()
                assert turn is not None, "the game ended before the second hand's fourth trick"
                if turn.user is alice and turn.phase == "play" and "hand 2" in turn.panel.text:
                    shown = await table.wait_table(lambda m: "▶ **Alice** to play" in m.text, "the table to catch up")
                    if _trick(shown.text) >= 4:
                        break
                await table.act(turn, "panel")
            picture(folder, "table", fake, alice, channel, last=2)
            await table.play_moves(style="panel")
            await game_over_message(spades, channel)  # the game-over post is in before the picture
            await asyncio.sleep(0.5)
            picture(folder, "game-over", fake, alice, channel, last=2)
            await seasons(spades, folder, alice, bob)
            await six(spades, folder, alice)
    finally:
        for bot in bots:
            bot.kill()
            await bot.wait_exit()
        await fake.stop()


PICTURES = ("table", "game-over", "podium", "stats", "six")
_MENTION = re.compile(r"<@[!&]?(\d+)>")
# Not \b: in the JSON a line break is the two characters `\n`, and a date just after one ("over\n2026-…")
# has no word boundary before it.
_DATE = re.compile(r"(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)")
_ID = re.compile(r"(?<!\d)\d{17,20}(?!\d)")


def picture(folder: Path, name: str, fake: FakeDiscord, user: FakeUser, channel: FakeChannel, *, last: int) -> None:
    """`NAME.png`: the last `last` messages `user` sees in `channel`; `NAME.json`: what it is drawn from."""
    (folder / f"{name}.png").write_bytes(channel_png(fake, user, channel, last=last))
    (folder / f"{name}.json").write_text(drawn_from(fake, user, channel, last=last), encoding="utf-8")


def drawn_from(fake: FakeDiscord, user: FakeUser, channel: FakeChannel, *, last: int) -> str:
    """The messages of a picture as JSON that holds from run to run and day to day: mentions by
    name, other ids and dates as placeholders, attachments by name (their pixels are Pillow's)."""
    names = {str(u.id): u.global_name or u.username for u in fake.users.values()}
    messages = [shown(m) for m in fake.visible_messages(user, channel)[-last:]]
    text = json.dumps([{"author": m.author, "bot": m.bot, "content": m.content, "components": m.components,
                        "attachments": [filename for filename, _ in m.attachments], "ephemeral": m.ephemeral,
                        "edited": m.edited} for m in messages], ensure_ascii=False, indent=1, sort_keys=True)
    text = _MENTION.sub(lambda mention: f"<@{names.get(mention[1], 'someone')}>", text)
    return _ID.sub("<id>", _DATE.sub("YYYY-MM-DD", text)) + "\n"


def _trick(text: str) -> int:
    """The trick the table shows (0 before its first card)."""
    found = re.search(r"Trick (\d+)", text)
    return int(found[1]) if found else 0


def _steady_bid(table: Table, user: FakeUser, legal: list[str]) -> str:
    return "3" if "3" in legal else legal[-1]


async def seasons(spades: Spades, folder: Path, alice: FakeUser, bob: FakeUser) -> None:
    """A season of two games and its podium, then a second season under way, and Alice's stats."""
    fake, owner = spades.fake, spades.owner
    carol, dave = spades.member("Carol"), spades.member("Dave")
    league = spades.channel("league")
    await spades.command(owner, league, "season start", name="Spring")
    for players in ([alice, bob, carol], [carol, alice, bob]):
        await play_game(spades, league, players)
    await spades.command(owner, league, "season end")
    podium = await fake.wait_for_message(league, lambda m: m.content.startswith("## 🏆 Season"))
    await fake.wait_until(lambda: podium.attachments, 5, "the podium's picture")
    picture(folder, "podium", fake, alice, league, last=1)
    await spades.command(owner, league, "season start", name="Summer")
    for players in ([alice, dave, bob], [dave, bob, alice]):
        await play_game(spades, league, players)
    await spades.command(alice, league, "stats")
    picture(folder, "stats", fake, alice, league, last=1)



async def six(spades: Spades, folder: Path, alice: FakeUser) -> None:
    """A six pairs table at Alice's turn to play once a trick with two identical cards was taken."""
    channel = spades.channel("six")
    table = Table(spades, channel, [alice])
    table.bid_policy = _steady_bid
    lobby = await table.open(alice, mode="six", rules="teams=pairs", target=300)
    for _ in range(5):
        await spades.click(alice, lobby, f"spades:lobby:{table.game_id}:addbot")
    await spades.click(alice, lobby, f"spades:lobby:{table.game_id}:start")
    await table.wait_table(lambda m: "▶ **" in m.text, "the table")
    table.read_seats()
    await table.open_panel(alice)
    while True:
        turn = await table.whose_turn()
        assert turn is not None, "the game ended before two identical cards fell on one trick"
        if turn.user is alice and turn.phase == "play":
            shown = await table.wait_table(lambda m: "▶ **Alice** to play" in m.text, "the table to catch up")
            if "(2nd)" in shown.text.partition("Last trick:")[2]:
                break
        await table.act(turn, "panel")
    picture(folder, "six", spades.fake, alice, channel, last=2)


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/images")
    target.mkdir(parents=True, exist_ok=True)
    asyncio.run(play(target))
    print(f"pictures written to {target}")
