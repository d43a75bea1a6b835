"""The yardstick of ``bench_pages.py`` and ``bench_servers.py``: Flask's hello world, and
the same behind what ``tonk serve`` puts in front of the app (``whole``: granian's ASGI
side, a2wsgi's threads, app.http.bodies), so that both are served the same way."""
from flask import Flask

from app.cli.commands import APP_THREADS, BODY_SECONDS
from app.http.bodies import whole_requests

app = Flask(__name__)


@app.get("/")
def hello() -> str:
    return "Hello, World!"


whole = whole_requests(app, APP_THREADS, 2 * 1024 * 1024, BODY_SECONDS)
