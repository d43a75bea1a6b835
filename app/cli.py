"""The ``tonk`` command: settle hands and balances from files, run the app, export and
import leagues and sessions, and make a demo league.

``tonk settle FILE`` reads one hand (a JSON object), a JSON list of hands, or JSON lines
(one hand a line), ``-`` for standard input, and prints each result as one line of JSON, or
with ``--explain`` as readable text. ``tonk transfers FILE`` does the same for balances. Bad
input: one line on standard error naming what is wrong, and a non-zero exit.
"""
from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import IO, Any

import click
from flask.cli import FlaskGroup

from .core import TonkError, parse_hand, settle
from .core.money import loads
from .core.settle import Result, amount_formatter
from .core.transfers import fewest_transfers, parse_balances


class InputError(Exception):
    """Input the CLI cannot read; printed as one line on stderr."""


def read_documents(stream: IO[str]) -> Iterator[tuple[int, Any]]:
    """(line number, document) for each document of a JSON file, JSON list or JSON lines."""
    try:
        text = stream.read()
    except UnicodeDecodeError:
        raise InputError("the input is not UTF-8 text") from None
    if not text.strip():
        raise InputError("the input is empty: give a hand as a JSON object")
    try:
        whole = loads(text)
    except ValueError:
        whole = None
    except RecursionError:
        raise InputError("the input is nested too deeply to be a hand") from None
    if isinstance(whole, list):
        yield from ((i + 1, doc) for i, doc in enumerate(whole))
        return
    if whole is not None:
        yield 1, whole
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, loads(line)
        except (ValueError, RecursionError) as exc:
            yield number, InputError(f"not valid JSON: {exc}")


def _explained(result: Result) -> str:
    fmt = amount_formatter(result.hand.rules)
    lines = [f"Outcome: {result.outcome.replace('_', ' ')}"
             + (f" — {', '.join(result.winners)}" if result.winners else "")]
    lines += [f"  {sentence}" for sentence in result.explanation]
    if result.pushed is not None:
        lines += [f"  pushed {p}: {v}" for p, v in result.pushed.items()]
    else:
        assert result.net is not None
        lines += [f"  net {p}: {fmt(v)}" for p, v in result.net.items()]
    return "\n".join(lines)


def _run(stream: IO[str], one: Any) -> int:
    """Apply ``one`` to every document; print results, errors one line each on stderr."""
    failed = 0
    try:
        for number, doc in read_documents(stream):
            try:
                if isinstance(doc, InputError):
                    raise doc
                click.echo(one(doc))
            except (TonkError, InputError) as exc:
                failed += 1
                where = f" ({exc.field})" if isinstance(exc, TonkError) and exc.field else ""
                click.echo(f"tonk: line {number}: {exc}{where}", err=True)
    except InputError as exc:
        click.echo(f"tonk: {exc}", err=True)
        return 2
    return 1 if failed else 0


def _create_app() -> Any:
    from . import create_app

    return create_app()


@click.group(cls=FlaskGroup, create_app=_create_app, add_default_commands=True,
             help="Tonk Tally: settle hands of Tonk, settle up, and keep score.")
def cli() -> None:
    pass


@cli.command("settle")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@click.option("--explain", is_flag=True, help="Readable sentences instead of JSON.")
def settle_command(file: IO[str], explain: bool) -> None:
    """Settle the hand(s) in FILE (- for standard input)."""
    def one(doc: Any) -> str:
        result = settle(parse_hand(doc))
        return _explained(result) if explain else json.dumps(result.to_json())
    sys.exit(_run(file, one))


@cli.command("transfers")
@click.argument("file", type=click.File("r", encoding="utf-8"))
def transfers_command(file: IO[str]) -> None:
    """The fewest transfers for the balances in FILE: {"balances": {"Ann": "4.50", …}}."""
    def one(doc: Any) -> str:
        if not isinstance(doc, dict) or "balances" not in doc:
            raise InputError('give {"balances": {"Ann": "4.50", "Bob": "-4.50"}}')
        balances = parse_balances(doc["balances"])
        return json.dumps({"transfers": [
            {"from": t.payer, "to": t.payee, "amount": str(t.amount)}
            for t in fewest_transfers(balances)]})
    sys.exit(_run(file, one))


@cli.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; 0.0.0.0 lets phones on the same network in.")
@click.option("--port", default=5000, show_default=True, type=click.IntRange(1, 65535))
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 64))
@click.option("--proxy", is_flag=True,
              help="Behind a reverse proxy that terminates HTTPS: trust its X-Forwarded-* "
                   "headers, Secure cookies, HSTS (as TONK_PROXY=1).")
@click.option("--certfile", type=click.Path(exists=True, dir_okay=False),
              help="Serve HTTPS with this certificate (PEM); needs --keyfile.")
@click.option("--keyfile", type=click.Path(exists=True, dir_okay=False),
              help="The certificate's private key (PEM).")
def serve_command(host: str, port: int, workers: int, proxy: bool, certfile: str | None,
                  keyfile: str | None) -> None:
    """Bring the database up to date and serve the app (gunicorn)."""
    import os

    from flask_migrate import upgrade
    from gunicorn.app.base import BaseApplication

    if (certfile is None) != (keyfile is None):
        raise click.UsageError("give both --certfile and --keyfile, or neither")
    if proxy:
        os.environ["TONK_PROXY"] = "1"
    if certfile:
        os.environ["TONK_HTTPS"] = "1"
    app = _create_app()
    with app.app_context():
        upgrade()

    class Server(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            self.cfg.set("bind", f"{host}:{port}")
            self.cfg.set("workers", workers)
            self.cfg.set("threads", 4)
            self.cfg.set("accesslog", "-")
            if certfile:
                self.cfg.set("certfile", certfile)
                self.cfg.set("keyfile", keyfile)

        def load(self) -> Any:
            return app

    scheme = "https" if certfile else "http"
    click.echo(f"Tonk Tally is at {scheme}://{host}:{port}/  (Ctrl+C to stop)")
    Server().run()


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
def user_create(email: str, name: str, password_stdin: bool) -> None:
    """Make an account (e.g. the first one on a new server)."""
    from .accounts import AccountError, create_user
    from .extensions import db

    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True,
                                err=True)
    try:
        user = create_user(email, name, password)
    except AccountError as exc:
        db.session.rollback()
        _fail(f"{exc.message} ({exc.field})" if exc.field else exc.message)
    else:
        click.echo(f"Made the account {user.email} ({user.name}).")


@user_group.command("reset-password")
@click.argument("email")
@click.option("--url", "base_url", envvar="TONK_URL", default="http://127.0.0.1:5000",
              show_default=True, help="Where phones reach this server (or TONK_URL).")
def user_reset_password(email: str, base_url: str) -> None:
    """Print a one-time link, valid for an hour, that sets a new password for EMAIL."""
    from flask import current_app

    from .accounts import RESET_SECONDS, reset_token, user_by_email

    user = user_by_email(email)
    if user is None:
        _fail(f"there is no account with the email {email.strip()}")
        return
    token = reset_token(user, current_app.config["SECRET_KEY"])
    click.echo(f"{base_url.rstrip('/')}/reset/{token}")
    click.echo(f"Give this link to {user.email} only. It works once, for "
               f"{RESET_SECONDS // 60} minutes; using it signs the account out everywhere.",
               err=True)


# -- export, import and the demo league ----------------------------------------------------

def _account(email: str) -> Any:
    from sqlalchemy import select

    from .accounts import AccountError, normal_email
    from .extensions import db
    from .models import User

    try:
        address = normal_email(email)
    except AccountError as exc:
        raise click.UsageError(exc.message) from None
    user = db.session.scalar(select(User).where(User.email == address))
    if user is None:
        raise click.UsageError(f"there is no account {address}: sign up first")
    return user


@cli.command("export")
@click.option("--league", "league_id", type=int, help="The league's id (all its sessions).")
@click.option("--session", "session_id", type=int, help="One session's id.")
@click.option("--format", "what", type=click.Choice(["json", "hands-csv", "payments-csv"]),
              default="json", show_default=True,
              help="The whole document (JSON), or one row per hand or per payment (CSV).")
@click.option("-o", "--output", type=click.File("w", encoding="utf-8", lazy=True),
              default="-", help="Where to write it (default: standard output).")
def export_command(league_id: int | None, session_id: int | None, what: str,
                   output: IO[str]) -> None:
    """Export a league or a session: JSON to import again, or CSV for a spreadsheet."""
    from . import exchange
    from .extensions import db
    from .models import GameSession, League

    if (league_id is None) == (session_id is None):
        raise click.UsageError("give either --league ID or --session ID")
    if league_id is not None:
        league = db.session.get(League, league_id)
        if league is None:
            raise click.UsageError(f"there is no league {league_id}")
        ids = exchange.league_session_ids(league)
        document = exchange.export_league(league)
    else:
        gs = db.session.get(GameSession, session_id)
        if gs is None:
            raise click.UsageError(f"there is no session {session_id}")
        ids = [gs.id]
        document = exchange.export_session(gs)
    chunks = {"json": document, "hands-csv": exchange.hands_csv(ids),
              "payments-csv": exchange.payments_csv(ids)}[what]
    exchange.write_document(chunks, output)


@cli.command("import")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--owner", required=True, help="Email of the account that will own it all.")
@click.option("--jobs", type=click.IntRange(0, 64), default=None,
              help="Processes that check the hands while this one writes "
                   "(default: one per core, at most four; 0: none).")
def import_command(file: str, owner: str, jobs: int | None) -> None:
    """Import a JSON export (FILE, - for standard input): all or nothing, every hand checked
    again; sessions already here are skipped."""
    from . import exchange

    user = _account(owner)
    if file == "-":
        report = exchange.import_file(sys.stdin.buffer, user)
    else:
        try:
            report = exchange.import_path(file, user, jobs=jobs)
        except OSError as exc:
            raise click.UsageError(f"cannot read {file}: {exc.strerror}") from None
    for line in report.lines():
        click.echo(line, err=not report.ok)
    sys.exit(0 if report.ok else 1)


@cli.command("demo-data")
@click.option("--hands", type=click.IntRange(1, 10_000_000), default=100_000,
              show_default=True, help="How many hands the league holds in all.")
@click.option("--seed", type=int, default=1, show_default=True,
              help="The same seed and size make the same league.")
@click.option("--owner", default="demo@tonk-tally.example", show_default=True,
              help="Email of the owner; the account is made if it is not there.")
@click.option("--jobs", type=click.IntRange(0, 64), default=None,
              help="Processes that make and check sessions (default: one per core, at "
                   "most four; 0: none).")
def demo_data_command(hands: int, seed: int, owner: str, jobs: int | None) -> None:
    """Make a realistic demo league: two dozen players, seasons, thousands of sessions."""
    import time

    from flask_migrate import upgrade
    from sqlalchemy import inspect

    from . import demo, exchange
    from .accounts import AccountError
    from .extensions import db

    if not inspect(db.engine).has_table("users"):
        upgrade()
    try:
        user, password = demo.owner_account(owner)
    except AccountError as exc:
        raise click.UsageError(exc.message) from None
    started = time.perf_counter()
    report, facts = demo.make_demo(user, hands=hands, seed=seed,
                                   jobs=exchange.default_jobs() if jobs is None else jobs)
    if not report.ok:
        for line in report.lines():
            click.echo(line, err=True)
        sys.exit(1)
    seconds = time.perf_counter() - started
    if report.sessions == 0:
        click.echo(f"this demo league (seed {seed}, {hands} hands) is already here: "
                   "nothing added")
    else:
        click.echo(f"made {report.league_name} (league {report.league_id}) in "
                   f"{seconds:.1f} s:")
        for line in demo.describe(facts):
            click.echo(f"  {line}")
    click.echo(f"owner: {user.email}" + (f"  password: {password}" if password else
                                        "  (an account that was already there)"))


def main() -> None:
    cli.main(prog_name="tonk")
