"""What a test expects to find: a stored row by its key (:func:`fetched`) and a part of a
text (:func:`matched`). When it is missing the test fails, saying what it looked for, where
a bare ``db.session.get`` or ``re.search`` would give None to the next line."""
from __future__ import annotations

import re
from typing import Any, TypeVar

import pytest

from app.extensions import db

Stored = TypeVar("Stored")


def fetched(model: type[Stored], key: Any) -> Stored:
    """The ``model`` row stored under the primary key ``key``; the test fails, saying which
    row, when there is none."""
    found = db.session.get(model, key)
    if found is None:
        pytest.fail(f"no {model.__name__} {key!r} is stored")
    return found


def matched(pattern: str, text: str, flags: int = 0) -> re.Match[str]:
    """``re.search(pattern, text, flags)``; the test fails, showing the pattern and the start
    of the text, when nothing in the text matches."""
    found = re.search(pattern, text, flags)
    if found is None:
        pytest.fail(f"nothing matches {pattern!r} in the text, which begins {text[:300]!r}")
    return found


def unphrased(page: str) -> str:
    """A Japanese page's HTML without the ``<wbr>`` put between its phrases
    (:mod:`app.web.shared.phrases`): its text as written, to look for a sentence in."""
    return page.replace("<wbr>", "")
