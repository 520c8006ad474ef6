"""The table as two people and a computer player use it: one click a card on a private panel that
keeps itself current, a mention when someone sits idle on their turn, every trick readable with
who played what, a chart and a working Rematch at the end, and few new messages per hand."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from devkit.fake_discord import FakeMessage, FakeUser
from tests.e2e.helpers.record import record_moves
from tests.e2e.helpers.server import Spades, game_over_message, name_of
from tests.e2e.helpers.table import Table, Turn, game_id_of, start_game
from tests.record_check import check_record

IDLE_EVERY = 12  # every twelfth turn of a person, they sit and wait to be mentioned
PING_WITHIN = 10.0


def trick_line(record_names: list[str], trick: dict[str, object]) -> str:
    plays = trick["plays"]
    assert isinstance(plays, list)
    winner = trick["winner"]
    shown = []
    for seat, code in plays:
        label = code[:-1] + {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[code[-1]]
        text = f"{record_names[seat]}\u00a0{label}"  # no-break spaces: a card stays with its player
        shown.append(f"**{text}**\u00a0✔" if seat == winner else text)
    return "\u00a0· ".join(shown)


def every_table_text(table: Table) -> str:
    """Everything every version of the table ever said (edits included)."""
    texts = []
    for message in table.channel.messages.values():
        for snapshot in message.history:
            shown = "\n".join(str(c.get("content", "")) for c in _walk(snapshot["components"]))
            if f"-# game {table.game_id}" in shown:
                texts.append(shown)
    return "\n".join(texts)


def _walk(components: list[dict[str, object]]) -> list[dict[str, object]]:
    found = []
    for component in components:
        found.append(component)
        for key in ("components", "accessory"):
            inner = component.get(key)
            if isinstance(inner, list):
                found.extend(_walk(inner))
            elif isinstance(inner, dict):
                found.extend(_walk([inner]))
    return found


@pytest.mark.parametrize("bot_env", [{"BOT_MOVE_DELAY": "0.2"}])
async def test_two_people_and_a_computer_play_a_whole_game_on_their_panels(spades: Spades) -> None:
    fake = spades.fake
    alice, bob = spades.member("Alice"), spades.member("Bob")
    fake.grant_manage_guild(spades.guild, alice)
    channel = spades.channel("spades")
    answer = await spades.command(alice, channel, "settings", turn_ping_delay=1)
    assert "turn mention after 1 s" in answer.content

    table = Table(spades, channel, [alice, bob], bid_policy=lambda t, u, legal: "3" if "3" in legal else legal[0])
    lobby = await table.open(alice, target=150, mercy=150)
    await spades.click(bob, lobby, f"spades:lobby:{table.game_id}:join")
    await spades.click(alice, lobby, f"spades:lobby:{table.game_id}:addbot")
    start_mark = fake.checkpoint()
    await spades.click(alice, lobby, f"spades:lobby:{table.game_id}:start")
    await table.wait_table(lambda m: "▶ **" in m.text, "the table")
    table.read_seats()
    spades.clicks = 0  # from here on, count what playing costs
    for user in (alice, bob):
        await table.open_panel(user)

    pings: list[tuple[FakeUser, FakeMessage]] = []
    turns = hidden = 0
    while True:
        turn = await table.whose_turn()
        if turn is None:
            break
        turns += 1
        hidden += turn.phase == "hidden"
        if turns % IDLE_EVERY == 0 and turn.phase != "hidden":
            pings.append((turn.user, await mentioned(spades, table, turn)))
        await table.act(turn, "panel")
    over = await game_over_message(spades, channel)
    record = await spades.record(alice, channel)
    check_record(record)
    people = {table.seat_of(alice), table.seat_of(bob)}
    assert [m for m in record_moves(record) if m[1] in people] == table.acknowledged()

    # One click a card, one a bid: opening each panel once (and a blind nil choice) is all the rest.
    cards = sum(1 for m in table.moves if m.kind == "play")
    bids = sum(1 for m in table.moves if m.kind == "bid")
    assert spades.clicks <= cards + bids + 2 + hidden
    assert spades.clicks / cards <= 1.2 and spades.clicks / (cards + bids) <= 1.2, (spades.clicks, cards, bids)

    # Every idle turn got one mention of that person alone, gone once they acted.
    assert len(pings) >= 3
    for user, ping in pings:
        allowed = mentions_allowed(spades, ping)
        assert ping.content.startswith(f"<@{user.id}>") and isinstance(allowed, dict)
        assert allowed.get("parse") == [] and [str(u) for u in allowed.get("users", [])] == [str(user.id)]
        await fake.wait_until(partial(is_deleted, ping), 5, "the mention to go once they acted")

    # New messages a person sees per hand (from one deal to the next): the hand by direct message,
    # the new table below the last hand's summary, and mentions (theirs and the other person's).
    # A hand begins with whichever comes first of its deal's message and its table.
    for user in (alice, bob):
        seen = fake.messages_for(user, start_mark, include_deleted=True)
        deals = [m.id for m in seen if m.channel.type == 1 and "**Your hand** · " in m.history[0]["content"]]
        assert len(deals) == len(record["hands"]), deals
        starts = [min([deal, *(m.id for m in seen if f"Spades · hand {n} · " in _first_text(m))])
                  for n, deal in enumerate(deals, start=1)]
        counts = [sum(1 for m in seen if start <= m.id < end) for start, end in zip(starts, [*starts[1:], over.id],
                                                                                      strict=True)]
        assert max(counts) <= 6, (name_of(user), counts)

    # Tricks are shown with who played each card and who took it. These players act the instant
    # their turn shows, faster than any person, and the table keeps within its webhook's 5 edits
    # per 2 s, so a trick that lasted a fraction of a second may be skipped (at a person's pace, a
    # trick stays on the table as the last one while the next is played).
    names = [p["name"] for p in record["players"]]
    shown = every_table_text(table)
    tricks = [trick for hand_record in record["hands"] for trick in hand_record["tricks"][:-1]]
    assert sum(1 for trick in tricks if trick_line(names, trick) in shown) >= 10
    summary = await fake.wait_for_message(channel, lambda m: m.text.startswith("### Hand 1 scored"))
    assert trick_line(names, record["hands"][0]["tricks"][-1]) in summary.text

    # The end: standings, a chart, and a rematch that starts once both are back.
    [chart] = over.attachments
    assert chart.filename == "scores.png" and chart.data.startswith(b"\x89PNG")
    rematch = f"spades:rematch:{table.game_id}"
    lobby_again = await spades.click(bob, over, rematch)
    assert not lobby_again.ephemeral and "1. Bob (host)" in lobby_again.content
    assert "Bot 1 (normal)" in lobby_again.content
    new_game = game_id_of(lobby_again)
    assert new_game != table.game_id and "To **150** points · mercy=150" in lobby_again.content
    joined = await spades.click(alice, over, rematch)
    assert joined.ephemeral and "It has started!" in joined.content
    second = Table(spades, channel, [alice, bob], game_id=new_game)
    await second.wait_table(lambda m: "▶ **" in m.text, "the rematch's table")


async def test_my_hand_pressed_again_removes_the_panel_it_replaces(spades: Spades) -> None:
    """Two presses of My hand on the same table: the first panel goes rather than stay behind,
    looking live, with nobody keeping it current; the second is the one that follows the game."""
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    table = await start_game(spades, spades.channel("spades"), [alice, bob, carol], target=50, mercy=50)
    first = await table.open_panel(alice)
    second = await table.open_panel(alice)
    await spades.fake.wait_until(partial(is_deleted, first), 5, "the first panel to be removed")
    await table.play_moves(3)  # Alice's turn comes round: her panel lights up
    assert second.edits and not second.deleted


def is_deleted(message: FakeMessage) -> bool:
    return message.deleted


def mentions_allowed(spades: Spades, message: FakeMessage) -> object:
    """The `allowed_mentions` the bot sent the message (and any with the same text) with: through
    the channel, or through an interaction's webhook."""
    sent = [r.body.get("allowed_mentions") for r in spades.fake.requests if r.method == "POST" and r.status == 200
            and (r.path == f"/channels/{message.channel.id}/messages" or r.path.startswith("/webhooks/"))
            and isinstance(r.body, dict) and r.body.get("content") == message.history[0]["content"]]
    assert sent and all(allowed == sent[0] for allowed in sent), sent
    return sent[0]


async def mentioned(spades: Spades, table: Table, turn: Turn) -> FakeMessage:
    """Sit idle on one's turn until the bot mentions you."""
    def ping() -> FakeMessage | None:
        for message in reversed(list(table.channel.messages.values())):
            if message.content.startswith(f"<@{turn.user.id}>") and not message.deleted:
                return message
        return None

    return await spades.fake.wait_until(ping, PING_WITHIN, f"a mention of {name_of(turn.user)}")


def _first_text(message: FakeMessage) -> str:
    """What a message said when it was posted (a table later becomes its hand's summary)."""
    first = message.history[0]
    texts: list[str] = [str(first.get("content") or "")]

    def walk(components: list[dict[str, Any]]) -> None:
        for component in components:
            texts.append(str(component.get("content", "")))
            walk(component.get("components", []))

    walk(first.get("components") or [])
    return "\n".join(texts)
