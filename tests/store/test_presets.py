"""A server's own presets: saved, replaced, deleted, kept apart from its settings and other servers'."""

from __future__ import annotations

from bot.store import open_store

GUILD = 42


async def test_presets_save_replace_delete_and_survive_restart(db_url: str) -> None:
    store = await open_store(db_url)
    assert await store.get_presets(GUILD) == {}
    await store.update_settings(GUILD, {"mode": "solo"})
    assert await store.save_preset(GUILD, "Friday", {"bidding": "whiz"}) == {"Friday": {"bidding": "whiz"}}
    await store.save_preset(GUILD, "Quick", {"target": 200})
    assert await store.save_preset(GUILD, "Friday", {"overtricks": "none"}) == {
        "Friday": {"overtricks": "none"}, "Quick": {"target": 200}}
    await store.close()
    store = await open_store(db_url)
    try:
        assert await store.save_preset(GUILD, "Quick", None) == {"Friday": {"overtricks": "none"}}
        assert await store.get_presets(GUILD) == {"Friday": {"overtricks": "none"}}
        assert await store.get_settings(GUILD) == {"mode": "solo"}, "presets are not settings"
        assert await store.get_presets(GUILD + 1) == {}
    finally:
        await store.close()
