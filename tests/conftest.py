"""Fixtures for the whole suite: the fake Discord server and the bot run as it ships."""

pytest_plugins = ["tests.fake_discord.pytest_plugin"]
