"""The ``tonk`` command's entry point (also ``python -m app``): ``settle`` and ``transfers``
need only the core (:mod:`app.cli`) and start at once; every other command loads the app's
(:mod:`app.cli.commands`)."""
from __future__ import annotations

import sys

from .cli import CORE_COMMANDS


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else ""
    if name in CORE_COMMANDS:
        CORE_COMMANDS[name].main(args=sys.argv[2:], prog_name=f"tonk {name}")
    from .cli.commands import cli

    cli.main(prog_name="tonk")


if __name__ == "__main__":
    main()
