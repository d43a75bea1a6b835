"""One name for one thing in ``app/``: no two classes share a name (the stored hand is
``Hand``, the core's value ``PlayedHand``), and no package holds a module beside its plural
(``core/rule_card.py``, a rule set's card, beside ``core/cards.py``, the decks), so that a
name found in a traceback, a diff or a search leads to one place."""
from __future__ import annotations

import ast
import pathlib
from collections import defaultdict

APP = pathlib.Path(__file__).resolve().parent.parent / "app"


def test_no_two_classes_in_app_share_a_name():
    where: dict[str, list[str]] = defaultdict(list)
    for path in sorted(APP.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                where[node.name].append(f"{path.relative_to(APP.parent)}:{node.lineno}")
    twice = {name: places for name, places in where.items() if len(places) > 1}
    assert not twice, twice
    assert "Hand" in where and "PlayedHand" in where  # (it read the app's classes)


def test_no_package_holds_a_module_beside_its_plural():
    pairs = []
    for folder in [APP, *(p for p in APP.rglob("*") if p.is_dir())]:
        names = {p.stem for p in folder.glob("*.py")} | {
            p.name for p in folder.iterdir() if p.is_dir() and p.name != "__pycache__"}
        pairs += [f"{folder.relative_to(APP.parent)}: {n} and {n}s" for n in names
                  if n + "s" in names]
    assert not pairs, pairs
