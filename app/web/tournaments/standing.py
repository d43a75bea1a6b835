"""An event's standings as everyone sees them: the TV leaderboard of the bar
(``/board/<token>``: big type, no account, follows by itself through the share view's own
mechanism, ``follow`` in tonk.js, and rotates through the tables' current scores) and each
player's own view (``/board/<token>/players/<name>``)."""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from markupsafe import Markup
from werkzeug.http import quote_etag

from ...core.errors import TonkError
from ...core.messages import Message
from ...core.names import name_key
from ...core.placings import tie_break_words
from ...db.models import Event
from ...http.compress import held
from ...services import events as service
from ...services.sessions import ledger_of
from ..shared import bp
from ..shared.present import use_currency


def board_context(event: Event) -> dict[str, Any]:
    """What every standings view shows: the standings, the tables of the latest round with
    their current scores, the prize list (or why it cannot be cut) and the words of the
    tie-breaks and the prize rule."""
    use_currency(event.currency)
    scoring = service.event_rules(event).scoring
    standings = service.standings_of(event)
    latest = event.round_rows[-1] if event.round_rows else None
    tables = []
    if latest is not None:
        for table in latest.tables:
            state = ledger_of(table.session)
            tables.append({"row": table, "totals": [(n, m.total) for n, m in state.money.items()],
                           "hands": table.session.hand_count - table.session.voided_hands,
                           "done": service.table_done(event, table)})
    prizes, prize_error = None, None
    try:
        prizes = service.prizes_of(event)
    except TonkError as exc:
        prize_error = exc.message
    withdrawn = {p.name for p in event.players if p.withdrawn_after is not None}
    return {"event": event, "scoring": scoring, "standings": standings, "latest": latest,
            "board_tables": tables, "prizes": prizes, "prize_error": prize_error,
            "withdrawn": withdrawn, "rule": str(Message("prizes.rule")),
            "tie_words": [str(w) for w in tie_break_words(service.tie_breaks_of(event))],
            "drawn": len(event.round_rows),
            "finished": service.is_final(event)}


def _tag(event: Event) -> str:
    """The board's ETag: the event's revision and every table session's, in the reader's
    language; any hand at any table, or any change to the event, moves it."""
    return f"{service.board_state(event)}.{get_locale() or 'en'}"


def _fresh(tag: str, response: Response) -> Response:
    response.set_etag(tag)
    response.headers["Cache-Control"] = "no-cache"
    response.vary.add("Accept-Language")
    return response


@bp.get("/board/<token>")
def board(token: str) -> ResponseReturnValue:
    event = service.board_event(token)
    part = Markup(render_template("events/_board.html", **board_context(event)))
    return render_template(
        "events/board.html", part=part, poll_url=url_for(".board_state", token=token),
        part_url=url_for(".board_live", token=token), etag=quote_etag(_tag(event)),
        event=event)


@bp.get("/board/<token>/state")
def board_state(token: str) -> ResponseReturnValue:
    """304 while nothing changed (the board asks every 1.5 s); else 200 and the new ETag."""
    event = service.board_event(token)
    tag = _tag(event)
    seen = held(tag, request.if_none_match)
    if seen:
        return _fresh(seen, Response(status=304))
    return _fresh(tag, jsonify({"revision": event.revision}))


@bp.get("/board/<token>/live")
def board_live(token: str) -> ResponseReturnValue:
    event = service.board_event(token)
    return _fresh(_tag(event), Response(render_template("events/_board.html",
                                                        **board_context(event)),
                                        mimetype="text/html"))


@bp.get("/board/<token>/players/<name>")
def board_player(token: str, name: str) -> ResponseReturnValue:
    """A player's own view: their place, total, each round and the table they sit at."""
    event = service.board_event(token)
    player = service.find_player(event, name)
    context = board_context(event)
    mine = next((s for s in context["standings"] if s.record.player == player.name), None)
    seats = []
    for this in event.round_rows:
        for table in this.tables:
            names = [s.name for s in table.session.seats]
            if player.name_key in {name_key(n) for n in names}:
                seats.append({"round": this.number, "table": table.number, "players": names,
                              "closed": this.closed_at is not None})
    return render_template("events/player.html", player=player, mine=mine, seats=seats,
                           board_url=url_for(".board", token=token), **context)
