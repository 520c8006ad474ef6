"""The house rules' modes through the fake Discord (RULES.md, "More modes"): a whole duo game, the
draw included, by buttons; five- and six-player games with computer players by slash commands alone. Each
ends with a valid record that holds exactly what the players did."""

from __future__ import annotations

from bot.engine import Mode
from devkit.fake_discord import FakeChannel, FakeUser
from tests.e2e.helpers.record import chosen_tricks
from tests.e2e.helpers.server import Spades, game_over_message
from tests.e2e.helpers.table import Table, start_game
from tests.record_check import check_record


async def test_a_whole_duo_game_by_buttons(spades: Spades) -> None:
    alice, bob = spades.member("Alice"), spades.member("Bob")
    channel = spades.channel("duo")
    table = await start_game(spades, channel, [alice, bob], mode="duo", target=50, mercy=50)
    assert "to draw\u00a0· 52\u00a0cards left in the stock" in table.table_message().text
    await table.play_moves(26, style="panel")  # the draw: 13 turns each
    assert [m.kind for m in table.moves] == ["draw"] * 26
    for user in (alice, bob):  # each hand goes by DM once drawn
        dm = await table.hand_dm(user, 1)
        assert dm is not None and "Discarded" not in dm.content
        panel = await table.panel(user)
        assert panel.text.count("-# Discarded:") == 1
    await table.play_moves(style="panel")

    await game_over_message(spades, channel)
    record = await spades.record(alice, channel)
    check_record(record)
    first = record["hands"][0]
    assert len(first["draws"]) == 52 and len(first["set_aside"]) == 26
    draws = [("draw", d["seat"], d["kept"]) for hand in record["hands"] for d in hand["draws"][::2]]
    assert [m.key() for m in table.moves if m.kind == "draw"] == draws[:len([m for m in table.moves
                                                                              if m.kind == "draw"])]
    assert all(b["blind"] is False for hand in record["hands"] for b in hand["bids"])


async def alone_with_computers(spades: Spades, alice: FakeUser, channel: FakeChannel, **options: object) -> Table:
    """Alice opens a game by slash commands, fills every other seat with a normal computer player
    (`/spades addbot`) and starts it (`/spades start`)."""
    table = Table(spades, channel, [alice])
    lobby = await table.open(alice, target=50, mercy=50, **options)
    for _ in range(Mode(str(options["mode"])).seats - 1):
        answer = await spades.command(alice, channel, "addbot", level="normal")
        assert answer.ephemeral
    await spades.fake.wait_until(lambda: "Every seat is taken" in lobby.content, what="a full lobby")
    await spades.command(alice, channel, "start")
    await table.wait_table(lambda m: "▶ **" in m.text, "the table")
    table.read_seats()
    return table


async def test_five_players_with_four_computers_by_slash_commands(spades: Spades) -> None:
    alice = spades.member("Alice")
    channel = spades.channel("five")
    table = await alone_with_computers(spades, alice, channel, mode="five")
    assert len(table.seat_names) == 5 and "Five Spades" in table.table_message().text
    dm = await table.hand_dm(alice, 1)
    assert dm is not None and sum(dm.content.count(s) for s in "♠♥♣♦") >= 1
    await table.play_moves(style="command")

    await game_over_message(spades, channel)
    record = await spades.record(alice, channel)
    check_record(record)
    assert record["mode"] == "five" and [p["kind"] for p in record["players"]].count("bot") == 4
    assert all(len(cards) == 10 for cards in record["hands"][0]["deal"].values())
    seat = table.seat_of(alice)
    mine = [m.key() for m in table.moves]
    in_record = [("play", s, card) for hand in record["hands"] for trick in chosen_tricks(hand)
                 for s, card in trick["plays"] if s == seat]  # not the tricks that played themselves
    assert [m for m in mine if m[0] == "play"] == in_record


async def test_the_draw_by_slash_commands_alone(spades: Spades) -> None:
    alice = spades.member("Alice")
    channel = spades.channel("duo-typed")
    table = Table(spades, channel, [alice])
    lobby = await table.open(alice, mode="duo", target=50, mercy=50)
    await spades.command(alice, channel, "addbot", level="normal")
    await spades.fake.wait_until(lambda: "Every seat is taken" in lobby.content, what="a full lobby")
    await spades.command(alice, channel, "start")
    await table.wait_table(lambda m: "to draw" in m.text, "the draw on the table")
    table.read_seats()
    draws = 0
    while True:
        turn = await table.whose_turn()
        assert turn is not None
        if turn.phase != "draw":
            break
        await table.act(turn, style="command")
        draws += 1
    assert draws == 13 and turn.phase == "bid"
    dm = await table.hand_dm(alice, 1)
    assert dm is not None and "**Your hand** · Duo Spades · hand 1" in dm.content
    answer = await spades.command(alice, channel, "draw", keep="yes")
    assert answer.ephemeral and answer.content == "The draw is over."
    record = await spades.record(alice, channel)
    mine = [d for d in record["hands"][0]["draws"]]
    assert len(mine) == 26 and {d["seat"] for d in mine} == {table.seat_of(alice)}  # only her own
    check_record(record, public=True)


async def test_six_pairs_with_five_computers_by_slash_commands(spades: Spades) -> None:
    alice = spades.member("Alice")
    channel = spades.channel("six")
    table = await alone_with_computers(spades, alice, channel, mode="six", rules="teams=pairs")
    text = table.table_message().text
    assert len(table.seat_names) == 6 and "Six Spades" in text and text.count("team\u00a0") == 6
    assert "teams=pairs" in text  # the footer's rules
    await table.play_moves(style="command")

    await game_over_message(spades, channel)
    record = await spades.record(alice, channel)
    check_record(record)
    assert record["mode"] == "six" and record["rules"]["teams"] == "pairs"
    assert [p["kind"] for p in record["players"]].count("bot") == 5
    assert all(len(cards) == 17 for cards in record["hands"][0]["deal"].values())
    seat = table.seat_of(alice)
    mine = [m.key() for m in table.moves]
    in_record = [("play", s, card) for hand in record["hands"] for trick in chosen_tricks(hand)
                 for s, card in trick["plays"] if s == seat]
    assert [m for m in mine if m[0] == "play"] == in_record
    assert record["final"]["scores"][seat] == record["final"]["scores"][(seat + 3) % 6]  # a pair shares its score
