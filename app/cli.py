"""The ``tonk`` command: settle hands and balances from files, and run the app.

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
def serve_command(host: str, port: int, workers: int) -> None:
    """Bring the database up to date and serve the app (gunicorn)."""
    from flask_migrate import upgrade
    from gunicorn.app.base import BaseApplication

    app = _create_app()
    with app.app_context():
        upgrade()

    class Server(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            self.cfg.set("bind", f"{host}:{port}")
            self.cfg.set("workers", workers)
            self.cfg.set("threads", 4)
            self.cfg.set("accesslog", "-")

        def load(self) -> Any:
            return app

    click.echo(f"Tonk Tally is at http://{host}:{port}/  (Ctrl+C to stop)")
    Server().run()


def main() -> None:
    cli.main(prog_name="tonk")
