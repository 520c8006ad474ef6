"""Run by test_crash.py in a process that gets SIGKILLed: several games append events as fast as they
can, each with a post, and `<game> <seq>` is printed only after the store acknowledged that event."""

from __future__ import annotations

import asyncio
import sys

from bot.store import Post, Store, open_store
from tests.store.helpers import channel_of


def payload(game_id: str, seq: int) -> dict[str, object]:
    """The event stored as `seq`: long enough that a torn write would show, and checkable."""
    return {"type": "note", "game": game_id, "seq": seq, "pad": "x" * (seq * 37 % 2000)}


async def write(store: Store, game_id: str) -> None:
    await store.create_game(game_id, guild_id=1, channel_id=channel_of(game_id), mode="cutthroat", rules={},
                            host_id=None)  # fmt: skip
    await store.start_game(game_id, {"game_id": game_id})
    seq = 1
    while True:
        await store.append_events(game_id, seq, [payload(game_id, seq)], posts=[Post("note", {"seq": seq})])
        print(game_id, seq, flush=True)
        seq += 1


async def main(url: str, game_ids: list[str]) -> None:
    store = await open_store(url)
    await asyncio.gather(*(write(store, game_id) for game_id in game_ids))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
