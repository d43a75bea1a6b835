"""A Babel extraction method for the core's message catalogue (``app/core/catalogue.py``,
the ``words`` each catch scheme declares in ``app/core/catches.py`` and each rule option in
``app/core/rules.py``): each entry becomes a message with its id as the context
(``msgctxt``) and its English template as the ``msgid``, so pybabel puts the core's sentences
in ``messages.pot`` beside the pages' strings. Named in ``babel.cfg``."""
from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from typing import IO, Any


def extract_catalogue(fileobj: IO[bytes], keywords: Any, comment_tags: Any,
                      options: Mapping[str, Any]) -> Iterator[
                          tuple[int, str, tuple[str, str], list[str]]]:
    """Yield ``(line, "pgettext", (id, template), [comment])`` for every entry of a dict
    literal assigned in ``fileobj`` (the ``CATALOGUE``) or passed as ``words=``; with the
    option ``words_only = true`` (babel.cfg), only those passed as ``words=`` (a module whose
    other dicts are no messages: app/core/rules.py)."""
    words_only = str(options.get("words_only", "")).lower() == "true"
    tree = ast.parse(fileobj.read())
    for node in ast.walk(tree):
        if not (isinstance(node, ast.AnnAssign | ast.Assign | ast.keyword)
                and isinstance(node.value, ast.Dict)):
            continue
        if isinstance(node, ast.keyword) and node.arg != "words" or (
                words_only and not isinstance(node, ast.keyword)):
            continue
        for key, value in zip(node.value.keys, node.value.values, strict=True):
            if not (isinstance(key, ast.Constant) and isinstance(value, ast.Constant)):
                continue
            yield (key.lineno, "pgettext", (str(key.value), str(value.value)),
                   ["core message: {name} placeholders are filled in by the core"])
