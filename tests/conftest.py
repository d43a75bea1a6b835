"""Shared fixtures: the app on a throw-away database, its test client and CLI runner, and
the worked hands of ``tests/data``."""
from __future__ import annotations

import json
import pathlib
from decimal import Decimal
from typing import Any

import pytest

DATA = pathlib.Path(__file__).parent / "data"


def load_json(name: str) -> Any:
    return json.loads((DATA / name).read_text(), parse_float=Decimal)


@pytest.fixture
def app(tmp_path):
    from app import create_app

    app = create_app({
        "TESTING": True,
        "SECRET_KEY": "test",
        "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'test.sqlite'}",
    })
    yield app


@pytest.fixture
def client(app):
    return app.test_client()
