"""Compressed answers (Flask-Compress): pages, JSON, CSS, scripts and SVG go br- or
gzip-compressed to the clients that ask for it (``Accept-Encoding``), and every answer says
``Vary: Accept-Encoding``. Bodies under 500 bytes, other types (PNG icons, uploads,
downloads already packed) and error answers go as they are.

A compressed body is another representation, so it has its own strong ETag: Flask-Compress
names it after the plain one, ``"tag:br"`` or ``"tag:gzip"``, and answers a conditional GET
that names it with a 304 (which Werkzeug sends without a body). The views that answer 304
themselves before making a body (the share and board polls, the live parts, the chart) and
the poll answered in front of the app (:class:`app.api.share.UnchangedPolls`) ask
:func:`held` which of a state's tags the client holds, and answer with that one.
"""
from __future__ import annotations

from flask import Flask, Response
from flask_compress import Compress
from werkzeug.datastructures import ETags

#: The codings offered, best first (a client that takes both gets br).
CODINGS = ("br", "gzip")

#: What is worth compressing: text. (Flask-Compress's own list adds fonts and XML.)
TYPES = ["text/html", "text/css", "text/javascript", "application/javascript",
         "application/json", "application/manifest+json", "image/svg+xml", "text/plain"]

#: Files sent from disk, whose compressed ETag is checked against If-None-Match after
#: compressing (a view that sends a file answers only its plain ETag with a 304 itself).
FILE_ENDPOINTS = ["static", "leagues.static", "web.service_worker", "web.core_worker"]

compress = Compress()


def init_app(app: Flask) -> None:
    """Compress what the app answers (registered first, so it runs after every other
    ``after_request`` and compresses what they leave)."""
    for key, value in (("COMPRESS_ALGORITHM", list(CODINGS)),
                       ("COMPRESS_ALGORITHM_STREAMING", list(CODINGS)),
                       ("COMPRESS_MIMETYPES", TYPES), ("COMPRESS_MIN_SIZE", 500),
                       ("COMPRESS_STREAMING_ENDPOINT_CONDITIONAL", FILE_ENDPOINTS)):
        app.config.setdefault(key, value)
    app.config["COMPRESS_REGISTER"] = False
    compress.init_app(app)

    @app.after_request
    def _compressed(response: Response) -> Response:
        if response.status_code == 206:  # a byte range of the plain file: its
            return response  # Content-Range counts the plain bytes, so it stays plain
        return compress.after_request(response)


def held(tag: str, seen: ETags) -> str | None:
    """Which representation of the state whose plain ETag is ``tag`` the client holds
    (``seen``: its If-None-Match): the plain one or a compressed one, as the ETag to answer
    its 304 with; None when it holds none of them."""
    for mine in (tag, *(f"{tag}:{coding}" for coding in CODINGS)):
        if seen.contains(mine):
            return mine
    return None
