"""A picture of a Discord channel as a person sees it, for humans reading a game: README screenshots
and reviews. It takes plain data (`ShownMessage`), not the fake server's classes, and draws with Pillow
only, in Discord's dark theme: message text with its Markdown, buttons, Components V2 panels, images
and files, "(edited)" and the ephemeral footer.

Text uses the bot's own font (`bot.discord_ui.pictures.chart`), which has Latin, Greek, Cyrillic and the card
suits. Emoji it lacks are drawn as small shapes (a trophy, a joker card, ...) or a neutral tile; other
characters it lacks are shown as the chart shows them.

One module a job, each drawing on the ones before: `theme` (colours, sizes), `layout` (blocks, rounded
shapes), `emoji`, `text` (inline Markdown, wrapping), `markdown` (blocks of lines), `media` (images, files),
`components`, `messages` (headers, bodies, the PNG).
"""

from .emoji import EMOJI, JOINERS
from .messages import ShownMessage, render_messages_png
from .theme import BODY, BUTTON_COLOURS, GUTTER, LINK, PAD

__all__ = ["BODY", "BUTTON_COLOURS", "EMOJI", "GUTTER", "JOINERS", "LINK", "PAD", "ShownMessage", "render_messages_png"]
