"""Export and import: a league, or one session, as one JSON document (everything, enough to
rebuild it exactly) or as CSV for a spreadsheet; and the import of such a document, all or
nothing, every hand re-validated through the domain core.

The document::

    {"format": "tonk-tally", "version": 2,
     "league": {"uid", "name", "created_at", "currency", "stake", "rules", "side_bets",
                "seasons", "members"} or null,
     "sessions": [{"uid", "name", "played_at", "closed_at", "currency", "stake", "rules",
                   "players", "seated", "left", "next_dealer", "side_bets", "pots",
                   "totals", "money",
                   "hands": [{"number", "voided",
                              "versions": [{"version", "action", "at", "by", "reason",
                                            "hand", "result"}]}],
                   "payments": [{"from", "to", "amount", "at"}],
                   "rules_changes": [{"from_hand", "rules", "stake", "at"}],
                   "seat_changes": [{"hands", "kind", "player", "after", "at"}],
                   "archived_at", "carried_debts": [...]}]}

Version 2 adds the settle-up part too (:mod:`.settling`: plans, undone payments, carried
debts, archived).

``players`` are everyone who sat at the session (their seats, for payments), ``seated`` who
sits there now in seat order and ``left`` when the others left; ``seat_changes`` who
``joined`` (just ``after`` whom) or ``left``, once ``hands`` hands had been recorded, in order
(none: the import finds them from the hands' players, as for a file written before them);
each hand gives its own
``players`` and, in ``hand``, its ``side_bets`` (docs/rules.md §9); ``pots`` is what the side
bets leave waiting (an import replays them); ``totals`` is each player's total as every
page and the API show it, and ``money`` that total by part
(:func:`app.services.sessions.money_of`: ``hands``, ``side_bets``, ``pots_back`` and their
sum, ``total``, what settle-up squares): an import works both out again from the hands and
refuses a file whose figures differ (a file exported before 8 December 2026 gave as
``totals`` the hands and side bets alone, and is read as it was written). Version 1 (no
seats that change, no side bets) is still read.

Times are ISO 8601 in UTC; money is decimal strings; ``hand`` and ``result`` are the stored
JSON of docs/rules.md §1 and §8. It is written as a stream of text chunks, one session a line,
and read back session by session, so that neither side holds a large league in memory.

The importer writes exactly the rows the ledger would have written hand by hand (running
totals, entries, session records, every version) but in bulk: SQLAlchemy Core inserts in
batches with ids taken up front, each session's arithmetic done once in Python with the
ledger's own helpers (:func:`~app.core.parts.seat_nets`,
:func:`~app.core.parts.seat_parts`, :func:`~app.core.parts.stat_counts`). One transaction:
any problem, and nothing is imported.

The package, module by job: :mod:`.common` (format, limits, times), :mod:`.export` (the
document), :mod:`.spreadsheet` (CSV), :mod:`.reader` (reading a document session by
session), :mod:`.verify` (every hand settled again, no database), :mod:`.checked` (what a
check gives: the session's plain values, or its problems), :mod:`.rows` (a checked
session's rows, ids left out, made where it was checked), :mod:`.importer` (the bulk
writer), :mod:`.parallel` (checking in other processes), :mod:`.run` (the entry points),
:mod:`.demo` (a demo league made through the importer).
"""
from __future__ import annotations

from .common import FORMAT, MAX_PROBLEMS, VERSION, ExchangeError, iso, parse_time
from .demo import describe_demo, make_demo, owner_account
from .export import (
    export_league,
    export_session,
    exportable_league,
    league_session_ids,
    may_export_league,
    write_document,
)
from .importer import Importer
from .parallel import FileShare, Share, check_elsewhere, default_jobs
from .report import ImportReport
from .run import import_file, import_path, no_gc_pauses
from .spreadsheet import NUMBER, csv_players, hands_csv, payments_csv, players_csv

__all__ = ["FORMAT", "MAX_PROBLEMS", "NUMBER", "VERSION", "ExchangeError", "FileShare",
           "ImportReport", "Importer", "Share", "check_elsewhere", "csv_players",
           "default_jobs", "describe_demo", "export_league", "export_session", "exportable_league",
           "hands_csv", "import_file",
           "make_demo", "owner_account", "import_path", "iso", "league_session_ids",
           "may_export_league", "no_gc_pauses", "parse_time", "payments_csv", "players_csv",
           "write_document"]
