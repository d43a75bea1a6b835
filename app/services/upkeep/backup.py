"""The whole database in one portable file, and back: ``tonk backup`` and ``tonk restore``.

A backup is gzip-compressed JSON lines: a header (format, version, the schema revision it
was made at, when), then for each table its name and columns followed by one line per row,
then a footer with the number of rows (a file cut short is refused, not half restored). It
holds everything: accounts with their password hashes, API tokens' digests, leagues,
sessions, every version of every hand, payments, rule changes, ratings. Nothing in it is
specific to SQLite or PostgreSQL, so a backup of one restores into the other: this is how a
club moves from the embedded SQLite to PostgreSQL when it grows.

Restore goes into an empty database at the same schema revision, in one transaction: all or
nothing. On SQLite a backup can also be a copy of the live file (:func:`copy_sqlite`), taken
with SQLite's online backup while the app runs.
"""
from __future__ import annotations

import gzip
import io
import json
import sqlite3
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import IO, Any

from alembic.migration import MigrationContext
from sqlalchemy import Boolean, Date, DateTime, Float, Table, func, insert, select, text

from ...core.errors import TonkError
from ...db.types import UTCDateTime
from ...extensions import db

FORMAT = "tonk-tally-backup"
VERSION = 1
BATCH = 2_000


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
        raise BackupError("the database has no tables yet: there is nothing to back up")
    rows = 0
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as packed:
        text_out = io.TextIOWrapper(packed, encoding="utf-8", newline="\n")

        def line(value: Any) -> None:
            text_out.write(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
            text_out.write("\n")

        line({"format": FORMAT, "version": VERSION, "schema": revision,
              "made_at": datetime.now(UTC).isoformat()})
        with db.engine.connect() as conn:  # one read transaction: a consistent snapshot
            for table in _tables():
                columns = [c.name for c in table.columns]
                line({"table": table.name, "columns": columns})
                order = [c for c in table.primary_key.columns]
                for row in conn.execution_options(yield_per=BATCH).execute(
                        select(table).order_by(*order)):
                    line([_out(v) for v in row])
                    rows += 1
        line({"end": True, "rows": rows})
        text_out.flush()
        text_out.detach()
    return rows


def _reader(column: Any) -> Any:
    kind = column.type
    if isinstance(kind, (DateTime, UTCDateTime)):
        return lambda v: None if v is None else datetime.fromisoformat(v).astimezone(UTC)
    if isinstance(kind, Date):
        return lambda v: None if v is None else date.fromisoformat(v)
    if isinstance(kind, Boolean):
        return lambda v: None if v is None else bool(v)
    if isinstance(kind, Float):
        return lambda v: None if v is None else float(v)
    return lambda v: v


def _lines(stream: IO[bytes]) -> Iterator[Any]:
    try:
        with gzip.GzipFile(fileobj=stream, mode="rb") as packed:
            for number, raw in enumerate(io.TextIOWrapper(packed, encoding="utf-8"), start=1):
                try:
                    yield json.loads(raw)
                except ValueError:
                    raise BackupError(f"line {number} of the backup is not JSON: the file is "
                                      "damaged") from None
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise BackupError(f"this is not a readable Tonk Tally backup ({exc})") from None


def restore(stream: IO[bytes]) -> int:
    """Restore a backup into this (empty, upgraded) database, all or nothing; returns the
    number of rows."""
    lines = _lines(stream)
    header = next(lines, None)
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise BackupError("this is not a Tonk Tally backup")
    if header.get("version") != VERSION:
        raise BackupError(f"this backup is format version {header.get('version')!r}; this "
                          f"app reads version {VERSION}")
    here = schema_revision()
    if header.get("schema") != here:
        raise BackupError(f"this backup was made at schema {header.get('schema')}, this "
                          f"database is at {here}: restore it with the version of the app "
                          "that made it, then upgrade")
    tables = {t.name: t for t in _tables()}
    for name, each in tables.items():
        if db.session.scalar(select(func.count()).select_from(each)):
            raise BackupError(f"this database is not empty ({name} has rows): restore "
                              "into an empty database")
    rows, done = 0, False
    table: Table | None = None
    readers: list[tuple[str, Any]] = []
    batch: list[dict[str, Any]] = []
    try:
        for item in lines:
            if isinstance(item, list):
                if table is None or len(item) != len(readers):
                    raise BackupError("a row of the backup does not fit its table: the file "
                                      "is damaged")
                batch.append({name: read(v) for (name, read), v in zip(readers, item,
                                                                        strict=True)})
                rows += 1
                if len(batch) >= BATCH:
                    db.session.execute(insert(table), batch)
                    batch = []
                continue
            if not isinstance(item, dict):
                raise BackupError("the backup is damaged")
            if batch and table is not None:
                db.session.execute(insert(table), batch)
                batch = []
            if item.get("end"):
                if item.get("rows") != rows:
                    raise BackupError(f"the backup says {item.get('rows')} rows but holds "
                                      f"{rows}: the file is damaged")
                done = True
                break
            table = tables.get(item.get("table", ""))
            if table is None:
                raise BackupError(f"the backup has a table {item.get('table')!r} this app "
                                  "does not know")
            columns = item.get("columns")
            if not isinstance(columns, list) or set(columns) != {c.name for c in table.columns}:
                raise BackupError(f"the backup's {table.name} has other columns than this "
                                  "app's")
            readers = [(name, _reader(table.columns[name])) for name in columns]
        if not done:
            raise BackupError("the backup ends too early: the file was cut short")
        _reset_sequences()
        db.session.commit()
    except BaseException:
        db.session.rollback()
        raise
    return rows


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


def copy_sqlite(target: Path) -> None:
    """SQLite only: an online copy of the live database file (readers and writers go on)."""
    url = db.engine.url
    if url.get_backend_name() != "sqlite" or not url.database:
        raise BackupError("a copy of the file is for a SQLite database; use a .gz backup")
    source = sqlite3.connect(url.database)
    try:
        copy = sqlite3.connect(str(target))
        try:
            source.backup(copy)
        finally:
            copy.close()
    finally:
        source.close()
