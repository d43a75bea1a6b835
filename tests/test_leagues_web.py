"""The league pages through Flask's test client, on SQLite and PostgreSQL: every page
renders; standings sort by every column and link each number to the hands behind it; a
season and a scoring can be chosen; the player's page; starting a session in a league from
the league's defaults; the settings forms with each bad input shown beside its field; and
another account finds nothing (404) wherever it looks."""
from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from markupsafe import escape

from app.db.models import GameSession, League, Player, Season, User
from app.db.unit import unit_of_work
from app.extensions import db
from app.services import accounts, leagues
from app.services.sessions import ledger
from tests.clients import shown_beside, sign_up
from tests.expect import fetched, matched

EVIL = "<script>alert(1)</script>"


def text(resp) -> str:
    return resp.get_data(as_text=True)


def new_league(client, **extra) -> int:
    data = {"name": "Thursday Tonk", "stake": "0.50", "currency": "USD",
            "preset": "chicago", **extra}
    resp = client.post("/leagues/new", data=data)
    assert resp.status_code == 302, text(resp)
    return int(resp.location.rsplit("/", 1)[1])


@pytest.fixture
def keeper(db_app):
    """A signed-in client with a league and two nights in it: one under money (closed, so
    rated) and one under push-ups; and a season covering the first night only."""
    client = db_app.test_client()
    sign_up(client)
    lid = new_league(client)
    with db_app.app_context(), unit_of_work():
        user = db.session.scalar(db.select(User))
        league = fetched(League, lid)
        leagues.add_season(league, name="Early", starts_on="2025-01-01",
                           ends_on="2025-01-31")
        gs = ledger.create_session(user, name="Night one", players=["Ann", "Bob", "Cy"],
                                   rules="pagat", stake="0.25", league_id=lid)
        gs.created_at = datetime(2025, 1, 10, 20, tzinfo=UTC)
        db.session.commit()
        ledger.record_hand(gs, user, {"end": {"kind": "tonk_out", "player": "Ann"}})
        ledger.record_hand(gs, user, {"end": {"kind": "drop", "player": "Bob"},
                                      "counts": {"Ann": 12, "Bob": 9, "Cy": 9}})
        for t in ledger.ledger_of(gs).transfers:
            ledger.record_payment(gs, user, t.payer, t.payee, str(t.amount))
        ledger.close_session(gs)
        gs2 = ledger.create_session(user, name="Night two", players=["Ann", "Dee"],
                                    rules="push_ups", league_id=lid)
        ledger.record_hand(gs2, user, {"end": {"kind": "tonk_out", "player": "Dee"},
                                       "counts": {"Ann": 17}})
        ids = {p.name: p.id for p in leagues.members(league)}
    return client, lid, ids


def test_every_league_page_renders(db_app, keeper):
    client, lid, ids = keeper
    ann = ids["Ann"]
    for path in ["/leagues", "/leagues/new", f"/leagues/{lid}", f"/leagues/{lid}?season=all",
                 f"/leagues/{lid}/players/{ann}", f"/leagues/{lid}/players/{ann}?scoring=push_ups",
                 f"/leagues/{lid}/hands?player={ann}&stat=tonks_out",
                 f"/leagues/{lid}/settings", f"/sessions/new?league={lid}", "/",
                 "/leagues/static/leagues.css"]:
        with client.get(path) as resp:  # closed: a static file's answer holds it open
            assert resp.status_code == 200, path
    for lang in ("de", "ja"):
        assert client.get(f"/leagues/{lid}?season=all",
                          headers={"Accept-Language": lang}).status_code == 200
    home = text(client.get("/"))
    assert f'href="/leagues/{lid}"' in home and "Thursday Tonk" in home
    assert 'href="/leagues"' in home  # the nav


def test_standings_page(keeper):
    client, lid, ids = keeper
    page = text(client.get(f"/leagues/{lid}?season=all"))
    assert "Standings: all time" in page
    # two scorings were played: a tab for each
    assert f'href="/leagues/{lid}?season=all&amp;scoring=push_ups"' in page
    assert 'aria-current="page">Money<' in page
    # Ann: +1.00 for her tonk out, -0.25 for the caught drop: +0.75, first
    rows = re.findall(r'<td class="place">(\d+)</td>\s*<td class="name"><a[^>]*>(\w+)</a>',
                      page)
    assert rows == [("1", "Ann"), ("2", "Cy"), ("3", "Bob")]
    assert '<span class="amt pos">+0.75</span>' in page
    # every number leads to the hands behind it
    link = (f'href="/leagues/{lid}/hands?player={ids["Ann"]}&amp;stat=tonks_out&amp;'
            f'season=all&amp;scoring=money"')
    assert link in page
    # ratings, with their uncertainty; the sessions, newest first
    assert "±" in page and page.index("Night two") < page.index("Night one")
    assert f'href="/sessions/new?league={lid}"' in page
    # the season chosen: only the first night
    early = db_season(client, lid)
    season_page = text(client.get(f"/leagues/{lid}?season={early}&scoring=push_ups"))
    assert "Standings: Early" in season_page and "No hands counted here yet." in season_page
    # the ratings do not follow the season: they say so (a newcomer took them for Early's)
    assert "<h2>Ratings: all time</h2>" in season_page and 'id="ratings-all-time"' in season_page
    assert 'id="ratings-all-time"' not in page


def db_season(client, lid) -> int:
    with client.application.app_context():
        return db.session.scalar(db.select(Season.id).where(Season.league_id == lid))


def test_standings_sort_by_every_column(keeper):
    client, lid, _ids = keeper
    for column, direction in ((c, d) for c in leagues.SORTS for d in ("asc", "desc")):
        resp = client.get(f"/leagues/{lid}?season=all&sort={column}&dir={direction}")
        assert resp.status_code == 200
        page = text(resp)
        sorted_as = "ascending" if direction == "asc" else "descending"
        assert re.search(rf'aria-sort="{sorted_as}"><a href="[^"]*sort={column}&amp;dir='
                         rf'{"desc" if direction == "asc" else "asc"}', page), column


def test_the_page_ignores_what_it_cannot_sort_by(keeper):
    client, lid, _ids = keeper
    resp = client.get(f"/leagues/{lid}?sort=luck&dir=up&scoring=chips&rsort=x")
    assert resp.status_code == 200
    assert client.get(f"/leagues/{lid}?season=999999").status_code == 404


def test_the_hands_behind_a_number(keeper):
    client, lid, ids = keeper
    page = text(client.get(f"/leagues/{lid}/hands?player={ids['Ann']}&stat=tonks_out"
                           "&season=all&scoring=money"))
    assert "1 hand" in page and "Night one" in page
    session_id = re.search(r'href="/sessions/(\d+)/hands/1"', page)
    assert session_id is not None
    assert client.get(f"/sessions/{session_id.group(1)}/hands/1").status_code == 200
    assert client.get(f"/leagues/{lid}/hands?player=999&stat=hands").status_code == 404


def test_the_hands_behind_a_net_say_what_the_side_bets_made(db_app):
    """A newcomer found a member's net (+0.30) whose hands, listed, summed to 0.00: the
    side bets are in the net, on no hand. The page says the net's parts."""
    client = db_app.test_client()
    sign_up(client)
    lid = new_league(client, preset="pagat")
    with db_app.app_context(), unit_of_work():
        user = db.session.scalar(db.select(User))
        gs = ledger.create_session(user, name="Bets", players=["Ann", "Bob", "Cy"],
                                   stake="0.50", league_id=lid,
                                   side_bets={"naturals": {"stake": "0.10"}})
        ledger.record_hand(gs, user, {"end": {"kind": "run_out", "player": "Bob"},
                                      "side_bets": [{"bet": "naturals", "winner": "Ann"}]})
        ann = db.session.scalar(db.select(Player.id).where(Player.name == "Ann"))
    page = text(client.get(f"/leagues/{lid}/hands?player={ann}&stat=net&scoring=money"))
    said = re.search(r'<p class="hint" id="net-parts">(.*?)</p>', page)
    assert said is not None, page
    # Ann: the run out -0.50, the naturals pot +0.20 (Bob's and Cy's 0.10)
    assert re.sub(r"<[^>]+>", "", said.group(1)) == (
        "Net −0.30: the hands below −0.50, the side bets and what the pots gave back +0.20.")
    plain = text(client.get(f"/leagues/{lid}/hands?player={ann}&stat=tonks_out"))
    assert 'id="net-parts"' not in plain
    average = text(client.get(f"/leagues/{lid}/hands?player={ann}&stat=average"))
    assert 'id="net-parts"' in average  # (the net a hand: the same parts)


def test_the_sessions_behind_a_number(keeper):
    """The standings' Sessions number leads to that member's sessions, not their hands."""
    client, lid, ids = keeper
    standings = text(client.get(f"/leagues/{lid}?scoring=money"))
    link = f"/leagues/{lid}/sessions?player={ids['Ann']}&amp;season=all&amp;scoring=money"
    assert link in standings
    page = text(client.get(link.replace("&amp;", "&")))
    assert "1 session" in page and "Night one" in page and "2 hands" in page
    assert "Night two" not in page  # played under push-ups: another tab
    pushed = text(client.get(f"/leagues/{lid}/sessions?player={ids['Ann']}&scoring=push_ups"))
    assert "Night two" in pushed and "Night one" not in pushed
    early = db_season(client, lid)
    assert "Night one" in text(client.get(
        f"/leagues/{lid}/sessions?player={ids['Ann']}&season={early}&scoring=money"))
    assert client.get(f"/leagues/{lid}/sessions?player=999").status_code == 404


def test_the_players_page(keeper):
    client, lid, ids = keeper
    page = text(client.get(f"/leagues/{lid}/players/{ids['Ann']}"))
    assert "Record by season" in page and "Early" in page and "All time" in page
    assert "<svg" in page and "<polyline" in page  # the running total, drawn
    assert "Biggest wins" in page and "Night one" in page
    assert "Head to head" in page
    assert f'href="/leagues/{lid}/players/{ids["Bob"]}?scoring=money"' in page
    push = text(client.get(f"/leagues/{lid}/players/{ids['Ann']}?scoring=push_ups"))
    assert "Best sessions (fewest pushed up)" in push and "Dee" in push
    assert client.get(f"/leagues/{lid}/players/999999").status_code == 404


def test_a_new_session_in_the_league(db_app, keeper):
    client, lid, ids = keeper
    form = text(client.get(f"/sessions/new?league={lid}"))
    assert f'<option value="{lid}" selected>Thursday Tonk</option>' in form
    assert 'value="0.50"' in form and '<option value="chicago" data-summary' in form
    assert re.search(r'<option value="chicago"[^>]*selected', form)
    assert '<option value="Ann">' in form  # the members, suggested
    # the seats start with the league's members (the README: its players are its members)
    assert 'id="player-0" value="Ann"' in form and 'id="player-1" value="Bob"' in form
    resp = client.post("/sessions/new", data={
        "name": "Night three", "player-0": "ann", "player-1": "Eve", "first_dealer": "0",
        "stake": "0.50", "currency": "USD", "preset": "chicago", "league": str(lid)})
    assert resp.status_code == 302, text(resp)
    with db_app.app_context():
        gs = db.session.scalar(db.select(GameSession).where(GameSession.name == "Night three"))
        assert gs.league_id == lid
        assert gs.seats[0].player_id == ids["Ann"]  # the same person, whatever the case
        names = [p.name for p in leagues.members(fetched(League, lid))]
        assert "Eve" in names
    bad = client.post("/sessions/new", data={
        "name": "x", "player-0": "A", "player-1": "B", "first_dealer": "0", "stake": "1",
        "preset": "pagat", "league": "999999"})
    shown_beside(bad, "league", "Choose one of the leagues you run.")


def test_new_league_errors_show_beside_the_field(db_app):
    client = db_app.test_client()
    sign_up(client)
    for data, field, message in [
            ({"name": " "}, "name", "the league's name cannot be empty"),
            ({"name": "L", "stake": "0.333"}, "stake",
             "the stake has at most two decimal places, not 0.333"),
            ({"name": "L", "preset": "bogus"}, "preset", None),
            ({"name": "L", "opt-catch_factor": "x"}, "opt-catch_factor",
             "Catch factor: enter a whole number.")]:
        resp = client.post("/leagues/new", data={"stake": "1", "preset": "pagat", **data})
        if message is None:
            assert resp.status_code == 422 and 'id="err-preset"' in text(resp)
        else:
            shown_beside(resp, field, message)
    with db_app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(League)) == 0


def test_settings_change_the_league(db_app, keeper):
    client, lid, ids = keeper
    with db_app.app_context(), unit_of_work():
        accounts.create_user("pat@example.com", "Pat", "secret-table-9")
    ok = [(f"/leagues/{lid}/members", {"member-name": "Gus"}),
          (f"/leagues/{lid}/members/{ids['Bob']}", {f"rename-{ids['Bob']}-name": "Bobby"}),
          (f"/leagues/{lid}/admins", {"admin-email": "pat@example.com"}),
          (f"/leagues/{lid}/seasons", {"season-name": "Late", "season-starts_on": "2025-02-01",
                                       "season-ends_on": "2025-12-31"}),
          (f"/leagues/{lid}/settings", {"name": "Friday Tonk", "stake": "1", "currency": "EUR",
                                        "preset": "pagat"})]
    for path, data in ok:
        resp = client.post(path, data=data)
        assert resp.status_code == 302, (path, text(resp))
    with db_app.app_context():
        league = fetched(League, lid)
        assert (league.name, league.currency, league.stake_minor) == ("Friday Tonk", "EUR", 100)
        assert [p.name for p in leagues.members(league)] == ["Ann", "Bobby", "Cy", "Dee", "Gus"]
        assert [u.email for u in leagues.admins(league)] == ["sam@example.com",
                                                             "pat@example.com"]
        pat = db.session.scalar(db.select(User).where(User.email == "pat@example.com"))
        late = db.session.scalar(db.select(Season).where(Season.name == "Late"))
        pat_id, late_id = pat.id, late.id
    page = text(client.get(f"/leagues/{lid}/settings"))
    assert "Bobby" in page and "pat@example.com" in page and "Late" in page
    assert client.post(f"/leagues/{lid}/seasons/{late_id}/remove").status_code == 302
    assert client.post(f"/leagues/{lid}/admins/{pat_id}/remove").status_code == 302
    with db_app.app_context():
        league = fetched(League, lid)
        assert [s.name for s in league.seasons] == ["Early"]
        assert len(leagues.admins(league)) == 1


def seen_of(page: str) -> str:
    """The mark of the settings a settings page showed, which its form carries back."""
    return matched(r'<input type="hidden" name="seen" value="([0-9a-f]+)">', page).group(1)


def test_two_tabs_of_settings_do_not_save_over_each_other_unseen(db_app, keeper):
    """Two admins (or two tabs) open the league's settings; one changes the stake, the
    other then the name from a page that still shows the old stake: the second save would
    have put the old stake back without a word. It is shown instead (409, what was typed
    kept, nothing saved); saved again, it goes through."""
    client, lid, _ids = keeper
    form = {"name": "Thursday Tonk", "stake": "1", "currency": "USD", "preset": "pagat"}
    first = seen_of(text(client.get(f"/leagues/{lid}/settings")))
    second = seen_of(text(client.get(f"/leagues/{lid}/settings")))
    assert first == second
    resp = client.post(f"/leagues/{lid}/settings", data={**form, "stake": "2", "seen": first})
    assert resp.status_code == 302
    resp = client.post(f"/leagues/{lid}/settings",
                       data={**form, "name": "Friday Tonk", "seen": second})
    page = text(resp)
    assert resp.status_code == 409
    assert "These settings were changed meanwhile, in another tab or by someone else" in page
    assert 'value="Friday Tonk"' in page and seen_of(page) not in (first, second)
    with db_app.app_context():
        league = fetched(League, lid)
        assert (league.name, league.stake_minor) == ("Thursday Tonk", 200)
    resp = client.post(f"/leagues/{lid}/settings",
                       data={**form, "name": "Friday Tonk", "seen": seen_of(page)})
    assert resp.status_code == 302
    with db_app.app_context():
        league = fetched(League, lid)
        assert (league.name, league.stake_minor) == ("Friday Tonk", 100)


def test_the_german_settings_page_shows_the_stake_as_german_pages_type_it(db_app, keeper):
    """"0,50" on the German page (it held "0.50" beside amounts written "0,50"), and the
    form saved unchanged keeps 0.50."""
    client, lid, _ids = keeper
    client.post("/language", data={"code": "de", "next": "/"})
    page = text(client.get(f"/leagues/{lid}/settings"))
    assert 'id="stake" value="0,50"' in page
    resp = client.post(f"/leagues/{lid}/settings", data={
        "name": "Thursday Tonk", "stake": "0,50", "currency": "USD", "preset": "chicago",
        "seen": seen_of(page)})
    assert resp.status_code == 302
    with db_app.app_context():
        assert fetched(League, lid).stake_minor == 50


@pytest.mark.parametrize("path, data, field, message", [
    ("members", {"member-name": "ANN"}, "member-name", "Ann is already a member of this league"),
    ("members", {"member-name": "  "}, "member-name", "the member's name cannot be empty"),
    ("admins", {"admin-email": "nobody@example.com"}, "admin-email",
     "there is no account with the email nobody@example.com: they sign up first"),
    ("admins", {"admin-email": "sam@example.com"}, "admin-email",
     "sam@example.com already runs this league"),
    ("seasons", {"season-name": "S", "season-starts_on": "2025-03-01",
                 "season-ends_on": "2025-02-01"}, "season-ends_on",
     "the season cannot end (2025-02-01) before it starts (2025-03-01)"),
    ("seasons", {"season-name": "", "season-starts_on": "2025-03-01",
                 "season-ends_on": "2025-04-01"}, "season-name",
     "the season's name cannot be empty"),
    ("seasons", {"season-name": "S", "season-starts_on": "soon",
                 "season-ends_on": "2025-04-01"}, "season-starts_on",
     'the first day must be a date like 2026-01-31, not "soon"'),
    ("settings", {"name": "", "stake": "1", "preset": "pagat"}, "name",
     "the league's name cannot be empty"),
])
def test_settings_errors_show_beside_the_field(keeper, path, data, field, message):
    client, lid, _ids = keeper
    resp = client.post(f"/leagues/{lid}/{path}", data=data)
    shown_beside(resp, field, message)
    # one summary, at the top: a member's error was summed up inside the league's form
    page = text(resp)
    assert page.count('id="error-summary"') == 1
    assert page.index('id="error-summary"') < page.index('<section id="members">')
    for value in data.values():
        if value.strip() and path != "settings":
            assert f'value="{escape(value.strip())}"' in text(resp)  # kept as typed


def test_rename_errors_show_beside_that_member(keeper):
    client, lid, ids = keeper
    resp = client.post(f"/leagues/{lid}/members/{ids['Bob']}",
                       data={f"rename-{ids['Bob']}-name": "cy"})
    shown_beside(resp, f"rename-{ids['Bob']}-name", "Cy is already a member of this league")


def test_the_owner_cannot_be_removed(db_app, keeper):
    client, lid, _ids = keeper
    with db_app.app_context():
        owner = fetched(League, lid).owner_id
    resp = client.post(f"/leagues/{lid}/admins/{owner}/remove", follow_redirects=True)
    assert "the league&#39;s owner always runs it" in text(resp)


def test_another_account_finds_nothing(db_app, keeper):
    client, lid, ids = keeper
    with db_app.app_context():
        season = db.session.scalar(db.select(Season.id))
        owner = fetched(League, lid).owner_id
    other = db_app.test_client()
    sign_up(other, "eve@example.com", "Eve")
    ann = ids["Ann"]
    gets = [f"/leagues/{lid}", f"/leagues/{lid}/players/{ann}", f"/leagues/{lid}/settings",
            f"/leagues/{lid}/hands?player={ann}&stat=hands", "/leagues/999999"]
    posts = [f"/leagues/{lid}/settings", f"/leagues/{lid}/members",
             f"/leagues/{lid}/members/{ann}", f"/leagues/{lid}/admins",
             f"/leagues/{lid}/admins/{owner}/remove", f"/leagues/{lid}/seasons",
             f"/leagues/{lid}/seasons/{season}/remove"]
    for path in gets:
        resp = other.get(path)
        assert resp.status_code == 404, path
        assert "Thursday Tonk" not in text(resp)
    for path in posts:
        assert other.post(path, data={"name": "x", "member-name": "x",
                                      "admin-email": "eve@example.com"}).status_code == 404
    assert "Thursday Tonk" not in text(other.get("/leagues"))
    form = text(other.get(f"/sessions/new?league={lid}"))
    assert "Thursday Tonk" not in form
    resp = other.post("/sessions/new", data={
        "name": "x", "player-0": "A", "player-1": "B", "first_dealer": "0", "stake": "1",
        "preset": "pagat", "league": str(lid)})
    shown_beside(resp, "league", "Choose one of the leagues you run.")
    with db_app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(Player).where(
            Player.name == "A")) == 0
    # signed out: to the sign-in page
    anonymous = db_app.test_client()
    assert anonymous.get(f"/leagues/{lid}").status_code in (302, 401)


def test_names_are_escaped(db_app):
    client = db_app.test_client()
    sign_up(client)
    lid = new_league(client, name=EVIL)
    assert client.post(f"/leagues/{lid}/members", data={"member-name": EVIL[:40]}
                       ).status_code == 302
    for path in ("/leagues", f"/leagues/{lid}", f"/leagues/{lid}/settings", "/"):
        assert EVIL not in text(client.get(path)), path


def test_a_yen_leagues_average_per_hand_is_written_in_whole_yen(db_app):
    """Every yen amount is whole yen (app.core.money): the standings' net and their average
    per hand too, where a dollar league's keep their cents."""
    client = db_app.test_client()
    sign_up(client)
    yen = new_league(client, name="Tokyo night", stake="100", currency="JPY")
    dollars = new_league(client, name="Boston night", stake="0.25", currency="USD")
    with db_app.app_context(), unit_of_work():
        user = db.session.scalar(db.select(User))
        for lid, stake, currency in ((yen, "100", "JPY"), (dollars, "0.25", "USD")):
            gs = ledger.create_session(user, name="Night", players=["Ann", "Bob", "Cy"],
                                       rules="pagat", stake=stake, currency=currency,
                                       league_id=lid)
            for winner in ("Ann", "Ann", "Bob"):
                ledger.record_hand(gs, user, {"end": {"kind": "tonk_out", "player": winner}})
    page = text(client.get(f"/leagues/{yen}?season=all"))
    averages = re.findall(r'<td[^>]*class="[^"]*average[^"]*"[^>]*>.*?</td>', page, re.S)
    cells = re.findall(r'<span class="amt [a-z]+">([^<]*)</span>', " ".join(averages))
    assert cells and all("." not in c for c in cells), cells
    page = text(client.get(f"/leagues/{dollars}?season=all"))
    averages = re.findall(r'<td[^>]*class="[^"]*average[^"]*"[^>]*>.*?</td>', page, re.S)
    cells = re.findall(r'<span class="amt [a-z]+">([^<]*)</span>', " ".join(averages))
    assert cells and all(re.search(r"\.\d\d$", c) for c in cells), cells


def test_a_leagues_header_names_the_rules_it_changed(client):
    """The header said "Standard (pagat.com)" of a league that plays another catch: it
    names each rule changed, as a session's does."""
    sign_up(client)
    lid = new_league(client, preset="pagat", **{"opt-catch": "alt3"})
    page = text(client.get(f"/leagues/{lid}"))
    meta = re.search(r'<p class="meta">(.*?) · ', page, re.S)
    assert meta is not None and meta.group(1).startswith("Standard (pagat.com) (Caught drop: ")
    plain = text(client.get(f"/leagues/{new_league(client, preset='pagat')}"))
    assert "Standard (pagat.com) · " in plain


def test_a_points_debt_says_points(db_app):
    """A league's carried debts listed "Bob → Ann 2" beside "$1.50": a points debt says
    its unit."""
    client = db_app.test_client()
    sign_up(client)
    lid = new_league(client, preset="pagat")
    with db_app.app_context(), unit_of_work():
        user = db.session.scalar(db.select(User))
        gs = ledger.create_session(user, name="Points", players=["Ann", "Bob"],
                                   rules={"preset": "pagat", "scoring": "points"},
                                   stake="1", league_id=lid)
        ledger.record_hand(gs, user, {"end": {"kind": "tonk_out", "player": "Ann"}})
        ledger.close_session(gs, carry_over=True)
    page = text(client.get(f"/leagues/{lid}"))
    debt = re.search(r'<ul class="debts">.*?</ul>', page, re.S)
    assert debt is not None and '<span class="amt">2 points</span>' in debt.group(0)
