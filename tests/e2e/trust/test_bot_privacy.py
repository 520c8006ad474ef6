"""Nothing private in public, and every decision with slash commands alone.

`/spades record` asked mid-hand by a seated player, a spectator and a player of another game: the
channel never shows a card still in someone's hand (the asker's own cards go to the asker alone).
A player who never clicks anything plays a whole game, blind-nil offers included.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from devkit.fake_discord import FakeChannel, FakeMessage, FakeUser
from devkit.fake_discord.models import INTERACTION_APPLICATION_COMMAND, INTERACTION_AUTOCOMPLETE
from tests.e2e.helpers.cards import card_code
from tests.e2e.helpers.record import record_moves
from tests.e2e.helpers.server import Spades, game_over_message, refused
from tests.e2e.helpers.table import Table, game_id_of, start_game
from tests.record_check import check_record

CARD_LABEL = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([♠♥♦♣])")
CARD_CODE = re.compile(r"^(10|[2-9JQKA])[SHDC]$")


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from _strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from _strings(item)


def cards_shown_in_public(channel: FakeChannel) -> set[str]:
    """Every card code any public message of the channel ever showed: every version of its text and
    components, and the JSON files attached to it."""
    shown: set[str] = set()
    for message in channel.messages.values():
        if message.ephemeral:
            continue
        for snapshot in message.history:
            text = json.dumps(snapshot, ensure_ascii=False)
            shown |= {card_code(m.group(0)) for m in CARD_LABEL.finditer(text)}
        for attachment in message.attachments:
            if attachment.filename.endswith(".json"):
                shown |= {s for s in _strings(json.loads(attachment.data)) if CARD_CODE.match(s)}
    return shown


async def test_records_asked_mid_hand_never_show_the_channel_a_card_someone_holds(spades: Spades) -> None:
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    dave, erin = spades.member("Dave"), spades.member("Erin")
    channel, elsewhere = spades.channel("spades"), spades.channel("other-table")
    table = await start_game(spades, channel, [alice, bob, carol])
    await table.play_moves(7)  # the bids and a trick and a bit: mid-hand, cards on the table

    # Erin plays in another channel, against two computer players.
    other = Table(spades, elsewhere, [erin], game_id=game_id_of(await spades.command(erin, elsewhere, "new")))
    for _ in range(2):
        await spades.command(erin, elsewhere, "addbot")
    assert (await spades.command(erin, elsewhere, "start")).ephemeral
    await other.wait_table(lambda m: "▶ **" in m.text, "the other table")

    held = {user.id: set(table.held_cards(await table.panel(user))) for user in table.players}
    assert all(held.values()), held

    # The seated player's record holds her own cards: it is for her eyes only.
    mine = await spades.command(alice, channel, "record")
    assert mine.ephemeral and mine.visible_to is alice and "only you can see this" in mine.content
    document = json.loads(mine.attachments[0].data)
    seat = str(table.seat_of(alice))
    assert document["hands"][-1]["deal"].keys() == {seat} and held[alice.id] <= set(document["hands"][-1]["deal"][seat])
    check_record(document, public=True)

    # A spectator's and another game's player's records are public, and hold nobody's cards.
    for asker in (dave, erin):
        answer = await spades.command(asker, channel, "record")
        assert not answer.ephemeral and "only what everyone has seen" in answer.content
        public = json.loads(answer.attachments[0].data)
        assert public["hands"][-1]["deal"] == {} and public["final"] is None
        check_record(public, public=True)
    # Erin's own game's record, asked in her channel, holds her cards: only she sees it.
    own = await spades.command(erin, elsewhere, "record")
    assert own.ephemeral and own.visible_to is erin
    erins_hand = json.loads(own.attachments[0].data)["hands"][-1]
    [erins_deal] = erins_hand["deal"].values()
    erin_holds = set(erins_deal) - {card for trick in erins_hand["tricks"] for _, card in trick["plays"]}

    still_held = set().union(*[table.held_cards(await table.panel(user)) for user in table.players])
    for where, secret in ((channel, still_held), (elsewhere, erin_holds)):
        leaked = cards_shown_in_public(where) & secret
        assert not leaked, f"#{where.name} shows cards still held: {sorted(leaked)}"


class SlashOnlyPlayer:
    """One person who types every decision and reads only the replies and the panel `/spades hand`
    gave them (which the bot keeps current); never a click."""

    def __init__(self, spades: Spades, channel: FakeChannel, user: FakeUser, game_id: str) -> None:
        self.spades, self.channel, self.user = spades, channel, user
        self.table = Table(spades, channel, [user], game_id=game_id)
        self.offers = 0
        self.blind_nils = 0
        self.moves: list[tuple[str, str]] = []

    async def show_panel(self) -> FakeMessage:
        panel = await self.spades.command(self.user, self.channel, "hand")
        assert panel.ephemeral and panel.visible_to is self.user, panel
        self.table.panels[self.user.id] = panel
        return panel

    async def play_game(self) -> None:
        await self.show_panel()
        while (turn := await self.table.whose_turn(timeout=20)) is not None:
            if turn.phase == "hidden":
                await self._blind_nil_offer(turn.panel)
            elif turn.phase == "bid":
                await self._bid(turn.panel)
            else:
                await self._play(turn.panel)

    async def _blind_nil_offer(self, panel: FakeMessage) -> None:
        """Odd offers: look at the cards at once (allowed before one's turn). Even offers: wait for
        the turn and bid blind nil."""
        self.offers += 1
        assert "`/spades bid show my cards`" in panel.text  # the panel says how, in words one can type
        refused(await self.spades.command(self.user, self.channel, "bid", bid="4"),
                "First choose", "`/spades bid blind nil`", "`/spades bid show my cards`", "**Show my cards**")
        if self.offers % 2 == 0:
            await self.spades.fake.wait_until(lambda: "It's your turn to bid." in panel.text, 20, "the turn to bid")
            offered = await self.spades.choices(self.user, self.channel, "bid", "bid", "")
            assert offered == ["blind nil", "show my cards"], offered
            answer = await self.spades.command(self.user, self.channel, "bid", bid="blind nil")
            assert answer.ephemeral and answer.content == "You bid **blind nil**.", answer
            self.blind_nils += 1
            self.moves.append(("bid", "blind nil"))
            await self.spades.fake.wait_until(lambda: self.table.phase_in(panel) != "hidden", 10, "the panel to follow")
            return
        assert "show my cards" in await self.spades.choices(self.user, self.channel, "bid", "bid", "")
        shown = await self.spades.command(self.user, self.channel, "bid", bid="show my cards")
        assert shown.ephemeral and "You looked at your cards" in shown.text and self.table.phase_in(shown) != "hidden"
        self.table.panels[self.user.id] = shown  # the reply is the fresh panel, kept current from now on

    async def _bid(self, panel: FakeMessage) -> None:
        legal = await self.spades.choices(self.user, self.channel, "bid", "bid", "")
        assert "show my cards" not in legal and legal, legal
        bid = "3" if "3" in legal else legal[-1]
        answer = await self.spades.command(self.user, self.channel, "bid", bid=bid)
        assert answer.content == f"You bid **{bid}**.", answer
        self.moves.append(("bid", bid))
        await self.spades.fake.wait_until(lambda: self.table.phase_in(panel) != "bid", 10, "the panel to follow")

    async def _play(self, panel: FakeMessage) -> None:
        legal = [card_code(label) for label in await self.spades.choices(self.user, self.channel, "play", "card", "")]
        assert sorted(legal) == sorted(self.table.enabled_cards(panel))
        card = legal[-1]
        answer = await self.spades.command(self.user, self.channel, "play", card=card)
        assert answer.ephemeral and answer.content.startswith("You played"), answer
        self.moves.append(("play", card))
        await self.spades.fake.wait_until(
            lambda: self.table.phase_in(panel) != "play" or card not in self.table.held_cards(panel),
            10, "the panel to follow the card")


@pytest.mark.parametrize("bot_env", [{"BOT_MOVE_DELAY": "0"}])
async def test_one_player_plays_a_whole_game_with_slash_commands_alone(spades: Spades) -> None:
    fake = spades.fake
    solo = spades.member("Typist")
    channel = spades.channel("spades")
    # Blind nil offered from the first hand on (no deficit needed), to a game of a few hands.
    lobby = await spades.command(solo, channel, "new", target=200, mercy=200, blind_nil_deficit=0)
    player = SlashOnlyPlayer(spades, channel, solo, game_id_of(lobby))
    for level in ("normal", "easy"):
        assert (await spades.command(solo, channel, "addbot", level=level)).ephemeral
    assert (await spades.command(solo, channel, "start")).ephemeral
    await player.table.wait_table(lambda m: "▶ **" in m.text, "the table")
    player.table.read_seats()

    await player.play_game()
    await game_over_message(spades, channel)

    assert player.offers >= 2 and player.blind_nils >= 1, (player.offers, player.blind_nils)
    record = await spades.record(solo, channel)
    check_record(record)
    assert record["final"] is not None and record["final"]["ended"] != "cancelled"
    seat = player.table.seat_of(solo)
    mine = [m for m in record_moves(record) if m[1] == seat]
    typed = [("bid", 0, True) if v == "blind nil" else ("bid", int(v), False) if k == "bid" else ("play", v)
             for k, v in player.moves]
    assert [(m[0], *m[2:]) for m in mine] == typed
    kinds = {i.type for i in fake.interactions.values() if i.user is solo}
    assert kinds == {INTERACTION_APPLICATION_COMMAND, INTERACTION_AUTOCOMPLETE}  # not a single click
