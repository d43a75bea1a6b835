"""The one JSON error shape and the one answer to "is this an API request?", for the API's
own handlers and for what pages and API share (rate limits, database faults): an error
under ``/api/`` is ``{"error": message, "field": where}`` with its status; elsewhere a page.
"""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify, request

#: Where the JSON API lives: every answer under it is JSON, errors too.
API_PREFIX = "/api/"


def is_api_request() -> bool:
    """Whether the request being answered is the JSON API's (so its errors are JSON)."""
    return request.path.startswith(API_PREFIX)


def error_response(message: str, status: int, field: str | None = None,
                   **more: Any) -> Response:
    """The API's error answer: ``{"error", "field"?, …more}`` with ``status``."""
    body: dict[str, Any] = {"error": message}
    if field:
        body["field"] = field
    body.update(more)
    response = jsonify(body)
    response.status_code = status
    return response
