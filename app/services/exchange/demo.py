"""A realistic demo league, for trying the app and for the benchmarks: two dozen players,
several seasons, thousands of sessions of four to six players under several house-rule
presets, every kind of end, a few corrections and voids, and closed sessions settled up.

The league is generated as export documents (:mod:`app.services.exchange`) and fed to the importer
in batches, so it is made fast, through the same checks as any import. The same seed and
size always give the same league (the uids too: making it again adds nothing twice).
"""
from __future__ import annotations

import random
import secrets
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import select

from ...core import TonkError, find_preset
from ...core.night import Deal, apply, start
from ...core.transfers import fewest_transfers
from ...db.models import User
from ...extensions import db
from ..accounts import create_user, normal_email
from .common import FORMAT, VERSION, iso
from .importer import Importer
from .parallel import check_elsewhere
from .report import ImportReport
from .run import no_gc_pauses

DEFAULT_HANDS = 100_000
PLAYERS = ("Ann", "Bob", "Cy", "Dee", "Eve", "Flo", "Gus", "Hal", "Ida", "Jo", "Kat", "Lou",
           "Mae", "Ned", "Ora", "Pat", "Quin", "Rae", "Sal", "Tom", "Uma", "Vic", "Wes",
           "Xan", "Yul", "Zoe")
#: House rules the league's tables play, and how often.
PRESETS = {"pagat": 30, "chicago": 14, "texas": 10, "washington": 8, "push_ups": 8,
           "newark": 6, "dc": 5, "rushville": 5, "wikipedia": 5, "baton_rouge": 4,
           "seattle": 5}
STAKES = ("0.25", "0.50", "0.50", "1.00", "1.00", "2.00", "5.00")
KEEPERS = ("Marcus", "Tanya", "Lou")
CORRECTIONS = ("counts were misread", "wrong player marked as out", "forgot it was the Big One",
               "that was a joker, not a king", "the drop was Bob's, not Cy's")
VOIDS = ("misdeal", "dealt from the wrong deck", "recorded twice", "a card was exposed")
START = datetime(2023, 1, 5, 18, 0, tzinfo=UTC)
DAYS = 1200  # about three years and four months of play
SEASONS = (("Season 2023", date(2023, 1, 1), date(2023, 12, 31)),
           ("Season 2024", date(2024, 1, 1), date(2024, 12, 31)),
           ("Season 2025", date(2025, 1, 1), date(2025, 12, 31)),
           ("Spring 2026", date(2026, 1, 1), date(2026, 6, 30)))
OPEN_AT_THE_END = 3  # the last few sessions are still going on


@dataclass
class DemoFacts:
    """What went into a demo league, to print (and to test)."""

    sessions: int = 0
    hands: int = 0
    corrected: int = 0
    voided: int = 0
    closed: int = 0
    payments: int = 0
    rules_changes: int = 0
    presets: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    ends: Counter[str] = field(default_factory=Counter)  # kinds, and their variants

    def add(self, other: DemoFacts) -> None:
        """Add what another share of the league holds."""
        for name in ("sessions", "hands", "corrected", "voided", "closed", "payments",
                     "rules_changes"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.presets.update(other.presets)
        self.outcomes.update(other.outcomes)
        self.ends.update(other.ends)


class _Night:
    """One session being played: the core's night (its seats, rules and stake, each hand
    recorded, corrected or voided as an event of it) and who tends to win."""

    def __init__(self, rng: random.Random, names: list[str], preset: str, stake: str,
                 dealer: str, skill: dict[str, float]) -> None:
        self.rng = rng
        self.names = names
        self.rules = find_preset(preset).rules
        self.spec = self.rules.to_json()
        self.night = start({"rules": self.spec, "currency": "USD",
                            "stake": stake if self.rules.scoring == "money" else "1",
                            "players": names, "dealer": dealer})
        self.weights = [skill[n] for n in names]
        counts = sorted(self.rules.play_counts)
        self.low = [c for c in counts if c <= 9]
        self.mid = [c for c in counts if 5 <= c <= 40]

    def pick(self) -> str:
        return self.rng.choices(self.names, self.weights)[0]

    def play(self, multiplier: int, facts: DemoFacts, number: int | None = None) -> Deal:
        """A random hand recorded (or hand ``number`` corrected to it), settled by the
        night; dealt again in the rare case the rules refuse it (a count this deck cannot
        make)."""
        dealer = self.night.dealer if number is None else self.night.hand(number).data["dealer"]
        event: dict[str, Any] = {"kind": "hand"} if number is None else {
            "kind": "corrected", "number": number}
        for _attempt in range(20):
            try:
                self.night = apply(self.night, {
                    **event, "hand": _facts(self, dealer, multiplier, facts)})
                break
            except TonkError:
                continue
        else:
            self.night = apply(self.night, {**event, "hand": {
                "dealer": dealer, "multiplier": multiplier, "end": {"kind": "dead"}}})
        return self.night.hand(number or self.night.last_number)


def _facts(t: _Night, dealer: str, multiplier: int, facts: DemoFacts) -> dict[str, Any]:
    """How one hand ended, with what the rules need to settle it."""
    rng, rules = t.rng, t.rules
    kinds = ["drop"] * 30 + ["run_out"] * 24 + ["tonk_out"] * 18 + ["stock_out"] * 10 + \
        ["dead"] * 2 + (["deal"] * 5 if rules.deal_wins else [])
    kind = rng.choice(kinds)
    out: dict[str, Any] = {"dealer": dealer, "multiplier": multiplier, "end": {"kind": kind}}
    push_ups = rules.scoring == "push_ups"
    variant = kind
    if kind in ("tonk_out", "run_out"):
        winner = t.pick()
        out["end"]["player"] = winner
        if kind == "tonk_out":
            roll = rng.random()
            if roll < 0.04 and rules.double_double_pays is not None:
                out["end"]["double_double"] = True
                variant = "tonk_out.double_double"
            elif roll < 0.10:
                out["end"]["first_turn"] = True
                variant = "tonk_out.first_turn"
            elif roll < 0.22:
                out["end"]["method"] = "hits"
                variant = "tonk_out.hits"
        if push_ups:
            out["counts"] = {n: rng.choice(t.mid) for n in t.names if n != winner}
    elif kind == "drop":
        dropper = t.pick()
        counts = {n: rng.choice(t.mid) for n in t.names}
        counts[dropper] = rng.choice(t.low)
        if rng.random() < 0.35:  # somebody holds as little, or less: caught
            catcher = rng.choice([n for n in t.names if n != dropper])
            counts[catcher] = rng.choice([c for c in t.low if c <= counts[dropper]])
        else:
            for n in t.names:
                if n != dropper and counts[n] <= counts[dropper]:
                    counts[n] = counts[dropper] + rng.randint(1, 20)
        out["end"]["player"] = dropper
        out["counts"] = counts
    elif kind == "stock_out":
        counts = {n: rng.choice(t.mid) for n in t.names}
        if rng.random() < 0.25:  # a tie for the lowest count
            a, b = rng.sample(t.names, 2)
            low = min(counts.values())
            counts[a] = counts[b] = low
            variant = "stock_out.tie"
        out["counts"] = counts
    elif kind == "deal":
        out.update(_deal(t))
        variant = "deal." + ("five_face_cards" if "five_face_cards" in out["end"] else "totals")
    facts.ends[variant] += 1
    return out


def _claim(t: _Night) -> dict[str, Any]:
    """One instant-win claim on the deal, under one of the rules' deal wins."""
    rng, rules = t.rng, t.rules
    win = rng.choice(rules.deal_wins)
    if win.five_face_cards:
        return {"five_face_cards": True}
    if win.at_most is not None:
        return {"total": rng.choice([c for c in sorted(rules.deal_totals)
                                     if c <= win.at_most])}
    return {"total": rng.choice([c for c in win.totals if c in rules.deal_totals])}


def _deal(t: _Night) -> dict[str, Any]:
    rng, rules = t.rng, t.rules
    claimants = rng.sample(t.names, 2 if rng.random() < 0.1 else 1)
    end: dict[str, Any] = {"kind": "deal"}
    counts: dict[str, int] = {}
    for name in claimants:
        claim = _claim(t)
        if "five_face_cards" in claim:
            end.setdefault("five_face_cards", []).append(name)
        else:
            counts[name] = claim["total"]
    if rules.scoring == "push_ups":  # every loser's initial total, none of them a claim
        plain = [c for c in sorted(rules.deal_totals)
                 if not any(w.claims(c, False) is not None for w in rules.deal_wins)]
        for name in t.names:
            if name not in claimants:
                counts[name] = rng.choice(plain)
    out: dict[str, Any] = {"end": end}
    if counts:
        out["counts"] = counts
    return out


def _version(action: str, at: datetime, by: str, reason: str | None, deal: Deal
             ) -> dict[str, Any]:
    assert deal.result is not None
    return {"action": action, "at": iso(at), "by": by, "reason": reason,
            "hand": dict(deal.data), "result": deal.result.to_json()}


def _session(rng: random.Random, index: int, count: int, hands: int, skill: dict[str, float],
             often: list[float], facts: DemoFacts) -> dict[str, Any]:
    """One night at one table, as an export document's session."""
    day = START + timedelta(days=DAYS * index / max(count, 1))
    played_at = day.replace(hour=18) + timedelta(minutes=rng.randint(0, 240),
                                                 seconds=rng.randint(0, 59))
    preset = rng.choices(list(PRESETS), list(PRESETS.values()))[0]
    seats = rng.randint(4, 6)
    names: list[str] = []
    while len(names) < seats:
        name = rng.choices(PLAYERS, often)[0]
        if name not in names:
            names.append(name)
    first_dealer = rng.randrange(seats)
    t = _Night(rng, names, preset, rng.choice(STAKES), names[first_dealer], skill)
    keeper = rng.choice(KEEPERS)
    facts.presets[preset] += 1
    big_one = rng.random() < 0.3
    change_at = rng.randint(5, hands - 3) if hands >= 10 and rng.random() < 0.06 else None
    changes: list[dict[str, Any]] = []
    hand_docs: list[dict[str, Any]] = []
    at = played_at
    for number in range(1, hands + 1):
        at += timedelta(seconds=rng.randint(90, 330))
        if number == change_at and t.rules.scoring == "money":
            stake = rng.choice([s for s in STAKES if Decimal(s) != t.night.stake])
            t.night = apply(t.night, {"kind": "rules", "rules": t.spec, "stake": stake})
            changes.append({"from_hand": number, "rules": t.spec, "stake": stake,
                            "at": iso(at - timedelta(seconds=30))})
            facts.rules_changes += 1
        multiplier = 2 if big_one and number > hands - 2 else 1
        deal = t.play(multiplier, facts)
        versions = [_version("recorded", at, keeper, None, deal)]
        roll = rng.random()
        if roll < 0.015:  # a correction: the hand as it really went
            deal = t.play(multiplier, facts, number)
            versions.append(_version("corrected", at + timedelta(seconds=rng.randint(20, 600)),
                                     rng.choice(KEEPERS), rng.choice(CORRECTIONS), deal))
            facts.corrected += 1
        if roll > 0.994:
            t.night = apply(t.night, {"kind": "voided", "number": number})
            versions.append(_version("voided", at + timedelta(seconds=rng.randint(20, 600)),
                                     rng.choice(KEEPERS), rng.choice(VOIDS), deal))
            facts.voided += 1
        hand_docs.append({"number": number, "voided": roll > 0.994,
                          "versions": [{"version": v, **version}
                                       for v, version in enumerate(versions, start=1)]})
        assert deal.result is not None
        facts.outcomes[deal.result.outcome] += 1
    closed = index < count - OPEN_AT_THE_END
    payments: list[dict[str, Any]] = []
    closed_at = None
    if closed:
        at += timedelta(minutes=rng.randint(5, 20))
        if t.rules.scoring != "push_ups":
            for transfer in fewest_transfers(t.night.open()):
                parts = [transfer.amount]
                if transfer.amount >= 2 and rng.random() < 0.1:  # paid in two goes
                    half = (transfer.amount / 2).quantize(Decimal("0.01"))
                    parts = [half, transfer.amount - half]
                for amount in parts:
                    at += timedelta(seconds=rng.randint(10, 120))
                    t.night = apply(t.night, {"kind": "paid", "payer": transfer.payer,
                                              "payee": transfer.payee, "amount": amount})
                    payments.append({"from": transfer.payer, "to": transfer.payee,
                                     "amount": str(amount), "at": iso(at)})
        t.night = apply(t.night, {"kind": "closed"})
        closed_at = iso(at + timedelta(seconds=30))
        facts.closed += 1
        facts.payments += len(payments)
    facts.sessions += 1
    facts.hands += hands
    return {
        "uid": f"{rng.getrandbits(128):032x}",
        "name": f"{played_at:%a %d %b %Y}, table {index % 4 + 1}",
        "played_at": iso(played_at), "closed_at": closed_at, "currency": "USD",
        "stake": str(t.night.stake), "rules": t.spec, "players": names,
        "next_dealer": t.night.dealer,
        "totals": {n: str(m.total) for n, m in t.night.money().items()},
        "hands": hand_docs, "payments": payments, "rules_changes": changes}


@dataclass
class DemoShare:
    """The demo league's sessions, made one at a time (each from its own seeded random
    numbers, so that any process can make any share of them): an
    :class:`app.services.exchange.Share`."""

    seed: int
    hands: int
    facts: DemoFacts = field(default_factory=DemoFacts)

    def plan(self) -> tuple[dict[str, Any], list[int], dict[str, float], list[float]]:
        """The league, the size of each session, each player's skill and how often each
        plays: all from the seed and size."""
        rng = random.Random(f"tonk-demo:{self.seed}:{self.hands}")
        skill = {n: rng.uniform(0.6, 1.6) for n in PLAYERS}
        often = [rng.uniform(0.3, 3.0) for _ in PLAYERS]
        league = {
            "uid": f"{rng.getrandbits(128):032x}", "name": "Riverside Tonk League",
            "created_at": iso(START - timedelta(days=3)), "currency": "USD", "stake": "0.50",
            "rules": {"preset": "pagat"},
            "seasons": [{"name": n, "starts_on": s.isoformat(), "ends_on": e.isoformat()}
                        for n, s, e in SEASONS],
            "members": [{"name": n, "joined_at": iso(START - timedelta(days=3))}
                        for n in sorted(PLAYERS)]}
        sizes: list[int] = []
        left = self.hands
        while left > 0:
            size = min(left, rng.randint(20, 60))
            sizes.append(size)
            left -= size
        return league, sizes, skill, often

    def header(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "league": self.plan()[0]}

    def sessions(self, k: int = 0, of: int = 1) -> Iterator[tuple[int, dict[str, Any]]]:
        _league, sizes, skill, often = self.plan()
        for index in range(k, len(sizes), of):
            rng = random.Random(f"tonk-demo:{self.seed}:{self.hands}:{index}")
            yield index + 1, _session(rng, index, len(sizes), sizes[index], skill, often,
                                      self.facts)

    def summary(self) -> DemoFacts:
        return self.facts


def demo_documents(seed: int, hands: int) -> tuple[dict[str, Any], Iterator[dict[str, Any]]]:
    """The demo league as an export document's header (with the league) and its sessions,
    made one at a time: exactly ``hands`` hands, the same for the same seed and size."""
    share = DemoShare(seed, hands)
    return share.header(), (doc for _position, doc in share.sessions())


def owner_account(email: str) -> tuple[User, str | None]:
    """The account that will own the demo league: found by email, or made with a new
    password (returned, to be shown once)."""
    address = normal_email(email)
    user = db.session.scalar(select(User).where(User.email == address))
    if user is not None:
        return user, None
    password = secrets.token_urlsafe(12)
    return create_user(address, "Demo Keeper", password), password


def make_demo(user: User, *, hands: int = DEFAULT_HANDS, seed: int = 1, jobs: int = 0,
              batch_hands: int = 20_000) -> tuple[ImportReport, DemoFacts]:
    """Generate the demo league and import it for ``user``, all or nothing, in batches; the
    sessions made and checked in ``jobs`` other processes (0: in this one)."""
    share = DemoShare(seed, hands)
    importer = Importer(user, batch_hands=batch_hands)
    with no_gc_pauses():
        if not importer.start(share.header()):
            return importer.finish(), share.facts
        if jobs < 1:
            for _position, session in share.sessions():
                importer.add(session)
            return importer.finish(), share.facts
        facts = DemoFacts()
        for part in check_elsewhere(importer, share, jobs):
            facts.add(part)
        return importer.finish(), facts


def describe_demo(facts: DemoFacts) -> list[str]:
    """What a demo league holds, in a few lines."""
    return [
        f"{facts.sessions} sessions, {facts.hands} hands ({facts.corrected} corrected, "
        f"{facts.voided} voided), {facts.closed} closed and settled with {facts.payments} "
        f"payments, {facts.rules_changes} stake changes",
        "presets: " + ", ".join(f"{k} {v}" for k, v in facts.presets.most_common()),
        "outcomes: " + ", ".join(f"{k} {v}" for k, v in facts.outcomes.most_common()),
        "ends: " + ", ".join(f"{k} {v}" for k, v in sorted(facts.ends.items())),
    ]

