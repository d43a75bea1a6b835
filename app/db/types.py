"""Column types of the database layer. :class:`UTCDateTime` is the one place where a time
read from the database becomes an aware UTC ``datetime``: SQLite keeps no zone and hands
back the naive UTC it stored, PostgreSQL hands back the session's zone. Everything above
the database layer sees aware UTC times and writes them as it likes (ISO 8601 for JSON,
the reader's own zone on the pages)."""
from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator


class UTCDateTime(TypeDecorator[datetime]):
    """``DateTime(timezone=True)`` whose values are always read as aware UTC."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return as_utc(value)


def as_utc(moment: datetime) -> datetime:
    """``moment`` in UTC; a naive one is read as UTC (how SQLite keeps it)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment if moment.tzinfo is UTC else moment.astimezone(UTC)


def utcnow() -> datetime:
    """Now, in UTC (what a row's time defaults to)."""
    return datetime.now(UTC)
