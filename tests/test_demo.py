"""The demo league (app.services.exchange.demo and ``tonk demo-data``) on SQLite and PostgreSQL:
every kind of end, several presets, corrections, voids, closed sessions settled up; the same
seed makes the same league, and making it again adds nothing."""
from __future__ import annotations

from sqlalchemy import func, select

from app.cli.commands import cli
from app.db.models import GameSession, Hand, HandVersion, League, PlayerSessionStat, Season, User
from app.extensions import db
from app.services import accounts
from app.services.exchange import demo

HANDS = 2000



def test_the_demo_league_has_every_kind_of_end_and_several_presets(db_app):
    with db_app.app_context():
        owner, password = demo.owner_account("demo@example.com")
        assert password and accounts.authenticate("demo@example.com", password)
        report, facts = demo.make_demo(owner, hands=HANDS, seed=7)
        assert report.ok, report.problems
        assert report.hands == facts.hands == HANDS
        assert db.session.scalar(select(func.count()).select_from(Hand)) == HANDS
        assert set(facts.outcomes) == {"deal_win", "tonk_out", "run_out", "drop_won",
                                       "caught", "stock_out", "draw", "dead"}
        assert {"tonk_out.hits", "tonk_out.first_turn", "stock_out.tie", "deal.totals",
                "dead"} <= set(facts.ends)
        assert len(facts.presets) >= 6 and {"pagat", "chicago", "push_ups"} <= set(
            facts.presets)
        assert facts.corrected and facts.voided and facts.payments and facts.closed
        league = db.session.scalar(select(League))
        assert league is not None
        assert db.session.execute(select(func.count()).select_from(Season).where(
            Season.league_id == league.id)).scalar_one() >= 3
        sessions = list(db.session.scalars(select(GameSession)))
        assert all(4 <= len(gs.seats) <= 6 and gs.league_id == league.id for gs in sessions)
        assert {gs.owner_id for gs in sessions} == {owner.id}
        actions = set(db.session.scalars(select(HandVersion.action).distinct()))
        assert actions == {"recorded", "corrected", "voided"}
        # the records the standings add up agree with the running totals
        for gs in sessions[:40]:
            by_player = {s.player_id: s.total_minor for s in gs.seats}
            records = db.session.execute(select(
                PlayerSessionStat.player_id, func.sum(PlayerSessionStat.net_minor))
                .where(PlayerSessionStat.session_id == gs.id)
                .group_by(PlayerSessionStat.player_id)).all()
            assert dict(records) == by_player
        again, _facts = demo.make_demo(owner, hands=HANDS, seed=7)
        assert again.ok and again.sessions == 0 and len(again.skipped) == len(sessions)


def test_the_same_seed_makes_the_same_league():
    first_header, first_made = demo.demo_documents(3, 600)
    second_header, second_made = demo.demo_documents(3, 600)
    first, second = list(first_made), list(second_made)
    assert first_header == second_header and first == second
    assert sum(len(s["hands"]) for s in first) == 600
    _header, other = demo.demo_documents(4, 600)
    assert [s["uid"] for s in other] != [s["uid"] for s in first]


def test_a_share_of_the_sessions_is_the_same_sessions():
    share = demo.DemoShare(5, 400)
    whole = dict(share.sessions())
    halves = dict(demo.DemoShare(5, 400).sessions(0, 2))
    halves.update(demo.DemoShare(5, 400).sessions(1, 2))
    assert halves == whole


def test_tonk_demo_data(db_app):
    runner = db_app.test_cli_runner()
    out = runner.invoke(cli, ["demo-data", "--hands", "300", "--seed", "2", "--jobs", "0",
                              "--owner", "Keeper@Example.com"])
    assert out.exit_code == 0, out.output
    assert "made Riverside Tonk League" in out.output and "300 hands" in out.output
    assert "owner: keeper@example.com  password: " in out.output
    again = runner.invoke(cli, ["demo-data", "--hands", "300", "--seed", "2", "--jobs", "0",
                                "--owner", "keeper@example.com"])
    assert again.exit_code == 0 and "already here: nothing added" in again.output
    assert "password" not in again.output
    with db_app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Hand)) == 300
        assert db.session.scalar(select(func.count()).select_from(User)) == 1
