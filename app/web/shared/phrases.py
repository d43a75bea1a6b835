"""Japanese pages break their lines between phrases, not inside words.

Japanese has no spaces: a browser may break a line between any two characters, so a
heading at 390 px read 「サイドベッ／ト」. Each page rendered in Japanese has a ``<wbr>``
put between the phrases of its text, found by BudouX (Google's phrase model, its Python
package), and the style keeps Japanese words whole (``word-break: keep-all`` with
``overflow-wrap: anywhere`` for a phrase wider than its box): every browser then breaks at
those points only. Only text between tags is touched, never an attribute, a script, a
style, a ``<textarea>``, a ``<title>`` or an ``<option>`` (which hold no tags); what a page
says is unchanged, character for character.

Done as a page is rendered (:class:`PhrasedTemplate`), so a page kept for a session's state
(:mod:`.pagecache`) is phrased once; each distinct run of text is parsed once a process.
"""
from __future__ import annotations

import html
import re
from functools import cache, lru_cache
from typing import Any

from flask import has_request_context
from flask_babel import get_locale
from jinja2 import Template

#: A tag or a comment; and the elements whose text is left alone (up to their end tag).
_TAG = re.compile(r"<!--.*?-->|<(/?)([a-zA-Z][a-zA-Z0-9-]*)\b[^>]*>", re.S)
_RAW = frozenset({"script", "style", "textarea", "title", "option"})
#: Kana and kanji: a run of text without them has no phrases to find.
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")


@cache
def _parser() -> Any:
    import budoux  # (loaded by the first Japanese page: its model is 250 KB of JSON)

    return budoux.load_default_japanese_parser()


@lru_cache(maxsize=8192)
def _phrased_text(text: str) -> str:
    """A run of page text (HTML-escaped) with ``<wbr>`` between its phrases."""
    phrases = _parser().parse(html.unescape(text))
    return "<wbr>".join(html.escape(p, quote=False) for p in phrases)


def phrased(page: str) -> str:
    """``page`` (HTML) with ``<wbr>`` between the phrases of its Japanese text."""
    out: list[str] = []
    at = 0
    lowered: str | None = None
    for tag in _TAG.finditer(page):
        if tag.start() < at:  # (inside a raw element, skipped below)
            continue
        text = page[at:tag.start()]
        out.append(_phrased_text(text) if _JAPANESE.search(text) else text)
        name = (tag.group(2) or "").lower()
        if name in _RAW and not tag.group(1):
            lowered = lowered or page.lower()
            end = lowered.find(f"</{name}", tag.end())
            at = len(page) if end < 0 else end
            out.append(page[tag.start():at])
        else:
            out.append(tag.group(0))
            at = tag.end()
    rest = page[at:]
    out.append(_phrased_text(rest) if _JAPANESE.search(rest) else rest)
    return "".join(out)


class PhrasedTemplate(Template):
    """A page template that phrases what it renders when the reader's language is Japanese
    (HTML templates only: a text e-mail keeps its lines as written)."""

    def render(self, *args: Any, **kwargs: Any) -> str:
        page = super().render(*args, **kwargs)
        if (self.name or "").endswith(".html") and has_request_context() \
                and str(get_locale() or "") == "ja":
            return phrased(page)
        return page
