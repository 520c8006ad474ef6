"""Tests of the fake Discord itself (devkit.fake_discord) that need no running bot."""
