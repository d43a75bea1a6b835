"""The entry points of import: a file (binary or text) or a path, all or nothing."""
from __future__ import annotations

import gc
import io
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any, cast

from sqlalchemy.exc import IntegrityError

from ...core.messages import Message
from ...db.models import User
from .common import IMPORT_BATCH_HANDS
from .importer import Importer
from .parallel import FileShare, Relayout, check_elsewhere, default_jobs
from .reader import Reader, ReadError
from .report import ImportReport

# -- entry points ----------------------------------------------------------------------------

@contextmanager
def no_gc_pauses() -> Iterator[None]:
    """Python's cycle collector off for a bulk job: reading and checking make millions of
    small objects that all live until their batch is written, and the collector would walk
    them over and over (it makes an import twice as slow). Nothing here makes cycles."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _run(events: Iterator[tuple[str, str, Any]], user: User,
         batch_hands: int = IMPORT_BATCH_HANDS) -> ImportReport:
    with no_gc_pauses():
        return _read_and_import(events, Importer(user, batch_hands=batch_hands))


@contextmanager
def _reported(importer: Importer) -> Iterator[None]:
    """An unreadable file or a write the database refuses becomes a problem in the report;
    anything else takes back what the import wrote and goes on up."""
    try:
        yield
    except ReadError as exc:
        importer.problem(exc.said)
    except IntegrityError as exc:
        importer.refused(exc)
    except BaseException:
        importer.undo()
        raise


def _read_and_import(events: Iterator[tuple[str, str, Any]], importer: Importer
                     ) -> ImportReport:
    header: dict[str, Any] = {}
    held: list[Any] = []  # sessions read before the header was complete
    started = has_sessions = False
    with _reported(importer):
        for kind, key, value in events:
            if kind == "field":
                header[key] = value
                continue
            if kind == "sessions":
                has_sessions = True
                continue
            if not started:
                if not _HEADER <= header.keys():
                    held.append(value)
                    continue
                started = True
                if not importer.start(header):
                    return importer.finish()
            importer.add(value)
        if not started:
            if "sessions" in header or not has_sessions:
                importer.problem(Message("import.no_sessions"))
            elif importer.start(header):
                for value in held:
                    importer.add(value)
    return importer.finish()


_HEADER = frozenset({"format", "version", "league"})


def import_file(stream: IO[bytes] | IO[str], user: User, *,
                batch_hands: int = IMPORT_BATCH_HANDS) -> ImportReport:
    """Import a document from a file (binary or text), read session by session, all or
    nothing. ``user`` becomes the owner of every session (and of a new league)."""
    text_stream = cast(IO[str], stream)
    if isinstance(stream.read(0), bytes):
        text_stream = io.TextIOWrapper(cast(IO[bytes], stream), encoding="utf-8-sig")
    return _run(Reader(text_stream).events(), user, batch_hands)


def import_path(path: str, user: User, *, jobs: int | None = None,
                batch_hands: int = IMPORT_BATCH_HANDS) -> ImportReport:
    """Import a document file, all or nothing, its sessions checked in ``jobs`` other
    processes (default: :func:`default_jobs`; 0: all in this one) while this one writes."""
    jobs = default_jobs() if jobs is None else jobs
    header: dict[str, Any] = {}
    lines: int | None = None  # the sessions are one a line after these (as exported)
    if jobs > 0:
        try:
            with open(path, encoding="utf-8-sig") as f:
                reader = Reader(f)
                for kind, key, value in reader.events():
                    if kind != "field":
                        lines = reader.lines_done()
                        break
                    header[key] = value
        except ReadError:
            header = {}  # the serial import below says what is wrong
    if jobs < 1 or not _HEADER <= header.keys():
        with open(path, encoding="utf-8-sig") as f:
            return import_file(f, user, batch_hands=batch_hands)
    with no_gc_pauses():
        if lines is not None:
            try:
                return _checked_elsewhere(FileShare(path, lines), header, user, jobs,
                                          batch_hands)
            except Relayout:
                pass  # rolled back: read again, the general way
        return _checked_elsewhere(FileShare(path), header, user, jobs, batch_hands)


def _checked_elsewhere(share: FileShare, header: dict[str, Any], user: User, jobs: int,
                       batch_hands: int) -> ImportReport:
    importer = Importer(user, batch_hands=batch_hands)
    if not importer.start(header):
        return importer.finish()
    with _reported(importer):
        check_elsewhere(importer, share, jobs)
    return importer.finish()
