"""Write the docs' tables of rule options, catch schemes and presets from their registries
(``OPTIONS`` and ``PRESETS`` in app/core/rules.py, app/core/catches.py), so that an option, a
scheme or a preset declared there is in docs/rules.md (§3, §5, §7) and docs/house-rules.md
with nothing written by hand:
``.venv/bin/python scripts/rule_tables.py`` rewrites what stands between each
``<!-- rule_tables: NAME -->`` line and the next ``<!-- /rule_tables -->``; with ``--check``
it changes nothing and exits 1 when a page is not what it would write
(tests/test_rule_tables.py asks the same).
"""
from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

from app.core.catches import CATCH_SCHEMES, EXAMPLE_PLAYERS, CatchScheme
from app.core.messages import in_english
from app.core.rules import OPTIONS, PRESETS, Option, Preset

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


def _value(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return f"`{value}`"
    if isinstance(value, tuple):  # the deal wins, best first
        return "[" + ", ".join(f"{w.describe()} pays {w.pays}" for w in value) + "]"
    return str(value)


def _default(option: Option) -> str:
    """An option's default as its JSON (``null`` where it has none)."""
    default = option.default
    if isinstance(default, tuple):  # the deal wins
        return "`" + json.dumps([win.to_json() for win in default]) + "`"
    return "null" if default is None else f"`{default}`" if isinstance(default, str) \
        else str(default)


def option_values() -> list[str]:
    """docs/rules.md §3: each option, the values it takes, its default and its sources."""
    return ["| option | values | default (= `pagat`) | source |", "| --- | --- | --- | --- |",
            *(f"| `{o.name}` | {o.values} | {_default(o)} | {o.source} |"
              for o in OPTIONS.values())]


def _accepts(option: Option) -> str:
    if option.accepts is None:  # a list of choices
        return ", ".join(f"`{choice}`" for choice in option.choices or ())
    return option.accepts + ("" if option.default is None else f" ({_default(option)})")


def option_summaries() -> list[str]:
    """docs/house-rules.md: each option, its values in short and what it changes."""
    return ["| option | choices (default = pagat) | what it changes |", "| --- | --- | --- |",
            *(f"| `{o.name}` | {_accepts(o)} | {o.changes} |" for o in OPTIONS.values())]


def _changes(preset: Preset) -> str:
    rules = preset.rules
    return "; ".join(f"`{name}` {_value(getattr(rules, name))}"
                     for name in preset.changes) or "none"


def preset_changes() -> list[str]:
    """docs/rules.md §7: each preset's changes to pagat, option by option, and its text."""
    with in_english():
        return ["| preset | changes | source |", "| --- | --- | --- |",
                *(f"| `{p.name}` | {_changes(p)} | {p.source} |" for p in PRESETS.values())]


def preset_summaries() -> list[str]:
    """docs/house-rules.md: each preset in the words the forms show for it."""
    with in_english():
        return ["| preset | in short |", "| --- | --- |",
                *(f"| `{p.name}` | {p.summary} |" for p in PRESETS.values())]


#: Each generated table by the name its page's marker gives it.
TABLES: dict[str, Callable[[], list[str]]] = {
    "option_values": option_values,
    "option_summaries": option_summaries,
    "catch_formulas": catch_formulas,
    "catch_summaries": catch_summaries,
    "preset_changes": preset_changes,
    "preset_summaries": preset_summaries,
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
