"""Tournaments and seasons: sign-up, rounds, archived tables, stopped tables, leaderboards and podiums."""
