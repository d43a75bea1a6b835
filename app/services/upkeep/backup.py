"""The whole database in one portable file, and back: ``tonk backup`` and ``tonk restore``.

A backup is gzip-compressed JSON lines: a header (format, version, the schema revision it
was made at, when), then for each table its name and columns followed by one line per row,
then a footer with the number of rows and a SHA-256 digest of each table's lines (a file
cut short is refused, not half restored; a file without its digest is refused too, whatever
its header says). It holds everything: accounts with their password hashes, API tokens'
digests, leagues, sessions, every version of every hand, payments, rule changes, ratings.
Nothing in it is specific to SQLite or PostgreSQL, so a backup of one restores into the
other: this is how a club moves from the embedded SQLite to PostgreSQL when it grows.
Reading one is bounded (:data:`MAX_LINE`, :data:`MAX_NESTED`, :data:`MAX_SIZE`).

Restore goes into an empty database at the same schema revision, in one transaction: all or
nothing. Every value is read as its column's type (a number where a number belongs, a time
where a time does, nothing missing where something must be), every row must be taken by the
database, and ``tonk check`` (:mod:`app.services.upkeep.integrity`) must find nothing wrong
with what was restored, inside the same transaction; else it is rolled back and one sentence
names the table and row, or the session and hand, and says whether the file was changed
after it was made (its digest differs) or the database it was made from was already
inconsistent (the digest matches). On SQLite a backup can also be a copy of the live file
(:func:`copy_sqlite`), taken with SQLite's online backup while the app runs.
"""
from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import re
import sqlite3
import zlib
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import IO, Any

from alembic.migration import MigrationContext
from sqlalchemy import (
    BigInteger,
    Boolean,
    Date,
    DateTime,
    Float,
    Integer,
    String,
    Table,
    func,
    insert,
    select,
    text,
)
from sqlalchemy.exc import DBAPIError

from ...config import new_private_file, private_file
from ...core.errors import TonkError
from ...core.messages import Message
from ...core.money import DuplicateKeyError, refuse_repeats
from ...db.types import UTCDateTime
from ...extensions import db

FORMAT = "tonk-tally-backup"
#: The format written, and the only one read: its footer carries each table's digest, which
#: a restore requires. (Version 1, without a digest, is refused: every version 1 file was made
#: at schema 0009 or before, which this app no longer restores anyway, and reading it would let
#: an edited file say "version": 1 to skip its digest.)
VERSION = 2
BATCH = 2_000

MAX_LINE = 16 * 1024 * 1024
"""The longest line a restore reads, in bytes (UTF-8, without its newline); a longer one is
refused after this much of it is read, never read whole. A 5,000-hand league's longest line
is 3 KB (a hand version's JSON); the longest value a row can hold came in a request, at most
2 MiB (``MAX_CONTENT_LENGTH``), so 16 MiB is room to spare."""

MAX_NESTED = 16
"""The most lists and objects one line may open (outside its strings), counted before it is
parsed: so they nest at most this deep (100,000 ``[`` are refused, not recursed into), and a
line within :data:`MAX_LINE` cannot unpack to millions of them either. A backup's line opens
at most two (a table's columns, the footer's digests): the JSON stored in columns is text."""

MAX_SIZE = 4 * 1024**3
"""The most a backup may unpack to, in bytes; a restore stops and refuses the file once past
it, so a small gzip that expands without end is not read to its end. A 5,000-hand league
unpacks to 13 MB (2.7 KB a hand): 4 GiB holds about 1.5 million hands."""


class BackupError(TonkError):
    """A backup that cannot be made or restored; nothing was changed."""


def _tables() -> list[Table]:
    return list(db.metadata.sorted_tables)


def schema_revision() -> str | None:
    with db.engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def _out(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()  # aware UTC: app.db.types.UTCDateTime
    if isinstance(value, date):
        return value.isoformat()
    return value


def dump(out: IO[bytes]) -> int:
    """Write the whole database to ``out`` (a binary stream); returns the number of rows."""
    revision = schema_revision()
    if revision is None:
        raise BackupError(Message("backup.no_tables"))
    rows = 0
    digests: dict[str, Any] = {}
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as packed:
        text_out = io.TextIOWrapper(packed, encoding="utf-8", newline="\n")

        def line(value: Any, digest: Any = None) -> None:
            written = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            text_out.write(written)
            text_out.write("\n")
            if digest is not None:
                digest.update(written.encode())  # the line as stored, without its newline

        line({"format": FORMAT, "version": VERSION, "schema": revision,
              "made_at": datetime.now(UTC).isoformat()})
        with db.engine.connect() as conn:  # one read transaction: a consistent snapshot
            if conn.dialect.name == "postgresql":  # (PostgreSQL's default reads each anew)
                conn = conn.execution_options(isolation_level="REPEATABLE READ",
                                              postgresql_readonly=True)
            for table in _tables():
                columns = [c.name for c in table.columns]
                digest = digests[table.name] = hashlib.sha256()
                line({"table": table.name, "columns": columns}, digest)
                order = [c for c in table.primary_key.columns]
                for row in conn.execution_options(yield_per=BATCH).execute(
                        select(table).order_by(*order)):
                    line([_out(v) for v in row], digest)
                    rows += 1
        line({"end": True, "rows": rows,
              "sha256": {name: d.hexdigest() for name, d in digests.items()}})
        text_out.flush()
        text_out.detach()
    return rows


class _Unfit(ValueError):
    """A value that is not of its column's type (said as "not a …")."""

    def __init__(self, said: Message) -> None:
        super().__init__(said)
        self.said = said


def _reader(column: Any) -> Any:
    """The function that reads one value of ``column`` from the backup as its type, or
    raises :class:`_Unfit` saying what it is not."""
    kind = column.type
    nullable = column.nullable

    def typed(convert: Any) -> Any:
        def read(v: Any) -> Any:
            if v is None:
                if not nullable:
                    raise _Unfit(Message("restore.unfit.missing"))
                return None
            return convert(v)
        return read

    def as_time(v: Any) -> datetime:
        try:
            moment = datetime.fromisoformat(v) if isinstance(v, str) else None
        except ValueError:
            moment = None
        if moment is None:
            raise _Unfit(Message("restore.unfit.time"))
        return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC)

    def as_date(v: Any) -> date:
        try:
            return date.fromisoformat(v) if isinstance(v, str) and len(v) == 10 else \
                date.fromisoformat("")
        except ValueError:
            raise _Unfit(Message("restore.unfit.day")) from None

    def as_bool(v: Any) -> bool:
        if isinstance(v, bool) or v in (0, 1):
            return bool(v)
        raise _Unfit(Message("restore.unfit.bool"))

    def as_float(v: Any) -> float:
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise _Unfit(Message("restore.unfit.number"))
        return float(v)

    limit = 2**63 - 1 if isinstance(kind, BigInteger) else 2**31 - 1

    def as_int(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not -limit - 1 <= v <= limit:
            raise _Unfit(Message("restore.unfit.whole"))
        return v

    length = kind.length if isinstance(kind, String) else None

    def as_text(v: Any) -> str:
        if not isinstance(v, str) or "\x00" in v:
            raise _Unfit(Message("restore.unfit.text"))
        if length is not None and len(v) > length:
            raise _Unfit(Message("restore.unfit.long", length=length))
        return v

    if isinstance(kind, (DateTime, UTCDateTime)):
        return typed(as_time)
    if isinstance(kind, Date):
        return typed(as_date)
    if isinstance(kind, Boolean):
        return typed(as_bool)
    if isinstance(kind, Float):
        return typed(as_float)
    if isinstance(kind, Integer):  # BigInteger too
        return typed(as_int)
    return typed(as_text)  # String, Text (JSON kept as text)


_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?')  # one left open runs to the line's end


def too_nested(line: str) -> bool:
    """Whether ``line`` opens more than :data:`MAX_NESTED` lists and objects outside its
    strings (in linear time, before the JSON decoder recurses into them)."""
    if line.count("[") + line.count("{") <= MAX_NESTED:  # (most lines: no strings to skip)
        return False
    bare = _STRING.sub("", line)
    return bare.count("[") + bare.count("{") > MAX_NESTED


def _lines(stream: IO[bytes]) -> Iterator[tuple[bytes, Any]]:
    """Each line of the backup as stored (without its newline) and as read, within
    :data:`MAX_LINE`, :data:`MAX_NESTED` and :data:`MAX_SIZE`."""
    size = number = 0
    try:
        with gzip.GzipFile(fileobj=stream, mode="rb") as packed:
            while raw := packed.readline(MAX_LINE + 1):
                number += 1
                size += len(raw)
                if size > MAX_SIZE:
                    raise BackupError(Message("restore.too_big", mib=MAX_SIZE >> 20))
                if raw.endswith(b"\n"):
                    raw = raw[:-1]
                elif len(raw) > MAX_LINE:
                    raise BackupError(Message("restore.long_line", number=number,
                                              mib=MAX_LINE >> 20))
                line = raw.decode()
                if too_nested(line):
                    raise BackupError(Message("restore.nested", number=number,
                                              limit=MAX_NESTED))
                try:
                    item = json.loads(line, object_pairs_hook=refuse_repeats)
                except DuplicateKeyError as exc:
                    raise BackupError(Message("restore.key_twice", number=number,
                                              key=_shown(exc.path))) from None
                except ValueError:
                    raise BackupError(Message("restore.line", number=number)) from None
                yield raw, item
    except (OSError, EOFError, UnicodeDecodeError, zlib.error) as exc:
        raise BackupError(Message("restore.unreadable", error=exc)) from None


class _Restore:
    """One restore in progress: rows read as their columns' types and inserted in batches
    (each under a savepoint, so that a row the database refuses can be named), each table's
    lines digested as they come."""

    def __init__(self) -> None:
        self.tables = {t.name: t for t in _tables()}
        self.table: Table | None = None
        self.readers: list[tuple[str, Any]] = []
        self.batch: list[dict[str, Any]] = []
        self.first_row = 0  # the number in its table of the batch's first row
        self.in_table = 0
        self.rows = 0
        self.digests: dict[str, Any] = {}
        self.refused: Message | None = None  # the first problem: reading goes on for the digests

    def start_table(self, item: dict[str, Any], raw: bytes) -> None:
        self.flush()
        name = item.get("table")
        table = self.tables.get(name) if isinstance(name, str) else None
        if table is None:
            raise BackupError(Message("restore.unknown_table", table=_shown(name)))
        if table.name in self.digests:  # (a second part would have the digest to itself)
            raise BackupError(Message("restore.table_twice", table=table.name))
        columns = item.get("columns")
        if not isinstance(columns, list) or set(columns) != {c.name for c in table.columns} \
                or len(columns) != len(table.columns):
            raise BackupError(Message("restore.columns", table=table.name))
        self.table, self.in_table = table, 0
        self.readers = [(name, _reader(table.columns[name])) for name in columns]
        self.digests[table.name] = hashlib.sha256(raw)

    def row(self, item: list[Any], raw: bytes) -> None:
        if self.table is None or len(item) != len(self.readers):
            raise BackupError(Message("restore.row_fit"))
        self.digests[self.table.name].update(raw)
        self.rows += 1
        self.in_table += 1
        if self.refused:
            return
        values: dict[str, Any] = {}
        for (name, read), value in zip(self.readers, item, strict=True):
            try:
                values[name] = read(value)
            except _Unfit as unfit:
                self.refuse(Message("restore.value", where=self._where(values, self.in_table,
                                                                       item),
                                    column=name, value=_shown(value), unfit=unfit.said))
                return
        if not self.batch:
            self.first_row = self.in_table
        self.batch.append(values)
        if len(self.batch) >= BATCH:
            self.flush()

    def refuse(self, problem: Message) -> None:
        if self.refused is None:
            self.refused = problem
            self.batch = []

    def flush(self) -> None:
        """Insert the rows read so far; a refusal names the first row refused."""
        if not self.batch or self.table is None or self.refused:
            self.batch = []
            return
        batch, self.batch = self.batch, []
        try:
            with db.session.begin_nested():
                db.session.execute(insert(self.table), batch)
            return
        except DBAPIError:
            pass
        for offset, values in enumerate(batch):  # which one: each alone
            try:
                with db.session.begin_nested():
                    db.session.execute(insert(self.table), [values])
            except DBAPIError as exc:
                reason = (str(exc.orig).strip().splitlines()[0] if exc.orig
                          else Message("restore.refused"))
                self.refuse(Message("restore.refused_row",
                                    where=self._where(values, self.first_row + offset),
                                    reason=reason))
                return

    def _where(self, values: dict[str, Any], number: int, item: Any = None) -> Message:
        assert self.table is not None
        key = values.get("id", item[0] if isinstance(item, list) and item and
                         self.readers[0][0] == "id" else None)
        if key is None:
            return Message("restore.where", table=self.table.name, row=number)
        return Message("restore.where_id", table=self.table.name, row=number, id=_shown(key))

    def changed(self, kept: dict[str, Any]) -> str | None:
        """The first table whose lines differ from the digest made with them, or that the
        backup leaves out (every backup has every table, however empty), if any."""
        for name in self.tables:
            made = self.digests.get(name)
            if made is None or kept.get(name) != made.hexdigest():
                return name
        return None


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "…"


def restore(stream: IO[bytes]) -> int:
    """Restore a backup into this (empty, upgraded) database, all or nothing; returns the
    number of rows. Refused (:class:`BackupError`, one sentence) unless every value is of its
    column's type, the database takes every row, ``tonk check`` finds nothing wrong with
    what was restored and the digest of each table matches its lines."""
    lines = _lines(stream)
    first = next(lines, None)
    header = first[1] if first else None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise BackupError(Message("restore.not_backup"))
    if type(header.get("version")) is not int or header.get("version") != VERSION:
        raise BackupError(Message("restore.version", version=_shown(header.get("version")),
                                  reads=VERSION))
    here = schema_revision()
    if header.get("schema") != here:
        made = header.get("schema")
        raise BackupError(Message("restore.schema", here=here, made=made if isinstance(
            made, str) and made.isprintable() and len(made) <= 40 else _shown(made)))
    work = _Restore()
    for name, each in work.tables.items():
        if db.session.scalar(select(func.count()).select_from(each)):
            raise BackupError(Message("restore.not_empty", table=name))
    footer: dict[str, Any] | None = None
    for raw, item in lines:
        if isinstance(item, list):
            work.row(item, raw)
        elif isinstance(item, dict) and item.get("end"):
            footer = item
            break
        elif isinstance(item, dict):
            work.start_table(item, raw)
        else:
            raise BackupError(Message("restore.damaged"))
    if footer is None:
        raise BackupError(Message("restore.cut"))
    kept = footer.get("sha256")
    if not isinstance(kept, dict):
        raise BackupError(Message("restore.no_digest"))
    if footer.get("rows") != work.rows:
        raise BackupError(Message("restore.rows", said=_shown(footer.get("rows")),
                                  rows=work.rows))
    work.flush()
    changed = work.changed(kept)
    problem = work.refused or _checked()
    if problem is None and changed is not None:
        problem = Message("restore.table_changed", table=changed)
    if problem is not None:
        raise BackupError(_refusal(problem, changed))
    _reset_sequences()
    db.session.flush()
    return work.rows


def _checked() -> str | Message | None:
    """What ``tonk check`` finds first in what was restored (inside its transaction), on
    one line."""
    from .integrity import problems

    try:
        db.session.flush()
        found = problems(limit=1)
    except (DBAPIError, TypeError, ValueError, KeyError, IndexError) as exc:
        return Message("restore.unchecked", error=type(exc).__name__)
    return found[0].replace("\n", " ") if found else None


def _refusal(problem: str | Message, changed: str | None) -> Message:
    if changed is not None:
        why = Message("restore.why.changed", table=changed)
    else:
        why = Message("restore.why.inconsistent")
    return Message("restore.refusal", problem=problem, why=why)


def _reset_sequences() -> None:
    """PostgreSQL: the next id of each table follows the restored ones."""
    if db.engine.dialect.name != "postgresql":
        return
    for table in _tables():
        ids = [c for c in table.primary_key.columns if c.autoincrement is True
               or (c.autoincrement == "auto" and c.name == "id" and len(table.primary_key) == 1)]
        for column in ids:
            db.session.execute(text(
                f"SELECT setval(pg_get_serial_sequence('{table.name}', '{column.name}'), "
                f"COALESCE((SELECT MAX({column.name}) FROM {table.name}), 0) + 1, false)"))


def backup_to(target: Path) -> int:
    """Write the backup (:func:`dump`) to the file ``target``, the app's user's alone from
    the start (0600: it holds the password hashes), aside as ``….partial`` and renamed
    into place once whole: a backup that stopped half-way never has the name. The rows."""
    partial = Path(f"{target}.partial")
    partial.unlink(missing_ok=True)
    try:
        with os.fdopen(new_private_file(partial), "wb") as out:
            rows = dump(out)
        partial.replace(target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return rows


def copy_sqlite(target: Path) -> None:
    """SQLite only: an online copy of the live database file (readers and writers go on)."""
    url = db.engine.url
    if url.get_backend_name() != "sqlite" or not url.database:
        raise BackupError(Message("backup.not_sqlite"))
    source = sqlite3.connect(url.database)
    try:
        private_file(target)  # it holds the password hashes: 0600 before SQLite fills it
        copy = sqlite3.connect(str(target))
        try:
            source.backup(copy)
        finally:
            copy.close()
    finally:
        source.close()
