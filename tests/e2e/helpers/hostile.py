"""What a hostile player names themselves, and a search of everything the bot said for any of it
shown as markup: a disguised link, spoilers, bold, a mention, a heading, a broken code block, or a
raw Discord id where a name belongs."""

from __future__ import annotations

import re
from collections.abc import Iterator

from devkit.fake_discord import FakeDiscord, models

LINK_NAME = "**b**||s||[x](http://evil.example)"  # bold, a spoiler and a link shown as "x"
HEADING_NAME = "# ```b`` -# `x` > q"  # a heading at a line's start, code spans that close the score's block
# Pieces of the hostile names that, found as they are in a message, would be read as markup.
MARKUP = ("**b**", "||s||", "[x](", "```b", "`x`", "@everyone", "<@&", "# `", "-# `")
# An id that is no mention, no link's part, and not inside an escaped name.
RAW_ID = re.compile(r"(?<![<@#&!:/\d])\d{17,20}(?!\d)")
CODE_BLOCK = re.compile(r"```.*?```", re.DOTALL)  # no markup inside: names there are checked apart


def mention_name(user_id: int, role_id: int) -> str:
    """A name that reads as a mention of `user_id`, of @everyone and of a role."""
    return f"<@{user_id}> @everyone <@&{role_id}>"


def texts(fake: FakeDiscord) -> Iterator[tuple[models.FakeMessage, str]]:
    """Every version of every message the bot sent (ephemeral answers and DMs included), as text:
    content, embeds and text displays."""
    for message in list(fake.messages.values()):
        if message.author.id != fake.bot_user.id:
            continue
        for version in message.history or [message.snapshot()]:
            parts = [str(version.get("content") or "")]
            for embed in version.get("embeds") or []:
                parts += [str(embed.get(key) or "") for key in ("title", "description")]
                parts += [str(f.get("value") or "") for f in embed.get("fields") or []]
            parts += [str(c.get("content") or "") for c in models.iter_components(version.get("components") or [])
                      if c.get("type") == 10]
            yield message, "\n".join(parts)


def leaks(fake: FakeDiscord, *, forbidden: tuple[str, ...] = ()) -> list[str]:
    """Each place where the bot's messages show hostile markup (or one of `forbidden`, such as a
    mention of someone who isn't playing) as it is, or a raw id."""
    found = []
    for message, text in texts(fake):
        if text.count("```") % 2:
            found.append(f"a code block broken in message {message.id}: {text[:300]!r}")
        outside = CODE_BLOCK.sub("", text)
        for piece in (*MARKUP, *forbidden):
            if re.search(r"(?<!\\)" + re.escape(piece), outside):  # as it is: no backslash before it
                found.append(f"{piece!r} in message {message.id}: {text[:300]!r}")
        for raw in RAW_ID.findall(text):
            found.append(f"raw id {raw} in message {message.id}: {text[:300]!r}")
    return found
