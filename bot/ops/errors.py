"""What the operators' commands refuse, and how they tell the backends apart."""

from __future__ import annotations

POSTGRESQL_SCHEMES = ("postgresql", "postgres")


class OpsError(Exception):
    """A backup or migration refused or failed; the message is the one line the operator sees."""


class VerifyError(OpsError):
    """The copy was made but does not match its source: the operator must not switch to it."""


def is_postgresql(database_url: str) -> bool:
    return database_url.split("://", 1)[0] in POSTGRESQL_SCHEMES
