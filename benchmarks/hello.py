"""The yardstick of ``bench_pages.py``: Flask's hello world, served by the same gunicorn."""
from flask import Flask

app = Flask(__name__)


@app.get("/")
def hello() -> str:
    return "Hello, World!"
