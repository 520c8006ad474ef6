"""The README's pictures show what the bot draws now: the game behind them is played again and what
each picture is drawn from (its messages' text and buttons, `docs/images/NAME.json`) must match
what is committed. After a change to what players see: `make pictures`, and commit the result."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.readme.pictures import PICTURES, play

IMAGES = Path(__file__).resolve().parents[3] / "docs" / "images"


async def test_the_committed_pictures_match_what_the_bot_draws_now(tmp_path: Path) -> None:
    await play(tmp_path)
    stale = [name for name in PICTURES
             if (tmp_path / f"{name}.json").read_text(encoding="utf-8")
             != (IMAGES / f"{name}.json").read_text(encoding="utf-8")]
    assert not stale, f"pictures in docs/images that no longer show what the bot draws: {', '.join(stale)}; " \
                      "run `make pictures` and commit them"
    assert all((IMAGES / f"{name}.png").is_file() for name in PICTURES)
