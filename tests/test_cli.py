"""The ``tonk`` command: settle and transfers from files and standard input."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any

import pytest
from click.testing import CliRunner

from app.cli.commands import cli

HAND = {"rules": "pagat", "stake": "0.25", "players": ["Ann", "Bob", "Cy", "Dee"],
        "dealer": "Dee", "end": {"kind": "drop", "player": "Bob"},
        "counts": {"Ann": 12, "Bob": 9, "Cy": 9, "Dee": 30}}


@pytest.fixture
def runner():
    return CliRunner()


def test_settle_one_hand_from_a_file(runner, tmp_path):
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(HAND))
    out = runner.invoke(cli, ["settle", str(path)])
    assert out.exit_code == 0, out.output
    result = json.loads(out.stdout)
    assert result["outcome"] == "caught" and result["net"]["Cy"] == "1.00"


def test_settle_explain_from_stdin(runner):
    out = runner.invoke(cli, ["settle", "--explain", "-"], input=json.dumps(HAND))
    assert out.exit_code == 0
    assert "Bob dropped with 9; Cy holds 9: a tie goes against the dropper" in out.stdout
    assert "Net: Ann \u22120.25, Bob \u22120.50, Cy +1.00, and Dee \u22120.25." in out.stdout


def test_settle_explain_says_the_net_once(runner):
    """--explain printed the net twice (the explanation's line and its own)."""
    out = runner.invoke(cli, ["settle", "--explain", "-"], input=json.dumps(HAND))
    assert out.stdout.count("Net:") == 1
    assert "net Cy" not in out.stdout


def test_json_lines_one_result_a_line(runner):
    lines = [json.dumps(HAND), json.dumps({**HAND, "end": {"kind": "dead"}})]
    out = runner.invoke(cli, ["settle", "-"], input="\n".join(lines) + "\n")
    assert out.exit_code == 0
    assert [json.loads(x)["outcome"] for x in out.stdout.splitlines()] == ["caught", "dead"]


def test_bad_hand_is_one_line_on_stderr_and_nonzero(runner):
    bad = {**HAND, "counts": {"Ann": 12}}
    out = runner.invoke(cli, ["settle", "-"], input=json.dumps(bad))
    assert out.exit_code == 1
    assert out.stdout == ""
    assert out.stderr.strip().count("\n") == 0
    assert out.stderr.startswith("tonk: line 1: Bob's count is missing")


def test_bad_line_among_good_ones(runner):
    text = json.dumps(HAND) + "\n{not json\n" + json.dumps(HAND) + "\n"
    out = runner.invoke(cli, ["settle", "-"], input=text)
    assert out.exit_code == 1
    assert len(out.stdout.splitlines()) == 2
    assert out.stderr.startswith("tonk: line 2: not valid JSON")


def test_empty_input(runner):
    out = runner.invoke(cli, ["settle", "-"], input="")
    assert out.exit_code == 2 and out.stderr == "tonk: the input is empty: give a hand as a " \
        "JSON object\n"


def test_transfers(runner):
    body = {"balances": {"Ann": "-4", "Bob": "-3", "Cy": "-3", "Dee": "6", "Eve": "4"}}
    out = runner.invoke(cli, ["transfers", "-"], input=json.dumps(body))
    assert out.exit_code == 0
    assert len(json.loads(out.stdout)["transfers"]) == 3


def test_transfers_refuse_a_key_they_do_not_take(runner):
    """As the API does: a key beside ``balances`` (a typo, a field of another file) is
    refused by name, not passed over."""
    body = {"balances": {"Ann": "4.50", "Bob": "-4.50"}, "currency": "EUR"}
    out = runner.invoke(cli, ["transfers", "-"], input=json.dumps(body))
    assert out.exit_code == 1 and out.stdout == ""
    assert out.stderr == ('tonk: line 1: working out transfers has no field "currency" (it '
                          'takes balances) (currency)\n')


def test_transfers_not_summing_to_zero(runner):
    out = runner.invoke(cli, ["transfers", "-"], input='{"balances": {"Ann": "1", "Bob": "0"}}')
    assert out.exit_code == 1
    assert "do not add up to zero" in out.stderr


def test_settle_and_transfers_need_only_the_core():
    """`tonk settle` and `tonk transfers` start at once: no Flask, no database."""
    code = ("import sys\nsys.argv = ['tonk', 'transfers', '-']\nfrom app import __main__ as cli\n"
            "try:\n    cli.main()\nexcept SystemExit:\n    pass\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'flask', 'sqlalchemy', 'alembic', 'flask_sqlalchemy'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         input='{"balances": {"Ann": "1.50", "Bob": "-1.50"}}', timeout=60)
    assert out.stdout.splitlines() == [
        '{"transfers": [{"from": "Bob", "to": "Ann", "amount": "1.50"}]}', "[]"]


def test_help_builds_no_app(runner, monkeypatch):
    """`tonk --help` and `tonk db --help` list the commands without making the app (which
    would write a secret key and open the database)."""
    def no(*_args, **_kwargs):
        raise AssertionError("the app was built")

    monkeypatch.setattr("app.create_app", no)
    for args in (["--help"], ["db", "--help"], ["check", "--help"]):
        out = runner.invoke(cli, args)
        assert out.exit_code == 0, out.output
    assert "backup" in runner.invoke(cli, ["--help"]).output


def test_help_and_version_are_tonk_tallys(runner):
    """A newcomer read `tonk --help` as Flask's (its app loader's options, `run`, `shell`,
    `routes`, the limiter's commands) and `tonk --version` gave Flask's version."""
    out = runner.invoke(cli, ["--version"])
    assert out.exit_code == 0 and out.output == "Tonk Tally 0.1.0\n"
    listed = runner.invoke(cli, ["--help"]).output
    assert "serve" in listed and "settle" in listed
    commands = re.findall(r"^  ([a-z-]+) ", listed.split("Commands:")[1], re.M)
    assert "serve" in commands and not {"run", "shell", "routes", "limiter"} & set(commands)
    assert "--app" not in listed and "--env-file" not in listed


def test_the_first_command_on_a_fresh_database_says_so_in_one_line(tmp_path):
    """A fresh database is made before the command runs, in one line of tonk's own on
    stderr (not a line of Alembic's log per migration); the next command says nothing of it."""
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'fresh.sqlite'}",
           "SECRET_KEY": "test"}
    first, again = (subprocess.run([sys.executable, "-m", "app", "export", "--league", "1"],
                                   capture_output=True, text=True, env=env, timeout=120)
                    for _ in range(2))
    assert first.returncode == again.returncode == 2  # there is no league 1
    assert first.stderr.splitlines()[0].startswith("tonk: made a new database (schema ")
    assert "alembic" not in first.stderr.lower()
    assert first.stderr.splitlines()[1:] == again.stderr.splitlines()
    assert again.stderr == "tonk: there is no league 1\n"  # one line, not click's usage


@pytest.mark.parametrize(("args", "said"), [
    (["import", "league.json"], "tonk: Missing option '--owner'.\n"),
    (["settle", "--lang", "xx", "-"],
     "tonk: Invalid value for '--lang': 'xx' is not one of 'en', 'de', 'ja'.\n"),
    (["nonsense"], "tonk: No such command 'nonsense'.\n"),
])
def test_input_click_refuses_is_one_line_too(tmp_path, args, said):
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'fresh.sqlite'}",
           "SECRET_KEY": "test"}
    done = subprocess.run([sys.executable, "-m", "app", *args], capture_output=True,
                          text=True, env=env, timeout=120, stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stderr, done.stdout) == (2, said, "")


def test_serve_gives_its_workers_proxy_and_https_through_the_app_factory(tmp_path, monkeypatch):
    """``tonk serve --proxy`` hands TONK_PROXY (and so TONK_HTTPS) to the app each worker
    builds as the factory's configuration (what granian calls in every worker), and
    leaves the environment as it was."""
    import socket

    from flask import Flask
    from granian.server import Server

    from app.api.share import PollsInTheLoop
    from app.api.stream import Streams
    from app.http.bodies import WholeBodies
    from app.http.doors import Doors

    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'serve.sqlite'}")
    monkeypatch.delenv("TONK_PROXY", raising=False)
    monkeypatch.delenv("TONK_HTTPS", raising=False)
    loaders: list[Any] = []

    def serve(self: Any, target_loader: Any = None, **_: Any) -> None:
        loaders.append(target_loader)

    monkeypatch.setattr(Server, "serve", serve)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = CliRunner().invoke(cli, ["serve", "--port", str(port), "--proxy"])
    assert out.exit_code == 0, out.output
    assert "TONK_PROXY" not in os.environ and "TONK_HTTPS" not in os.environ
    streams = loaders[0]("app:create_app")  # as granian calls it in a worker
    assert isinstance(streams, Streams)  # the pushed updates' streams, held in the loop
    front = streams.app
    assert isinstance(front, Doors)  # the limits of requests in flight, before the app
    served = front.app
    assert isinstance(served, PollsInTheLoop)  # the unchanged polls answered in the loop
    assert isinstance(served.app, WholeBodies)
    worker_app = served.app.app.app  # behind a2wsgi's threads
    assert isinstance(worker_app, Flask)
    assert worker_app.wsgi_app is served.polls.wsgi  # (the app does not ask them again)
    assert worker_app.config["TONK_PROXY"] and worker_app.config["TONK_HTTPS"]
    assert worker_app.config["SESSION_COOKIE_SECURE"]


def test_links_the_command_line_prints_start_at_tonk_url(monkeypatch):
    """``TONK_URL`` (read in app/config.py, as every variable) says where phones reach the
    server; unset or blank, the local address."""
    from app.config import DEFAULT_URL, public_url

    monkeypatch.setenv("TONK_URL", " https://tonk.example/ ")
    assert public_url() == "https://tonk.example/"
    monkeypatch.setenv("TONK_URL", "")
    assert public_url() == DEFAULT_URL == "http://127.0.0.1:5000"
    monkeypatch.delenv("TONK_URL")
    assert public_url() == DEFAULT_URL


def test_the_commands_on_the_database_speak_the_chosen_language(app, tmp_path, monkeypatch):
    """`tonk import`, `check`, `backup`, `restore` and the rest say what they say in the
    language of --lang, else of LANG, as `tonk settle` does: their own lines and the app's
    messages (an import's problems, a refused backup); then the app's pages speak each
    reader's language again."""
    from flask_migrate import stamp

    from app.db.unit import unit_of_work
    from app.services.accounts import create_user

    with app.app_context():
        with unit_of_work():
            create_user("sam@example.com", "Sam", "a long enough password")
        stamp()  # (the test's schema is made without Alembic: a backup names its revision)
    pages = app.test_client()
    german_page = pages.get("/rules/pagat", headers={"Accept-Language": "de"}).text
    english_page = pages.get("/rules/pagat", headers={"Accept-Language": "en"}).text
    runner = app.test_cli_runner()
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "tonk-tally"}')
    monkeypatch.setenv("LANG", "ja_JP.UTF-8")
    out = runner.invoke(cli, ["import", str(bad), "--owner", "sam@example.com", "--lang", "de"])
    assert (out.exit_code, out.stderr.splitlines()[0]) == (
        1, "Nichts wurde importiert. Es gibt 1 Problem:"), out.output
    assert out.stderr.splitlines()[1].startswith("die Datei ")
    out = runner.invoke(cli, ["restore", str(bad)])
    assert out.exit_code == 1 and "これは読めるTonk Tallyのバックアップではありません" in out.stderr
    assert runner.invoke(cli, ["check"]).stdout.startswith("問題ありません")
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert runner.invoke(cli, ["check"]).stdout.startswith("all well")
    out = runner.invoke(cli, ["backup", str(tmp_path / "b.gz"), "--lang", "de"])
    assert out.exit_code == 0 and out.stderr.startswith("1 Zeile in "), out.output
    out = runner.invoke(cli, ["export", "--league", "7", "--lang", "ja"])
    assert out.exit_code == 2 and "リーグ7はありません" in out.stderr
    assert pages.get("/rules/pagat", headers={"Accept-Language": "de"}).text == german_page
    assert pages.get("/rules/pagat", headers={"Accept-Language": "en"}).text == english_page
    assert german_page != english_page


@pytest.mark.parametrize("given", ["ten", "0", "-3", "1.5"])
def test_serve_refuses_a_header_timeout_that_is_no_whole_number_of_seconds(
        tmp_path, monkeypatch, given):
    """``TONK_HEADER_SECONDS`` (how long a connection may take over its headers): anything
    but 1 or more whole seconds is one clear line, before anything is served."""
    from granian.server import Server

    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'serve.sqlite'}")
    monkeypatch.setenv("TONK_HEADER_SECONDS", given)
    monkeypatch.setattr(Server, "serve", lambda *a, **k: pytest.fail("served"))
    from tests.live import free_port

    out = CliRunner().invoke(cli, ["serve", "--port", str(free_port())])
    assert out.exit_code == 1, out.output
    assert out.output.count("\n") == 1 and out.output.endswith(
        f": TONK_HEADER_SECONDS must be a whole number of seconds, 1 or more (not {given!r})\n")
