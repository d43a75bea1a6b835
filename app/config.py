"""Configuration: the embedded default (SQLite in ``instance/``) and what the environment
overrides (``DATABASE_URL`` for PostgreSQL, ``SECRET_KEY``)."""
from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any


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


def secret_key(instance_path: str) -> str:
    """``SECRET_KEY`` if set, else one made on first start and kept in the instance folder,
    so that sign-ins survive a restart."""
    key = os.environ.get("SECRET_KEY")
    if key:
        return key
    path = Path(instance_path) / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


def defaults(instance_path: str) -> dict[str, Any]:
    from .http.headers import transport_config

    return {
        **transport_config(),
        # Where the rate limits count: memory (one process) unless a store is given, e.g.
        # redis://127.0.0.1:6379 for several workers.
        "RATELIMIT_STORAGE_URI": os.environ.get("RATELIMIT_STORAGE_URI", "memory://"),
        "SQLALCHEMY_DATABASE_URI": database_url(instance_path),
        "MAX_CONTENT_LENGTH": 2 * 1024 * 1024,
        "BABEL_DEFAULT_LOCALE": "en",
        "LANGUAGES": ["en", "de", "ja"],
        # The compiled catalogues (committed; bash scripts/i18n.sh makes them again).
        "BABEL_TRANSLATION_DIRECTORIES": str(Path(__file__).resolve().parent.parent
                                             / "translations"),
        "SESSION_COOKIE_SAMESITE": "Lax",
        "REMEMBER_COOKIE_SAMESITE": "Lax",
    }
