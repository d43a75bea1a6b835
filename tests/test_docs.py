"""The README and docs/ say what the app does: their command examples run and print what
they show, their links lead somewhere, the worked hands of docs/rules.md are what the core
settles, and the README stays a two-minute read.

An example is a ```` ```console ```` block: each command starts with ``$ `` (a line ending in
``\\`` goes on to the next), and the lines after it, up to the next command, are what it
prints. ``.venv/bin/tonk`` runs as this Python's ``-m app``; ``curl`` asks a ``tonk serve``
started for the test instead of 127.0.0.1:5000.
"""
from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from app.core import TonkError, parse_hand, settle
from tests.hands import load_json
from tests.live import tonk_serve

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
RULES = ROOT / "docs" / "rules.md"

FENCE = re.compile(r"^```console\n(.*?)^```$", re.S | re.M)
LINK = re.compile(r"\]\(([^)\s]+)\)|<img src=\"([^\"]+)\"")
BASE = "127.0.0.1:5000"


def examples(page: Path) -> Iterator[tuple[str, str]]:
    """Each command of ``page``'s console blocks with what the page says it prints."""
    for block in FENCE.findall(page.read_text()):
        command: list[str] = []
        output: list[str] = []
        found: list[tuple[list[str], list[str]]] = []
        going_on = False
        for line in block.splitlines():
            if line.startswith("$ ") or going_on:
                if not going_on:
                    command, output = [line[2:]], []
                    found.append((command, output))
                else:
                    command.append(line)
                going_on = line.endswith("\\") or not complete("\n".join(command))
            else:
                output.append(line)
        for command, output in found:
            yield "\n".join(command), "\n".join(output)


def complete(command: str) -> bool:
    """Whether ``command`` closes every quote it opens (a quoted body may run over lines)."""
    try:
        shlex.split(command)
    except ValueError:
        return False
    return True


EXAMPLES = [(page.relative_to(ROOT).as_posix(), command, output)
            for page in PAGES for command, output in examples(page)]


def run(command: str, base: str | None = None) -> str:
    command = command.replace(".venv/bin/tonk", f'"{sys.executable}" -m app')
    if "curl " in command:
        assert base is not None and BASE in command, command
        command = command.replace(BASE, base.removeprefix("http://"))
    done = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    assert done.returncode == 0, done.stderr
    return done.stdout


def same(printed: str, shown: str) -> None:
    """What was printed is what the page shows: as JSON when it is JSON (the same values,
    whatever the spacing), else line for line."""
    try:
        expected = json.loads(shown)
    except ValueError:
        assert printed.rstrip("\n").splitlines() == shown.splitlines()
    else:
        assert json.loads(printed) == expected


def test_the_pages_show_the_commands_the_issue_names():
    commands = " ".join(command for _, command, _ in EXAMPLES)
    for wanted in ("tonk settle", "tonk transfers", "curl -s 127.0.0.1:5000/api/v1/settle"):
        assert wanted in commands
    assert all(output for _, _, output in EXAMPLES)


@pytest.mark.parametrize(("page", "command", "output"),
                         [e for e in EXAMPLES if "curl " not in e[1]],
                         ids=[f"{e[0]}:{e[1][:40]}" for e in EXAMPLES if "curl " not in e[1]])
def test_a_command_prints_what_the_page_shows(page, command, output):
    same(run(command), output)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    home = tmp_path_factory.mktemp("tonk-home")
    with tonk_serve(f"sqlite:///{home / 'tonk.sqlite'}", workers=1,
                    env={"TONK_HOME": str(home)}) as server:
        yield server


@pytest.mark.server
def test_the_api_answers_what_the_pages_show(served):
    asked = [e for e in EXAMPLES if "curl " in e[1]]
    assert asked
    for _page, command, output in asked:
        same(run(command, served.base), output)
    assert served.errors() == []


def anchors(page: Path) -> set[str]:
    """The anchors GitHub makes of ``page``'s headings."""
    out = set()
    for heading in re.findall(r"^#+ (.+)$", page.read_text(), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        out.add(slug)
    return out


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_relative_link_leads_somewhere(page):
    text = FENCE.sub("", page.read_text())
    text = re.sub(r"^```.*?^```$", "", text, flags=re.S | re.M)
    for match in LINK.finditer(text):
        target = match.group(1) or match.group(2)
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        assert file.exists(), f"{page.name}: {target}"
        if anchor:
            assert anchor in anchors(file), f"{page.name}: {target}"


#: A file or folder of the project cited in a page (``app/web/shared/site.py``), or a name in
#: a module (``tests/browser/helpers.PROVEN_BEFORE``).
CITED = re.compile(r"`((?:app|tests|scripts|docs|benchmarks|migrations|translations)/[\w/.-]*)`")


def _exists(cited: str) -> bool:
    module, _, _name = cited.rpartition(".")
    return (ROOT / cited).exists() or (ROOT / f"{module}.py").is_file()


def test_no_page_cites_a_file_the_project_does_not_have():
    for page in PAGES:
        text = page.read_text()
        assert "RULES.md" not in text and "STYLE.md" not in text, page
        # the one shared/ folder is the pages' (app/web/shared/, under web/ in the map)
        assert all("web/shared/" in line or line.startswith(" " * 8 + "shared/")
                   for line in text.splitlines() if "shared/" in line), page
        missing = [cited for cited in CITED.findall(text) if not _exists(cited)]
        assert not missing, (page, missing)
    assert _exists("app/web/shared/site.py") and not _exists("app/web/site.py")
    assert len([c for page in PAGES for c in CITED.findall(page.read_text())]) > 100


def test_the_readme_is_a_two_minute_read():
    assert README.stat().st_size <= 16 * 1024
    text = README.read_text()
    start = ("python3 -m venv .venv && .venv/bin/pip install -c requirements.lock -e . && "
             ".venv/bin/tonk serve")
    assert text.index(start) < text.index("bash scripts/test.sh") < text.index("## What it does")


def signed(amount: Decimal | int) -> str:
    return f"+{amount}" if amount > 0 else str(amount).replace("-", "−")


def described(hand: dict[str, Any]) -> str:
    rules = hand.get("rules", "pagat")
    parts = [f"`{rules}`" if isinstance(rules, str) else f"`{json.dumps(rules)}`",
             f"stake {hand['stake']}"]
    if hand.get("multiplier", 1) != 1:
        parts.append(f"× {hand['multiplier']}")
    players = hand.get("players", [])
    dealer = hand.get("dealer", players[0] if players else "")
    parts.append(", ".join(players) + (f" ({dealer} deals)" if players else ""))
    parts.append(f"`{json.dumps(hand['end'])}`")
    if hand.get("counts"):
        parts.append("counts " + ", ".join(f"{p} {c}" for p, c in hand["counts"].items()))
    for player, cards in hand.get("cards", {}).items():
        parts.append(f"{player} holds {' '.join(cards)}")
    return "; ".join(parts)


def worked_hands() -> str:
    """docs/rules.md's tables of worked hands, settled by the core now."""
    won = ["| hand | the hand | outcome: winners | each player's net (pushed up, under push-ups) |",
           "| --- | --- | --- | --- |"]
    refused = ["| hand | the hand | refused with |", "| --- | --- | --- |"]
    for case in load_json("examples.json") + load_json("rule_changes.json"):
        hand = case["hand"]
        try:
            result = settle(parse_hand(hand))
        except TonkError as error:
            refused.append(f"| {case['name']} | {described(hand)} | {error} |")
            continue
        if result.pushed is not None:
            moved = ", ".join(f"{p} {v}" for p, v in result.pushed.items())
        else:
            assert result.net is not None
            moved = ", ".join(f"{p} {signed(v)}" for p, v in result.net.items())
        won.append(f"| {case['name']} | {described(hand)} | {result.outcome}: "
                   f"{', '.join(result.winners) or 'nobody'} | {moved} |")
    return "\n".join([*won, "", "And hands the core refuses, with what it says:", "", *refused, ""])


def test_the_worked_hands_are_what_the_core_settles():
    assert worked_hands() in RULES.read_text()
