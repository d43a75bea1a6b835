"""Payment handles through the API: ``PUT /api/v1/sessions/{id}/players/{name}/pay``, and
the pay links each open transfer of a ledger carries (``pay``). :mod:`app.services.pay`
checks, keeps and makes them."""
from __future__ import annotations

from typing import Annotated, Any, ClassVar

from flask import Response, jsonify
from pydantic import Field, SkipValidation, create_model

from ..db.models import User
from ..services import sessions
from ..services.pay import FIELDS, set_handles
from .door import ABSENT, CoreBody, api
from .params import PLAYER_NAME, SESSION_ID

_Handle = SkipValidation[Annotated[str | None, Field(max_length=300)]]
#: One field a handle the service keeps (its keys: the service's, which says which it takes).
_HANDLES: dict[str, Any] = {name: (_Handle, ABSENT) for name in FIELDS}
_Handles: Any = create_model("_Handles", __base__=CoreBody, **_HANDLES)


class PayHandles(_Handles):  # type: ignore[misc]
    """Where a player takes payment; each as its service writes it. A PUT keeps exactly
    these (one left out or empty is dropped)."""

    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {"paypal": "annpays", "iban": "DE89 3704 0044 0532 0130 00"},)


@api.put("/sessions/<int:session_id>/players/<name>/pay", "Keep a player's payment handles (a "
         "league member's serve the league's later sessions). A bad IBAN is 422 naming iban.",
         {"200": ("The handles kept.", "PayHandles")}, (SESSION_ID, PLAYER_NAME))
def put_pay(user: User, session_id: int, name: str, body: PayHandles) -> Response:
    """Keep the player's handles (all of them: one left out is no longer kept)."""
    gs = sessions.owned_session(user, session_id)
    return jsonify(set_handles(gs, name, body.sent()).to_json())
