"""The reader's language as the browser alone says it (signed out): the switcher's cookie,
then whichever of the app's languages Accept-Language prefers, then English. (A signed-in
account's own choice comes first: :func:`app.web.shared.site.select_locale`.)"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from werkzeug.datastructures import LanguageAccept

#: The cookie that keeps the language chosen with the switcher (signed in or not).
LANG_COOKIE = "lang"


def browser_language(cookies: Mapping[str, str], accept: LanguageAccept,
                     languages: Sequence[str]) -> str:
    cookie = cookies.get(LANG_COOKIE)
    if cookie in languages:
        return str(cookie)
    return accept.best_match(languages) or "en"
