"""Clicks forged by hand (a button's id edited, or copied from another channel or server) are each
answered privately, in plain words, and change nothing; the bot logs no traceback for them. An old
game's Rematch belongs to its players: others join the lobby one of them opens."""

from __future__ import annotations

from devkit.fake_discord import FakeMessage, FakeUser
from tests.e2e.helpers.server import Spades, refused
from tests.e2e.helpers.table import play_game, start_game


async def click_forged(spades: Spades, user: FakeUser, message: FakeMessage, custom_id: str) -> FakeMessage:
    """`message`'s first button, its id replaced by `custom_id`, clicked by `user`."""
    for component in message.all_components():
        if component.get("type") == 2 and "custom_id" in component:
            component["custom_id"] = custom_id
            break
    return await spades.click(user, message, custom_id)


async def test_forged_and_foreign_clicks_get_a_polite_private_refusal(spades: Spades) -> None:
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol])
    game = table.game_id
    before = table.table_message().text

    mallory = spades.fake.create_user("Mallory")
    theirs = spades.fake.create_guild("Elsewhere", mallory)
    elsewhere = spades.fake.create_channel(theirs, "games")
    here_too = spades.channel("other")
    spades.fake.add_member(spades.guild, mallory)
    for where in (elsewhere, here_too):
        for forged in (f"spades:card:{game}:5", f"spades:bid:{game}:3", f"spades:reveal:{game}",
                       f"spades:table:{game}:hand", f"spades:hint:{game}", f"spades:review:{game}",
                       f"spades:lobby:{game}:join", f"spades:rematch:{game}", "spades:hint:zzz",
                       "spades:review:not-a-game", "spades:lobby:abc:explode", "spades:tourney:zzz:join",
                       "spades:card:abc:99", "spades:bid:abc:blind", "spades:whatever", "not-ours"):
            lobby = await spades.command(mallory, where, "new")
            answer = await click_forged(spades, mallory, lobby, forged)
            refused(answer, "")
            assert answer is not lobby and answer.ephemeral, (forged, answer)
            await spades.command(mallory, where, "cancel")
    assert table.table_message().text == before  # nothing changed in the game
    log = spades.bot.log_text() if spades.bot is not None else ""
    assert "Traceback" not in log and "a click's callback failed" not in log, log[-3000:]
    spades.assert_acknowledged()


async def test_a_rematch_is_opened_by_a_player_of_the_game_and_joined_by_anyone(spades: Spades) -> None:
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    dave = spades.member("Dave")  # never played
    channel = spades.channel("spades")
    over = await play_game(spades, channel, [alice, bob, carol])
    rematch = next(c for c in over.custom_ids() if c.startswith("spades:rematch:"))
    refused(await spades.click(dave, over, rematch), "opened by one of that game's players")
    refused(await spades.command(dave, channel, "join"), "There's no game in this channel")  # nothing opened

    lobby = await spades.click(bob, over, rematch)
    assert not lobby.ephemeral and "1. Bob (host)" in lobby.content, lobby.content
    joined = await spades.click(dave, over, rematch)
    assert joined.ephemeral and "You're in the rematch" in joined.text
    await spades.fake.wait_until(lambda: "2. Dave" in lobby.content, what="Dave seated in Bob's lobby")
    assert "(host)" not in lobby.content.split("2. Dave")[1].splitlines()[0]
