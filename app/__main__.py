"""The ``tonk`` command's entry point (also ``python -m app``): ``settle`` and ``transfers``
need only the core (:mod:`app.cli`) and start at once; every other command loads the app's
(:mod:`app.cli.commands`)."""
from __future__ import annotations

import sys
from typing import Any, NoReturn

import click

from .cli import CORE_COMMANDS


def run(command: click.Command, **how: Any) -> NoReturn:
    """Run ``command`` as click does, except that input it refuses (a missing option, an
    unknown league, an unreadable file) is one line on stderr, ``tonk: …``, like every other
    refusal of tonk's, rather than click's usage, hint and error lines."""
    try:
        done = command.main(standalone_mode=False, **how)
    except click.ClickException as exc:
        click.echo(f"tonk: {exc.format_message()}", err=True)
        sys.exit(exc.exit_code)
    except click.Abort:
        click.echo("tonk: stopped", err=True)
        sys.exit(1)
    sys.exit(done if isinstance(done, int) else 0)


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else ""
    if name in CORE_COMMANDS:
        run(CORE_COMMANDS[name], args=sys.argv[2:], prog_name=f"tonk {name}")
    from .cli.commands import cli

    run(cli, prog_name="tonk")


if __name__ == "__main__":
    main()
