"""Export and import pages: a league's or a session's JSON document and its hands and
payments as CSV, for whoever runs it (the session's owner, or the league's owner or an
admin; anyone else gets 404); and the page that imports a JSON export and shows its report.

Downloads stream: a large league is written as it is read, never held whole in memory.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from flask import (
    Blueprint,
    Response,
    render_template,
    request,
    stream_with_context,
    url_for,
)
from flask.typing import ResponseReturnValue
from flask_babel import lazy_gettext as _l
from flask_login import current_user
from flask_wtf import FlaskForm
from flask_wtf.file import FileAllowed, FileField, FileRequired
from werkzeug.routing import BuildError

from ...db.models import GameSession, League
from ...db.unit import writes
from ...extensions import csrf
from ...http.bodies import body_limit, in_words
from ...services.exchange import (
    export_league,
    export_session,
    exportable_league,
    hands_csv,
    import_file,
    league_session_ids,
    may_export_league,
    payments_csv,
    players_csv,
)
from ...services.sessions import keeps_score, owned_session
from ..shared.site import login_required, me

bp = Blueprint("exchange", __name__)

#: The largest file the import page takes (the rest of the app takes 2 MB).
IMPORT_MAX_BYTES = 256 * 1024 * 1024


class ImportForm(FlaskForm):  # type: ignore[misc]  # flask_wtf is untyped
    file = FileField(_l("A JSON export from Tonk Tally"), validators=[
        FileRequired(_l("Choose the file to import.")),
        FileAllowed(["json"], _l("Choose a .json file: an export from Tonk Tally."))])


@bp.app_template_global("may_export_league")
def may_export_league_here(league: League) -> bool:
    """Whether the signed-in account may export ``league`` (for the link blocks)."""
    return bool(current_user.is_authenticated) and may_export_league(me(), league)


@bp.app_template_global("may_export_session")
def may_export_session_here(gs: GameSession) -> bool:
    """Whether the signed-in account may export ``gs`` (for the link blocks)."""
    if not current_user.is_authenticated:
        return False
    return keeps_score(me(), gs)


def _filename(name: str, suffix: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60] or "tonk"
    return f"tonk-{slug}.{suffix}"


def _download(chunks: Iterator[str], filename: str, mimetype: str) -> Response:
    response = Response(stream_with_context(chunks), mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    response.headers["Cache-Control"] = "no-store"
    return response


#: The CSV tables of a league's or a session's sessions, each at ``…/<name>.csv``.
TABLES: dict[str, Callable[[Sequence[int]], Iterator[str]]] = {
    "hands": hands_csv, "payments": payments_csv, "players": players_csv}


def _csv(table: str, name: str, session_ids: Sequence[int]) -> Response:
    return _download(TABLES[table](session_ids), _filename(f"{name} {table}", "csv"),
                     "text/csv")


# -- a league --------------------------------------------------------------------------------

@bp.get("/leagues/<int:league_id>/export.json")
@login_required
def league_json(league_id: int) -> ResponseReturnValue:
    league = exportable_league(me(), league_id)
    return _download(export_league(league), _filename(league.name, "json"),
                     "application/json")


@login_required
def league_table(league_id: int, table: str) -> ResponseReturnValue:
    """One of a league's CSV tables (:data:`TABLES`): its sessions' hands, payments or
    players."""
    league = exportable_league(me(), league_id)
    return _csv(table, league.name, league_session_ids(league))


# -- a session -------------------------------------------------------------------------------

@bp.get("/sessions/<int:session_id>/export.json")
@login_required
def session_json(session_id: int) -> ResponseReturnValue:
    gs = owned_session(me(), session_id)
    return _download(export_session(gs), _filename(gs.name, "json"), "application/json")


@login_required
def session_table(session_id: int, table: str) -> ResponseReturnValue:
    """One of a session's CSV tables (:data:`TABLES`)."""
    gs = owned_session(me(), session_id)
    return _csv(table, gs.name, [gs.id])


for _table in ("hands", "payments", "players"):  # league_hands, session_hands, …
    bp.add_url_rule(f"/leagues/<int:league_id>/{_table}.csv", f"league_{_table}", league_table,
                    defaults={"table": _table})
    bp.add_url_rule(f"/sessions/<int:session_id>/{_table}.csv", f"session_{_table}",
                    session_table, defaults={"table": _table})


# -- import ----------------------------------------------------------------------------------

@bp.route("/import", methods=["GET", "POST"])
@body_limit("IMPORT_MAX_BYTES", IMPORT_MAX_BYTES)
@writes
@login_required
def import_page() -> ResponseReturnValue:
    form = ImportForm()
    report = None
    if form.validate_on_submit():
        report = import_file(form.file.data.stream, me())
    league_url = None
    if report is not None and report.league_id is not None:
        try:
            league_url = url_for("leagues.league", league_id=report.league_id)
        except BuildError:  # no league pages in this app
            league_url = None
    status = 422 if (report is not None and not report.ok) or form.errors else 200
    return render_template("exchange/import.html", form=form, report=report,
                           league_url=league_url,
                           largest=in_words(int(request.max_content_length or 0))), status


# The app-wide CSRF check would read the upload under the app's 2 MB limit before the view
# could raise it; the import form checks its own token instead (FlaskForm).
csrf.exempt(import_page)
