"""A game at the table: lobby to game over, panels, commands, hand DMs, computer players, coach,
leaving and timeouts."""
