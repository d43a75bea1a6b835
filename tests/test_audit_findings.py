"""The smaller findings of the second audit, each as it was found: on
SQLite and PostgreSQL where the database matters."""
from __future__ import annotations

import io
from urllib.parse import unquote

import pytest

from app.db.models import User
from app.extensions import db
from app.services import accounts
from tests.apps import make_app
from tests.clients import Api, account, api_error, sign_up

# -- a NUL in a share token (PostgreSQL refuses to compare it: it was a 500) ----------------


def test_a_nul_in_a_share_token_finds_nothing(db_app):
    client = db_app.test_client()
    for path in ("/s/abc%00", "/s/abc%00/live", "/s/abc%00/chart.svg", "/s/abc%00/hands/1",
                 "/api/v1/share/abc%00", "/s/" + "a" * 500, "/api/v1/share/" + "a" * 500):
        resp = client.get(path)
        assert resp.status_code == 404, (path, resp.status_code)


# -- the language switcher's way back ------------------------------------------------------


def test_a_way_back_with_a_line_break_or_a_backslash_goes_home(client):
    for target in ("/%0A", "/%0D%0ASet-Cookie:%20x=1", "/%09", "/\\evil.example", "/%5Cevil"):
        resp = client.post("/language", data={"code": "de", "next": unquote(target)})
        assert resp.status_code == 303, target
        assert resp.location == "/", (target, resp.location)
    assert client.post("/language", data={"code": "de", "next": "/check"}).location == "/check"


# -- yen: whole amounts in, whole amounts out ------------------------------------------------


def test_a_yen_table_answers_whole_yen(api):
    sid = api.start(stake="5", currency="JPY")
    base = f"/sessions/{sid}"
    recorded = api.ok("POST", base + "/hands", {"end": {"kind": "tonk_out", "player": "Ann"}},
                      201)
    assert recorded["result"]["net"] == {"Ann": "30", "Bob": "-10", "Cy": "-10", "Dee": "-10"}
    assert {p["amount"] for p in recorded["result"]["payments"]} == {"10"}
    assert "10.00" not in " ".join(recorded["result"]["explanation"])
    assert api.ok("GET", base)["stake"] == "5"
    ledger = api.ok("GET", base + "/ledger")
    assert ledger["totals"]["Ann"] == "30" and ledger["open"][0]["amount"] == "10"
    api.ok("POST", base + "/payments", {"from": "Bob", "to": "Ann", "amount": "4"})
    ledger = api.ok("GET", base + "/ledger")
    assert ledger["paid"][0]["amount"] == "4" and ledger["balances"]["Bob"] == "-6"
    assert api.ok("GET", base + "/hands/1/history")[0]["result"]["net"]["Ann"] == "30"
    share = api.ok("GET", base)["share_url"].rsplit("/", 1)[1]
    assert api.client.get(f"/api/v1/share/{share}").get_json()["totals"]["Ann"] == "30"
    usd = api.start(stake="0.25")  # two places stay two places
    assert api.ok("POST", f"/sessions/{usd}/hands", {"end": {"kind": "tonk_out",
                                                             "player": "Ann"}}, 201)[
        "result"]["net"]["Ann"] == "1.50"


# -- a reset link used on two servers at the same moment -----------------------------------


def test_a_reset_link_used_twice_at_the_same_moment_works_once(db_app, monkeypatch):
    """On PostgreSQL two servers read the link's account at once; only one may set the
    password. (On SQLite a POST takes the write lock before it reads: the second waits,
    then finds the link used, as test_accounts shows.)"""
    if db_app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"):
        pytest.skip("SQLite serialises the two: BEGIN IMMEDIATE before anything is read")
    account(db_app, "ann@example.com", "Ann")
    with db_app.app_context():
        user = db.session.scalar(db.select(User).where(User.email == "ann@example.com"))
        link = "/reset/" + accounts.reset_token(user, "test")
        db.session.remove()
    other = make_app(db_app.config["SQLALCHEMY_DATABASE_URI"])  # the second server
    real = accounts.reset_user
    raced: list[int] = []
    posted = db_app.test_client().get(link)  # (the page of the link, as a phone opens it)
    assert posted.status_code == 200

    def meanwhile(token: str, secret_key: str) -> User:
        found = real(token, secret_key)  # this server has read the link's account…
        if not raced:  # …and the other server uses the same link before it writes
            raced.append(0)
            monkeypatch.setattr(accounts, "reset_user", real)
            raced[0] = other.test_client().post(
                link, data={"password": "the other new secret"}).status_code
        return found

    monkeypatch.setattr(accounts, "reset_user", meanwhile)
    late = db_app.test_client().post(link, data={"password": "a brand new secret"})
    assert raced == [302]
    assert late.status_code == 422
    assert "used already" in late.get_data(as_text=True)
    signin = other.test_client().post("/signin", data={
        "email": "ann@example.com", "password": "the other new secret"})
    assert signin.status_code == 302
    with other.app_context():
        db.session.remove()
        db.engine.dispose()


# -- imports that quote what they cannot take ------------------------------------------------

def _doc(stake: str = '"0.25"', name: str = "Friday") -> bytes:
    return ('{"format": "tonk-tally", "version": 2, "league": null, "sessions": [{"uid": "a",'
            f' "name": "{name}", "currency": "USD", "stake": {stake}, "rules": "pagat",'
            ' "players": ["Ann", "Bob"], "hands": []}]}').encode()


def test_a_million_digit_stake_is_a_problem_of_the_import_not_a_500(app, tmp_path):
    from app.cli.commands import cli

    client = app.test_client()
    sign_up(client)
    resp = client.post("/import", data={"file": (io.BytesIO(_doc("9" * 1_000_000)),
                                                 "big.json")},
                       content_type="multipart/form-data")
    assert resp.status_code == 422
    assert "a number too long to be read" in resp.get_data(as_text=True)
    path = tmp_path / "big.json"
    path.write_bytes(_doc("9" * 1_000_000))
    at = _doc().index(b'{"uid"') + 1  # the session that holds it
    for jobs in ("0", "1"):
        out = app.test_cli_runner().invoke(cli, ["import", str(path), "--owner",
                                                 "sam@example.com", "--jobs", jobs])
        assert out.exit_code == 1, out.output
        assert out.stderr.splitlines() == [
            "Nothing was imported. There is 1 problem:",
            f"the file has a number too long to be read near line 1 (character {at})"]


def test_the_import_report_names_a_huge_name_without_repeating_it(app, tmp_path):
    from app.cli.commands import cli

    client = app.test_client()
    sign_up(client)
    huge = "N" * 1_500_000
    resp = client.post("/import", data={"file": (io.BytesIO(_doc(name=huge)), "n.json")},
                       content_type="multipart/form-data")
    assert resp.status_code == 422 and len(resp.get_data()) < 60_000
    assert "NNNN…" in resp.get_data(as_text=True)
    path = tmp_path / "n.json"
    path.write_bytes(_doc(stake='"' + "1" * 3_000_000 + '"', name=huge))
    out = app.test_cli_runner().invoke(cli, ["import", str(path), "--owner",
                                             "sam@example.com", "--jobs", "0"])
    assert out.exit_code == 1 and len(out.stderr) < 2_000, out.stderr[:300]


# -- an empty query value is not one of an enum's ----------------------------------------------

def test_empty_enum_query_values_are_refused_naming_them(api):
    lid = api.ok("POST", "/leagues", {"name": "Thursday", "rules": "pagat", "stake": "0.50"},
                 201)["id"]
    player = api.ok("POST", f"/leagues/{lid}/members", {"name": "Dee"}, 201)["id"]
    document = api.client.get("/api/v1/openapi.json").get_json()
    standings = document["paths"]["/api/v1/leagues/{league_id}/standings"]["get"]
    enums = {p["name"]: p["schema"].get("enum") for p in standings["parameters"]
             if p["in"] == "query"}
    assert "" not in enums["scoring"] and "" not in enums["sort"]
    for path, name in ((f"/leagues/{lid}/standings?scoring=&sort=", "scoring"),
                       (f"/leagues/{lid}/standings?sort=", "sort"),
                       (f"/leagues/{lid}/standings?dir=%20", "dir"),
                       (f"/leagues/{lid}/players/{player}?scoring=", "scoring"),
                       (f"/leagues/{lid}/ratings?sort=", "sort")):
        api_error(api("GET", path), 422, name, "is empty")  # as ?sort=bogus
    assert api.ok("GET", f"/leagues/{lid}/standings?sort=net")["sort"] == "net"


# -- SQLite on a read-only filesystem: reading goes on -----------------------------------------

@pytest.fixture
def read_only_mount(tmp_path):
    """A folder on a filesystem of its own, to be made read-only (a small tmpfs: needs the
    right to mount, else the test is skipped); unmounted afterwards."""
    import shutil
    import subprocess

    folder = tmp_path / "mount"
    folder.mkdir()
    if shutil.which("mount") is None or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(folder)],
            capture_output=True).returncode != 0:
        pytest.skip("cannot mount a filesystem here (needs root)")

    def read_only() -> None:
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)

    yield folder, read_only
    subprocess.run(["umount", "-l", str(folder)], check=False)


def test_sqlite_on_a_read_only_filesystem_still_reads(read_only_mount, sqlite_schema):
    import shutil

    folder, read_only = read_only_mount
    path = folder / "club.sqlite"
    shutil.copyfile(sqlite_schema, path)
    url = f"sqlite:///{path}"
    app = make_app(url)
    token = account(app, "ann@example.com", "Ann")
    api = Api(app.test_client(), token)
    sid = api.start()
    api.ok("POST", f"/sessions/{sid}/hands", {"end": {"kind": "tonk_out", "player": "Ann"}},
           201)
    share = api.ok("GET", f"/sessions/{sid}")["share_url"]
    with app.app_context():
        db.session.remove()
        db.engine.dispose()  # the app stops; its WAL is checkpointed and removed
    assert not (folder / "club.sqlite-wal").exists()
    read_only()
    served = make_app(url)  # starts again on the read-only disk
    api = Api(served.test_client(), token)
    assert api.ok("GET", f"/sessions/{sid}/ledger")["totals"]["Ann"] == "1.50"
    assert served.test_client().get(share).status_code == 200
    refused = api("POST", f"/sessions/{sid}/hands", {"end": {"kind": "tonk_out",
                                                             "player": "Bob"}})
    assert refused.status_code == 503 and "read-only" in refused.get_json()["error"]
    with served.app_context():
        db.session.remove()
        db.engine.dispose()
