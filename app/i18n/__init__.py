"""The app's languages outside a request: where the compiled catalogues live
(``translations/``, made by ``scripts/i18n.sh``), which language the environment asks for
(``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``, as :mod:`app.config` reads them), and
the translators the command line hooks in: the core's messages by their id (the
catalogue's context) and its own strings.
The pages and the API choose per request instead (:func:`app.web.shared.site.select_locale`)."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import cache

from babel.support import NullTranslations, Translations

from ..config import LOCALE_VARIABLES, locale_settings, resource_folder
from ..core.messages import Translator, set_translator, translator_hooked

#: Where the catalogues are: ``translations/<lang>/LC_MESSAGES/messages.{po,mo}``.
TRANSLATIONS = resource_folder("translations")
#: The app's languages, English (the source) first.
LANGUAGES = ("en", "de", "ja")


def environment_language(environ: Mapping[str, str] | None = None) -> str:
    """The first of the app's languages the environment names (``de_DE.UTF-8`` → ``de``;
    ``LANGUAGE`` may list several, ``ja:en``), else English."""
    environ = locale_settings() if environ is None else environ
    for name in LOCALE_VARIABLES:
        for item in environ.get(name, "").split(":"):
            code = item.split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
            if code in LANGUAGES:
                return code
            if item and code not in ("", "c", "posix"):
                break
    return "en"


@cache
def translations(lang: str) -> NullTranslations:
    """The compiled catalogue of ``lang`` (English: none, the source is English)."""
    if lang not in LANGUAGES or lang == "en":
        return NullTranslations()
    return Translations.load(str(TRANSLATIONS), [lang])


def core_translator(lang: str) -> Translator:
    """A translator of the core's messages into ``lang``: its id is the context."""
    found = translations(lang)

    def translate(msg_id: str, template: str) -> str:
        return str(found.pgettext(msg_id, template))

    return translate


_current = ["en"]


def use_language(lang: str) -> None:
    """Speak ``lang`` from now on in this process (the command line): the core's messages and
    :func:`gettext`."""
    _current[0] = lang if lang in LANGUAGES else "en"
    lang = _current[0]
    set_translator(core_translator(lang) if lang != "en" else None, lambda: lang)


@contextmanager
def speaking(lang: str | None) -> Iterator[None]:
    """Speak ``lang`` (None: the environment's language) inside the block, as a command does
    while it runs; then the translator hooked in before (the app's, in a test's process)."""
    before, current = translator_hooked(), _current[0]
    use_language(lang or environment_language())
    try:
        yield
    finally:
        set_translator(*before)
        _current[0] = current


def gettext(message: str, **values: object) -> str:
    """``message`` in the language chosen with :func:`use_language`, ``%(name)s`` filled in."""
    text = translations(_current[0]).gettext(message)
    return text % values if values else text


def ngettext(singular: str, plural: str, num: int, **values: object) -> str:
    """:func:`gettext` of a message with a number ``%(num)s``: its singular or plural form,
    as the language counts."""
    text = translations(_current[0]).ngettext(singular, plural, num)
    return text % {"num": num, **values}
