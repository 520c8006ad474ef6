"""A private panel can be edited for as long as its interaction token lives (15 minutes): before it
runs out, the panel says it has gone to sleep instead of going on looking live."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

import discord

from bot.discord_ui import layout
from bot.discord_ui.table import webhooks
from bot.discord_ui.table.desk import Wake
from bot.discord_ui.table.handlers import Handlers
from bot.discord_ui.table.panels import PanelSet
from bot.discord_ui.table.publisher import Publisher
from bot.discord_ui.table.webhooks import WebhookPace
from bot.discord_ui.transport import RateLimits
from bot.discord_ui.transport.fastpath import FastEdits
from bot.engine import Game, Mode, Rules
from bot.service import LiveGame
from bot.store import Seat
from tests.discord_ui.fakes import Games


class RecordingEdits(FastEdits):
    """The panels' edits, by the interaction that showed them."""

    def __init__(self) -> None:
        super().__init__()
        self.shown: dict[object, list[layout.Face]] = {}

    async def edit(self, interaction: Any, message: int | str, face: layout.Face) -> None:
        assert message == "@original"
        self.shown.setdefault(interaction, []).append(face)


class Clicked:
    message = None
    application_id = 1

    def __init__(self) -> None:
        self.token = f"token{id(self)}"


def _texts(face: layout.Face) -> str:
    return "\n".join(part.content for part in face.parts if isinstance(part, layout.Text))


async def test_a_panel_goes_to_sleep_before_its_token_runs_out() -> None:
    edits = RecordingEdits()
    publisher = Publisher(None, Games(), panel_life=1.0, edits=edits)  # type: ignore[arg-type]
    seats = [Seat(i, name, user_id=i + 1) for i, name in enumerate(("alice", "bob", "carol"))]
    live = LiveGame("ab12", 1, 2, Mode.CUTTHROAT, Rules(), 1, seats, 120.0, status="playing")
    live.game = Game.new("ab12", Mode.CUTTHROAT, Rules(), seed=1, names=["alice", "bob", "carol"])
    live.game.deal()
    live.freeze()
    first, second = Clicked(), Clicked()
    publisher.panel_shown(live, 1, first, live.token)  # type: ignore[arg-type]
    await asyncio.sleep(0.5)
    publisher.panel_shown(live, 2, second, live.token)  # type: ignore[arg-type]
    await asyncio.sleep(0.75)  # the first went to sleep 0.25 s ago; the second sleeps in 0.25 s
    assert len(edits.shown.get(first, [])) == 1 and second not in edits.shown  # the older one first
    asleep = edits.shown[first][0]
    assert "gone to sleep" in _texts(asleep) and "My hand" in _texts(asleep)
    assert not any(isinstance(part, layout.Row | layout.Cards) for part in asleep.parts)  # nothing to press
    await asyncio.sleep(0.5)
    assert len(edits.shown[second]) == 1 and len(edits.shown[first]) == 1  # each once
    await publisher.close(timeout=0.1)


async def test_a_panel_shown_while_the_old_one_is_being_updated_is_the_one_kept() -> None:
    """A player opens a fresh panel (My hand) while the bot is still updating their old one, which
    Discord then says is gone: the fresh panel is kept current, not forgotten with the old one."""
    live = LiveGame("ab12", 1, 2, Mode.CUTTHROAT, Rules(), 1,
                    [Seat(i, name, user_id=i + 1) for i, name in enumerate(("alice", "bob", "carol"))],
                    120.0, status="playing")
    live.game = Game.new("ab12", Mode.CUTTHROAT, Rules(), seed=1, names=["alice", "bob", "carol"])
    live.game.deal()
    live.freeze()
    old, fresh = Clicked(), Clicked()

    class Gone(RecordingEdits):
        async def edit(self, interaction: Any, message: int | str, face: layout.Face) -> None:
            if interaction is old:
                panels.show(1, fresh, live.token - 1)  # type: ignore[arg-type]  # a click lands meanwhile
                raise discord.NotFound(FakeResponse(404), {"code": 10008, "message": "Unknown Message"})
            await super().edit(interaction, message, face)

    edits = Gone()
    panels = PanelSet(WebhookPace(RateLimits()), edits)
    panels.show(1, old, live.token - 1)  # type: ignore[arg-type]
    await panels.refresh(live)
    assert panels.open[1].interaction is fresh
    await panels.refresh(live)
    assert fresh in edits.shown  # and it is the one brought up to date


class FakeResponse:
    """What discord.HTTPException reads of an aiohttp response."""

    def __init__(self, status: int) -> None:
        self.status, self.reason = status, "Not Found"


async def test_the_last_table_edit_of_a_game_waits_for_its_webhooks_panels(monkeypatch: Any) -> None:
    """The table rides on the webhook of a click whose panel was just edited as often as Discord
    allows (its last answer said 0 remaining, reset in 0.3 s): the table's edit at the game's end
    (which doesn't wait for the table's pace) still waits for the webhook's bucket instead of
    earning a 429."""
    sent: list[tuple[float, object]] = []

    class Timed(FastEdits):
        async def edit(self, interaction: Any, message: int | str, face: layout.Face) -> None:
            sent.append((time.monotonic(), message))

    publisher = Publisher(None, Games(), edits=Timed())  # type: ignore[arg-type]
    live = LiveGame("ab12", 1, 2, Mode.CUTTHROAT, Rules(), 1,
                    [Seat(i, name, user_id=i + 1) for i, name in enumerate(("alice", "bob", "carol"))],
                    120.0, status="playing")
    live.game = Game.new("ab12", Mode.CUTTHROAT, Rules(), seed=1, names=["alice", "bob", "carol"])
    live.game.deal()
    live.freeze()
    click = Clicked()
    publisher.limits.note(f"PATCH /webhooks/{click.application_id}/{click.token}/messages/{{id}}", 200,
                          {"x-ratelimit-remaining": "0", "x-ratelimit-reset-after": "0.3"}, None)
    spent_at = time.monotonic()
    assert await publisher.channel.edit_table(live, 123, webhooks.Via(click, spent_at))  # type: ignore[arg-type]
    assert sent and sent[0][1] == 123 and sent[0][0] - spent_at >= 0.3 - 0.01  # once the window let it
    await publisher.close(timeout=0.1)


async def test_a_clicked_panel_is_not_edited_again_by_a_refresh_already_under_way() -> None:
    """A bid clicked on Alice's panel is answered by updating that panel. A refresh started by the
    move, still busy with Bob's panel when the answer goes out, skips Alice's: the answer showed it."""
    live = LiveGame("ab12", 1, 2, Mode.CUTTHROAT, Rules(), 1,
                    [Seat(i, name, user_id=i + 1) for i, name in enumerate(("alice", "bob", "carol"))],
                    120.0, status="playing")
    game = live.game = Game.new("ab12", Mode.CUTTHROAT, Rules(), seed=1, names=["alice", "bob", "carol"])
    game.deal()
    live.freeze()
    bidder = game.turn
    assert bidder is not None
    seat: int = bidder  # for the service below
    waiting = next(s for s in range(3) if s != bidder)
    release = asyncio.Event()

    class SlowForTheOther(RecordingEdits):
        def __init__(self) -> None:
            super().__init__()
            self.answered: list[Any] = []

        async def edit(self, interaction: Any, message: int | str, face: layout.Face) -> None:
            if interaction is other:
                await release.wait()
            await super().edit(interaction, message, face)

        async def update(self, interaction: Any, face: layout.Face) -> None:
            await asyncio.sleep(0.05)  # the refresh begins meanwhile, and waits on the other panel
            self.answered.append(interaction)

    class Service:
        def require_game(self, game_id: str, guild_id: int | None, channel_id: int | None = None) -> LiveGame:
            return live

        async def bid(self, live: LiveGame, user_id: int, text: str) -> None:
            game.bid(seat, int(text))
            live.freeze()
            publisher.publish(live, [Wake(panels=True)])

    edits = SlowForTheOther()
    publisher = Publisher(None, Games(), edits=edits)  # type: ignore[arg-type]
    other, clicker = Clicked(), Clicked()
    clicker.user = SimpleNamespace(id=bidder + 1)  # type: ignore[attr-defined]
    clicker.guild_id, clicker.channel_id = 1, 2  # type: ignore[attr-defined]
    publisher.panel_shown(live, waiting + 1, other, live.token)  # type: ignore[arg-type]
    publisher.panel_shown(live, bidder + 1, clicker, live.token)  # type: ignore[arg-type]
    handlers = Handlers(Service(), publisher)  # type: ignore[arg-type]
    await handlers.panel_action(clicker, "ab12", "bid", str(game.legal_bids(bidder)[0]))  # type: ignore[arg-type]
    assert edits.answered == [clicker]
    release.set()
    for _ in range(200):  # the refresh goes on from the other panel to the clicked one at once
        if other in edits.shown:
            break
        await asyncio.sleep(0.01)
    assert other in edits.shown  # the waiting player's panel was brought up to date
    assert clicker not in edits.shown  # the clicked one only by its answer
    await publisher.close(timeout=0.1)
