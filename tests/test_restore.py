"""``tonk restore`` takes only a backup that is whole and true, on SQLite and PostgreSQL:
every value read as its column's type, ``tonk check`` run inside the restore's transaction,
each table's digest compared; anything else is refused with one line on standard error
naming the table and row (or the session and hand), a non-zero exit, and the database left
as it was (empty). The tampered backups are those of an audit: a changed hand
result, a changed total, a payment x 50, a hand version deleted with the footer's count
adjusted, "lots" as a payment amount; and those of a later one: the digest switched off (the
header's version edited, the footer's digest deleted, a table given twice) and files that
are read only as far as a limit (100,000 nested brackets, a line or a file that unpacks to
GiBs), each refused in one line in bounded time and memory.
"""
from __future__ import annotations

import gzip
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask_migrate import stamp
from sqlalchemy import func, select, text, update

from app.cli.commands import cli
from app.db.models import SessionPlayer, User
from app.db.unit import unit_of_work
from app.extensions import db
from app.services.upkeep.backup import BackupError, restore
from tests.apps import make_app, other_pg_url, stored_problems
from tests.clients import Api, account
from tests.hands import DROP_CAUGHT, EVERY_END

Lines = list[list[Any] | dict[str, Any]]  # a backup's lines: headers and rows


def _made(db_app, tmp_path: Path) -> Path:
    """A backup of a night with a correction, a void and a payment."""
    api = Api(db_app.test_client(), account(db_app, "ann@example.com", "Ann"))
    sid = api.start()
    for hand, _outcome, _net in EVERY_END:
        api.ok("POST", f"/sessions/{sid}/hands", hand, 201)
    api.ok("PUT", f"/sessions/{sid}/hands/2", {**DROP_CAUGHT, "reason": "a drop, really"})
    api.ok("DELETE", f"/sessions/{sid}/hands/3", {"reason": "misdeal"})
    transfer = api.ok("GET", f"/sessions/{sid}/ledger")["transfers"][0]
    api.ok("POST", f"/sessions/{sid}/payments", {"from": transfer["from"],
                                                 "to": transfer["to"], "amount": "0.05"})
    with db_app.app_context():
        stamp()
    file = tmp_path / "club.tonk.gz"
    made = db_app.test_cli_runner().invoke(cli, ["backup", str(file)])
    assert made.exit_code == 0, made.output
    return file


def _read(file: Path) -> Lines:
    with gzip.open(file, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def _write(lines: Lines, file: Path) -> Path:
    with gzip.open(file, "wt", encoding="utf-8") as out:
        for line in lines:
            out.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
    return file


def _rows(lines: Lines, table: str) -> tuple[list[str], list[list[Any]]]:
    """The columns of ``table`` and its rows (the lists inside ``lines``, to change)."""
    at, header = next((i, line) for i, line in enumerate(lines)
                      if isinstance(line, dict) and line.get("table") == table)
    rows = []
    for line in lines[at + 1:]:
        if not isinstance(line, list):
            break
        rows.append(line)
    return header["columns"], rows


def _set(lines: Lines, table: str, column: str, change: Callable[[Any], Any], row: int = 0) -> None:
    columns, rows = _rows(lines, table)
    rows[row][columns.index(column)] = change(rows[row][columns.index(column)])


def changed_result(lines: Lines) -> None:
    def more(result_json: str) -> str:
        result = json.loads(result_json)
        result["net"] = {p: str(int(float(v) * 100 + 100) / 100) for p, v in
                         result["net"].items()}
        return json.dumps(result)
    _set(lines, "hand_versions", "result_json", more)


def changed_total(lines: Lines) -> None:
    _set(lines, "session_players", "total_minor", lambda v: v + 100)


def payment_times_50(lines: Lines) -> None:
    _set(lines, "settle_payments", "amount_minor", lambda v: v * 50)


def version_deleted(lines: Lines) -> None:
    columns, rows = _rows(lines, "hand_versions")
    second = next(r for r in rows if r[columns.index("version")] == 2)
    lines.remove(second)
    footer = lines[-1]
    assert isinstance(footer, dict)
    footer["rows"] -= 1


def lots(lines: Lines) -> None:
    _set(lines, "settle_payments", "amount_minor", lambda _v: "lots")


TAMPERED = {  # what is done to the file, and words of the one line that refuses it
    "changed_result": (changed_result, "hand 1"),
    "changed_total": (changed_total, "total"),
    "payment_x50": (payment_times_50, "paid"),
    "version_deleted": (version_deleted, "hand 2"),
    "lots": (lots, 'table settle_payments, row 1 (id 1): its amount_minor "lots" is not a '
                   "whole number"),
}


def _target(db_app, tmp_path: Path, request) -> Flask:
    """An empty database of the same kind as ``db_app``'s, its schema made (the migrations'
    log lines are not the restore's)."""
    url = db_app.config["SQLALCHEMY_DATABASE_URI"]
    target = make_app(f"sqlite:///{tmp_path / 'restored.sqlite'}" if url.startswith("sqlite")
                      else other_pg_url(request))
    assert target.test_cli_runner().invoke(cli, ["db", "upgrade"]).exit_code == 0
    return target


def _counts(app) -> int:
    with app.app_context():
        found = sum(db.session.scalar(select(func.count()).select_from(t))
                    for t in db.metadata.sorted_tables)
        db.session.remove()
        return found


def test_tampered_backups_are_refused_in_one_line_and_restore_nothing(db_app, tmp_path,
                                                                      request):
    file = _made(db_app, tmp_path)
    target = _target(db_app, tmp_path, request)
    runner = target.test_cli_runner()
    for name, (tamper, words) in TAMPERED.items():
        lines = _read(file)
        tamper(lines)
        refused = runner.invoke(cli, ["restore", str(_write(lines, tmp_path / f"{name}.gz"))])
        assert refused.exit_code == 1, (name, refused.output)
        said = refused.stderr.strip().splitlines()
        assert len(said) == 1, (name, said)
        assert "nothing was restored" in said[0] and words in said[0], (name, said[0])
        assert "changed after it was made" in said[0], (name, said[0])
        assert refused.stdout == ""
        print(name, "→", said[0])
        assert _counts(target) == 0, name  # every table as empty as before
    done = runner.invoke(cli, ["restore", str(file)])  # the file as made restores
    assert done.exit_code == 0, done.output
    assert stored_problems(target) == []
    with target.app_context():
        db.session.remove()
        db.engine.dispose()


def test_a_backup_of_an_inconsistent_database_is_refused_as_such(db_app, tmp_path, request):
    """The digest tells an edit from damage: a backup as it was made, of a database that
    was already wrong, is refused saying so."""
    _made(db_app, tmp_path)
    with db_app.app_context():
        db.session.execute(update(SessionPlayer).where(SessionPlayer.name == "Bob")
                           .values(total_minor=SessionPlayer.total_minor + 25))
        db.session.commit()
    file = tmp_path / "wrong.tonk.gz"
    made = db_app.test_cli_runner().invoke(cli, ["backup", str(file)])
    assert made.exit_code == 0, made.output
    with db_app.app_context():  # put it back, for the check after the test
        db.session.execute(update(SessionPlayer).where(SessionPlayer.name == "Bob")
                           .values(total_minor=SessionPlayer.total_minor - 25))
        db.session.commit()
    target = _target(db_app, tmp_path, request)
    refused = target.test_cli_runner().invoke(cli, ["restore", str(file)])
    assert refused.exit_code == 1
    said = refused.stderr.strip().splitlines()
    assert len(said) == 1 and "Bob's total" in said[0] and "already inconsistent" in said[0]
    assert _counts(target) == 0
    with target.app_context():
        db.session.execute(text("SELECT 1"))
        db.session.remove()
        db.engine.dispose()


@pytest.mark.parametrize("value", [True, 1.5, "12", None])
def test_a_value_not_of_its_column_type_is_named(db_app, tmp_path, value, request):
    file = _made(db_app, tmp_path)
    lines = _read(file)
    _set(lines, "hands", "number", lambda _v: value)
    target = _target(db_app, tmp_path, request)
    refused = target.test_cli_runner().invoke(cli, ["restore", str(_write(
        lines, tmp_path / "typed.gz"))])
    assert refused.exit_code == 1
    said = refused.stderr.strip().splitlines()
    assert len(said) == 1 and "table hands, row 1 (id 1): its number" in said[0], said
    assert _counts(target) == 0


REFUSED_IN = {  # a file that is no backup, and a value not of its column's type
    "de": ("das ist kein Backup von Tonk Tally",
           'nichts wurde wiederhergestellt: Tabelle settle_payments, Zeile 1 (id 1): '
           'amount_minor "lots" ist keine ganze Zahl, die die Spalte fassen kann; die Datei '
           "wurde geändert, nachdem sie gemacht wurde (Tabelle settle_payments passt nicht zu "
           "ihrer Prüfsumme)"),
    "ja": ("これはTonk Tallyのバックアップではありません",
           '何も復元されていません：テーブルsettle_paymentsの1行目（id 1）：amount_minorの"lots"'
           "は列に入る整数ではありません。ファイルは作られた後に変更されています（テーブル"
           "settle_paymentsがダイジェストと一致しません）"),
}


def restored(stream: Any) -> int:
    """A restore inside the write boundary, as `tonk restore` runs it (which rolls a
    refused one back)."""
    with unit_of_work():
        return restore(stream)


def test_a_refusal_is_read_in_the_readers_language(db_app, tmp_path, request):
    """A restore's refusal is a message of the catalogue: where a language is chosen (a
    request's), it is read in it, down to the row it names and what its value is not."""
    lines = _read(_made(db_app, tmp_path))
    lots(lines)
    damaged = _write(lines, tmp_path / "lots.gz")
    target = _target(db_app, tmp_path, request)
    for lang, (not_one, lots_of) in REFUSED_IN.items():
        with target.test_request_context(headers={"Accept-Language": lang}):
            with pytest.raises(BackupError) as refused:
                restored(io.BytesIO(gzip.compress(b'{"format": "zip"}\n')))
            assert refused.value.message == not_one
            with pytest.raises(BackupError) as refused, open(damaged, "rb") as stream:
                restored(stream)
            assert refused.value.message == lots_of
    with target.app_context():  # … and as written, where none is
        with pytest.raises(BackupError) as refused, open(damaged, "rb") as stream:
            restored(stream)
        assert refused.value.message.startswith("nothing was restored: table settle_payments")
    assert _counts(target) == 0
    with target.app_context():
        db.session.remove()
        db.engine.dispose()


# -- a backup cannot be talked out of its digest, and reading one is bounded ------------------

def _header(lines: Lines) -> dict[str, Any]:
    assert isinstance(lines[0], dict) and lines[0]["format"] == "tonk-tally-backup"
    return lines[0]


def _footer(lines: Lines) -> dict[str, Any]:
    assert isinstance(lines[-1], dict) and lines[-1]["end"]
    return lines[-1]


def _their_email(lines: Lines) -> None:
    """Whoever hands an operator the file takes Ann's account: her email is theirs."""
    _set(lines, "users", "email", lambda _v: "mallory@example.com")


def _one_more_user(lines: Lines) -> None:
    """A part of users of the editor's, given before the part the digest was made with
    (which would have the digest to itself if a second part started it anew)."""
    columns, rows = _rows(lines, "users")
    theirs = list(rows[0])
    theirs[columns.index("id")] = 999
    theirs[columns.index("email")] = "mallory@example.com"
    at = lines.index({"table": "users", "columns": columns})
    lines[at:at] = [{"table": "users", "columns": columns}, theirs]
    _footer(lines)["rows"] += 1


def _left_out(lines: Lines) -> None:
    """The last table (nothing refers to it) taken out, with its digest and its rows."""
    at, last = next((i, line) for i, line in reversed(list(enumerate(lines)))
                    if isinstance(line, dict) and "table" in line)
    footer = _footer(lines)
    footer["rows"] -= len(lines) - 2 - at
    del footer["sha256"][last["table"]], lines[at:-1]


def _edited(*edits: Callable[[Lines], None]) -> Callable[[Lines], None]:
    def edit(lines: Lines) -> None:
        for each in edits:
            each(lines)
    return edit


DIGEST_SWITCHED_OFF = {  # how the check was to be skipped, and words of the one line that refuses
    "version_1": (_edited(_their_email, lambda lines: _header(lines).update(version=1)),
                  "this backup is format version 1; this app reads version 2"),
    "version_3": (_edited(_their_email, lambda lines: _header(lines).update(version=3)),
                  "format version 3"),
    "version_text": (_edited(_their_email, lambda lines: _header(lines).update(version="2")),
                     'format version "2"'),
    "sha256_deleted": (_edited(_their_email, lambda lines: _footer(lines).pop("sha256")),
                       "carries no digest of its tables"),
    "sha256_null": (_edited(_their_email, lambda lines: _footer(lines).update(sha256=None)),
                    "carries no digest of its tables"),
    "sha256_emptied": (_edited(_their_email, lambda lines: _footer(lines).update(sha256={})),
                       "the file was changed after it was made"),
    "digest_kept": (_their_email, "the file was changed after it was made (table users does "
                                  "not match its digest)"),
    "users_twice": (_one_more_user, "the backup gives table users twice"),
    "table_left_out": (_left_out, "the file was changed after it was made (table "),
}


def test_a_backup_cannot_be_talked_out_of_its_digest(db_app, tmp_path, request):
    """The digest is required (a version edited to 1, or the footer's sha256
    deleted, skipped it, and an account changed hands with exit 0 and a clean tonk check)."""
    file = _made(db_app, tmp_path)
    target = _target(db_app, tmp_path, request)
    runner = target.test_cli_runner()
    for name, (tamper, words) in DIGEST_SWITCHED_OFF.items():
        lines = _read(file)
        tamper(lines)
        refused = runner.invoke(cli, ["restore", str(_write(lines, tmp_path / f"{name}.gz"))])
        said = refused.stderr.strip().splitlines()
        assert refused.exit_code == 1 and len(said) == 1, (name, refused.output)
        assert words in said[0] and refused.stdout == "", (name, said[0])
        assert _counts(target) == 0, name
    done = runner.invoke(cli, ["restore", str(file)])  # the file as made restores
    assert done.exit_code == 0, done.output
    with target.app_context():
        assert db.session.scalar(select(func.count()).select_from(User).where(
            User.email == "mallory@example.com")) == 0
        db.session.remove()
        db.engine.dispose()


def _packed(*parts: tuple[bytes, int]) -> bytes:
    """A gzip file of each ``(part, times)``, ``part`` compressed once and its member given
    ``times`` times (gzip members follow one another as one stream): a file of a few MB that
    unpacks to GiBs, made in no time."""
    return b"".join(gzip.compress(part, mtime=0) * times for part, times in parts)


def _bounded_files(lines: Lines) -> dict[str, tuple[bytes, str]]:
    """Files that are refused while they are read, and words of the one line that says so."""
    def line(value: Any) -> bytes:
        return json.dumps(value, separators=(",", ":")).encode() + b"\n"

    header = line(_header(lines))
    columns, rows = _rows(lines, "users")
    users = line({"table": "users", "columns": columns})
    mib_of_rows = line(rows[0]) * ((1 << 20) // len(line(rows[0])))
    deep = b"[" * 100_000 + b"]" * 100_000 + b"\n"
    nested = "holds more than 16 lists and objects: the file is damaged"
    return {
        "deep": (gzip.compress(header + deep), f"line 2 of the backup {nested}"),
        "deep_first": (gzip.compress(deep), f"line 1 of the backup {nested}"),
        "deep_in_a_row": (gzip.compress(header + users + b'["' + b"[" * 40 + b'"' + b",[" * 20),
                          f"line 3 of the backup {nested}"),
        "long_line": (_packed((header + b'["', 1), (b"x" * (1 << 20), 2048)),  # 2 GiB
                      "line 2 of the backup is longer than 16 MiB"),
        "big": (_packed((header + users, 1), (mib_of_rows, 512)),  # 512 MiB
                "the backup unpacks to more than 1 MiB"),
        "garbled": (gzip.compress(b"{" * 20_000)[:12] + b"\xff" * 40,
                    "this is not a readable Tonk Tally backup"),
        "not_utf8": (gzip.compress(header + b'["\xff"]\n'),
                     "this is not a readable Tonk Tally backup"),
        "table_named_by_a_list": (gzip.compress(header + line({"table": ["users"]})),
                                  'the backup has a table ["users"] this app does not know'),
        "schema_of_two_lines": (gzip.compress(line({**_header(lines), "schema": "0012\nx"})),
                                'this backup was made at schema "0012\\nx"'),
        "rows_of_two_lines": (gzip.compress(b"".join(line(each) for each in lines[:-1]) + line(
            {**_footer(lines), "rows": "1\n2"})), 'the backup says "1\\n2" rows'),
    }


def test_reading_a_backup_is_bounded(db_app, tmp_path, request, monkeypatch):
    """100,000 nested brackets ended in a 51-line RecursionError, and a 2 MB gzip
    that unpacks to a 2 GiB line was read whole (MemoryError after 19 s). Each is one line,
    exit 1, in bounded time and memory, and the database is left as it was."""
    import time
    import tracemalloc

    from app.services.upkeep import backup

    lines = _read(_made(db_app, tmp_path))
    target = _target(db_app, tmp_path, request)
    runner = target.test_cli_runner()
    for name, (packed, words) in _bounded_files(lines).items():
        file = tmp_path / f"{name}.gz"
        file.write_bytes(packed)
        if name == "big":  # (4 GiB of rows would take minutes to reach)
            monkeypatch.setattr(backup, "MAX_SIZE", 1 << 20)
        tracemalloc.start()
        started = time.perf_counter()
        refused = runner.invoke(cli, ["restore", str(file)])
        seconds = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        said = refused.stderr.strip().splitlines()
        assert refused.exit_code == 1 and len(said) == 1, (name, refused.output[-2000:])
        assert words in said[0] and refused.stdout == "", (name, said[0])
        print(f"{name}: {len(packed):,} bytes, {seconds:.2f} s, peak {peak >> 20} MiB: "
              f"{said[0][:120]}")
        assert seconds < 15 and peak < 4 * backup.MAX_LINE, (name, seconds, peak)
        assert _counts(target) == 0, name
        monkeypatch.undo()
    with target.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.mark.parametrize(("line", "refused"), [
    ("[" * 17 + "]" * 17, True),
    ("[" * 16 + "]" * 16, False),
    ("[" + ",".join(["[]"] * 16) + "]", True),  # many, none deep (millions fit in a line)
    ('["' + "[" * 100 + '"]', False),  # brackets in a string are text
    ('["\\"' + "[" * 100 + '"]', False),  # … after an escaped quote too
    ('["\\\\"' + ",[" * 17 + "]" * 17 + "]", True),  # … but an escaped backslash ends it
    ('["' + "[" * 100, False),  # a string left open runs to the end (and is not JSON)
    ('{"a":' * 17 + "1" + "}" * 17, True),
], ids=["17", "16", "17_side_by_side", "in_text", "escaped_quote", "escaped_backslash", "open_text",
        "objects"])
def test_lists_and_objects_are_counted_outside_strings(line, refused):
    from app.services.upkeep.backup import too_nested

    assert too_nested(line) is refused
    if not refused and line.endswith(("]", "}")):
        json.loads(line)  # (what is let through parses: the decoder recurses no deeper)


def _version_twice(file: Path, target: Path) -> Path:
    """The backup with its header's version given twice (3, then 2: a reader that keeps
    the last reads 2)."""
    lines = gzip.open(file, "rt", encoding="utf-8").read().split("\n")
    header = json.loads(lines[0])
    lines[0] = json.dumps(header, separators=(",", ":")).replace('"version":2',
                                                                  '"version":3,"version":2')
    assert lines[0].count('"version"') == 2
    with gzip.open(target, "wt", encoding="utf-8") as out:
        out.write("\n".join(lines))
    return target


def test_a_backups_version_is_a_whole_number_given_once(db_app, tmp_path, request):
    """``"version": 2.0`` and a version given twice were restored: the header's version is
    an integer, and no line of a backup gives a key twice."""
    file = _made(db_app, tmp_path)
    target = _target(db_app, tmp_path, request)
    runner = target.test_cli_runner()
    lines = _read(file)
    _header(lines).update(version=2.0)
    for edited, words in ((_write(lines, tmp_path / "float.gz"), "format version 2.0"),
                          (_version_twice(file, tmp_path / "twice.gz"),
                           'line 1 of the backup gives "version" twice')):
        refused = runner.invoke(cli, ["restore", str(edited)])
        said = refused.stderr.strip().splitlines()
        assert refused.exit_code == 1 and len(said) == 1, refused.output
        assert words in said[0], said[0]
        assert _counts(target) == 0
    done = runner.invoke(cli, ["restore", str(file)])  # the file as made restores
    assert done.exit_code == 0, done.output
