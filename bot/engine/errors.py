"""Engine exceptions. Every message is written for the player who caused it."""


class EngineError(ValueError):
    """Base of every refusal the engine makes; the message is safe to show to a player."""


class RuleError(EngineError):
    """An unknown rule option or a value outside what the option allows."""


class CardParseError(EngineError):
    """Text that does not name a card."""


class IllegalAction(EngineError):
    """An action the rules do not allow in the current state."""


class WrongPhase(IllegalAction):
    """The action belongs to another part of the hand (bidding vs. play, or the game is over)."""


class NotYourTurn(IllegalAction):
    """Someone acted out of turn; `seat` is the seat whose turn it is."""

    def __init__(self, message: str, seat: int) -> None:
        super().__init__(message)
        self.seat = seat


class IllegalBid(IllegalAction):
    """A bid outside the legal range or against a bidding rule."""


class IllegalCard(IllegalAction):
    """A card the player does not hold, or one that breaks a play rule."""


class BadRecord(EngineError):
    """Saved game data that can't be replayed."""
