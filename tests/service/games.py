"""Playing a service game without Discord: the usual three-player game and people's moves made
for them, shared by the service's tests."""

from __future__ import annotations

from bot.engine import Phase
from bot.service import GameService, LiveGame
from tests.service.conftest import ALICE, BOB, CAROL, CHANNEL, GUILD, Harness


async def three_player_game(service: GameService, **options: object) -> LiveGame:
    """Alice, Bob and Carol in a started cutthroat game (short by default: to 100, mercy at 100)."""
    options = options or {"target": "100", "mercy": "100"}
    live = await service.new_lobby(GUILD, CHANNEL, ALICE, "alice", options=options)
    await service.join(live, BOB, "bob")
    await service.join(live, CAROL, "carol")
    await service.start(live, ALICE)
    return live


def user_at(live: LiveGame, seat: int) -> int:
    """The person in `seat` (a computer's seat fails the test)."""
    user = live.seats[seat].user_id
    assert user is not None
    return user


async def act_once(service: GameService, live: LiveGame) -> None:
    """The seat whose turn it is makes its first legal move (revealing hidden cards first)."""
    game = live.game
    assert game is not None and game.turn is not None
    user = user_at(live, game.turn)
    if game.cards_hidden(game.turn):
        await service.reveal(live, user)
    elif game.phase is Phase.BIDDING:
        choices = service.bid_choices(live, user)
        await service.bid(live, user, "4" if "4" in choices else choices[-1])
    else:
        await service.play(live, user, service.card_choices(live, user)[0])


async def play_to_the_end(harness: Harness, service: GameService, live: LiveGame, step: float) -> None:
    """People act at once on their turns; the clock moves on for the computer players'."""
    for _ in range(20_000):
        if live.status != "playing":
            return
        game = live.game
        assert game is not None
        if game.turn is not None and not live.seats[game.turn].is_bot:
            await act_once(service, live)
        else:
            await harness.clock.advance(step)
    raise AssertionError("the game never ended")
