"""Days a person types (a season's first and last day, an imported time): one rule for the
whole app. Years 2000 to 2100 only: a table's records need no other, and a season that
"ends" on 9999-12-31 would break every sum that looks a day past its end."""
from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any

from .errors import TonkError
from .messages import Message, as_sent

FIRST_YEAR, LAST_YEAR = 2000, 2100
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")  # not the other forms fromisoformat reads


def check_year(day: date, error: type[TonkError], field: str | None,
               what: str | Message) -> None:
    if not FIRST_YEAR <= day.year <= LAST_YEAR:
        raise error(Message("day.years", what=what, first=FIRST_YEAR, last=LAST_YEAR,
                            day=day.isoformat()), field)


def parse_day(value: Any, error: type[TonkError], field: str | None,
              what: str | Message) -> date:
    """A date, or text like ``2026-01-31``, in the years 2000 to 2100."""
    if isinstance(value, datetime):
        day = value.date()
    elif isinstance(value, date):
        day = value
    elif value is None or (isinstance(value, str) and not value.strip()):
        raise error(Message("day.missing", what=what), field)
    else:
        try:
            if not isinstance(value, str) or not _DAY.fullmatch(value.strip()):
                raise ValueError(value)
            day = date.fromisoformat(value.strip())
        except ValueError:
            raise error(Message("day.not_a_day", what=what, value=as_sent(value)),
                        field) from None
    check_year(day, error, field, what)
    return day
