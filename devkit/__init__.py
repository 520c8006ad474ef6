"""Tools for developing the bot, never shipped with it: a fake Discord to run the real bot against,
and a throwaway PostgreSQL server. The tests and the benchmarks both use them."""
