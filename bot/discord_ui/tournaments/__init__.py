"""Tournaments in Discord: the commands, the sign-up and thread poster, and what they show."""
