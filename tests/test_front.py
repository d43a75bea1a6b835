"""The ASGI front of ``tonk serve`` in one process, without a server: requests in flight
past the worker's limit (503) or one address's (429), an error that escapes (500), a body
that arrives too slowly (408) or cannot be read (400), all with the security headers and
``Retry-After`` where they say to come back; each route's body limit (the import's 256 MB,
the rest 2 MB) and its 413 in words. (Against a running ``tonk serve``:
tests/test_serve.py.)
"""
from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from app.http.bodies import WholeBodies, in_words, route_limits
from app.http.doors import Answers, Doors
from app.http.headers import CONTENT_SECURITY_POLICY
from app.web.exchange import IMPORT_MAX_BYTES


def _scope(path: str = "/api/v1/settle", method: str = "POST", client: str = "10.0.0.1",
           headers: list[tuple[bytes, bytes]] | None = None) -> dict[str, Any]:
    return {"type": "http", "method": method, "path": path, "query_string": b"",
            "http_version": "1.1", "client": (client, 5555), "headers": headers or []}


async def _never() -> dict[str, Any]:
    await asyncio.sleep(3600)
    return {}


def _answer(sent: list[dict[str, Any]]) -> tuple[int, dict[str, str], bytes]:
    start, body = sent
    return (start["status"], {k.decode(): v.decode() for k, v in start["headers"]},
            body["body"])


def _secure(headers: dict[str, str]) -> bool:
    return (headers.get("content-security-policy") == CONTENT_SECURITY_POLICY
            and headers.get("x-content-type-options") == "nosniff")


def test_past_the_workers_limit_503_past_one_addresss_429_both_with_retry_after(app):
    """Requests held in flight (a body still arriving): one address past ``per_address``
    gets 429, anyone past ``busy`` 503, both at once with Retry-After and the headers; the
    others go on, and a slot freed is taken again."""
    release = asyncio.Event()
    reached: list[str] = []

    async def held(scope, _receive, send):
        reached.append(scope["client"][0])
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    front = Doors(held, Answers(app), busy=5, per_address=3)

    async def run() -> list[list[dict[str, Any]]]:
        outs: list[list[dict[str, Any]]] = [[] for _ in range(7)]
        clients = ["10.0.0.1"] * 4 + ["10.0.0.2", "10.0.0.3", "10.0.0.4"]
        tasks = []
        for out, client in zip(outs, clients, strict=True):
            async def send(message, out=out):
                out.append(message)
            tasks.append(asyncio.create_task(front(_scope(client=client), _never, send)))
            await asyncio.sleep(0)
        await asyncio.sleep(0.01)
        assert reached == ["10.0.0.1"] * 3 + ["10.0.0.2", "10.0.0.3"]
        release.set()
        await asyncio.gather(*tasks)
        assert front.in_flight == 0 and not front.by_address
        return outs

    outs = asyncio.run(run())
    refused = {3: 429, 6: 503}
    for i, out in enumerate(outs):
        status, headers, body = _answer(out)
        assert status == refused.get(i, 200), (i, status)
        if i in refused:
            assert headers["retry-after"] == "2" and _secure(headers)
            assert json.loads(body)["error"]


@pytest.mark.parametrize("fails", ["raises", "says nothing"])
def test_an_error_that_escapes_is_a_500_with_the_headers_in_the_readers_language(app, fails):
    async def broken(_scope, _receive, _send):
        if fails == "raises":
            raise RuntimeError("boom")

    front = Doors(broken, Answers(app), busy=5, per_address=5)
    sent: list[dict[str, Any]] = []

    async def send(message):
        sent.append(message)

    asyncio.run(front(_scope("/check", "GET", headers=[(b"accept-language", b"de")]),
                      _never, send))
    status, headers, body = _answer(sent)
    assert status == 500 and _secure(headers)
    assert headers["content-type"].startswith("text/plain")
    said = Answers(app).words
    assert body.decode().strip() == said["de"][500] != said["en"][500]


def _bodies(app, receive_script: list[Any], seconds: float = 5.0,
            path: str = "/api/v1/settle") -> tuple[list[dict[str, Any]], list[Any]]:
    """Run WholeBodies before an app that records what it was handed."""
    handed: list[Any] = []

    async def inner(scope, receive, send):
        message = await receive()
        chunks = [message["body"]]
        while message.get("more_body"):
            message = await receive()
            chunks.append(message["body"])
        handed.append((dict(scope["headers"]), b"".join(chunks)))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    front = WholeBodies(inner, route_limits(app), seconds, Answers(app))
    sent: list[dict[str, Any]] = []
    script = iter(receive_script)

    async def receive():
        step = next(script)
        if step is None:
            await asyncio.sleep(3600)
        return step

    async def send(message):
        sent.append(message)

    asyncio.run(front(_scope(path), receive, send))
    return sent, handed


def test_a_body_that_does_not_arrive_in_time_is_a_408_with_the_headers(app):
    sent, handed = _bodies(app, [{"type": "http.request", "body": b"{", "more_body": True},
                                 None], seconds=0.2)
    status, headers, body = _answer(sent)
    assert status == 408 and _secure(headers) and not handed
    assert "error" in json.loads(body)


def test_a_body_the_server_cannot_read_is_a_400_with_the_headers(app):
    """granian says a body it cannot read (a chunk that is no chunk) is a disconnect."""
    sent, handed = _bodies(app, [{"type": "http.disconnect"}])
    status, headers, _body = _answer(sent)
    assert status == 400 and _secure(headers) and not handed


def test_a_large_body_is_handed_over_whole_in_pieces(app):
    """5 MB to the import (past the 1 MB kept in memory: spooled) arrives whole."""
    pieces = [{"type": "http.request", "body": bytes([i]) * 500_000, "more_body": True}
              for i in range(10)] + [{"type": "http.request", "body": b"", "more_body": False}]
    sent, handed = _bodies(app, pieces, path="/import")
    assert _answer(sent)[0] == 200
    assert handed[0][1] == b"".join(bytes([i]) * 500_000 for i in range(10))


def test_past_the_routes_limit_the_app_is_told_the_size(app):
    pieces = [{"type": "http.request", "body": b"x" * 1_500_000, "more_body": True}] * 2
    _sent, handed = _bodies(app, pieces)
    headers, body = handed[0]
    assert body == b"" and int(headers[b"content-length"]) > 2 * 1024 * 1024


def test_each_route_has_its_body_limit(app):
    limit_of = route_limits(app)
    assert limit_of("POST", "/import") == IMPORT_MAX_BYTES == 256 * 1024 * 1024
    assert limit_of("POST", "/api/v1/settle") == app.config["MAX_CONTENT_LENGTH"]
    assert limit_of("POST", "/no/such/page") == app.config["MAX_CONTENT_LENGTH"]
    app.config["IMPORT_MAX_BYTES"] = 64 * 1024
    assert route_limits(app)("POST", "/import") == 64 * 1024
    assert [in_words(n) for n in (IMPORT_MAX_BYTES, 2 * 1024 * 1024, 64 * 1024)] == [
        "256 MB", "2 MB", "64 kB"]


@pytest.mark.parametrize("path", ["/api/v1/settle", "/signin"])
def test_a_body_past_the_limit_is_a_413_that_says_the_limit(client, path):
    answer = client.post(path, data=b"x" * (2 * 1024 * 1024 + 1),
                         content_type="application/json")
    assert answer.status_code == 413
    assert "2 MB" in answer.get_data(as_text=True)
    assert answer.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY


def test_the_import_page_says_its_size_and_refuses_past_it_in_words(app, client):
    """The page says how large a file it takes; past that, 413 saying it (here with the
    limit set to 64 kB)."""
    from io import BytesIO

    from tests.clients import sign_up

    sign_up(client)
    page = client.get("/import", headers={"Accept-Language": "en"})
    assert "The file may be up to 256 MB." in page.get_data(as_text=True)
    app.config["IMPORT_MAX_BYTES"] = 64 * 1024
    answer = client.post("/import", data={"file": (BytesIO(b" " * 100_000), "night.json")},
                         content_type="multipart/form-data",
                         headers={"Accept-Language": "en"})
    assert answer.status_code == 413
    assert "at most 64 kB" in answer.get_data(as_text=True)
