"""The importer: all or nothing, sessions already here skipped; the checked sessions
written in bulk, exactly the rows the ledger would have written hand by hand."""
from __future__ import annotations

import importlib
import json
import logging
import pickle
import secrets
import tempfile
from collections.abc import Callable, Mapping
from datetime import date, datetime
from decimal import Decimal
from itertools import repeat
from operator import add
from typing import IO, Any, NamedTuple, cast

from sqlalchemy import Boolean, Table, func, insert, select, text, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError, IntegrityError

from ...core import Rules, TonkError, resolve_rules
from ...core.messages import Message, as_sent
from ...core.money import parse_stake, to_minor
from ...core.names import MAX_NAME, clean_text, name_key
from ...db.models import (
    CarriedDebt,
    GameSession,
    Hand,
    HandEntry,
    HandVersion,
    League,
    LeagueAdmin,
    Player,
    PlayerSessionStat,
    RulesChange,
    Season,
    SeatChange,
    SessionPlayer,
    SettlePayment,
    User,
    utcnow,
)
from ...db.storage import begin_write
from ...db.types import UTCDateTime
from ...db.unit import Savepoint
from ...extensions import db
from ..sessions import is_league_admin, parse_currency, side_bets_text
from .checked import Checked
from .common import (
    FORMAT,
    IMPORT_BATCH_HANDS,
    MAX_LEAGUE_NAME,
    MAX_PROBLEMS,
    MAX_SEASON_NAME,
    READS,
    VERSION,
    ExchangeError,
    field_of,
    parse_time,
    read_day,
)
from .fields import league_name_of, read_list, read_uid, where_of
from .report import ImportReport, brief
from .rows import (
    COLUMNS,
    Moment,
    SessionRows,
    as_is,
    fastest,
    ready_row,
    session_rows,
    sqlite_time,
    unpacked,
)
from .settling import after_write
from .verify import Checker

log = logging.getLogger(__name__)


class _LeaguePlan(NamedTuple):
    """The league of a document, checked, to be made or merged into when writing starts."""

    uid: str
    name: str
    rules: Rules
    stake: Decimal
    currency: str
    created: datetime
    seasons: list[tuple[str, date, date]]
    members: dict[str, tuple[str, datetime]]
    side_bets_json: str | None = None


class Importer:
    """Imports documents for one account, all or nothing: :meth:`start` with the document's
    top-level fields, :meth:`add` each session, then :meth:`finish`, which keeps what was
    written only if there was no problem at all. Sessions are checked and written in batches
    of about ``batch_hands`` hands. What it writes is under a savepoint of its own, opened
    at its first write: a problem takes back the import's writes alone (:meth:`undo`),
    never the caller's transaction, which its write boundary commits or rolls back."""

    def __init__(self, user: User, *, batch_hands: int = IMPORT_BATCH_HANDS) -> None:
        self.user_id = user.id
        self.user = user
        self.batch_hands = batch_hands
        self.report = ImportReport()
        self.league_id: int | None = None
        self._pending: list[tuple[int, str | None, str | Message, Any]] = []
        self._pending_hands = 0
        self._count = 0
        self._seen: set[str] = set()
        self._players: dict[str, int] | None = None  # lower-cased name → player id
        self._conn: Connection | None = None
        self._next_id: dict[str, int] = {}
        self._statements: dict[str, tuple[str, list[tuple[int, Callable[[Any], Any]]]]] = {}
        self._checker = Checker()
        self._started = False
        self._savepoint: Savepoint | None = None
        self._league_plan: _LeaguePlan | None = None
        # SQLite has one write lock for the whole database: read and check everything
        # first, keeping the checked batches in a file, and hold the lock only to write.
        self._spill: IO[bytes] | None = None
        dialect = db.engine.dialect
        self._deferred = dialect.name == "sqlite"
        #: How the rows' times are written (:mod:`.rows`): on SQLite already as stored,
        #: when that is exactly what the dialect would store.
        self.when: Moment = as_is
        if dialect.name == "sqlite":
            process = UTCDateTime().dialect_impl(dialect).bind_processor(dialect)
            if process is not None and fastest(process) is sqlite_time:
                self.when = sqlite_time

    # -- problems ----------------------------------------------------------------------------

    @property
    def failed(self) -> bool:
        return bool(self.report.problems)

    def problem(self, message: str | Message) -> None:
        """Note a problem (the import will not be committed); the first 100 are listed, in
        the reader's language."""
        if len(self.report.problems) < MAX_PROBLEMS:
            self.report.problems.append(brief(str(message)))
        else:
            self.report.more_problems += 1

    # -- the document ------------------------------------------------------------------------

    def start(self, header: Mapping[str, Any]) -> bool:
        """Check the format and version, and make or find the league. False: a problem
        that stops the import at once."""
        self._started = True
        fmt, version = header.get("format"), header.get("version")
        if fmt != FORMAT:
            self.problem(Message("import.other_format", format=FORMAT, value=as_sent(fmt))
                         if fmt is not None else Message("import.no_format", format=FORMAT))
            return False
        if type(version) is not int or version not in READS:  # not 2.0, nor true
            self.problem(Message("import.version", version=as_sent(version), first=READS[0],
                                 last=VERSION) if version is not None else
                         Message("import.no_version"))
            return False
        league = header.get("league")
        if league is not None:
            try:
                self._league(league)
            except TonkError as exc:
                self.problem(Message("import.of_league", league=league_name_of(league),
                                     problem=exc.said))
                return False
        return True

    def _league(self, doc: Any) -> None:
        if not isinstance(doc, Mapping):
            raise ExchangeError(Message("import.league_object"))
        uid = read_uid(doc.get("uid"), Message("import.what.the_league"))
        name = clean_text(doc.get("name"), ExchangeError, "name",
                          Message("league.what_name"), MAX_LEAGUE_NAME)
        rules = resolve_rules(doc.get("rules"))
        stake = parse_stake(doc.get("stake"), rules)
        currency = parse_currency(doc.get("currency"))
        side_bets = side_bets_text(doc.get("side_bets"), stake=stake, rules=rules,
                                   currency=currency)
        created = (parse_time(doc["created_at"],
                              field_of(Message("import.what.the_league"), "created_at"))
                   if doc.get("created_at") is not None else utcnow())
        seasons = []
        for i, s in enumerate(read_list(doc.get("seasons"), "seasons")):
            if not isinstance(s, Mapping):
                raise ExchangeError(Message("import.season_object", number=i + 1))
            season_name = clean_text(s.get("name"), ExchangeError, "name",
                                     Message("import.what.season_name", number=i + 1),
                                     MAX_SEASON_NAME)
            season = Message("import.what.season", season=season_name)
            starts = read_day(s.get("starts_on"), field_of(season, "starts_on"))
            ends = read_day(s.get("ends_on"), field_of(season, "ends_on"))
            if ends < starts:
                raise ExchangeError(Message("import.season_order", season=season_name))
            seasons.append((season_name, starts, ends))
        members: dict[str, tuple[str, datetime]] = {}
        for i, m in enumerate(read_list(doc.get("members"), "members"), start=1):
            raw, joined = m, created  # a member is a name, or {"name", "joined_at"}
            if isinstance(m, Mapping):
                raw = m.get("name")
                if m.get("joined_at") is not None:
                    joined = parse_time(m["joined_at"], field_of(
                        Message("import.what.member", number=i), "joined_at"))
            member = clean_text(raw, ExchangeError, "name",
                                Message("import.what.member_name", number=i), MAX_NAME)
            if name_key(member) in members:
                raise ExchangeError(Message("import.member_twice", name=member))
            members[name_key(member)] = (member, joined)
        self._league_plan = _LeaguePlan(uid, name, rules, stake, currency, created, seasons,
                                        members, side_bets)
        self._may_import_into(db.session.scalar(select(League).where(League.uid == uid)))
        self.report.league_name = name

    def _may_import_into(self, league: League | None) -> None:
        if league is not None and league.owner_id != self.user_id and not is_league_admin(
                self.user, league.id):
            raise ExchangeError(Message("import.league_taken"))

    def _write_league(self) -> None:
        """Make the league of the document, or merge into the one with its uid: its seasons
        and members (before the first session is written)."""
        plan, self._league_plan = self._league_plan, None
        if plan is None:
            return
        self._writing()
        uid, name, rules, stake, currency, created, seasons, members, side_bets = plan
        league = db.session.scalar(select(League).where(League.uid == uid))
        self._may_import_into(league)
        if league is None:
            league = League(uid=uid, name=name, owner_id=self.user_id,
                            rules_json=json.dumps(rules.to_json()), stake_minor=to_minor(stake),
                            currency=currency, share_token=secrets.token_urlsafe(16),
                            created_at=created, side_bets_json=side_bets)
            db.session.add(league)
            db.session.flush()
            db.session.add(LeagueAdmin(league_id=league.id, user_id=self.user_id))
            self.report.league_created = True
        have = {(s.name, s.starts_on, s.ends_on) for s in league.seasons}
        for season_name, starts, ends in seasons:
            if (season_name, starts, ends) not in have:
                db.session.add(Season(league_id=league.id, name=season_name,
                                      starts_on=starts, ends_on=ends))
        known = set(db.session.scalars(select(Player.name_key).where(
            Player.league_id == league.id)))
        db.session.add_all(Player(owner_id=self.user_id, league_id=league.id, name=m,
                                  created_at=joined)
                           for key, (m, joined) in members.items() if key not in known)
        db.session.flush()
        self.league_id = league.id
        self.report.league_id, self.report.league_name = league.id, league.name

    def add(self, doc: Any) -> None:
        """Take one session of the document (checked and written with its batch)."""
        self._count += 1
        uid = doc.get("uid") if isinstance(doc, dict) else None
        hands = doc.get("hands") if isinstance(doc, dict) else None
        self._take(self._count, uid if isinstance(uid, str) else None,
                   where_of(doc, self._count) if isinstance(doc, dict) else "",
                   len(hands) if isinstance(hands, list) else 0, doc)

    def take(self, checked: Checked, rows: bytes | None = None) -> None:
        """Take one session already checked (in another process), and its rows if that
        process made them (with :attr:`when`; :func:`.rows.packed`)."""
        self._count += 1
        self._take(checked.position, checked.uid, checked.where, checked.hands,
                   (checked, rows))

    def _take(self, index: int, uid: str | None, where: str | Message, hands: int,
              item: Any) -> None:
        if uid is not None:
            if uid in self._seen:
                self.problem(Message("import.uid_twice", where=where))
                return
            self._seen.add(uid)
        self._pending.append((index, uid, where, item))
        self._pending_hands += hands
        if self._pending_hands >= self.batch_hands:
            self._flush_safely()

    def _flush(self) -> None:
        """Check the pending sessions (unless they were checked already, or are here
        already), and write them if nothing at all has gone wrong so far."""
        pending, self._pending, self._pending_hands = self._pending, [], 0
        uids = [uid for _, uid, _, _ in pending if uid is not None]
        there: set[str] = set()
        for start in range(0, len(uids), 500):
            there.update(db.session.scalars(select(GameSession.uid).where(
                GameSession.uid.in_(uids[start:start + 500]))))
        built: list[SessionRows | bytes] = []
        for index, uid, where, item in pending:
            if uid in there:
                self.report.skipped.append(brief(str(Message("import.already_there",
                                                              where=where))))
                continue
            checked, rows = item if isinstance(item, tuple) else \
                (self._checker.check(index, item), None)
            for message in checked.problems:
                self.problem(message)
            if rows is not None:
                built.append(rows)
            elif checked.session is not None and not self.failed:
                built.append(session_rows(checked.session, self.when))
        if built and not self.failed:
            if self._deferred:
                if self._spill is None:
                    self._spill = tempfile.TemporaryFile(prefix="tonk-import-")
                pickle.dump(built, self._spill, protocol=pickle.HIGHEST_PROTOCOL)
            else:
                self._write([unpacked(rows) for rows in built])

    def _write_deferred(self) -> None:
        """The writing part, when everything was checked first: under the write lock,
        taken now and held only while the checked batches are written."""
        begin_write()
        self._write_league()
        spill, self._spill = self._spill, None
        if spill is None:
            return
        with spill:
            spill.seek(0)
            while True:
                try:
                    batch = pickle.load(spill)  # noqa: S301 - our own file, just written
                except EOFError:
                    break
                self._write([unpacked(rows) for rows in batch])

    def _flush_safely(self) -> None:
        try:
            self._flush()
        except IntegrityError as exc:
            self.refused(exc)

    def refused(self, exc: IntegrityError) -> None:
        """The database refused a row: take back what the import wrote, and say so."""
        self.undo()
        log.warning("import refused by the database: %s", exc)
        self.problem(Message("import.refused"))

    def finish(self) -> ImportReport:
        """Write what is left (its commit the caller's write boundary's); or, after any
        problem, roll everything back."""
        if not self.failed:
            if not self._started:
                self.problem(Message("import.not_export"))
            else:
                self._flush_safely()
        if not self.failed:
            try:
                if self._deferred:
                    self._write_deferred()
                else:
                    self._write_league()  # a document with a league and no new session
            except TonkError as exc:
                self.problem(Message("import.of_league", league=self.report.league_name,
                                     problem=exc.said))
            except IntegrityError as exc:
                self.refused(exc)
        if self._spill is not None:
            self._spill.close()
            self._spill = None
        if self.failed:
            self.undo()
            self.report.sessions = self.report.hands = 0
            self.report.league_created = False
            self.report.league_id = None
            return self.report
        if self._savepoint is not None:
            self._savepoint.keep()  # (released: the caller's commit keeps it)
            self._savepoint = None
        db.session.flush()
        if self.league_id is not None and self.report.sessions:
            _analyze_written()
            rerate(self.league_id)
        return self.report

    # -- writing -----------------------------------------------------------------------------

    def _writing(self) -> None:
        """Open the import's savepoint before its first write (on SQLite once the write
        lock is held: taking it ends a transaction that only read)."""
        if self._savepoint is None:
            self._savepoint = Savepoint()

    def undo(self) -> None:
        """Take back everything the import wrote (its savepoint), and nothing else."""
        if self._savepoint is not None:
            self._savepoint.take_back()
            self._savepoint = None
        self._conn = None
        self._players, self._next_id = None, {}

    def _connection(self) -> Connection:
        if self._conn is None:
            self._conn = db.session.connection()
            if self._conn.dialect.name == "sqlite":
                # Take SQLite's write lock now, so that the ids read below stay free.
                users = cast(Table, User.__table__)
                self._conn.execute(update(users).where(users.c.id == self.user_id)
                                   .values(id=users.c.id))
        return self._conn

    def new_ids(self, table: Table, n: int) -> list[int]:
        """``n`` new ids for ``table``: from its sequence on PostgreSQL; on SQLite, which
        is written by one connection at a time (we hold the lock), after the largest."""
        if n == 0:
            return []
        conn = self._connection()
        if conn.dialect.name == "postgresql":
            return list(conn.execute(text(
                "SELECT nextval(pg_get_serial_sequence(:t, 'id')) FROM generate_series(1, :n)"),
                {"t": table.name, "n": n}).scalars().all())  # fetched at once, not row by row
        start = self._next_id.get(table.name)
        if start is None:
            start = (conn.execute(select(func.max(table.c.id))).scalar() or 0) + 1
        self._next_id[table.name] = start + n
        return list(range(start, start + n))

    def _player_ids(self, sessions: list[SessionRows]) -> list[list[int]]:
        """Each session's seats → players: the league's members, or the account's own
        players, by name regardless of case; a new name becomes a new player."""
        if self._players is None:
            scope = (Player.league_id == self.league_id if self.league_id is not None else
                     (Player.owner_id == self.user_id) & Player.league_id.is_(None))
            self._players = {}
            for pid, key in db.session.execute(select(Player.id, Player.name_key)
                                               .where(scope).order_by(Player.id)):
                self._players.setdefault(key, pid)
        players = self._players
        new: dict[str, tuple[str, datetime]] = {}
        for s in sessions:
            for name in s.names:
                if name_key(name) not in players and name_key(name) not in new:
                    new[name_key(name)] = (name, s.played_at)
        ids = self.new_ids(cast(Table, Player.__table__), len(new))
        rows = []
        for pid, (key, (name, since)) in zip(ids, new.items(), strict=True):
            players[key] = pid
            rows.append((pid, self.user_id, self.league_id, name, key, since))
        self._insert(Player, rows)
        return [[players[name_key(n)] for n in s.names] for s in sessions]

    def _insert(self, model: Any, rows: list[tuple[Any, ...]], *, made: bool = False) -> None:
        """Insert rows (tuples in :data:`.rows.COLUMNS` order): on PostgreSQL with COPY, on
        SQLite straight through the driver in batches of 10,000, each value made ready by
        the column's own type unless the rows were ``made`` so (elsewhere, Core's batched
        inserts)."""
        if not rows:
            return
        table = cast(Table, model.__table__)
        keys = COLUMNS[table.name]
        conn = self._connection()
        if conn.dialect.name == "postgresql" and conn.dialect.driver == "psycopg":
            raw: Any = conn.connection.dbapi_connection  # psycopg's own connection
            with raw.cursor() as cursor, cursor.copy(
                    f"COPY {table.name} ({', '.join(keys)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            return
        if conn.dialect.name != "sqlite":
            for start in range(0, len(rows), 10_000):
                conn.execute(insert(table), [dict(zip(keys, row, strict=True))
                                             for row in rows[start:start + 10_000]])
            return
        sql, ready = self._statements.get(table.name) or self._statement(conn, table, keys)
        if made and self.when is sqlite_time:  # the times are written already
            ready = [(i, process) for i, process in ready if process is not sqlite_time]
        if ready:
            rows = [ready_row(row, ready) for row in rows]
        for start in range(0, len(rows), 10_000):
            conn.exec_driver_sql(sql, rows[start:start + 10_000])

    def _statement(self, conn: Connection, table: Table, keys: tuple[str, ...]
                   ) -> tuple[str, list[tuple[int, Callable[[Any], Any]]]]:
        quote = conn.dialect.identifier_preparer  # the driver's "?" for each key, in order
        sql = (f"INSERT INTO {quote.format_table(table)} "
               f"({', '.join(quote.quote(key) for key in keys)}) "
               f"VALUES ({', '.join('?' * len(keys))})")
        ready: list[tuple[int, Callable[[Any], Any]]] = []
        for i, key in enumerate(keys):
            kind = table.c[key].type
            if isinstance(kind, Boolean):
                continue  # the driver stores a bool as 1 or 0, as the type would
            process = kind.dialect_impl(conn.dialect).bind_processor(conn.dialect)
            if process is not None:
                ready.append((i, fastest(process)))
        found = self._statements[table.name] = (sql, ready)
        return found

    def _write(self, sessions: list[SessionRows]) -> None:
        """Insert the batch's rows, table by table, as the ledger would have left them: the
        rows come made (:mod:`.rows`), only the ids are put in front."""
        self._write_league()
        self._writing()
        self._connection()
        players = self._player_ids(sessions)
        session_ids = self.new_ids(cast(Table, GameSession.__table__), len(sessions))
        hand_ids = self.new_ids(cast(Table, Hand.__table__), sum(s.hands for s in sessions))
        games: list[tuple[Any, ...]] = []
        seats: list[tuple[Any, ...]] = []
        hands: list[tuple[Any, ...]] = []
        versions: list[tuple[Any, ...]] = []
        entries: list[tuple[Any, ...]] = []
        records: list[tuple[Any, ...]] = []
        payments: list[tuple[Any, ...]] = []
        changes: list[tuple[Any, ...]] = []
        debts: list[tuple[Any, ...]] = []
        moves: list[tuple[Any, ...]] = []
        user, league = self.user_id, self.league_id
        at = 0  # where this session's hands start in hand_ids (which need not be one run:
        # on PostgreSQL another writer's nextval may come between two of ours)
        for s, sid, pids in zip(sessions, session_ids, players, strict=True):
            ids = hand_ids[at:at + s.hands]
            games.append((sid, league, user, *s.game))
            seats += [(sid, pids[r[0]], *r) for r in s.seats]
            # the ids put in front by zip, map and tuple's + alone, row after row
            hands += map(add, zip(ids, repeat(sid)), s.hand_rows)
            version_of, version_rows = s.versions
            versions += map(add, zip(map(ids.__getitem__, version_of), repeat(user)),
                            version_rows)
            entries += s.entries.rows(ids, sid, pids)
            records += [(sid, pids[seat], league, *r) for seat, r in s.records]
            payments += [(sid, user, *r) for r in s.payments]
            changes += [(sid, user, *r) for r in s.changes]
            debts += [(sid, pids[payer], pids[payee], *r) for payer, payee, r in s.debts]
            moves += [(sid, *r) for r in s.moves]
            at += s.hands
            self.report.sessions += 1
            self.report.hands += s.hands
        for model, rows in ((GameSession, games), (SessionPlayer, seats), (Hand, hands),
                            (HandVersion, versions), (HandEntry, entries),
                            (PlayerSessionStat, records), (SettlePayment, payments),
                            (RulesChange, changes), (CarriedDebt, debts), (SeatChange, moves)):
            self._insert(model, rows, made=True)
        after_write([(sid, pids, s.settle)  # the settle-up plans, kept or made again
                     for s, sid, pids in zip(sessions, session_ids, players, strict=True)])


#: What the league's re-rating reads (:func:`rerate`), as PostgreSQL's planner should see it.
RATED = ("game_sessions", "player_session_stats")


def _analyze_written() -> None:
    """On PostgreSQL, the statistics of the tables the re-rating reads, made again after a
    bulk write (as PostgreSQL's manual advises after a large load; autovacuum would come to
    it only later): planned from the statistics of the tables before the import (empty,
    for a new database), the re-rating's join looked through every one of the league's
    records once per session (1.3 s of the server's time for 100,000 hands, 10 ms after).

    In the import's transaction (ANALYZE counts the rows it wrote), under a savepoint: a
    speed-up, not part of the import: if it cannot be had (another connection's VACUUM or
    CREATE INDEX holding the tables past the lock timeout), only the savepoint is rolled
    back, and the league is re-rated all the same, on the statistics there are."""
    if db.engine.dialect.name == "postgresql":
        try:
            with db.session.begin_nested():
                db.session.execute(text(f"ANALYZE {', '.join(RATED)}"))
        except DBAPIError as exc:
            log.warning("import: ANALYZE skipped before the re-rating: %s", exc.orig)


def rerate(league_id: int) -> None:
    """Recompute the league's ratings with the league service (looked up when needed: the
    league service imports this package)."""
    rerate_league = importlib.import_module("app.services.leagues").rerate_league
    league = db.session.get(League, league_id)
    if league is not None:
        rerate_league(league)
