"""What export and import share: the format's name and version, limits, the
exchange's error, and times and days as the document writes them."""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import date, datetime
from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Any

from ...core import TonkError
from ...core.dates import check_year, parse_day
from ...core.messages import Message, as_sent
from ...core.parts import STAT_FIELDS, Part
from ...db.types import as_utc

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
UID = re.compile(r"[0-9A-Za-z_-]{1,32}")
PART = len(Part._fields)
NO_COUNTS = (0,) * len(STAT_FIELDS)
#: json.dumps, less its check for cycles (parsed JSON has none): the same text, sooner.
fast_dumps: Callable[[Any], str] = json.JSONEncoder(check_circular=False).encode
if c_make_encoder is not None:  # the C encoder encode() makes for each call, made once
    _C_ENCODER = c_make_encoder(None, json.JSONEncoder().default, encode_basestring_ascii,
                                None, ": ", ", ", False, False, True)

    def fast_dumps(value: Any, _encode: Any = _C_ENCODER, _join: Any = "".join) -> str:
        """The text ``json.JSONEncoder(check_circular=False).encode(value)`` gives (the
        same C encoder, same settings), without making the encoder again for each call
        (a fifth of the time of a hand's result)."""
        return _join(_encode(value, 0))  # type: ignore[no-any-return]


class ExchangeError(TonkError):
    """A document, or a part of one, that cannot be imported."""


def iso(moment: datetime) -> str:
    """A stored time (aware UTC, :class:`app.db.types.UTCDateTime`) as ISO 8601."""
    return moment.isoformat(timespec="microseconds")


def field_of(owner: Message, field: str) -> Message:
    """What a message names: ``payment 3's at`` (a key of the document, in its owner)."""
    return Message("import.what.of", owner=owner, field=field)


def parse_time(value: Any, what: str | Message) -> datetime:
    """ISO 8601 text → an aware UTC time (a time without an offset is read as UTC)."""
    if not isinstance(value, str):
        raise ExchangeError(Message("import.time", what=what, value=as_sent(value)))
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ExchangeError(Message("import.time", what=what, value=as_sent(value))) from None
    check_year(moment.date(), ExchangeError, None, what)
    return as_utc(moment)


def read_day(value: Any, what: str | Message) -> date:
    if not isinstance(value, str):
        raise ExchangeError(Message("import.day", what=what, value=as_sent(value)))
    return parse_day(value, ExchangeError, None, what)


# == export ===================================================================================
