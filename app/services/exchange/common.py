"""What export and import share: the format's name and version, limits, the
exchange's error, and times and days as the document writes them."""
from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime
from typing import Any

from ...core import TonkError
from ...core.dates import check_year, parse_day
from ...core.parts import STAT_FIELDS, Part

FORMAT = "tonk-tally"
VERSION = 2  # 2: seats that change, side bets, settle-up (see app.services.exchange)
READS = (1, 2)  # the versions an import reads
MAX_PROBLEMS = 100  # listed in a report; the rest are counted
MAX_LEAGUE_NAME = 80
MAX_SEASON_NAME = 80
MAX_BY = 80
EXPORT_BATCH = 200  # sessions read from the database at a time while exporting
IMPORT_BATCH_HANDS = 20_000  # hands validated and written at a time while importing
PARALLEL_BATCH_HANDS = 5_000  # … when other processes check them
_UID = re.compile(r"[0-9A-Za-z_-]{1,32}")
_TABLE_FIELDS = ("rules", "stake", "players")
_PART = len(Part._fields)
_NO_COUNTS = (0,) * len(STAT_FIELDS)
#: json.dumps, less its check for cycles (parsed JSON has none): the same text, sooner.
_dumps = json.JSONEncoder(check_circular=False).encode


class ExchangeError(TonkError):
    """A document, or a part of one, that cannot be imported."""


def iso(moment: datetime) -> str:
    """A stored time as ISO 8601 in UTC (SQLite hands back naive times stored as UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def parse_time(value: Any, what: str) -> datetime:
    """ISO 8601 text → an aware UTC time (a time without an offset is read as UTC)."""
    if not isinstance(value, str):
        raise ExchangeError(f"{what} must be a time like \"2025-01-31T20:15:00+00:00\", "
                            f"not {value!r}")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ExchangeError(f"{what} must be a time like \"2025-01-31T20:15:00+00:00\", "
                            f"not {value!r}") from None
    check_year(moment.date(), ExchangeError, None, what)
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment if moment.tzinfo is UTC else moment.astimezone(UTC)


def _day(value: Any, what: str) -> date:
    if not isinstance(value, str):
        raise ExchangeError(f"{what} must be a day like \"2025-01-31\", not {value!r}")
    return parse_day(value, ExchangeError, None, what)


# == export ===================================================================================
