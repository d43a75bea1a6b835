"""The docs' tables of catch schemes and presets are what scripts/rule_tables.py writes from
the registries: a scheme or preset added or changed there and not written out again fails
here."""
from __future__ import annotations

import importlib.util
import pathlib

import pytest

SCRIPT = pathlib.Path(__file__).resolve().parent.parent / "scripts" / "rule_tables.py"


def _script():
    spec = importlib.util.spec_from_file_location("rule_tables", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


rule_tables = _script()


@pytest.mark.parametrize("page", rule_tables.PAGES, ids=lambda p: p.name)
def test_the_committed_tables_are_the_generated_ones(page):
    text = page.read_text()
    assert "<!-- rule_tables:" in text
    assert rule_tables.rendered(text) == text, \
        "run .venv/bin/python scripts/rule_tables.py and commit the docs"


def test_every_scheme_and_preset_has_a_row_in_each_page():
    from app.core import PRESETS
    from app.core.catches import CATCH_SCHEMES
    for page in rule_tables.PAGES:
        text = page.read_text()
        for name in [*CATCH_SCHEMES, *PRESETS]:
            assert f"| `{name}` |" in text
