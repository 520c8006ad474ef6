"""Seasons in Discord: the commands, the podium poster and what they show."""
