"""Accounts a stranger cannot keep or guess into: sign-out ends the sign-in on the server
(copied cookies open nothing), sign out everywhere, password change and reset, the
password policy, the ``tonk user`` commands, and the rate limits with their 429."""
from __future__ import annotations

import os
import time
import uuid

import pytest

from app.cli.commands import cli
from app.db.models import SignIn, User
from app.db.unit import unit_of_work
from app.extensions import db
from app.http.limits import limiter
from app.services import accounts
from app.services.accounts import AccountError, check_password, create_user
from tests.apps import make_app
from tests.clients import account, errors_of, sign_up
from tests.expect import fetched

GOOD = "secret-table-9"



def signed_in(client) -> bool:
    return client.get("/sessions/new").status_code == 200


def copy_cookies(source, target, names=("session", "remember_token")) -> None:
    for name in names:
        cookie = source.get_cookie(name)
        if cookie is not None:
            target.set_cookie(name, cookie.value)


def sign_in(client, email="sam@example.com", password=GOOD, remember=True):
    data = {"email": email, "password": password}
    if remember:
        data["remember"] = "y"
    return client.post("/signin", data=data)


# -- sign-out is for good --------------------------------------------------------------------

@pytest.mark.parametrize("copied", [("session", "remember_token"), ("remember_token",),
                                    ("session",)])
def test_cookies_copied_before_sign_out_open_nothing_after_it(db_app, copied):
    client = db_app.test_client()
    sign_up(client)
    thief = db_app.test_client()
    copy_cookies(client, thief, copied)
    assert signed_in(thief)  # the copy works while the sign-in lasts...
    client.post("/signout")
    assert not signed_in(client)
    assert not signed_in(thief)  # ...and not a moment after
    with db_app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(SignIn)) == 0


def test_a_cookie_without_a_sign_in_key_is_refused(db_app):
    with db_app.app_context():
        from flask_login import decode_cookie  # noqa: F401  (the id is what counts)

        user = create_user("sam@example.com", "Sam", GOOD)
        assert accounts.signed_in_user(str(user.id)) is None
        assert accounts.signed_in_user(f"{user.id}:made-up") is None
        key_user = accounts.start_sign_in(user)
        assert accounts.signed_in_user(key_user.get_id()) is user
        other = create_user("eve@example.com", "Eve", GOOD)
        assert accounts.signed_in_user(f"{other.id}:{key_user.sign_in_key}") is None


def test_sign_out_everywhere_ends_every_sign_in(db_app):
    phone, laptop = db_app.test_client(), db_app.test_client()
    sign_up(phone)
    sign_in(laptop)
    assert signed_in(phone) and signed_in(laptop)
    resp = laptop.post("/account/signout-everywhere", follow_redirects=True)
    assert "signed out on every phone and computer" in resp.get_data(as_text=True)
    assert not signed_in(phone) and not signed_in(laptop)
    assert "Sign out everywhere" not in laptop.get("/").get_data(as_text=True)


def test_changing_the_password_signs_out_everywhere_else(db_app):
    phone, laptop = db_app.test_client(), db_app.test_client()
    sign_up(phone)
    sign_in(laptop)
    assert "Sign out everywhere" in phone.get("/account").get_data(as_text=True)
    resp = phone.post("/account/password", data={"current": "wrong password", "password":
                                                  "a brand new secret"})
    assert resp.status_code == 422
    assert "that is not your current password" in errors_of(resp)
    resp = phone.post("/account/password", data={"current": GOOD, "password": "password"})
    assert resp.status_code == 422 and any("10 characters" in e for e in errors_of(resp))
    assert signed_in(laptop)
    resp = phone.post("/account/password", data={"current": GOOD,
                                                  "password": "a brand new secret"})
    assert resp.status_code == 302
    assert signed_in(phone) and not signed_in(laptop)
    assert sign_in(laptop).status_code == 422
    assert sign_in(laptop, password="a brand new secret").status_code == 302


# -- the password policy ---------------------------------------------------------------------

@pytest.mark.parametrize("password, words", [
    ("password", "at least 10"),
    ("short", "at least 10"),
    (" " * 12, "only spaces"),
    ("\x00" * 12, "only spaces"),
    ("\u200b" * 12, "only spaces"),
    ("\t \n" * 4, "only spaces"),
    ("1234567890", "most common"),
    ("QWERTYUIOP", "most common"),
    ("x" * 1001, "at most"),
    (None, "at least 10"),
])
def test_weak_passwords_are_refused(password, words):
    with pytest.raises(AccountError) as caught:
        check_password(password)
    assert words in caught.value.message and caught.value.field == "password"


def test_the_common_list_is_shipped_and_long_passwords_pass():
    assert len(accounts.common_passwords()) >= 9_900
    assert check_password("correct horse battery") == "correct horse battery"


@pytest.mark.real_hashing
def test_passwords_are_kept_as_argon2id_at_the_full_cost(app):
    """The other tests hash cheaply; the app itself keeps argon2id at argon2-cffi's own
    cost, and a hash made more cheaply is made again at that cost at the next sign-in."""
    from argon2 import PasswordHasher, extract_parameters

    full = PasswordHasher()
    with app.app_context():
        user = create_user("kim@example.com", "Kim", GOOD)
        kept = extract_parameters(user.password_hash)
        assert user.password_hash.startswith("$argon2id$")
        assert (kept.time_cost, kept.memory_cost, kept.parallelism) == (
            full.time_cost, full.memory_cost, full.parallelism)
        user.password_hash = PasswordHasher(time_cost=1, memory_cost=8,
                                            parallelism=1).hash(GOOD)
        db.session.commit()
        assert accounts.authenticate("kim@example.com", "wrong password!") is None
        found = accounts.authenticate("kim@example.com", GOOD)
        assert found is not None
        with unit_of_work():  # the sign-in's own short write keeps the new hash
            found_id = accounts.start_sign_in(found).id
        db.session.remove()
        kept_now = fetched(User, found_id).password_hash
        assert extract_parameters(kept_now).memory_cost == full.memory_cost
        assert full.verify(kept_now, GOOD)


def test_a_password_is_checked_without_holding_the_write_lock(tmp_path, monkeypatch):
    """While a sign-in's (or a password change's) password is checked, another process can
    take SQLite's write lock at once: the table's hands do not wait for argon2 (they took
    5-7.7 s during thirty wrong passwords when the check ran inside the write boundary)."""
    import sqlite3

    path = tmp_path / "w.sqlite"
    app = make_app(f"sqlite:///{path}")
    with app.app_context():
        db.create_all()
    sign_up(app.test_client())
    real, seen = accounts.HASHER, []

    class Probe:
        def verify(self, stored: str, password: str) -> bool:
            other = sqlite3.connect(path, timeout=0, isolation_level=None)
            try:
                other.execute("BEGIN IMMEDIATE")
                other.execute("ROLLBACK")
                seen.append("free")
            except sqlite3.OperationalError as exc:
                seen.append(str(exc))
            finally:
                other.close()
            return bool(real.verify(stored, password))

        def __getattr__(self, name: str):
            return getattr(real, name)

    monkeypatch.setattr(accounts, "HASHER", Probe())
    assert sign_in(app.test_client(), password="wrong password!").status_code == 422
    client = app.test_client()
    assert sign_in(client).status_code == 302
    changing = {"current": "wrong password!", "password": "another secret 1"}
    assert client.post("/account/password", data=changing).status_code == 422
    changing["current"] = GOOD  # a password change checks the current one likewise
    assert client.post("/account/password", data=changing).status_code == 302
    assert seen == ["free"] * 4
    assert sign_in(app.test_client(), password="another secret 1").status_code == 302


def test_sign_up_with_a_weak_password_shows_why_beside_it(app):
    resp = app.test_client().post("/signup", data={"name": "Sam", "email": "s@example.com",
                                                   "password": "          "})
    assert resp.status_code == 422 and any("only spaces" in e for e in errors_of(resp))


# -- reset and the tonk user commands --------------------------------------------------------

@pytest.fixture
def cli_env(tmp_path, monkeypatch):
    from click.testing import CliRunner

    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'cli.sqlite'}")
    monkeypatch.setenv("SECRET_KEY", "cli-test")
    runner = CliRunner()
    assert runner.invoke(cli, ["db", "upgrade"]).exit_code == 0
    app = make_app(os.environ["DATABASE_URL"], SECRET_KEY="cli-test")
    return runner, app


def test_tonk_user_create_makes_the_first_account(cli_env):
    runner, app = cli_env
    out = runner.invoke(cli, ["user", "create", "--email", "Ann@Example.com", "--name", "Ann",
                              "--password-stdin"], input=GOOD + "\n")
    assert out.exit_code == 0, out.output
    assert "ann@example.com" in out.stdout
    assert sign_in(app.test_client(), "ann@example.com").status_code == 302
    out = runner.invoke(cli, ["user", "create", "--email", "bob@example.com", "--name", "Bob",
                              "--password-stdin"], input="password\n")
    assert out.exit_code == 1 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "at least 10" in out.stderr
    out = runner.invoke(cli, ["user", "create", "--email", "ann@example.com", "--name", "A",
                              "--password-stdin"], input=GOOD + "\n")
    assert out.exit_code == 1 and "already an account" in out.stderr


def test_a_reset_link_works_once_within_the_hour(cli_env, monkeypatch):
    runner, app = cli_env
    runner.invoke(cli, ["user", "create", "--email", "ann@example.com", "--name", "Ann",
                        "--password-stdin"], input=GOOD + "\n")
    phone = app.test_client()
    assert sign_in(phone, "ann@example.com").status_code == 302
    out = runner.invoke(cli, ["user", "reset-password", "ann@example.com", "--url",
                              "https://tonk.example/"])
    assert out.exit_code == 0, out.output
    link = out.stdout.strip()
    assert link.startswith("https://tonk.example/reset/") and "an hour" not in link
    path = link.removeprefix("https://tonk.example")
    client = app.test_client()
    page = client.get(path)
    assert page.status_code == 200 and "ann@example.com" in page.get_data(as_text=True)
    assert page.headers["Referrer-Policy"] == "no-referrer"
    resp = client.post(path, data={"password": "qwertyuiop"})
    assert resp.status_code == 422 and any("most common" in e for e in errors_of(resp))
    resp = client.post(path, data={"password": "a brand new secret"})
    assert resp.status_code == 302 and resp.location == "/signin"
    assert not signed_in(phone)  # the reset ends every sign-in
    assert sign_in(client, "ann@example.com", "a brand new secret").status_code == 302
    again = app.test_client().get(path)
    assert again.status_code == 404 and "used already" in again.get_data(as_text=True)
    assert app.test_client().get(path[:-3] + "abc").status_code == 404

    out = runner.invoke(cli, ["user", "reset-password", "ann@example.com"])
    late = out.stdout.strip().removeprefix("http://127.0.0.1:5000")
    monkeypatch.setattr(accounts, "RESET_SECONDS", -1)
    resp = app.test_client().get(late)
    assert resp.status_code == 404 and "expired" in resp.get_data(as_text=True)
    out = runner.invoke(cli, ["user", "reset-password", "nobody@example.com"])
    assert out.exit_code == 1 and "no account" in out.stderr and out.stdout == ""


# -- rate limits -----------------------------------------------------------------------------

def test_wrong_passwords_for_one_account_are_slowed_down(app):
    client = app.test_client()
    sign_up(client)
    client.post("/signout")
    for _ in range(5):
        assert sign_in(client, password="wrong password").status_code == 422
    resp = sign_in(client, password="wrong password")
    assert resp.status_code == 429
    seconds = int(resp.headers["Retry-After"])
    assert 0 < seconds <= 60
    page = resp.get_data(as_text=True)
    assert "Too many tries" in page and f"try again in {seconds} seconds." in page
    assert resp.headers["Content-Security-Policy"]
    assert sign_in(client).status_code == 429  # even the right one, until then
    other = app.test_client()  # another account from the same address is not slowed
    sign_up(other, email="eve@example.com", name="Eve")


def test_a_right_password_is_given_back_its_try(app):
    """Every try is counted before its password is checked; one that gets in is given back,
    so signing in (or changing the password) again and again is never slowed down."""
    client = app.test_client()
    sign_up(client)
    client.post("/signout")
    for _ in range(8):
        assert sign_in(client).status_code == 302
        client.post("/signout")
    for _ in range(5):
        assert sign_in(client, password="wrong password").status_code == 422
    assert sign_in(client, password="wrong password").status_code == 429
    other = app.test_client()
    sign_up(other, email="eve@example.com", name="Eve")
    for i in range(7):
        new = f"another secret {i}"
        current = GOOD if i == 0 else f"another secret {i - 1}"
        resp = other.post("/account/password", data={"current": current, "password": new})
        assert resp.status_code == 302, i


def test_many_accounts_from_one_address_are_slowed_down(tmp_path):
    app = make_app(f"sqlite:///{tmp_path / 'l.sqlite'}", TONK_LIMIT_SIGNIN_IP="3 per minute",
                   TONK_LIMIT_SIGNUP_IP="2 per hour")
    with app.app_context():
        db.create_all()
    client = app.test_client()
    for i in range(3):
        assert sign_in(client, f"u{i}@example.com").status_code == 422
    assert sign_in(client, "u9@example.com").status_code == 429
    other = app.test_client()
    resp = other.get("/", environ_base={"REMOTE_ADDR": "192.0.2.1"})
    assert resp.status_code == 200
    resp = other.post("/signin", data={"email": "u9@example.com", "password": "x" * 10},
                      environ_base={"REMOTE_ADDR": "192.0.2.1"})
    assert resp.status_code == 422  # another address counts on its own
    for i in range(2):
        client.post("/signup", data={"name": "N", "email": f"n{i}@example.com",
                                     "password": GOOD})
        client.post("/signout")
    resp = client.post("/signup", data={"name": "N", "email": "n9@example.com",
                                         "password": GOOD})
    assert resp.status_code == 429 and int(resp.headers["Retry-After"]) > 60
    assert "minutes" in resp.get_data(as_text=True)


def test_token_making_and_reset_tries_are_limited(tmp_path):
    app = make_app(f"sqlite:///{tmp_path / 't.sqlite'}", TONK_LIMIT_TOKEN_ACCOUNT="2 per hour",
                   TONK_LIMIT_RESET_IP="2 per minute")
    with app.app_context():
        db.create_all()
    client = app.test_client()
    sign_up(client)
    for i in range(2):
        assert client.post("/account/tokens", data={"label": f"t{i}"}).status_code == 200
    assert client.post("/account/tokens", data={"label": "t3"}).status_code == 429
    again = app.test_client()  # a new sign-in of the same account counts with the first
    sign_in(again)
    assert again.post("/account/tokens", data={"label": "t4"},
                      environ_base={"REMOTE_ADDR": "192.0.2.9"}).status_code == 429
    for _ in range(2):
        assert client.post("/reset/forged", data={"password": GOOD}).status_code == 404
    assert client.post("/reset/forged", data={"password": GOOD}).status_code == 429


def test_a_429_under_the_api_is_the_apis_json_error(tmp_path):
    app = make_app(f"sqlite:///{tmp_path / 'a.sqlite'}")

    @app.post("/api/v1/_limited")
    @limiter.limit("1 per minute")
    def limited_view():
        return {"ok": True}

    client = app.test_client()
    assert client.post("/api/v1/_limited").status_code == 200
    resp = client.post("/api/v1/_limited")
    assert resp.status_code == 429 and int(resp.headers["Retry-After"]) > 0
    body = resp.get_json()
    assert "try again in" in body["error"] and set(body) == {"error"}


def _redis_up() -> bool:
    import socket

    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=1).close()
        return True
    except OSError:
        return False


@pytest.fixture(params=["file", "redis"])
def shared_limits(request, tmp_path):
    """The configuration of limits that several apps (the workers of one server, or several
    servers) count together: in a SQLite file (the default, a file of the instance folder),
    or in the local Redis."""
    if request.param == "file":
        return {"RATELIMIT_STORAGE_URI": f"tonk+sqlite://{tmp_path / 'limits.sqlite'}"}
    return request.getfixturevalue("redis_limits")


@pytest.fixture
def redis_limits():
    """The configuration of limits counted in the local Redis under a prefix of the test's
    own (the storage's: each app makes its storage anew, while Flask-Limiter's one limiter
    keeps the first ``RATELIMIT_KEY_PREFIX`` it is given in a process); afterwards the
    test's counts are deleted."""
    if not _redis_up():
        pytest.skip("no Redis at 127.0.0.1:6379")
    import redis

    prefix = f"tonk-test-{uuid.uuid4().hex[:8]}"
    yield {"RATELIMIT_STORAGE_URI": "redis://127.0.0.1:6379",
           "RATELIMIT_STORAGE_OPTIONS": {"key_prefix": prefix}}
    store = redis.Redis.from_url("redis://127.0.0.1:6379")
    for key in store.scan_iter(f"{prefix}:*"):
        store.delete(key)
    store.close()


def test_limits_count_together_in_the_file_or_in_redis(tmp_path, shared_limits):
    """Two apps (two workers) on one file, or one Redis, count together."""
    config = {**shared_limits,
              "TONK_LIMIT_SIGNIN_IP": "2 per minute"}
    first = make_app(f"sqlite:///{tmp_path / 'r.sqlite'}", **config)
    with first.app_context():
        db.create_all()
    assert sign_in(first.test_client(), "a@example.com").status_code == 422
    second = make_app(f"sqlite:///{tmp_path / 'r.sqlite'}", **config)
    assert sign_in(second.test_client(), "b@example.com").status_code == 422
    assert sign_in(second.test_client(), "c@example.com").status_code == 429


def test_by_default_the_workers_count_together_in_the_instance_folder(tmp_path, monkeypatch):
    """No store given: the limits count in ``limits.sqlite`` of the instance folder, which
    two apps (two workers of one server) share; the file is the app's user's alone."""
    from app import create_app

    home = tmp_path / "home"
    monkeypatch.setenv("TONK_HOME", str(home))
    monkeypatch.delenv("RATELIMIT_STORAGE_URI", raising=False)
    config = {"TESTING": True, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False,
              "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'd.sqlite'}",
              "TONK_LIMIT_SIGNIN_ACCOUNT": "3 per minute"}
    first, second = create_app(config), create_app(config)
    with first.app_context():
        db.create_all()
    for app in (first, second, first):
        assert sign_in(app.test_client(), "nobody@example.com").status_code == 422
    assert sign_in(second.test_client(), "nobody@example.com").status_code == 429
    assert (home / "limits.sqlite").stat().st_mode & 0o777 == 0o600


def test_the_file_counts_windows_that_end_and_tries_given_back(tmp_path, monkeypatch):
    from app.http import limit_store

    store = limit_store.SQLiteCounts(limit_store.uri(tmp_path / "c.sqlite"))
    clock = [1000.0]
    monkeypatch.setattr("app.http.limit_store.time.time", lambda: clock[0])
    assert [store.incr("k", 60) for _ in range(3)] == [1, 2, 3]
    assert store.incr("k", 60, amount=-1) == 2 and store.get("k") == 2
    assert store.get_expiry("k") == 1060.0 and store.get("other") == 0
    clock[0] = 1060.0  # the window ends: the next try begins a new one
    assert store.get("k") == 0 and store.incr("k", 60) == 1
    assert store.get_expiry("k") == 1120.0
    store.clear("k")
    assert store.get("k") == 0 and store.check()


def _open_and_count(path: str, threads: int) -> list[str]:
    """(In a process of its own) ``threads`` threads opening the store's file at the same
    moment and counting once each; the errors they met."""
    import threading

    from app.http import limit_store

    store = limit_store.SQLiteCounts(limit_store.uri(path))
    together, errors = threading.Barrier(threads), []

    def count() -> None:
        together.wait(timeout=30)
        try:
            store.get("k")
            store.incr("k", 60)
        except Exception as exc:  # noqa: BLE001 - what the test reports
            errors.append(repr(exc))

    started = [threading.Thread(target=count) for _ in range(threads)]
    for thread in started:
        thread.start()
    for thread in started:
        thread.join(timeout=30)
    return errors


def test_a_new_file_opened_at_once_by_two_workers_threads_counts_every_try(tmp_path):
    """The first tries of a new server's two workers arrive together: every thread opens
    the new file, makes it WAL and makes its table at once. The losers of that race were
    told "database is locked" (SQLite calls no busy handler there) or "disk I/O error",
    a 500 on /signin under load; 4 of 40 new files failed so. Now they try again."""
    import concurrent.futures
    import multiprocessing

    from app.http import limit_store

    spawn = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=spawn) as workers:
        for n in range(12):
            path = str(tmp_path / f"limits{n}.sqlite")
            errors = [error for errors in workers.map(_open_and_count, [path, path], [15, 15])
                      for error in errors]
            assert errors == [], (n, errors[:3])
            assert limit_store.SQLiteCounts(limit_store.uri(path)).get("k") == 30


class _SlowCountingHasher:
    """The test's argon2, made slow enough that tries sent together overlap, counting the
    passwords it is asked to check (or, for an unknown account, to hash instead). With a
    ``gate``, a check waits until the test opens it (tries that must overlap do, however
    slowly a loaded machine starts their threads); without, it takes 0.2 s."""

    def __init__(self, hasher, gate=None) -> None:
        import threading

        self.hasher, self.checked, self.lock, self.gate = hasher, 0, threading.Lock(), gate

    def _wait(self) -> None:
        with self.lock:
            self.checked += 1
        if self.gate is None:
            time.sleep(0.2)
        else:
            assert self.gate.wait(60), "the test never opened the gate"

    def verify(self, stored: str, password: str) -> bool:
        self._wait()
        return self.hasher.verify(stored, password)

    def hash(self, password: str) -> str:
        """(What a sign-in to an unknown account checks, to take as long.)"""
        self._wait()
        return self.hasher.hash(password)

    def __getattr__(self, name: str):
        return getattr(self.hasher, name)


def test_thirty_wrong_passwords_at_once_on_two_servers_check_at_most_five(
        tmp_path, monkeypatch, shared_limits):
    """A try is counted before its password is checked, atomically in the file or in Redis:
    thirty at once, from three addresses to two apps counting together, check at most
    five."""
    import threading

    config = shared_limits
    first = make_app(f"sqlite:///{tmp_path / 'r.sqlite'}", **config)
    with first.app_context():
        db.create_all()
    sign_up(first.test_client())
    second = make_app(f"sqlite:///{tmp_path / 'r.sqlite'}", **config)
    for app in (first, second) * 4:  # right passwords are given back their tries
        assert sign_in(app.test_client()).status_code == 302
    hasher = _SlowCountingHasher(accounts.HASHER)
    monkeypatch.setattr(accounts, "HASHER", hasher)
    # the two apps share this process: its cap on passwords checked at once is not tested here
    monkeypatch.setattr(accounts, "CHECKS", threading.BoundedSemaphore(30))
    together = threading.Barrier(30)
    answers: list[int] = []

    def guess(i: int) -> None:
        client = (first, second)[i % 2].test_client()
        together.wait()
        resp = client.post("/signin", data={"email": "sam@example.com",
                                            "password": f"wrong guess {i}"},
                           environ_base={"REMOTE_ADDR": f"192.0.2.{i % 3 + 1}"})
        answers.append(resp.status_code)

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(30)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert hasher.checked <= 5, f"{hasher.checked} passwords checked"
    assert sorted(answers) == [422] * hasher.checked + [429] * (30 - hasher.checked)
    assert hasher.checked == 5  # the limit lets its five in, no fewer


# -- a reset link used on two servers at the same moment -----------------------------------

def test_a_reset_link_used_twice_at_the_same_moment_works_once(db_app, monkeypatch):
    """On PostgreSQL two servers read the link's account at once; only one may set the
    password. (On SQLite a POST takes the write lock before it reads: the second waits,
    then finds the link used: test_a_reset_link_works_once_within_the_hour.)"""
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


def test_a_worker_checks_a_few_passwords_at_once_and_asks_the_rest_to_try_again(
        tmp_path, monkeypatch):
    """Six wrong passwords at once to one worker: CHECKS_AT_ONCE are checked, the others
    are asked to try again in a second (429, Retry-After: 1) without taking a thread for a
    check, and their tries are given back."""
    import threading

    app = make_app(f"sqlite:///{tmp_path / 'c.sqlite'}", TONK_LIMIT_SIGNIN_IP="6 per minute")
    with app.app_context():
        db.create_all()
    gate = threading.Event()
    hasher = _SlowCountingHasher(accounts.HASHER, gate)
    monkeypatch.setattr(accounts, "HASHER", hasher)
    together = threading.Barrier(6)
    answers: list[tuple[int, str | None]] = []

    def guess(i: int) -> None:
        client = app.test_client()
        together.wait()
        resp = sign_in(client, f"nobody{i}@example.com", "wrong guess!")
        answers.append((resp.status_code, resp.headers.get("Retry-After")))

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    checked = accounts.CHECKS_AT_ONCE
    deadline = time.monotonic() + 60
    while len(answers) < 6 - checked and time.monotonic() < deadline:
        time.sleep(0.02)  # the checks are held until every other try has its answer
    gate.set()
    for thread in threads:
        thread.join(timeout=60)
    assert hasher.checked == checked
    assert sorted(answers) == [(422, None)] * checked + [(429, "1")] * (6 - checked)
    monkeypatch.setattr(accounts, "HASHER", hasher.hasher)
    for i in range(6 - checked):  # the address's limit of six: the given back are free
        assert sign_in(app.test_client(), f"later{i}@example.com").status_code == 422
    assert sign_in(app.test_client(), "last@example.com").status_code == 429
