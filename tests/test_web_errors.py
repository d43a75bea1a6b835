"""A form sent with mistakes lists all of them at once, at its top, each linked to its field
(the core's own words, asked for each check), beside the fields too."""
from __future__ import annotations

import re

from tests.clients import errors_of, record, sign_up, start


def _summary(resp) -> list[tuple[str, str]]:
    """(field id, message) of each link in the error summary."""
    box = re.search(r'<div class="error-summary".*?</div>', resp.get_data(as_text=True), re.S)
    assert box, "no error summary"
    return re.findall(r'<a href="#([^"]+)" data-field="[^"]+">([^<]+)</a>', box.group(0))


def test_an_empty_new_session_form_says_everything_at_once(app):
    client = app.test_client()
    sign_up(client)
    resp = client.post("/sessions/new", data={"name": "", "stake": "", "preset": "pagat"})
    assert resp.status_code == 422
    fields = [field for field, _message in _summary(resp)]
    assert fields[:3] == ["name", "player-0", "stake"], _summary(resp)
    assert len(errors_of(resp)) >= 3


def test_every_missing_count_at_once(app):
    client = app.test_client()
    sign_up(client)
    sid = start(client, players=("Ann", "Bob", "Cy", "Dee"))
    resp = record(client, sid, kind="drop", player="Bob")
    assert resp.status_code == 422
    summary = _summary(resp)
    assert [f for f, _m in summary] == ["count-0", "count-1", "count-2", "count-3"]
    assert all("count is missing" in m for _f, m in summary)
    resp = record(client, sid, kind="stock_out", **{"count-1": "4", "cards-3": "2s 3h"})
    assert [f for f, _m in _summary(resp)] == ["count-0", "count-2"]


def test_a_correction_without_a_reason_points_at_the_reason(app):
    client = app.test_client()
    sign_up(client)
    sid = start(client)
    record(client, sid, kind="tonk_out", player="Ann")
    resp = client.post(f"/sessions/{sid}/hands/1/correct",
                       data={"kind": "tonk_out", "player": "Bob", "version": "1"})
    assert resp.status_code == 422
    assert [f for f, _m in _summary(resp)] == ["reason"]
