"""The ``tonk`` command: settle hands and balances from files (this module: it needs only
the domain core, so it starts at once), and everything that needs the app and its database
(:mod:`app.cli.commands`, loaded only when one of those runs: serve, db, check, backup,
restore, export, import, demo-data).

``tonk settle FILE`` reads one hand (a JSON object), a JSON list of hands, or JSON lines
(one hand a line), ``-`` for standard input, and prints each result as one line of JSON, or
with ``--explain`` as readable text. ``tonk transfers FILE`` does the same for balances. Bad
input: one line on standard error naming what is wrong, and a non-zero exit.
"""
from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Iterator
from typing import IO, Any

import click

from ..core import TonkError, parse_hand, settle
from ..core.messages import Message, as_sent, join_and
from ..core.money import loads
from ..core.settle import Result
from ..core.transfers import fewest_transfers, parse_balances
from ..i18n import LANGUAGES, speaking
from ..i18n import gettext as _

#: How a hand ended, as the pages name it (the same words, so one translation).
OUTCOMES = {
    "deal_win": "Won on the deal", "tonk_out": "Tonk out", "run_out": "Run out",
    "drop_won": "Drop won", "caught": "Caught drop", "stock_out": "Stock ran out",
    "draw": "Draw", "dead": "Dead hand",
}

def speaks(command: Callable[..., Any]) -> Callable[..., Any]:
    """A command that says what it says in the language of ``--lang``, else the
    environment's (LANG): its own lines, and every message of the app while it runs."""
    @click.option("--lang", type=click.Choice(LANGUAGES), default=None,
                  help="The language of what the command says (default: the environment's "
                       "LANG).")
    @functools.wraps(command)
    def speaking_command(*args: Any, lang: str | None, **kwargs: Any) -> Any:
        with speaking(lang):
            return command(*args, **kwargs)
    return speaking_command


class InputError(Exception):
    """Input the CLI cannot read; printed as one line on stderr."""


def read_documents(stream: IO[str]) -> Iterator[tuple[int, Any]]:
    """(line number, document) for each document of a JSON file, JSON list or JSON lines."""
    try:
        text = stream.read()
    except UnicodeDecodeError:
        raise InputError(_("the input is not UTF-8 text")) from None
    if not text.strip():
        raise InputError(_("the input is empty: give a hand as a JSON object"))
    try:
        whole = loads(text)
    except ValueError:
        whole = None
    except RecursionError:
        raise InputError(_("the input is nested too deeply to be a hand")) from None
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
            yield number, InputError(_("not valid JSON: %(error)s", error=exc))


def _explained(result: Result) -> str:
    """The outcome, then the explanation, which already ends with the net (or who is pushed
    up): said once."""
    outcome = _(OUTCOMES[result.outcome]) if result.outcome in OUTCOMES else result.outcome
    lines = [_("Outcome: %(outcome)s — %(winners)s", outcome=outcome,
               winners=join_and(result.winners)) if result.winners
             else _("Outcome: %(outcome)s", outcome=outcome)]
    lines += [f"  {sentence}" for sentence in result.explanation]
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
                click.echo("tonk: " + _("line %(number)s: %(error)s", number=number,
                                        error=f"{exc}{where}"), err=True)
    except InputError as exc:
        click.echo(f"tonk: {exc}", err=True)
        return 2
    return 1 if failed else 0


@click.command("settle")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@click.option("--explain", is_flag=True, help="Readable sentences instead of JSON.")
@speaks
def settle_command(file: IO[str], explain: bool) -> None:
    """Settle the hand(s) in FILE (- for standard input)."""
    def one(doc: Any) -> str:
        result = settle(parse_hand(doc))
        return _explained(result) if explain else json.dumps(result.to_json())
    sys.exit(_run(file, one))


@click.command("transfers")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@speaks
def transfers_command(file: IO[str]) -> None:
    """The fewest transfers for the balances in FILE: {"balances": {"Ann": "4.50", …}}."""
    def one(doc: Any) -> str:
        if not isinstance(doc, dict) or "balances" not in doc:
            raise InputError(_('give {"balances": {"Ann": "4.50", "Bob": "-4.50"}}'))
        unknown = sorted(str(key) for key in doc if key != "balances")
        if unknown:  # (the API's answer to a key it does not take)
            raise TonkError(Message("api.unknown_field", what="working out transfers",
                                    field_name=as_sent(unknown[0]), fields="balances"),
                            unknown[0])
        balances = parse_balances(doc["balances"])
        return json.dumps({"transfers": [
            {"from": t.payer, "to": t.payee, "amount": str(t.amount)}
            for t in fewest_transfers(balances)]})
    sys.exit(_run(file, one))


#: The commands that need nothing but the core.
CORE_COMMANDS = {"settle": settle_command, "transfers": transfers_command}
