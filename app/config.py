"""Configuration: the embedded default (SQLite in ``instance/``) and what the environment
overrides: ``DATABASE_URL`` for PostgreSQL, ``SECRET_KEY``, ``TONK_HTTPS`` and
``TONK_PROXY``, ``RATELIMIT_STORAGE_URI`` and the limits ``TONK_LIMIT_<NAME>_IP`` /
``…_ACCOUNT``; for the command line, ``TONK_URL`` and the locale's ``LANG`` and its kin.
The one module that reads environment variables (``tests/test_layers.py`` keeps it so) and
never writes them; the rest of the app reads ``app.config``, and ``create_app(config)``
overrides any of it (``tonk serve`` gives its workers their settings that way)."""
from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parent
#: A clone of the repository (not an installed wheel): its pyproject.toml beside the package.
IN_A_CLONE = (PACKAGE.parent / "pyproject.toml").is_file()


def resource_folder(name: str) -> Path:
    """The app's folder ``name`` (``migrations``, ``translations``): the
    clone's top-level folder, or inside the package once installed from a wheel (setup.py
    puts them there)."""
    return PACKAGE.parent / name if IN_A_CLONE else PACKAGE / name


def instance_folder() -> Path:
    """Where the SQLite file and the made secret key live: ``TONK_HOME`` if set; else in a
    clone its ``instance/`` folder; else (an installed wheel) the platform's data folder,
    ``$XDG_DATA_HOME/tonk-tally`` (``~/.local/share/tonk-tally``)."""
    home = os.environ.get("TONK_HOME", "").strip()
    if home:
        return Path(home).expanduser().resolve()
    if IN_A_CLONE:
        return PACKAGE.parent / "instance"
    data = os.environ.get("XDG_DATA_HOME", "").strip() or str(Path.home() / ".local" / "share")
    return Path(data) / "tonk-tally"


def database_url(instance_path: str) -> str:
    """``DATABASE_URL`` if set (``postgres://`` and ``postgresql://`` use psycopg 3), else a
    SQLite file in the instance folder."""
    url = os.environ.get("DATABASE_URL", "").strip()
    if not url:
        return f"sqlite:///{Path(instance_path) / 'tonk.sqlite'}"
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


#: The files the app makes (the database, its backups, the secret key, the rate limits'
#: counts) are its user's alone: they hold password hashes and what signs sign-ins.
PRIVATE_FILE = 0o600
#: And the folder it makes for them (``TONK_HOME``, the instance folder).
PRIVATE_FOLDER = 0o700
#: Which of the files the instance folder holds :func:`exposed` looks at.
INSTANCE_FILES = ("tonk.sqlite", "tonk.sqlite-wal", "tonk.sqlite-shm", "secret_key",
                  "limits.sqlite", "limits.sqlite-wal", "limits.sqlite-shm")


def private_folder(path: str | os.PathLike[str]) -> None:
    """Make the folder at ``path`` (and those above it) for the app's user alone, 0700 from
    the start; one already there is left as it is (:func:`exposed` says if others can read
    it)."""
    os.makedirs(path, mode=PRIVATE_FOLDER, exist_ok=True)


def new_private_file(path: str | os.PathLike[str]) -> int:
    """A new file at ``path`` (none may be there), 0600 from the start, open to write: its
    descriptor. (Made with the mode, not changed to it after: there is no moment when
    another user could open it.)"""
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)


def private_file(path: str | os.PathLike[str]) -> None:
    """Make an empty file at ``path``, 0600, for a program that fills it (SQLite), unless
    one is there."""
    try:
        os.close(new_private_file(path))
    except FileExistsError:
        pass


def exposed(instance_path: str, database_uri: str) -> list[str]:
    """The app's folder and files that others on the machine can read or write (any group
    or other permission): the instance folder, what it holds, and a SQLite database
    elsewhere."""
    folder = Path(instance_path)
    paths = [folder, *(folder / name for name in INSTANCE_FILES)]
    if database_uri.startswith("sqlite:///") and ":memory:" not in database_uri:
        database = Path(database_uri.removeprefix("sqlite:///").split("?", 1)[0])
        paths += [database, Path(f"{database}-wal"), Path(f"{database}-shm")]
    found: list[str] = []
    for path in dict.fromkeys(paths):
        try:
            if path.stat().st_mode & 0o077:
                found.append(str(path))
        except OSError:
            continue
    return found


def secret_key(instance_path: str) -> str:
    """``SECRET_KEY`` if set, else one made on first start and kept in the instance folder
    (0600 from the start), so that sign-ins survive a restart. Two workers starting at
    once keep the one written first: each writes its own aside and links it into place."""
    key = os.environ.get("SECRET_KEY")
    if key:
        return key
    path = Path(instance_path) / "secret_key"
    if not path.exists():
        aside = path.with_name(f".secret_key.{os.getpid()}")
        aside.unlink(missing_ok=True)
        with os.fdopen(new_private_file(aside), "w") as out:
            out.write(secrets.token_hex(32))
        try:
            os.link(aside, path)
        except FileExistsError:
            pass  # another worker's came first
        finally:
            aside.unlink()
    return path.read_text().strip()


_ON = {"1", "true", "yes", "on"}

#: The rate limits by name → (per client address, per account), "5 per minute; 30 per hour"
#: style; ``TONK_LIMIT_<NAME>_IP`` and ``…_ACCOUNT`` override them (:mod:`app.http.limits`).
DEFAULT_LIMITS: dict[str, tuple[str, str]] = {
    "SIGNIN": ("30 per minute; 300 per day", "5 per minute; 30 per hour"),
    "SIGNUP": ("10 per hour", "5 per hour"),
    "RESET": ("10 per minute", "5 per 10 minutes"),
    "TOKEN": ("30 per hour", "20 per hour"),
    "PASSWORD": ("30 per hour", "5 per minute; 30 per hour"),
}


def env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in _ON


def transport_config(*, proxy: bool = False, https: bool = False) -> dict[str, bool]:
    """``TONK_HTTPS`` and ``TONK_PROXY``: what the environment asks for, or what the caller
    turns on (``tonk serve --proxy``, ``--certfile``: it gives them to its workers' app
    factory). A proxy in front terminates TLS, so it implies HTTPS."""
    proxy = proxy or env_flag("TONK_PROXY")
    return {"TONK_PROXY": proxy, "TONK_HTTPS": proxy or https or env_flag("TONK_HTTPS")}


def limits_config() -> dict[str, str]:
    """``TONK_LIMIT_<NAME>_IP`` and ``…_ACCOUNT``: from the environment, else the defaults."""
    out = {}
    for name, (per_ip, per_account) in DEFAULT_LIMITS.items():
        for key, default in ((f"TONK_LIMIT_{name}_IP", per_ip),
                             (f"TONK_LIMIT_{name}_ACCOUNT", per_account)):
            out[key] = os.environ.get(key, default)
    return out


def defaults(instance_path: str) -> dict[str, Any]:
    return {
        **transport_config(),
        **limits_config(),
        # Where the rate limits count: a file in the instance folder that the workers of
        # a server share (app/http/limit_store.py), unless a store is given, e.g.
        # redis://127.0.0.1:6379 for several servers.
        "RATELIMIT_STORAGE_URI": os.environ.get("RATELIMIT_STORAGE_URI")
        or f"tonk+sqlite://{Path(instance_path) / 'limits.sqlite'}",
        "SQLALCHEMY_DATABASE_URI": database_url(instance_path),
        "MAX_CONTENT_LENGTH": 2 * 1024 * 1024,
        "BABEL_DEFAULT_LOCALE": "en",
        "LANGUAGES": ["en", "de", "ja"],
        # The compiled catalogues (committed; bash scripts/i18n.sh makes them again).
        "BABEL_TRANSLATION_DIRECTORIES": str(resource_folder("translations")),
        "SESSION_COOKIE_SAMESITE": "Lax",
        "REMEMBER_COOKIE_SAMESITE": "Lax",
    }


#: The locale's variables that name the command line's language, first the strongest.
LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def locale_settings() -> dict[str, str]:
    """The locale's variables the environment sets (:data:`LOCALE_VARIABLES`), from which
    :func:`app.i18n.environment_language` takes the command line's language."""
    return {name: os.environ[name] for name in LOCALE_VARIABLES if name in os.environ}


#: Where phones reach the server unless ``TONK_URL`` says.
DEFAULT_URL = "http://127.0.0.1:5000"


def public_url() -> str:
    """``TONK_URL``, else :data:`DEFAULT_URL`: the address the command line's links start
    with (``tonk user reset-password``)."""
    return os.environ.get("TONK_URL", "").strip() or DEFAULT_URL


def header_seconds_given() -> str:
    """``TONK_HEADER_SECONDS`` as the environment gives it (blank: not given), which
    :func:`app.cli.serving.header_seconds` reads and checks."""
    return os.environ.get("TONK_HEADER_SECONDS", "").strip()
