"""How ``tonk serve`` holds its connections and builds each worker's app: the limits it is
sized by (from measurement: docs/running.md, docs/benchmarks.md), the app one worker
serves behind its doors, and the few words it says as it starts.
"""
from __future__ import annotations

import os
from typing import Any

import click

#: How long a connection may take to send a request's headers before the server closes it,
#: in seconds: a phone on a poor signal sends its headers in one packet; a client that
#: trickles them in is cut off.
HEADER_SECONDS = 10
#: How long a request's body may take to arrive once its headers are in (a phone on one bar
#: sends a hand's few hundred bytes in well under a second).
BODY_SECONDS = 30
#: Connections one worker holds open at once (granian's backpressure: past it the worker
#: takes no new connection until one ends, and the kernel queues it, silent: granian cannot
#: answer it). A connection that sends no request, or none after its last answer, is cut
#: after HEADER_SECONDS; one that sends nothing costs the worker about 2.6 kB. Two workers
#: hold more than the 65,535 connections one address can open to one port (TCP's port
#: numbers), so no one address fills them, however fast it opens them.
CONNECTIONS = 32768
#: Requests in flight in one worker (the body arriving, waiting for a thread, answered)
#: past which a new one is answered 503 with Retry-After at once: below CONNECTIONS, so that
#: a crowd is told to come back, not left waiting in silence (:mod:`app.http.doors`).
BUSY = 3072
#: Requests in flight in one worker from one address past which it is answered 429 with
#: Retry-After: a phone has a few at a time, a club's network behind one address a few
#: dozen; a script that opens hundreds holds no more than this.
PER_ADDRESS = 128
#: Live streams (server-sent events, :mod:`app.api.stream`) one worker holds open; past it a
#: new one is answered 503 with Retry-After and the page polls instead. A stream costs a
#: connection and a few kB, not a request in flight (it is not counted in BUSY).
STREAMS = 16384
#: Connections the kernel queues while every worker is at CONNECTIONS (capped by the
#: system's net.core.somaxconn).
BACKLOG = 4096
#: Threads a worker process runs the app in (each holds at most one database connection):
#: granian's own advice, two a core and one; the requests beyond them wait in the server's
#: event loop, not in a thread.
APP_THREADS = 2 * (os.cpu_count() or 1) + 1


#: Seconds a worker has to end its answers when the server stops (Ctrl+C, SIGTERM) before it
#: is killed: a worker whose app is stuck in a request would otherwise be waited for
#: without end (one whose thread answered a client that went ends at once:
#: app.http.threads).
STOP_SECONDS = 10


def header_seconds() -> int:
    """HEADER_SECONDS, or ``TONK_HEADER_SECONDS`` from the environment (whole seconds, 1 or
    more): the tests that wait for the cut give their servers a shorter one."""
    from ..config import header_seconds_given

    given = header_seconds_given()
    if not given:
        return HEADER_SECONDS
    if not given.isdigit() or int(given) < 1:
        raise click.ClickException(
            f"TONK_HEADER_SECONDS must be a whole number of seconds, 1 or more (not {given!r})")
    return int(given)


def database_shown(url: str) -> str:
    """The database as an operator reads it: a SQLite file's path, else the URL without
    its password."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return str(parsed.database)
    return parsed.render_as_string(hide_password=True)


def room_for(connections: int) -> int:
    """The connections a worker may hold: ``connections``, with the open-file limit raised
    to fit them (to the hard limit; a worker inherits it), or fewer if it cannot be."""
    import resource

    spare = 512  # the database, the log, the app's own files
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = connections + spare
    if soft != resource.RLIM_INFINITY and soft < wanted:
        raised = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        except (ValueError, OSError):  # (macOS caps it below the hard limit)
            pass
    if soft == resource.RLIM_INFINITY:
        return connections
    return max(64, min(connections, soft - spare))


def worker_app(transport: dict[str, bool], _target: str) -> Any:
    """The app one worker process serves, as granian calls it in each worker it starts: the
    factory given ``transport`` (``tonk serve``'s --proxy and --certfile), run in
    APP_THREADS threads (a2wsgi), behind :class:`app.http.bodies.WholeBodies` (each route's
    body limit), with the unchanged polls answered before them
    (:class:`app.api.share.PollsInTheLoop`), all behind :class:`app.http.doors.Doors`
    (BUSY and PER_ADDRESS), and the live streams before everything
    (:class:`app.api.stream.Streams`, STREAMS)."""
    from .. import create_app
    from ..api.share import PollsInTheLoop, UnchangedPolls
    from ..api.stream import Streams
    from ..http.bodies import route_limits, whole_requests
    from ..http.doors import Answers, Doors

    app: Any = create_app(transport)
    polls = app.wsgi_app
    assert isinstance(polls, UnchangedPolls)
    app.wsgi_app = polls.wsgi  # the unchanged polls are answered in the event loop
    answers = Answers(app)
    return Streams(app, Doors(PollsInTheLoop(polls, whole_requests(
        app, APP_THREADS, route_limits(app), BODY_SECONDS, answers)), answers,
        busy=BUSY, per_address=PER_ADDRESS, proxy=bool(app.config.get("TONK_PROXY"))),
        answers, limit=STREAMS)


def check_free(host: str, port: int) -> None:
    """A clear word at once when the port is taken (the server's own is less clear)."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        raise click.ClickException(f"cannot listen on {host}: no such address") from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise click.ClickException(
                f"port {port} on {host} is busy (is Tonk Tally already running?): stop "
                f"what uses it, or choose another with --port" if exc.errno == 98 else
                f"cannot listen on {host}:{port}: {exc.strerror}") from None


def addresses(scheme: str, host: str, port: int) -> list[str]:
    """Where phones reach the server: for 0.0.0.0 this computer's own addresses on the
    network (from its host name; nothing is sent anywhere)."""
    import socket

    if host not in ("0.0.0.0", "::"):
        return [f"{scheme}://{host}:{port}/"]
    try:
        found = {str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None,
                                                            socket.AF_INET)}
    except OSError:
        found = set()
    lan = sorted(a for a in found if not a.startswith("127."))
    if not lan:
        return [f"{scheme}://<this computer's address>:{port}/",
                f"{scheme}://127.0.0.1:{port}/"]
    return [f"{scheme}://{a}:{port}/" for a in lan]
