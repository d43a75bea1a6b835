"""Write the docs' tables of catch schemes from the registry (app/core/catches.py), so that a
scheme registered there is in docs/rules.md §5 and docs/house-rules.md with nothing written
by hand: ``.venv/bin/python scripts/rule_tables.py`` rewrites what stands between each
``<!-- rule_tables: NAME -->`` line and the next ``<!-- /rule_tables -->``; with
``--check`` it changes nothing and exits 1 when a page is not what it would write
(tests/test_rule_tables.py asks the same).
"""
from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from app.core.catches import CATCH_SCHEMES, EXAMPLE_PLAYERS, CatchScheme
from app.core.messages import in_english

DOCS = Path(__file__).resolve().parents[1] / "docs"
BLOCK = re.compile(r"(<!-- rule_tables: (\w+) -->\n)(.*?)(<!-- /rule_tables -->)", re.S)


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else f"−{-n}" if n < 0 else "0"


def _example(scheme: CatchScheme) -> str:
    ex = scheme.example
    counts = ", ".join(f"{p} {c}" for p, c in zip(EXAMPLE_PLAYERS, ex.counts, strict=True))
    net = ", ".join(f"{p} {_signed(n)}" for p, n in zip(EXAMPLE_PLAYERS, ex.net, strict=True))
    return f"{counts}: {net}"


def catch_formulas() -> list[str]:
    """docs/rules.md §5: each scheme in the section's letters, what it reads, an example."""
    return ["| `catch` | payments | reading | example: stake 1, Dee deals, "
            f"{EXAMPLE_PLAYERS[0]} drops |",
            "| --- | --- | --- | --- |",
            *(f"| `{s.name}` | {s.formula} | {s.citation} | {_example(s)} |"
              for s in CATCH_SCHEMES.values())]


def catch_summaries() -> list[str]:
    """docs/house-rules.md: each scheme in the words the forms show for it."""
    with in_english():
        return ["| `catch` | payments |", "| --- | --- |",
                *(f"| `{s.name}` | {s.summary} |" for s in CATCH_SCHEMES.values())]


#: Each generated table by the name its page's marker gives it.
TABLES: dict[str, Callable[[], list[str]]] = {
    "catch_formulas": catch_formulas,
    "catch_summaries": catch_summaries,
}
PAGES = (DOCS / "rules.md", DOCS / "house-rules.md")


def rendered(text: str) -> str:
    """``text`` with every marked table written anew."""
    return BLOCK.sub(lambda m: m[1] + "\n".join(TABLES[m[2]]()) + "\n" + m[4], text)


def main(argv: list[str]) -> int:
    stale = []
    for page in PAGES:
        text = page.read_text()
        new = rendered(text)
        if new != text:
            stale.append(page.name)
            if "--check" not in argv:
                page.write_text(new)
    if stale and "--check" in argv:
        print("not as scripts/rule_tables.py writes it: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
