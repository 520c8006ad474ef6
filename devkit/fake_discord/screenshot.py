"""What a person sees in a channel of the fake Discord, drawn as Discord would (for humans reading a
game, and for the README's pictures)."""

from __future__ import annotations

from .models import FakeChannel, FakeMessage, FakeUser
from .picture import ShownMessage, render_messages_png
from .server import FakeDiscord


def shown(message: FakeMessage) -> ShownMessage:
    return ShownMessage(
        author=message.author.global_name or message.author.username,
        content=message.content,
        bot=message.author.bot,
        components=list(message.components),
        attachments=[(a.filename, a.data) for a in message.attachments],
        ephemeral=message.ephemeral,
        edited=message.edited_at is not None,
    )


def channel_png(fake: FakeDiscord, user: FakeUser, channel: FakeChannel, *, last: int = 6, width: int = 720) -> bytes:
    """The last `last` messages `user` sees in `channel` (their own panels included), as a PNG."""
    messages = fake.visible_messages(user, channel)[-last:]
    names = {str(u.id): u.global_name or u.username for u in fake.users.values()}
    return render_messages_png([shown(m) for m in messages], width=width, names=names)
