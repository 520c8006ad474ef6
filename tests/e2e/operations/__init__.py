"""The bot as an operator runs it: start-up, restarts after SIGKILL, metrics and health, shards."""
