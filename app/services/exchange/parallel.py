"""Checking in other processes: settling every version of every hand again is most of an
import's work and needs no database, so other processes check the sessions (each its
share) while this one writes them, in the document's order. The processes are forked
where they can be (they start at once, with the code already imported); each reads only
its own sessions of an export (:class:`FileShare`) and sends their rows back pickled once
(:func:`.rows.packed`), as the writer keeps them until it writes them."""
from __future__ import annotations

import gc
import itertools
import json
import multiprocessing
import os
import queue as queue_module
import re
import threading
import time
import traceback
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

from .checked import Checked
from .common import PARALLEL_BATCH_HANDS
from .importer import Importer
from .reader import Reader, ReadError
from .rows import Moment, packed, session_rows
from .verify import Checker

if TYPE_CHECKING:
    from multiprocessing.context import ForkContext, SpawnContext

# -- checking in other processes -------------------------------------------------------------
#
# Settling every version of every hand again is most of an import's work, and needs no
# database: other processes check the sessions (each its share: the 1st, (n+1)th, … for
# the first of n) while this one writes them, in the document's order.

class Share(Protocol):
    """Where the checking processes get a document's sessions from: a file, or a generator
    (picklable: it is sent to each process when they are spawned)."""

    def sessions(self, k: int, of: int) -> Iterator[tuple[int, Any]]:
        """(position from 1, session) for every ``of``-th session, starting with the k-th."""
        ...

    def summary(self) -> Any:
        """Anything the share noted while it went (sent back at the end)."""
        ...


class Relayout(Exception):
    """The sessions of a document are not one a line after all: it is read the general way
    (:class:`FileShare` without ``lines``)."""


_JSON_SPACE = " \t\r\n"
_END = re.compile(r"\][ \t\r\n]*\}")


@dataclass(frozen=True)
class FileShare:
    """The sessions of a document file. Its sessions one a line after its first ``lines``
    lines (as exports are written): each process reads every line but decodes only its own
    sessions' lines; anything else there raises :class:`Relayout`. Else (``lines`` None)
    each process reads the whole file and the others' sessions are only skimmed past:
    parsed by the plain C decoder, without the check for a key given twice, which their own
    process makes (a file that is not JSON fails the same way in both)."""

    path: str
    lines: int | None = None

    def sessions(self, k: int, of: int) -> Iterator[tuple[int, Any]]:
        if self.lines is not None:
            yield from self._one_a_line(self.lines, k, of)
            return
        with open(self.path, encoding="utf-8-sig") as f:
            reader = Reader(f)
            mine, skim = reader.decoder, json.JSONDecoder()
            position = 0
            for kind, _key, value in reader.events():
                if kind == "sessions":
                    reader.decoder = mine if k == 0 else skim
                elif kind == "session":
                    position += 1
                    if (position - 1) % of == k:
                        yield position, value
                    reader.decoder = mine if position % of == k else skim  # the next one

    def _one_a_line(self, skip: int, k: int, of: int) -> Iterator[tuple[int, Any]]:
        """Each line a session and its comma, the last one's without, then ``]}``: the
        document read so is the one the general way reads, as JSON has one reading. Any
        other line (or one that is not JSON) raises Relayout: the general way says what
        it is."""
        decoder = Reader.decoder_of_sessions()
        position = 0
        comma: bool | None = None  # whether the last session's line ended with one
        try:
            with open(self.path, encoding="utf-8-sig") as f:
                lines = iter(f)
                for _ in itertools.islice(lines, skip):
                    pass
                for line in lines:
                    text = line.strip(_JSON_SPACE)
                    if not text:
                        continue
                    if text[0] == "]":
                        for line in lines:  # what is left: "}", and white space
                            text += line.strip(_JSON_SPACE)
                            if len(text) > 2:
                                break
                        if comma or not _END.fullmatch(text):
                            raise Relayout
                        return
                    if comma is False:
                        raise Relayout
                    position += 1
                    comma = text[-1] == ","
                    if (position - 1) % of == k:
                        value, end = decoder.raw_decode(text)
                        if text[end:].lstrip(_JSON_SPACE) != ("," if comma else ""):
                            raise Relayout
                        yield position, value
        except (ValueError, RecursionError):  # not UTF-8, not JSON, a key twice, …
            raise Relayout from None
        raise Relayout  # cut off before the end of the sessions

    def summary(self) -> Any:
        return None


def default_jobs() -> int:
    """Checking processes for a large import: one per core, at most four (the writing
    process mostly waits for them, so it needs no core of its own)."""
    return max(1, min(os.cpu_count() or 1, 4))


def _context() -> ForkContext | SpawnContext:
    """How the checking processes start: forked, where the system can and this process runs
    no other thread (the command line), so that they begin at once with the code already
    imported (a spawned process imports the app again: a second of CPU each); else spawned
    (threads and fork do not mix: a lock held by another thread stays held in the copy)."""
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _end_with_parent(parent: int) -> None:
    """A checking process ends as soon as the import that started it (``parent``) is gone,
    however it went (even killed with -9, before this process was ready): nothing is left
    behind working for nobody."""
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.25)
        os._exit(1)

    threading.Thread(target=watch, name="tonk-parent-watch", daemon=True).start()


def _check_share(share: Share, k: int, of: int, out: Any, parent: int, when: Moment) -> None:
    """The work of one checking process: check its share, make the rows of what it checked
    (its times written by ``when``), send them back in batches, each session's rows
    pickled here (:func:`.rows.packed`)."""
    _end_with_parent(parent)
    gc.disable()  # a short-lived process of short-lived objects: see no_gc_pauses
    checker = Checker()
    batch: list[tuple[Checked, bytes | None]] = []
    hands = 0
    try:
        for position, doc in share.sessions(k, of):
            checked = checker.check(position, doc)
            session = checked.session
            batch.append((checked._replace(session=None),
                          None if session is None else packed(session_rows(session, when))))
            hands += checked.hands
            if hands >= 2_000:
                out.put(("checked", batch))
                batch, hands = [], 0
        out.put(("checked", batch))
        out.put(("end", share.summary()))
    except ReadError as exc:
        out.put(("checked", batch))
        out.put(("unreadable", exc.said))
    except Relayout:
        out.put(("checked", batch))
        out.put(("relayout", None))
    except BaseException:  # noqa: BLE001 - any failure is reported to the importer
        out.put(("crashed", traceback.format_exc()))


def _receive(queue: Any, worker: Any) -> tuple[str, Any]:
    """The next message of a checking process; an error if it died without one."""
    while True:
        try:
            return cast(tuple[str, Any], queue.get(timeout=1))
        except queue_module.Empty:
            if worker.is_alive():
                continue
        try:  # it may have said its last word just before it ended
            return cast(tuple[str, Any], queue.get(timeout=1))
        except queue_module.Empty:
            raise RuntimeError(f"the checking process {worker.name} stopped without a "
                               f"word (exit code {worker.exitcode})") from None


def check_elsewhere(importer: Importer, share: Share, jobs: int) -> list[Any]:
    """Have ``jobs`` other processes check the share's sessions while ``importer`` takes
    them, in order, and writes them. Returns each process's summary. Raises ReadError
    when the document cannot be read to its end, Relayout when a share's layout is not
    what it said."""
    context = _context()
    queues = [context.Queue(maxsize=16) for _ in range(jobs)]
    workers = [context.Process(target=_check_share, args=(share, k, jobs, queue, os.getpid(),
                                                       importer.when),
                               daemon=True, name=f"tonk-check-{k}")
               for k, queue in enumerate(queues)]
    for worker in workers:
        worker.start()
    # Write in smaller batches than alone: what is left to write when the last session is
    # checked is the time lost at the end.
    importer.batch_hands = min(importer.batch_hands, PARALLEL_BATCH_HANDS)
    ready: list[deque[tuple[Checked, bytes | None]]] = [deque() for _ in range(jobs)]
    ended: list[tuple[str, Any] | None] = [None] * jobs
    try:
        k = 0
        while True:
            while not ready[k] and ended[k] is None:
                kind, payload = _receive(queues[k], workers[k])
                if kind == "checked":
                    ready[k].extend(payload)
                elif kind in ("end", "unreadable", "relayout"):
                    ended[k] = (kind, payload)
                else:
                    raise RuntimeError(f"checking sessions failed in another process:\n"
                                       f"{payload}")
            if not ready[k]:
                state = ended[k]
                if state is not None and state[0] == "unreadable":
                    raise ReadError(state[1])
                if state is not None and state[0] == "relayout":
                    raise Relayout
                break  # the k-th has no more: the document has no more
            importer.take(*ready[k].popleft())
            k = (k + 1) % jobs
        for j in range(jobs):  # the others' summaries
            while ended[j] is None:
                kind, payload = _receive(queues[j], workers[j])
                if kind in ("end", "unreadable", "relayout"):
                    ended[j] = (kind, payload)
        return [state[1] for state in ended if state is not None and state[0] == "end"]
    finally:
        for worker in workers:
            if worker.is_alive():
                worker.terminate()
            worker.join(5)
