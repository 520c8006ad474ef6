"""Helpers for the e2e tests of the bot: its server and members, a table driven by its players, records, cards."""
