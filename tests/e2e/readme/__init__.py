"""The README's pictures: drawn from a real game (`python -m tests.e2e.readme.pictures`) and kept current."""
