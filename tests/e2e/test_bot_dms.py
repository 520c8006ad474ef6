"""A player whose direct messages are closed still plays: the channel is told once, and the player
sees their cards with **My hand** or `/spades hand`."""

from __future__ import annotations

from tests.e2e.conftest import Spades, card_code, start_game


async def test_player_with_closed_dms_plays_the_whole_hand(spades: Spades) -> None:
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    spades.fake.fail_dms_for(carol)
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol], target=300)

    def notices() -> list[str]:
        return [m.content for m in channel.messages.values() if "can't send Carol direct messages" in m.content]

    notice = await spades.fake.wait_for_message(channel, lambda m: "can't send Carol direct messages" in m.content)
    assert "**My hand**" in notice.content and "/spades hand" in notice.content
    assert "♠" not in notice.content and "♥" not in notice.content  # no cards in the channel

    mine = await spades.click(carol, table.table_message(), f"spades:table:{table.game_id}:hand")
    assert mine.ephemeral and mine.visible_to is carol
    assert f"game `{table.game_id}`, hand 1" in mine.content
    cards = [b for b in mine.buttons() if b["custom_id"].startswith(f"spades:card:{table.game_id}:")]
    assert len(cards) == 17 and len({card_code(b["label"]) for b in cards}) == 17

    await table.play_moves(54)  # three bids and 17 tricks: the whole first hand

    assert sum(1 for m in table.moves if m.seat == table.seat_of(carol)) == 18
    await spades.fake.wait_for_message(channel, lambda m: m.content.startswith("**Hand 1 scored**"))
    for user in (alice, bob):
        await spades.fake.wait_for_dm(user, lambda m: f"game `{table.game_id}`, hand 2" in m.content)
    await table.wait_table(lambda m: " · hand 2 · " in m.content and "Turn:" in m.content, "the second hand")
    panel = await table.hand(carol)
    assert f"game `{table.game_id}`, hand 2" in panel.content
    assert notices() == [notice.content]  # told once, not again for the second hand
    opened = [int(r.body["recipient_id"]) for r in spades.fake.requests if r.template == "/users/@me/channels"]
    assert sorted(opened) == sorted(u.id for u in (alice, bob, carol))  # each DM opened once, not per hand
    carol_dms = spades.fake.dm_channels.get(carol.id)
    assert carol_dms is None or not carol_dms.messages
