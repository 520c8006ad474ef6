"""Refusals the service makes; every message is written for the person who acted."""

from __future__ import annotations

import re

ECHO_LIMIT = 60  # characters of a user's own input said back inside “…”
MESSAGE_LIMIT = 1800  # Discord allows 2,000 characters; leave room for what a renderer adds
_ECHO = re.compile(r"“([^”]*)”")


def shorten_echoes(message: str) -> str:
    """Cut long quoted input, so a refusal always fits in one Discord message whatever was typed."""

    def cut(match: re.Match[str]) -> str:
        said = match.group(1)
        return f"“{said[:ECHO_LIMIT]}…”" if len(said) > ECHO_LIMIT else match.group(0)

    message = _ECHO.sub(cut, message)
    return message if len(message) <= MESSAGE_LIMIT else message[: MESSAGE_LIMIT - 1] + "…"


class Refusal(Exception):
    """An action that is not allowed: the message is shown to that user alone, nothing changed."""

    def __init__(self, message: str) -> None:
        super().__init__(shorten_echoes(message))


class SaveFailed(Refusal):
    """The store could not save an action; the game was put back as it was before it."""
