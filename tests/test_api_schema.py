"""Schemathesis over the whole OpenAPI document, with a personal token: bounded examples
of what the document allows (positive) and of what it forbids (negative) for every
operation, asserting no 5xx and no disagreement either way: a body the document allows is
not refused as unreadable or unknown (only a domain rule a schema cannot state, such as
"Bob is not at the table", may answer 422), a body it forbids is refused, every answer's
status, content type, headers and body are the documented ones, and 405s carry Allow.

Bounded: a fixed seed and a few examples per operation and mode, well under a minute."""
from __future__ import annotations

import atexit
import shutil
import tempfile
from typing import Any

import schemathesis
from argon2 import PasswordHasher
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig

from app.db.unit import unit_of_work
from app.extensions import db
from app.services import accounts, events, leagues
from app.services.sessions import ledger
from tests.apps import make_app

EXAMPLES = 20

CONFIG = SchemathesisConfig.from_dict({
    "seed": 8,
    "generation": {"mode": "all", "max-examples": EXAMPLES,
                   "deterministic": False},
    "checks": {
        # A schema cannot say that a name must be one of the table's, that a hand must
        # add up under the house rules or that a session is closed: those answer 404,
        # 409 or 422 with the field, which is no disagreement.
        "positive_data_acceptance": {"enabled": True,
                                     "expected-statuses": ["2xx", "404", "409", "422"]},
        "negative_data_rejection": {"enabled": True},
    },
})


def _api_app() -> Any:
    """The app on a database of its own with one account (and its token), a league and
    a session with a hand, so that the ids in the document's examples lead somewhere."""
    folder = tempfile.mkdtemp(prefix="tonk-schema-")
    # made when the module is collected (by every process of the run): gone when it ends
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    app = make_app(f"sqlite:///{folder}/api.sqlite")
    with app.app_context():
        db.create_all()
    with app.app_context(), unit_of_work():
        hasher, accounts.HASHER = accounts.HASHER, PasswordHasher(
            time_cost=1, memory_cost=8, parallelism=1)
        try:
            user = accounts.create_user("ann@example.com", "Ann", "a long table secret")
        finally:
            accounts.HASHER = hasher
        token = accounts.create_token(user, "schemathesis")
        league = leagues.create_league(user, name="Fridays")
        leagues.add_member(league, user, "Ann")
        leagues.add_season(league, name="2026", starts_on="2026-01-01", ends_on="2026-12-31")
        gs = ledger.create_session(user, name="Night", players=["Ann", "Bob", "Cy"])
        ledger.record_hand(gs, user, {"end": {"kind": "run_out", "player": "Cy"}})
        event = events.create_event(user, name="Cup", table_size=4, rounds=2,
                                    hands_per_round=1, entry_fee="5")
        for name in ("Ann", "Bob", "Cy"):
            events.check_in(event, name, True)
        events.draw_next_round(event, user, 1)
        app.config["SCHEMA_TOKEN"] = token
    return app


API_APP = _api_app()
schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", API_APP, config=CONFIG)


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_the_api_does_what_its_document_says(case: Any) -> None:
    # plain answers: schemathesis reads a test client's body as it comes, not decompressed
    # (compression has tests of its own, tests/test_compression.py)
    case.call_and_validate(headers={"Authorization": f"Bearer {API_APP.config['SCHEMA_TOKEN']}",
                                    "Accept-Encoding": "identity"})
