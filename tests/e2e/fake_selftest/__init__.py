"""Self-tests of the fake Discord: real discord.py clients and raw HTTP against it, no bot of ours."""
