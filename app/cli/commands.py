"""The ``tonk`` commands that need the app and its database: serve it, bring its schema up
to date (``db``), check, back up and restore what it stores, export and import leagues and
sessions, and make a demo league; with the core's ``settle`` and ``transfers``
(:mod:`app.cli`) beside them. Bad input: one line on standard error, a non-zero exit.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import click
from flask.cli import FlaskGroup
from flask_migrate.cli import db as migrations

from ..i18n import gettext as _
from ..i18n import ngettext
from . import CORE_COMMANDS, speaks
from .files import files_warning
from .serving import (
    BACKLOG,
    CONNECTIONS,
    STOP_SECONDS,
    addresses,
    check_free,
    database_shown,
    header_seconds,
    room_for,
    worker_app,
)

if TYPE_CHECKING:
    from ..services.exchange import ImportReport

#: Who owns the demo league unless told (app.services.exchange.demo's own default).
DEMO_OWNER = "demo@tonk-tally.example"


def _create_app(config: dict[str, Any] | None = None) -> Any:
    from .. import create_app

    return create_app(config)


class _Tonk(FlaskGroup):
    """Flask's command group, which lists its commands without building the app (so that
    ``tonk --help`` writes nothing: no secret key, no database). Flask's own commands and
    its app loader's options are for developers: they work, unlisted (a newcomer read
    ``tonk --help`` as Flask's)."""

    _UNLISTED = ("run", "shell", "routes", "limiter")

    def __init__(self, **extra: Any) -> None:
        super().__init__(**extra)
        for param in self.params:
            if param.name in ("env_file", "app"):  # (the app is always Tonk Tally's)
                param.hidden = True  # type: ignore[attr-defined]

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load_plugin_commands()
        for name in self._UNLISTED:
            if name in self.commands:
                self.commands[name].hidden = True
        return sorted(self.commands)


@click.group(cls=_Tonk, create_app=_create_app, add_default_commands=True,
             add_version_option=False,
             help="Tonk Tally: settle hands of Tonk, settle up, and keep score.")
@click.version_option(package_name="tonk-tally", prog_name="Tonk Tally",
                      message="%(prog)s %(version)s")
def cli() -> None:
    pass


for _command in CORE_COMMANDS.values():
    cli.add_command(_command)
cli.add_command(migrations)  # here, not through the app: `tonk db --help` builds nothing


@cli.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; 0.0.0.0 lets phones on the same network in.")
@click.option("--port", default=5000, show_default=True, type=click.IntRange(1, 65535))
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 64),
              help="Processes (one per core is plenty: each serves many phones at once).")
@click.option("--proxy", is_flag=True,
              help="Behind a reverse proxy that terminates HTTPS: trust its X-Forwarded-* "
                   "headers, Secure cookies, HSTS (as TONK_PROXY=1).")
@click.option("--certfile", type=click.Path(exists=True, dir_okay=False),
              help="Serve HTTPS with this certificate (PEM); needs --keyfile.")
@click.option("--keyfile", type=click.Path(exists=True, dir_okay=False),
              help="The certificate's private key (PEM, PKCS#8: 'BEGIN PRIVATE KEY').")
def serve_command(host: str, port: int, workers: int, proxy: bool, certfile: str | None,
                  keyfile: str | None) -> None:
    """Bring the database up to date and serve the app (granian).

    granian reads every connection in its own event loop, without tying up a thread: a
    client that takes longer than HEADER_SECONDS (or ``TONK_HEADER_SECONDS``) over its
    headers is cut off (a connection that sends nothing too, and one idle that long after
    its last answer: HTTP/1 only, since granian's HTTP/2 detection waits for a first byte
    without a timeout), and a request reaches the app's threads only once its whole body
    is in (:mod:`app.http.bodies`), so slow or stalled phones cannot hold the threads that
    answer everyone else. A worker process that dies is replaced, and the others answer
    meanwhile. (Chosen by measurement over waitress, uvicorn, Hypercorn and gunicorn:
    benchmarks/bench_servers.py, and docs/running.md for the table.)

    Each worker builds its own app (:func:`worker_app`), so ``--proxy`` and ``--certfile``
    reach it as the factory's configuration: ``TONK_PROXY`` and ``TONK_HTTPS`` as
    :func:`app.config.transport_config` makes them (the environment's too), never by
    changing the environment."""
    from functools import partial

    from granian.constants import HTTPModes, Interfaces
    from granian.http import HTTP1Settings
    from granian.server import Server

    from ..config import transport_config
    from ..extensions import db

    if (certfile is None) != (keyfile is None):
        raise click.UsageError("give both --certfile and --keyfile, or neither")
    transport = transport_config(proxy=proxy, https=certfile is not None)
    check_free(host, port)
    header = header_seconds()
    app = _create_app(transport)
    with app.app_context():
        upgrade_quietly(fresh_only=False)
        db.engine.dispose()  # the workers open their own connections
    server = Server(
        "app:create_app", address=host, port=port, interface=Interfaces.ASGINL,
        workers=workers, websockets=False, http=HTTPModes.http1,
        backlog=BACKLOG, backpressure=room_for(CONNECTIONS),
        http1_settings=HTTP1Settings(header_read_timeout=header * 1000,
                                     keep_alive=True),
        log_access=True, respawn_failed_workers=True, respawn_interval=0.5,
        workers_kill_timeout=STOP_SECONDS,
        ssl_cert=None if certfile is None else Path(certfile),
        ssl_key=None if keyfile is None else Path(keyfile))
    click.echo("Tonk Tally is at " + "  or  ".join(
        addresses("https" if certfile else "http", host, port)) + "  (Ctrl+C to stop)")
    click.echo(_("Its data: %(database)s (the secret key that signs sign-ins in %(folder)s)",
                 database=database_shown(app.config["SQLALCHEMY_DATABASE_URI"]),
                 folder=app.instance_path))
    if (warning := files_warning(app)) is not None:
        click.echo(warning, err=True)
    if host not in ("127.0.0.1", "::1", "localhost") and not (certfile or proxy):
        click.echo(_("Phones reach it over plain HTTP: they can keep score, but they keep "
                     "nothing for a lost signal (a browser gives offline pages only to HTTPS "
                     "sites) and anyone on the network can read what they send. Give "
                     "--certfile and --keyfile, or serve behind --proxy."), err=True)
    server.serve(target_loader=partial(worker_app, transport))


# -- accounts ------------------------------------------------------------------------------

@cli.group("user")
def user_group() -> None:
    """Accounts: make the first one, or a password-reset link (this server sends no email)."""


def _fail(message: str) -> None:
    click.echo(f"tonk: {message}", err=True)
    sys.exit(1)


@user_group.command("create")
@click.option("--email", required=True, help="The account's email (it signs in with it).")
@click.option("--name", required=True, help="The name the pages show.")
@click.option("--password-stdin", is_flag=True,
              help="Read the password from standard input instead of asking for it.")
@speaks
def user_create(email: str, name: str, password_stdin: bool) -> None:
    """Make an account (e.g. the first one on a new server)."""
    from ..db.unit import unit_of_work
    from ..services.accounts import AccountError, create_user

    upgrade_quietly()
    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = click.prompt(_("Password"), hide_input=True, err=True,
                                confirmation_prompt=_("Repeat for confirmation"))
    try:
        with unit_of_work():
            user = create_user(email, name, password)
    except AccountError as exc:
        _fail(f"{exc.message} ({exc.field})" if exc.field else exc.message)
    else:
        click.echo(_("Made the account %(email)s (%(name)s).", email=user.email,
                     name=user.name))


@user_group.command("reset-password")
@click.argument("email")
@click.option("--url", "base_url",
              help="Where phones reach this server (default: TONK_URL, else "
                   "http://127.0.0.1:5000).")
@speaks
def user_reset_password(email: str, base_url: str | None) -> None:
    """Print a one-time link, valid for an hour, that sets a new password for EMAIL."""
    from flask import current_app

    from ..config import public_url

    base_url = base_url or public_url()
    from ..services.accounts import RESET_SECONDS, reset_token, user_by_email

    upgrade_quietly()
    user = user_by_email(email)
    if user is None:
        _fail(_("there is no account with the email %(email)s", email=email.strip()))
        return
    token = reset_token(user, current_app.config["SECRET_KEY"])
    click.echo(f"{base_url.rstrip('/')}/reset/{token}")
    click.echo(_("Give this link to %(email)s only. It works once, for %(minutes)s minutes; "
                 "using it signs the account out everywhere.", email=user.email,
                 minutes=RESET_SECONDS // 60), err=True)


# -- export, import and the demo league ----------------------------------------------------

def _account(email: str) -> Any:
    from sqlalchemy import select

    from ..db.models import User
    from ..extensions import db
    from ..services.accounts import AccountError, normal_email

    try:
        address = normal_email(email)
    except AccountError as exc:
        raise click.UsageError(exc.message) from None
    user = db.session.scalar(select(User).where(User.email == address))
    if user is None:
        raise click.UsageError(_("there is no account %(email)s: sign up on the app's page, "
                                 "or make one with: tonk user create --email EMAIL --name "
                                 "NAME", email=address))
    return user


@cli.command("export")
@click.option("--league", "league_id", type=int, help="The league's id (all its sessions).")
@click.option("--session", "session_id", type=int, help="One session's id.")
@click.option("--format", "what", type=click.Choice(["json", "hands-csv", "payments-csv"]),
              default="json", show_default=True,
              help="The whole document (JSON), or one row per hand or per payment (CSV).")
@click.option("-o", "--output", type=click.File("w", encoding="utf-8", lazy=True),
              default="-", help="Where to write it (default: standard output).")
@speaks
def export_command(league_id: int | None, session_id: int | None, what: str,
                   output: IO[str]) -> None:
    """Export a league or a session: JSON to import again, or CSV for a spreadsheet."""
    from ..db.models import GameSession, League
    from ..extensions import db
    from ..services import exchange

    if (league_id is None) == (session_id is None):
        raise click.UsageError(_("give either --league ID or --session ID"))
    upgrade_quietly()
    if league_id is not None:
        league = db.session.get(League, league_id)
        if league is None:
            raise click.UsageError(_("there is no league %(id)s", id=league_id))
        ids = exchange.league_session_ids(league)
        document = exchange.export_league(league)
    else:
        gs = db.session.get(GameSession, session_id)
        if gs is None:
            raise click.UsageError(_("there is no session %(id)s", id=session_id))
        ids = [gs.id]
        document = exchange.export_session(gs)
    chunks = {"json": document, "hands-csv": exchange.hands_csv(ids),
              "payments-csv": exchange.payments_csv(ids)}[what]
    exchange.write_document(chunks, output)


@cli.group("event")
def event_group() -> None:
    """Tournaments: export one (the pages and the API run them)."""


@event_group.command("export")
@click.argument("event_id", type=int)
@click.option("--format", "what", type=click.Choice(["json", "standings-csv"]),
              default="json", show_default=True,
              help="The whole event (JSON: settings, players, rounds, every table's hands, "
                   "standings, prizes), or the standings with the prizes (CSV).")
@click.option("-o", "--output", type=click.File("w", encoding="utf-8", lazy=True),
              default="-", help="Where to write it (default: standard output).")
@speaks
def event_export_command(event_id: int, what: str, output: IO[str]) -> None:
    """Export the event EVENT_ID."""
    import json

    from ..db.models import Event
    from ..extensions import db
    from ..services import events

    upgrade_quietly()
    event = db.session.get(Event, event_id) if 0 < event_id < 2**31 else None
    if event is None:
        _fail(_("there is no event %(id)s", id=event_id))
        return
    if what == "json":
        output.write(json.dumps(events.export_event(event), ensure_ascii=False, indent=1))
        output.write("\n")
    else:
        for chunk in events.standings_csv(event):
            output.write(chunk)


def _cannot_read(file: str, exc: OSError) -> str:
    return _("cannot read %(file)s: %(error)s", file=file, error=exc.strerror)


def report_lines(report: ImportReport) -> list[str]:
    """An import's report as lines, in the words of the import page."""
    if not report.ok:
        out = [_("Nothing was imported.") + " " + ngettext(
            "There is %(num)s problem:", "There are %(num)s problems:",
            len(report.problems) + report.more_problems), *report.problems]
        if report.more_problems:
            out.append(_("… and %(num)s more", num=report.more_problems))
        return out
    out = [ngettext("Imported %(num)s session", "Imported %(num)s sessions", report.sessions)
           + " · " + ngettext("%(num)s hand", "%(num)s hands", report.hands)]
    if report.league_name is not None:
        into = (_("A new league: %(name)s.", name=report.league_name) if report.league_created
                else _("Into the league %(name)s.", name=report.league_name))
        out.append(f"{into} (id {report.league_id})")
    if report.skipped:
        out.append(ngettext("%(num)s session was already here and is skipped:",
                            "%(num)s sessions were already here and are skipped:",
                            len(report.skipped)))
        out += [f"  {s}" for s in report.skipped[:10]]
        if len(report.skipped) > 10:
            out.append("  " + _("… and %(num)s more", num=len(report.skipped) - 10))
    return out


@cli.command("import")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--owner", required=True, help="Email of the account that will own it all.")
@click.option("--jobs", type=click.IntRange(0, 64), default=None,
              help="Processes that check the hands while this one writes "
                   "(default: one per core, at most four; 0: none).")
@speaks
def import_command(file: str, owner: str, jobs: int | None) -> None:
    """Import a JSON export (FILE, - for standard input): all or nothing, every hand checked
    again; sessions already here are skipped."""
    from ..db.unit import unit_of_work
    from ..services import exchange

    upgrade_quietly()
    user = _account(owner)
    # the write lock is taken only once every hand is checked (by the import itself)
    with unit_of_work(begin=False):
        if file == "-":
            report = exchange.import_file(sys.stdin.buffer, user)
        else:
            try:
                report = exchange.import_path(file, user, jobs=jobs)
            except OSError as exc:
                raise click.UsageError(_cannot_read(file, exc)) from None
    for line in report_lines(report):
        click.echo(line, err=not report.ok)
    sys.exit(0 if report.ok else 1)


@cli.command("demo-data")
@click.option("--hands", type=click.IntRange(1, 10_000_000), default=100_000,
              show_default=True, help="How many hands the league holds in all.")
@click.option("--seed", type=int, default=1, show_default=True,
              help="The same seed and size make the same league.")
@click.option("--owner", default=DEMO_OWNER, show_default=True,
              help="Email of the owner; the account is made if it is not there.")
@click.option("--jobs", type=click.IntRange(0, 64), default=None,
              help="Processes that make and check sessions (default: one per core, at "
                   "most four; 0: none).")
@speaks
def demo_data_command(hands: int, seed: int, owner: str, jobs: int | None) -> None:
    """Make a realistic demo league: two dozen players, seasons, thousands of sessions."""
    import time

    from ..db.unit import unit_of_work
    from ..services import exchange
    from ..services.accounts import AccountError

    upgrade_quietly()
    try:
        with unit_of_work():
            user, password = exchange.owner_account(owner)
    except AccountError as exc:
        raise click.UsageError(exc.message) from None
    started = time.perf_counter()
    with unit_of_work(begin=False):  # (the import takes the write lock once all is made)
        report, facts = exchange.make_demo(user, hands=hands, seed=seed,
                                       jobs=exchange.default_jobs() if jobs is None else jobs)
    if not report.ok:
        for line in report_lines(report):
            click.echo(line, err=True)
        sys.exit(1)
    seconds = time.perf_counter() - started
    if report.sessions == 0:
        click.echo(_("this demo league (seed %(seed)s, %(hands)s hands) is already here: "
                     "nothing added", seed=seed, hands=hands))
    else:
        click.echo(_("made %(league)s (league %(id)s) in %(seconds)s s:",
                     league=report.league_name, id=report.league_id,
                     seconds=f"{seconds:.1f}"))
        for line in exchange.describe_demo(facts):
            click.echo(f"  {line}")
    click.echo(_("owner: %(email)s  password: %(password)s", email=user.email,
                 password=password) if password else
               _("owner: %(email)s  (an account that was already there)", email=user.email))


# -- the stored data: check, backup, restore -------------------------------------------------

def upgrade_quietly(*, fresh_only: bool = True) -> None:
    """Bring the database up to date in one line of the command's own on stderr, instead of
    Alembic's line per migration: a fresh database gets its tables (so no command meets a
    missing table); with ``fresh_only`` false, an older one is upgraded too."""
    from alembic.runtime.migration import MigrationContext
    from flask import current_app
    from flask_migrate import upgrade
    from sqlalchemy import inspect

    from ..extensions import db

    def revision() -> str | None:
        with db.engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()

    fresh = not inspect(db.engine).has_table("users")
    if fresh_only and not fresh:
        return
    before = None if fresh else revision()
    current_app.config["QUIET_MIGRATIONS"] = True
    try:
        upgrade()
    finally:
        current_app.config["QUIET_MIGRATIONS"] = False
    after = revision()
    if fresh:
        click.echo("tonk: " + _("made a new database (schema %(schema)s)", schema=after),
                   err=True)
    elif before != after:
        click.echo("tonk: " + _("upgraded the database from schema %(before)s to %(after)s",
                                before=before, after=after), err=True)


@cli.command("check")
@speaks
def check_command() -> None:
    """Check every invariant of the stored data (totals equal the hands and sum to zero,
    hand numbers without gaps, complete histories, player records, payments): print what is
    wrong and exit 1, or say all is well."""
    from ..db.storage import snapshot
    from ..services.upkeep import problems

    upgrade_quietly()
    with snapshot():  # one state of the database, however many write meanwhile
        found = problems()
    for problem in found:
        click.echo(problem)
    if found:
        sys.exit(1)
    click.echo(_("all well: every total equals its hands, every session sums to zero"))


@cli.command("backup")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True, path_type=str))
@speaks
def backup_command(file: str) -> None:
    """Write the whole database to FILE (- for standard output): a .gz file that `tonk
    restore` reads into an empty SQLite or PostgreSQL database. On SQLite, a FILE ending in
    .sqlite is an online copy of the live file instead."""
    from pathlib import Path

    from ..services.upkeep import BackupError, backup_to, copy_sqlite, dump

    try:
        if file.endswith((".sqlite", ".sqlite3", ".db")):
            copy_sqlite(Path(file))
            click.echo(_("copied the database to %(file)s", file=file), err=True)
            return
        if file == "-":
            rows = dump(sys.stdout.buffer)
        else:
            rows = backup_to(Path(file))
    except BackupError as exc:
        raise click.ClickException(exc.message) from None
    except OSError as exc:
        raise click.ClickException(_("cannot write %(file)s: %(error)s", file=file,
                                     error=exc.strerror)) from None
    click.echo(ngettext("backed up %(num)s row to %(file)s", "backed up %(num)s rows to %(file)s",
                        rows, file=file), err=True)


@cli.command("restore")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True, path_type=str))
@speaks
def restore_command(file: str) -> None:
    """Restore a backup made by `tonk backup` into this database, which must be empty (its
    tables are made first if need be): all or nothing."""
    from sqlalchemy.exc import DBAPIError

    from ..db.unit import unit_of_work
    from ..services.upkeep import BackupError, restore

    upgrade_quietly()
    try:
        with unit_of_work():
            if file == "-":
                rows = restore(sys.stdin.buffer)
            else:
                with open(file, "rb") as stream:
                    rows = restore(stream)
    except BackupError as exc:
        raise click.ClickException(exc.message) from None
    except OSError as exc:
        raise click.ClickException(_cannot_read(file, exc)) from None
    except DBAPIError as exc:  # (rows are named as they go in: this is the commit's)
        first = str(exc.orig).strip().splitlines()[0] if exc.orig else type(exc).__name__
        raise click.ClickException(_("nothing was restored: the database refused it "
                                     "(%(error)s)", error=first)) from None
    click.echo(ngettext("restored %(num)s row from %(file)s",
                        "restored %(num)s rows from %(file)s", rows, file=file), err=True)
