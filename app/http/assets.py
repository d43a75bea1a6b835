"""Static files named by what is in them. Every ``url_for`` of a static file (the app's and a
blueprint's) carries ``v``, a digest of the file as it is now; the answer to an address whose
``v`` is that digest may be kept by the browser for a year without asking again
(``immutable``), and any other (no ``v``, an old one) is asked for again each time, as
Flask does (``no-cache``). A page on a phone with a poor signal then costs its own request,
not that and a revalidation of each of its five to seven files; a changed file has a new
address, so no phone keeps an old one. (The service worker, ``/sw.js``, keeps a file by its
address in the same way.)
"""
from __future__ import annotations

import functools
import hashlib
import os
from typing import Any

from flask import Flask, Response, request
from werkzeug.security import safe_join

#: How long a browser may keep a file named by its digest: a year, as for HSTS.
YEAR = 31_536_000


@functools.lru_cache(maxsize=256)
def _digest(path: str, mtime_ns: int, size: int) -> str:
    with open(path, "rb") as file:
        return hashlib.sha256(file.read()).hexdigest()[:12]


def digest(folder: str, filename: str) -> str | None:
    """The digest of ``filename`` in ``folder`` as it is now (read again when the file
    changes), or None when there is no such file."""
    path = safe_join(folder, filename)
    if path is None:
        return None
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return _digest(path, stat.st_mtime_ns, stat.st_size)


def init_app(app: Flask) -> None:
    def folder_of(endpoint: str | None) -> str | None:
        """The static folder an endpoint serves, if it is a static file's."""
        if endpoint == "static":
            return app.static_folder
        if endpoint and endpoint.endswith(".static"):
            blueprint = app.blueprints.get(endpoint.rsplit(".", 1)[0])
            return blueprint.static_folder if blueprint else None
        return None

    @app.url_defaults
    def _named_by_digest(endpoint: str, values: dict[str, Any]) -> None:
        folder = folder_of(endpoint)
        if folder and "filename" in values and "v" not in values:
            version = digest(folder, values["filename"])
            if version:
                values["v"] = version

    @app.after_request
    def _kept_a_year(response: Response) -> Response:
        folder = folder_of(request.endpoint)
        if (folder and response.status_code in (200, 304) and request.view_args
                and request.args.get("v")
                and request.args["v"] == digest(folder, request.view_args["filename"])):
            response.headers["Cache-Control"] = f"public, max-age={YEAR}, immutable"
        return response
