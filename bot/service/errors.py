"""Refusals the service makes; every message is written for the person who acted."""


class Refusal(Exception):
    """An action that is not allowed: the message is shown to that user alone, nothing changed."""


class SaveFailed(Refusal):
    """The store could not save an action; the game was reloaded from what was saved."""
