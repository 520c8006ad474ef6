"""Discord's dark theme as the picture paints it: its colours, and the sizes of text, gutter and media."""

from __future__ import annotations

Colour = tuple[int, int, int]

BACKGROUND: Colour = (49, 51, 56)
PANEL: Colour = (43, 45, 49)  # containers, code blocks, file chips
BORDER: Colour = (30, 31, 34)
DIVIDER: Colour = (63, 65, 71)
TEXT: Colour = (219, 222, 225)
HEADER: Colour = (242, 243, 245)
MUTED: Colour = (148, 155, 164)
LINK: Colour = (0, 168, 252)
BLURPLE: Colour = (88, 101, 242)
MENTION_BACK: Colour = (65, 70, 118)
MENTION_TEXT: Colour = (201, 205, 251)
RED_SUIT: Colour = (242, 63, 67)
WHITE: Colour = (255, 255, 255)
BUTTON_COLOURS: dict[int, Colour] = {1: BLURPLE, 2: (78, 80, 88), 3: (36, 128, 70), 4: (218, 55, 60), 5: (78, 80, 88)}
AVATAR_COLOURS: tuple[Colour, ...] = (BLURPLE, (117, 126, 138), (59, 165, 92), (250, 166, 26), (237, 66, 69),
                                      (235, 69, 158))

BODY = 15  # px; DejaVu Sans is wider than Discord's own font, so a little smaller than Discord's 16
GUTTER = 72  # the avatar column
PAD = 16
IMAGE_MAX = (550, 350)  # an image attachment's largest size in a channel, as Discord shows it
CONTAINER_MAX = 560
SUPERSAMPLE = 4  # for smooth rounded shapes: Pillow's own have no antialiasing
