"""Swiss tournaments run by the bot, from sign-up to podium. No discord imports.

`TournamentService` (in `service`) is the one face of the parts it is composed of, each doing one job:

- `roster`: opening a tournament, entering, leaving, replacing a player, starting, cancelling;
- `rounds`: seating each round, hearing its games end, its time limit and results, the timer;
- `tables`: each table's thread and its game, opened through the game service's public methods;
- `outbox`: saving the engine's events with the posts they owe, and rewinding when that fails;
- `recovery`: taking up every open tournament after a restart;
- `context` with `live`: what they share (the store, the host, the running tournaments).
"""

from bot.service.tournaments.context import CANCELLED, PODIUM, STANDINGS, ThreadRefused, TournamentHost
from bot.service.tournaments.live import LiveTournament, TableSeat
from bot.service.tournaments.service import Listeners, TournamentService

__all__ = ["CANCELLED", "PODIUM", "STANDINGS", "Listeners", "LiveTournament", "TableSeat", "ThreadRefused",
           "TournamentHost", "TournamentService"]
