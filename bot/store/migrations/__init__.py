"""Numbered schema migrations, shipped as package data and applied in order: `VNNN__name.sql` for
SQLite, `VNNN__name.postgresql.sql` for PostgreSQL, the same step in each backend's SQL."""
