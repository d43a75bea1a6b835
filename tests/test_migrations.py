"""The Alembic migrations build exactly the schema the models describe, on SQLite and
PostgreSQL, and can be undone: every schema change has its migration."""
from __future__ import annotations

import logging

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect, text

from app.extensions import db
from app.services.exchange import importer
from tests.apps import migrated_to


def test_migrations_match_the_models(db_app):
    with db_app.app_context():
        migrated_to()
        with db.engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(
                conn, opts={"compare_type": True}), db.metadata)
        assert diff == []
        downgrade(revision="base")
        assert set(inspect(db.engine).get_table_names()) <= {"alembic_version"}


def test_upgrading_keeps_and_counts_hands_recorded_before_leagues(db_app):
    """A database at 0001 with a recorded hand: 0002 adds league support and backfills each
    player's session record from the stored hand; downgrading and upgrading again works."""
    with db_app.app_context():
        migrated_to("0001")
        with db.engine.begin() as conn:
            for sql in [
                "INSERT INTO users (id, email, name, password_hash, created_at) "
                "VALUES (1, 'a@b.c', 'A', '-', '2026-01-01')",
                "INSERT INTO players (id, owner_id, name, created_at) "
                "VALUES (1, 1, 'Ann', '2026-01-01'), (2, 1, 'Bob', '2026-01-01')",
                "INSERT INTO game_sessions (id, owner_id, name, currency, stake_minor, "
                "rules_json, share_token, created_at, hand_count, next_dealer) VALUES "
                "(1, 1, 'x', 'USD', 100, '{\"preset\": \"pagat\"}', 't', '2026-01-01', 1, 1)",
                "INSERT INTO session_players (id, session_id, seat, player_id, name, "
                "total_minor) VALUES (1, 1, 0, 1, 'Ann', 200), (2, 1, 1, 2, 'Bob', -200)",
                "INSERT INTO hands (id, session_id, number, version, voided, outcome, hand_json, "
                "result_json, nets_json, created_at, updated_at) VALUES (1, 1, 1, 1, false, "
                "'tonk_out', '{\"rules\": {\"preset\": \"pagat\"}, \"end\": {\"kind\": "
                "\"tonk_out\", \"player\": \"Ann\"}}', '{\"outcome\": \"tonk_out\", "
                "\"winners\": [\"Ann\"]}', '[200, -200]', '2026-01-01', '2026-01-01')",
                "INSERT INTO hand_entries (id, hand_id, session_id, player_id, amount_minor, won)"
                " VALUES (1, 1, 1, 1, 200, true), (2, 1, 1, 2, -200, false)",
            ]:
                conn.execute(text(sql))
        upgrade()
        with db.engine.connect() as conn:
            rows = conn.execute(text(
                "SELECT player_id, scoring, net_minor, hands, hands_won, tonks_out "
                "FROM player_session_stats ORDER BY player_id")).all()
            assert [tuple(r) for r in rows] == [(1, "money", 200, 1, 1, 1),
                                                 (2, "money", -200, 1, 0, 0)]
            assert conn.execute(text("SELECT uid FROM game_sessions")).scalar()
            assert conn.execute(text("SELECT by_name FROM hand_versions")).all() == []
        downgrade(revision="0001")
        upgrade()
        with db.engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(
                conn, opts={"compare_type": True}), db.metadata) == []
        downgrade(revision="base")


def test_going_back_before_leagues_refuses_while_a_league_is_there(db_app, capfd):
    """Downgrading past 0002 would delete every league with its sessions: it refuses, and
    nothing is lost."""
    with db_app.app_context():
        migrated_to()
        with db.engine.begin() as conn:
            conn.execute(text(
                "INSERT INTO users (id, email, name, password_hash, created_at) "
                "VALUES (1, 'a@b.c', 'A', '-', '2026-01-01')"))
            conn.execute(text(
                "INSERT INTO leagues (id, uid, name, owner_id, rules_json, stake_minor, "
                "currency, share_token, created_at) VALUES (1, 'u', 'Club', 1, '\"pagat\"', "
                "25, 'USD', 't', '2026-01-01')"))
        with pytest.raises(SystemExit):
            downgrade(revision="0001")
        assert "this database holds 1 league(s): going back before leagues would delete" \
            in capfd.readouterr().err
        with db.engine.connect() as conn:
            assert conn.execute(text("SELECT name FROM leagues")).scalar() == "Club"
        with db.engine.begin() as conn:
            conn.execute(text("DELETE FROM leagues"))
        downgrade(revision="base")


def test_upgrading_to_the_kept_plan_plans_open_sessions_and_counts_voids(db_app, capfd):
    """0008: each open session's settle-up plan is made from what is still open (a payment
    already made counts), the void hands are counted; going back refuses once a payment
    was undone."""
    with db_app.app_context():
        migrated_to("0006")
        with db.engine.begin() as conn:
            for sql in [
                "INSERT INTO users (id, email, name, password_hash, created_at) "
                "VALUES (1, 'a@b.c', 'A', '-', '2026-01-01')",
                "INSERT INTO players (id, owner_id, name, name_key, created_at) "
                "VALUES (1, 1, 'Ann', 'ann', '2026-01-01'), (2, 1, 'Bob', 'bob', '2026-01-01')",
                "INSERT INTO game_sessions (id, uid, owner_id, name, currency, stake_minor, "
                "rules_json, share_token, created_at, hand_count, next_dealer) VALUES "
                "(1, 'u1', 1, 'x', 'USD', 100, '{\"preset\": \"pagat\"}', 't', '2026-01-01', "
                "2, 1), (2, 'u2', 1, 'p', 'USD', 100, '{\"preset\": \"push_ups\"}', 't2', "
                "'2026-01-01', 0, 0)",
                "INSERT INTO session_players (id, session_id, seat, player_id, name, "
                "total_minor) VALUES (1, 1, 0, 1, 'Ann', 200), (2, 1, 1, 2, 'Bob', -200), "
                "(3, 2, 0, 1, 'Ann', 0), (4, 2, 1, 2, 'Bob', 0)",
                "INSERT INTO hands (id, session_id, number, version, voided, outcome, hand_json, "
                "result_json, nets_json, created_at, updated_at) VALUES (1, 1, 1, 1, false, "
                "'tonk_out', '{}', '{}', '[200, -200]', '2026-01-01', '2026-01-01'), "
                "(2, 1, 2, 2, true, 'dead', '{}', '{}', '[0, 0]', '2026-01-01', '2026-01-01')",
                "INSERT INTO settle_payments (id, session_id, payer_seat, payee_seat, "
                "amount_minor, created_by_id, created_at) VALUES (1, 1, 1, 0, 50, 1, "
                "'2026-01-01')",
            ]:
                conn.execute(text(sql))
        upgrade()
        with db.engine.begin() as conn:
            assert conn.execute(text(
                "SELECT session_id, plan, payer_id, payee_id, amount_minor "
                "FROM planned_transfers")).all() == [(1, 1, 2, 1, 150)]
            assert conn.execute(text(
                "SELECT id, plan_no, voided_hands FROM game_sessions ORDER BY id")).all() == [
                (1, 1, 1), (2, 0, 0)]
            conn.execute(text("UPDATE settle_payments SET undone_at = '2026-01-02', "
                              "undone_by_name = 'A', undo_reason = 'no'"))
        with pytest.raises(SystemExit):
            downgrade(revision="0006")
        assert "1 undone payment(s)" in capfd.readouterr().err
        with db.engine.begin() as conn:
            conn.execute(text("DELETE FROM settle_payments"))
            conn.execute(text("DELETE FROM planned_transfers"))
            conn.execute(text("DELETE FROM hands"))
            conn.execute(text("DELETE FROM session_players"))
            conn.execute(text("DELETE FROM game_sessions"))
        downgrade(revision="0006")
        upgrade()
        downgrade(revision="base")


def test_going_back_before_events_refuses_while_an_event_is_there(db_app, capfd):
    """Downgrading past 0011 (events) would delete every event: it refuses while one is
    kept, and goes back once none is."""
    with db_app.app_context():
        migrated_to()
        with db.engine.begin() as conn:
            conn.execute(text(
                "INSERT INTO users (id, email, name, password_hash, created_at) "
                "VALUES (1, 'a@b.c', 'A', '-', '2026-01-01')"))
            conn.execute(text(
                "INSERT INTO events (id, owner_id, name, held_on, rules_json, stake_minor, "
                "currency, table_size, rounds, hands_per_round, fee_minor, house_share, "
                "payout_json, tie_breaks_json, board_token, revision, created_at) VALUES "
                "(1, 1, 'Cup', '2026-11-24', '{}', 100, 'USD', 4, 3, 8, 2000, '0', "
                "'{}', '[]', 't', 0, '2026-01-01')"))
        with pytest.raises(SystemExit):
            downgrade(revision="0010")
        assert "1 event(s)" in capfd.readouterr().err
        with db.engine.begin() as conn:
            assert conn.execute(text("SELECT count(*) FROM events")).scalar() == 1
            conn.execute(text("DELETE FROM events"))
        downgrade(revision="0010")
        assert "events" not in inspect(db.engine).get_table_names()
        downgrade(revision="base")


def test_migrating_leaves_the_apps_loggers_working(db_app):
    """Alembic's logging setup (``migrations/env.py``) must not silence the loggers already
    made: a process that migrates, then imports, still logs what the import skipped (in a
    whole run, the tests after a migration test heard nothing from the app)."""
    assert not importer.log.disabled
    with db_app.app_context():
        migrated_to()
    assert not importer.log.disabled and importer.log.isEnabledFor(logging.WARNING)


def test_records_kept_before_0013_count_the_side_bets_and_pots_after_it(db_app):
    """0013: a record kept with the hands' money alone (as 0012 left them; downgrading
    leaves them so) moves by the side bets and what the pots give back: ``tonk check``
    finds the records short at 0012, and nothing at 0013."""
    from app.db.unit import unit_of_work
    from app.services.accounts import create_user
    from app.services.sessions import ledger
    from app.services.upkeep import integrity
    with db_app.app_context():
        migrated_to()
        with unit_of_work():
            owner = create_user("o@example.com", "O", "correct horse")
            gs = ledger.create_session(owner, name="n", players=["Ann", "Bob", "Cy"],
                                       stake="1.00", side_bets={"naturals": {}})
            for winner in (None, "Bob"):  # a pot left, then won
                ledger.record_hand(gs, owner, {
                    "end": {"kind": "run_out", "player": "Ann"},
                    "side_bets": [{"bet": "naturals", "winner": winner}]})
        assert integrity.problems() == []
        db.session.remove()
        records = "SELECT player_id, net_minor FROM player_session_stats ORDER BY player_id"
        kept = db.session.execute(text(records)).all()
        db.session.remove()
        downgrade(revision="0012")  # (the app's models read a later schema: SQL alone here)
        hands_only = db.session.execute(text(
            "SELECT player_id, SUM(amount_minor) FROM hand_entries GROUP BY player_id "
            "ORDER BY player_id")).all()
        assert db.session.execute(text(records)).all() == hands_only != kept
        db.session.remove()
        upgrade()
        assert integrity.problems() == []


def test_seats_kept_before_0015_keep_their_side_bets_part_after_it(db_app):
    """0015: each seat keeps the side bets' part of its total, filled for the nights stored
    before from their hands' side-bet money (``tonk check`` holds it against the fold)."""
    from app.db.unit import unit_of_work
    from app.services.accounts import create_user
    from app.services.sessions import ledger
    from app.services.upkeep import integrity
    with db_app.app_context():
        migrated_to()
        with unit_of_work():
            owner = create_user("o@example.com", "O", "correct horse")
            gs = ledger.create_session(owner, name="n", players=["Ann", "Bob", "Cy"],
                                       stake="1.00", side_bets={"naturals": {}})
            for winner in (None, "Bob", None):  # a pot left, won, left again
                ledger.record_hand(gs, owner, {
                    "end": {"kind": "run_out", "player": "Ann"},
                    "side_bets": [{"bet": "naturals", "winner": winner}]})
            ledger.void_hand(gs, owner, 3, "dealt twice")
        side = "SELECT seat, side_minor FROM session_players ORDER BY seat"
        kept = db.session.execute(text(side)).all()
        assert [minor for _seat, minor in kept] == [-200, 400, -200]
        db.session.remove()
        downgrade(revision="0014")
        db.session.remove()
        upgrade()
        assert db.session.execute(text(side)).all() == kept
        assert integrity.problems() == []
