"""The Discord side of a tournament: its sign-up message and buttons, a thread per table, the
standings and the podium. The tournament service decides; this only talks to Discord.

A table's thread is started from a message in the tournament's channel naming its players (a
thread started from a message has that message's id), and the players are mentioned inside it.
Owed posts (a round's standings, the podium, a cancellation) carry a nonce so one repeated after a
crash shows once, and are confirmed to the service once out; a passing fault is retried.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

import discord
from discord import ui

from bot.discord_ui.errors import report_error
from bot.discord_ui.services import Asked, display_name, is_server_manager, services
from bot.discord_ui.tournaments.render import (
    cancelled_text,
    podium_picture,
    podium_text,
    signup_text,
    standings_text,
    table_call,
    table_call_head,
    thread_welcome,
)
from bot.discord_ui.transport import CALL_FAILED, NO_ACCESS, Backoff, Fault, describe, fault
from bot.discord_ui.transport.budget import Priority, RestBudget
from bot.engine.tournaments.tournament import Stage
from bot.service.tournaments import (
    CANCELLED,
    PODIUM,
    STANDINGS,
    LiveTournament,
    TableSeat,
    ThreadRefused,
    TournamentService,
)

log = logging.getLogger(__name__)

THREAD_EXISTS = 160004  # a thread was started from this message already
THREAD_LIMIT = 160006  # the server has as many active threads as Discord allows
CALL_SEARCH = 200  # messages looked through for a table's call posted before a crash: a round's worth
NOTICE_AGAIN = 600.0  # the same notice to the organiser at most this often
ACTIONS = {"join": "Join", "leave": "Leave"}


class TournamentButton(ui.DynamicItem[ui.Button[Any]],
                       template=r"spades:tourney:(?P<tid>[0-9a-f]{1,32}):(?P<action>join|leave)"):
    """**Join** / **Leave** on a tournament's message; restart-proof like the game's buttons."""

    def __init__(self, tournament_id: str, action: str) -> None:
        style = discord.ButtonStyle.success if action == "join" else discord.ButtonStyle.secondary
        super().__init__(ui.Button(label=ACTIONS[action], custom_id=f"spades:tourney:{tournament_id}:{action}",
                                   style=style))
        self.tournament_id, self.action = tournament_id, action

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: Any) -> TournamentButton:
        return cls(match["tid"], match["action"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await services(interaction).tournament_clicks.click(interaction, self.tournament_id, self.action)


def signup_view(live: LiveTournament) -> ui.View | None:
    if live.engine.stage in (Stage.OVER, Stage.CANCELLED):
        return None
    view = ui.View(timeout=None)
    for action in ACTIONS:
        view.add_item(TournamentButton(live.tournament_id, action))
    return view


def missing_thread_permissions(permissions: discord.Permissions) -> list[str]:
    """What the bot lacks in a channel to run a tournament's tables there, in Discord's words."""
    wanted = {"create_public_threads": "Create Public Threads", "send_messages_in_threads": "Send Messages in Threads",
              "send_messages": "Send Messages", "view_channel": "View Channel"}
    return [name for flag, name in wanted.items() if not getattr(permissions, flag)]


class TournamentDesk:
    """The tournament service's host (see `bot.service.tournaments.TournamentHost`)."""

    def __init__(self, client: discord.Client, budget: RestBudget,
                 tournaments: Callable[[], TournamentService]) -> None:
        self.client = client
        self.budget = budget
        self._tournaments = tournaments  # the service this desk hosts, built on it by the composition root
        self._tasks: set[asyncio.Task[None]] = set()
        self._signups: dict[str, LiveTournament] = {}  # sign-up messages waiting for an edit
        self._editing: set[str] = set()  # tournaments whose sign-up message an edit is on its way to
        self._notices: dict[tuple[str, str], float] = {}

    @property
    def tournaments(self) -> TournamentService:
        return self._tournaments()

    def _spawn(self, work: Any) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self, timeout: float = 5.0) -> None:
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout)
        for task in list(self._tasks):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _channel(self, channel_id: int, guild_id: int) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(channel_id, guild_id=guild_id, type=discord.ChannelType.text)

    # ------------------------------------------------------------------ the host's methods
    def signup_changed(self, live: LiveTournament) -> None:
        """Edit the sign-up message; changes that come while an edit is on its way make one more
        edit after it, never one beside it (edits of one message at once can land out of order)."""
        self._signups[live.tournament_id] = live
        if live.tournament_id not in self._editing:
            self._editing.add(live.tournament_id)
            self._spawn(self._edit_signup(live.tournament_id))

    async def _edit_signup(self, tournament_id: str) -> None:
        try:
            await asyncio.sleep(0)  # let a burst of joins land first
            while (live := self._signups.pop(tournament_id, None)) is not None:
                if live.info.message_id is None:
                    continue
                message = self._channel(live.channel_id, live.guild_id).get_partial_message(live.info.message_id)
                with contextlib.suppress(discord.HTTPException):
                    await self.budget.take(Priority.TABLE)
                    await message.edit(content=signup_text(live), view=signup_view(live))
        finally:
            self._editing.discard(tournament_id)

    def post(self, live: LiveTournament, kind: str, payload: dict[str, Any], post_id: int) -> None:
        self._spawn(self._post(live, kind, payload, post_id))

    async def _post(self, live: LiveTournament, kind: str, payload: dict[str, Any], post_id: int) -> None:
        files: list[discord.File] = []
        if kind == STANDINGS:
            text = standings_text(live, int(payload.get("round", 0)), self.tournaments.round_pause,
                                  [str(note) for note in payload.get("stopped", [])])
        elif kind == PODIUM:
            text = podium_text(live, [str(note) for note in payload.get("stopped", [])])
            png = await asyncio.to_thread(podium_picture, live)
            files = [discord.File(io.BytesIO(png), filename="podium.png")] if png is not None else []
        elif kind == CANCELLED:
            text = cancelled_text(live, str(payload.get("reason", "")))
        else:
            log.error("tournament %s: dropping an owed %r post this version can't make", live.tournament_id, kind)
            await self.tournaments.delivered(post_id)
            return
        backoff = Backoff()
        while True:
            try:
                for file in files:
                    file.reset()
                await self.budget.take(Priority.OWED)
                await self._channel(live.channel_id, live.guild_id).send(
                    text, files=files, nonce=f"t{live.tournament_id}p{post_id}"[:25],
                    allowed_mentions=discord.AllowedMentions.none())
                break
            except CALL_FAILED as error:
                if isinstance(error, discord.NotFound | discord.Forbidden):
                    log.warning("tournament %s: its channel can't take the %s post", live.tournament_id, kind)
                    break
                if fault(error) is Fault.REFUSED:
                    log.error("tournament %s: the %s post failed (%s)", live.tournament_id, kind, describe(error))
                    return  # stays owed: tried again at the next start
                await asyncio.sleep(backoff.delay(error))
        await self.tournaments.delivered(post_id)

    def notify(self, live: LiveTournament, text: str) -> None:
        key, now = (live.tournament_id, text), time.monotonic()
        if not text or now - self._notices.get(key, -NOTICE_AGAIN) < NOTICE_AGAIN:
            return
        self._notices[key] = now
        self._spawn(self._notify(live, text))

    async def _notify(self, live: LiveTournament, text: str) -> None:
        mention = discord.AllowedMentions(users=[discord.Object(live.organiser_id)])
        with contextlib.suppress(discord.HTTPException):
            await self.budget.take(Priority.OWED)
            await self._channel(live.channel_id, live.guild_id).send(f"<@{live.organiser_id}> {text}",
                                                                     allowed_mentions=mention)
            return
        with contextlib.suppress(discord.HTTPException):  # the channel is closed to the bot: a direct message
            channel = await self.client.create_dm(discord.Object(live.organiser_id))
            await channel.send(text)

    async def open_thread(self, live: LiveTournament, round_number: int, table: int,
                          seats: Sequence[TableSeat], *, again: bool) -> int:
        """The call in the channel, the thread from it, the players mentioned inside. Tried `again`,
        the call and welcome an earlier try left are found and used (a nonce alone dedupes for a
        few minutes only)."""
        channel = self._channel(live.channel_id, live.guild_id)
        people = discord.AllowedMentions(users=[discord.Object(s.user_id) for s in seats if s.user_id is not None])
        try:
            call = await self._earlier_call(live, round_number, table) if again else None
            if call is None:
                await self.budget.take(Priority.OWED)
                call = await channel.send(table_call(live, round_number, table, seats),
                                          nonce=f"t{live.tournament_id}r{round_number}t{table}"[:25],
                                          allowed_mentions=discord.AllowedMentions.none())
            await self.budget.take(Priority.OWED)
            started = True
            try:
                await self.client.http.start_thread_with_message(
                    live.channel_id, call.id, name=f"Round {round_number} · Table {table + 1}"[:100],
                    auto_archive_duration=1440)
            except discord.HTTPException as error:
                if error.code != THREAD_EXISTS:
                    raise
                started = False
            thread = self.client.get_partial_messageable(call.id, guild_id=live.guild_id,
                                                         type=discord.ChannelType.public_thread)
            if started or not await self._said_in(thread):
                await self.budget.take(Priority.OWED)
                await thread.send(thread_welcome(live, round_number, seats), allowed_mentions=people,
                                  nonce=f"t{live.tournament_id}r{round_number}w{table}"[:25])
            return call.id
        except discord.Forbidden as error:
            if error.code in NO_ACCESS:
                raise ThreadRefused(
                    f"I can't open the tables' threads in <#{live.channel_id}>: I need **Create Public Threads** "
                    "and **Send Messages in Threads** there (and Send Messages). Round "
                    f"{round_number} waits, and I try again every half minute.") from None
            raise ThreadRefused("") from error
        except discord.HTTPException as error:
            if error.code == THREAD_LIMIT:
                raise ThreadRefused(
                    "This server has as many active threads as Discord allows, so I can't open round "
                    f"{round_number}'s tables. Archive some threads; I try again every half minute.") from None
            raise ThreadRefused("") from error
        except (TimeoutError, OSError) as error:
            raise ThreadRefused("") from error

    async def _earlier_call(self, live: LiveTournament, round_number: int, table: int) -> discord.Message | None:
        """The table's call if an earlier try posted it: the bot's message with its heading, after the
        earlier rounds' calls (or the sign-up message). None if there is none, or history is closed."""
        earlier = [row.thread_id for (number, _), row in live.tables.items()
                   if number < round_number and row.thread_id is not None]
        after = max([live.info.message_id or 0, *earlier])
        head, me = table_call_head(round_number, table), self.client.user
        channel = self._channel(live.channel_id, live.guild_id)
        with contextlib.suppress(discord.HTTPException):
            await self.budget.take(Priority.OWED)
            async for message in channel.history(limit=CALL_SEARCH, after=discord.Object(after), oldest_first=True):
                if me is not None and message.author.id == me.id and message.content.startswith(head):
                    return message
        return None

    async def _said_in(self, thread: discord.PartialMessageable) -> bool:
        """Whether the bot has posted in this thread (a table's welcome, from an earlier try)."""
        me = self.client.user
        with contextlib.suppress(discord.HTTPException):
            await self.budget.take(Priority.OWED)
            async for message in thread.history(limit=10, oldest_first=True):
                if me is not None and message.author.id == me.id:
                    return True
        return False

    async def archive_thread(self, live: LiveTournament, thread_id: int) -> None:
        with contextlib.suppress(discord.HTTPException):
            await self.budget.take(Priority.CLEANUP)
            await self.client.http.edit_channel(thread_id, archived=True)

    # ------------------------------------------------------------------ buttons
    async def click(self, interaction: Asked, tournament_id: str, action: str) -> None:
        try:
            live = self.tournaments.require_id(tournament_id, interaction.guild_id, interaction.channel_id)
            user = interaction.user
            if action == "join":
                await self.tournaments.join(live, user.id, display_name(user))
                text = "You're in the tournament. I'll mention you in your table's thread when a round starts."
            else:
                await self.tournaments.leave(live, user.id, is_organiser=is_server_manager(interaction))
                text = "You left the tournament."
            await interaction.response.send_message(text, ephemeral=True)
        except Exception as error:
            await report_error(interaction, error)
