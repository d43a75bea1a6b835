"""Readers during writes, against real servers: scorekeepers change a side-bet session
(hands, corrections, voids, payments and their undo) through one or more app servers while
phones read its money (the share API, the share page and its live part, the scorekeeper's
live part, the ledger API) through all of them. Every read must be a 200 (or a 304 for a
matching ETag): a reader sees the session before or after a change, never between.

Used by tests/test_snapshot_reads.py (a few seconds) and benchmarks/bench_snapshot_reads.py
(30 s). Talks to 127.0.0.1 only; bounded by ``seconds``.
"""
from __future__ import annotations

import itertools
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tests.live import PLAYERS, Browser, Client, a_hand

SIDE_BETS = {"naturals": {"stake": "0.10"}, "high_card": {"suit": "S", "unclaimed": "return"}}
EMAIL, PASSWORD = "keeper@example.com", "correct horse battery staple"  # tests.live.prepare


@dataclass
class Night:
    """What the writers and readers were answered."""

    writes: Counter[int] = field(default_factory=Counter)
    reads: Counter[int] = field(default_factory=Counter)
    bad: list[str] = field(default_factory=list)  # every 5xx, and every read not 200/304
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: (reads, recorded hands) after which the night may end before its time: a test wants
    #: enough of both, however slow the machine; a benchmark (None) runs its whole time.
    enough: tuple[int, int] | None = None

    def over(self, until: float) -> bool:
        if time.monotonic() > until:
            return True
        return self.enough is not None and sum(self.reads.values()) >= self.enough[0] \
            and self.writes[201] >= self.enough[1]

    def wrote(self, what: str, status: int, body: Any, allowed: tuple[int, ...]) -> None:
        with self.lock:
            self.writes[status] += 1
            if status >= 500 or status not in allowed:
                self.bad.append(f"{what}: {status} {str(body)[:200]}")

    def read(self, what: str, status: int, body: Any) -> None:
        with self.lock:
            self.reads[status] += 1
            if status not in (200, 304):
                self.bad.append(f"read {what}: {status} {str(body)[:200]}")

    @property
    def figures(self) -> str:
        reads = sum(self.reads.values())
        return (f"{sum(self.writes.values())} writes {dict(self.writes)}, {reads} reads "
                f"{dict(self.reads)}: {sum(n for s, n in self.reads.items() if s >= 500)} x 5xx, "
                f"{sum(n for s, n in self.reads.items() if 400 <= s < 500)} x 4xx on reads")


def side_bet_session(client: Client) -> tuple[int, str]:
    """A session with both side bets; its id and share token."""
    answer = client.call("POST", "/api/v1/sessions", {
        "name": "Side bets", "players": PLAYERS, "rules": "pagat", "stake": "0.25",
        "side_bets": SIDE_BETS})
    assert answer.status == 201, answer
    share_url = answer.body["share_url"]
    return int(answer.body["id"]), share_url.rsplit("/", 1)[1]


def _hand(i: int) -> dict[str, Any]:
    hand = a_hand(i)
    winner = PLAYERS[(i // 3) % len(PLAYERS)]
    hand["side_bets"] = [{"bet": "naturals", "winner": winner if i % 3 else None},
                         {"bet": "high_card", "winner": None if i % 5 == 0 else winner}]
    return hand


def writer(clients: list[Client], session_id: int, me: int, until: float,
           night: Night) -> None:
    """Record hands; correct or void one, pay an open transfer (in part or in full) or undo
    a payment now and then; through each server in turn."""
    base = f"/api/v1/sessions/{session_id}"
    servers = itertools.cycle(clients[me % len(clients):] + clients[:me % len(clients)])
    for i in itertools.count():
        if night.over(until):
            return
        client = next(servers)
        answer = client.call("POST", base + "/hands", _hand(me * 10_000 + i),
                             key=uuid.uuid4().hex)
        night.wrote("record", answer.status, answer.body, (201,))
        if answer.status != 201:
            continue
        number = answer.body["number"]
        step = i % 4
        if step == 1:
            target = max(1, number - 1 - me % 3)
            seen = client.call("GET", f"{base}/hands/{target}")
            if seen.status != 200:
                night.wrote("read a hand", seen.status, seen.body, (200,))
                continue
            version = seen.body["version"]
            if i % 8 == 1:
                change = client.call("DELETE", f"{base}/hands/{target}", {
                    "reason": "misdeal", "version": version}, key=uuid.uuid4().hex)
            else:
                change = client.call("PUT", f"{base}/hands/{target}", {
                    **_hand(me * 10_000 + i + 7), "reason": "miscounted",
                    "version": version}, key=uuid.uuid4().hex)
            # 409: changed since it was read; 422: already void, or a void would leave
            # a payment without its debt
            night.wrote("correct/void", change.status, change.body, (200, 409, 422))
        elif step == 2:
            ledger = client.call("GET", base + "/ledger")
            night.read("ledger (writer)", ledger.status, ledger.body)
            open_ = ledger.body.get("open") if ledger.status == 200 else None
            if open_:
                t = open_[me % len(open_)]
                amount = t["amount"] if i % 3 else "0.05"
                paid = client.call("POST", base + "/payments", {
                    "from": t["from"], "to": t["to"], "amount": amount},
                    key=uuid.uuid4().hex)
                # 422: the transfer changed under the payment (a hand landed meanwhile)
                night.wrote("pay", paid.status, paid.body, (200, 201, 422))
        elif step == 3 and i % 8 == 3:
            ledger = client.call("GET", base + "/ledger")
            night.read("ledger (writer)", ledger.status, ledger.body)
            paid_ = ledger.body.get("paid") if ledger.status == 200 else None
            if paid_:
                undo = client.call("DELETE", f"{base}/payments/{paid_[-1]['id']}",
                                   {"reason": "mis-tap"}, key=uuid.uuid4().hex)
                night.wrote("undo", undo.status, undo.body, (200, 404, 409, 422))


def reader(bases: list[str], clients: list[Client], browsers: list[Browser],
           session_id: int, token: str, me: int, until: float, night: Night) -> None:
    """A phone reading the money: the share API (with and without its ETag), the share page
    and its live part, the scorekeeper's live part and the ledger API; every server in turn."""
    etag: str | None = None
    for i in itertools.count():
        if night.over(until):
            return
        n = (i + me) % len(bases)
        kind = (i + me) % 5
        if kind == 0:
            answer = clients[n].call("GET", f"/api/v1/share/{token}", headers={
                "If-None-Match": etag} if etag else None)
            etag = answer.headers.get("ETag", etag)
            night.read("share API", answer.status, answer.body)
            if answer.status == 200 and isinstance(answer.body, dict):
                _balanced("share API", answer.body, night)
        elif kind == 1:
            status, page = browsers[n].get(f"/s/{token}")
            night.read("share page", status, page[:300])
        elif kind == 2:
            status, page = browsers[n].get(f"/s/{token}/live")
            night.read("share live part", status, page[:300])
        elif kind == 3:
            status, page = browsers[n].get(f"/sessions/{session_id}/live")
            night.read("session live part", status, page[:300])
        else:
            answer = clients[n].call("GET", f"/api/v1/sessions/{session_id}/ledger")
            night.read("ledger API", answer.status, answer.body)
            if answer.status == 200:
                _balanced("ledger API", answer.body, night)


def _balanced(what: str, body: Any, night: Night) -> None:
    """The totals sum to zero, and what the hands and side bets made (each total's parts but
    what the pots give back) and the pots do too, in every state (a read between two halves
    of a change would not)."""
    from decimal import Decimal

    def amounts(values: Any) -> list[Decimal]:
        if isinstance(values, dict):
            return [Decimal(str(v)) for v in values.values() if isinstance(v, str | int)]
        return []

    if not isinstance(body, dict) or not isinstance(body.get("money"), dict):
        with night.lock:
            night.bad.append(f"{what}: no money by part in {body!r:.200}")
        return
    totals, pots = body.get("totals"), body.get("pots")
    played = [Decimal(m["hands"]) + Decimal(m["side_bets"]) for m in body["money"].values()]
    if sum(amounts(totals)) != 0 or sum(played) + sum(amounts(pots)) != 0:
        with night.lock:
            night.bad.append(f"{what}: totals {totals}, money {body['money']} and pots {pots} "
                             "do not sum to zero")


def run_night(bases: list[str], token: str, seconds: float, writers: int = 4,
              readers: int = 6, enough: tuple[int, int] | None = None) -> tuple[Night, int]:
    """``writers`` and ``readers`` on a new side-bet session for ``seconds`` (or until
    ``enough`` reads and recorded hands); what they were answered and the session's id."""
    clients = [Client(base, token) for base in bases]
    session_id, share = side_bet_session(clients[0])
    browsers = []
    for base in bases:
        browser = Browser(base)
        browser.sign_in(EMAIL, PASSWORD)
        browsers.append(browser)
    night = Night(enough=enough)
    until = time.monotonic() + seconds
    threads = [threading.Thread(target=writer, args=(clients, session_id, k, until, night),
                                daemon=True) for k in range(writers)]
    threads += [threading.Thread(target=reader, args=(bases, clients, browsers, session_id,
                                                      share, k, until, night), daemon=True)
                for k in range(readers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=seconds + 120)
    return night, session_id
