"""The yardstick of ``bench_pages.py`` and ``bench_servers.py``: Flask's hello world, and
the same behind what ``tonk serve`` puts in front of the app (``whole``: granian's ASGI
side, a2wsgi's threads, app.http.bodies), so that both are served the same way."""
from flask import Flask
from flask_babel import Babel

from app.cli.serving import APP_THREADS, BODY_SECONDS
from app.http.bodies import route_limits, whole_requests
from app.http.doors import Answers

app = Flask(__name__)
app.config.update(MAX_CONTENT_LENGTH=2 * 1024 * 1024, LANGUAGES=["en"])
Babel(app)  # (the front's own answers are words of the catalogue)


@app.get("/")
def hello() -> str:
    return "Hello, World!"


whole = whole_requests(app, APP_THREADS, route_limits(app), BODY_SECONDS, Answers(app))
