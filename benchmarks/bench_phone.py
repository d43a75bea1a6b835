"""The core on the phone, measured as a slow phone: Chromium at 390x844 on `tonk serve`, its
renderers held to a quarter of one core by a cgroup CPU quota (DevTools' CPU throttling
slows the page's thread, not a worker's, so it says nothing about the core).

    python benchmarks/bench_phone.py [--quota 25000] [--hands 20] [--quick]

- the quota: a cgroup (v1 ``cpu.cfs_quota_us`` of ``cpu.cfs_period_us`` 100000, or v2
  ``cpu.max``) that Chromium's renderer processes (the pages and the core's worker) are
  moved into, checked on a busy loop first; where none can be made (not root, no cpu
  controller) it says why and measures at full speed;
- the first visit, empty cache, signed in: the page's load event, the core ready (the first
  visit's proof: ``TonkCount.readyAt``) after it, and the first hand counted after that,
  with the worker's own timing of each step (the bundle, Pyodide's start: its WebAssembly
  compiled and the standard library, the files, the core's import, and whether Pyodide's
  memory was restored from the snapshot an earlier start kept or made now), and the bytes on
  the wire (a counting proxy between Chromium and the server: what the server sent);
- a later visit with no signal (the phone's cache, a new tab once the first one's core
  has gone: the bench ends its shared worker, whose extended life outlasts the tab here):
  the same figures, no byte on the wire;
- a night of ``--hands`` hands walked through the pages online (record form, session page,
  settle-up), then a few with no signal: how many times the core started (the pages'
  ``data-core-starts``, and the worker's own count).

``--quick`` (the test suite's): no quota, two hands each way: shows the measurement still
runs; nothing is judged. Needs Chromium (scripts/test.sh installs it) and Playwright.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from tests.live import Client, a_hand, new_session, prepare, tonk_serve  # noqa: E402

EMAIL, PASSWORD = "keeper@example.com", "correct horse battery staple"  # prepare()'s
CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
PHONE: dict[str, Any] = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 1,
                         "is_mobile": True, "has_touch": True}
START_SECONDS = 300
PERIOD = 100_000
HANDS_OFFLINE = 4


# -- a quarter core ------------------------------------------------------------------------------

class Quota:
    """A cgroup whose processes share ``quota`` µs of CPU each 100 ms (v1 or v2)."""

    def __init__(self, quota: int) -> None:
        name = f"tonk-bench-{os.getpid()}"
        v1, v2 = pathlib.Path("/sys/fs/cgroup/cpu"), pathlib.Path("/sys/fs/cgroup")
        if (v1 / "cpu.cfs_quota_us").exists():
            self.path = v1 / name
            self.path.mkdir()
            (self.path / "cpu.cfs_period_us").write_text(str(PERIOD))
            (self.path / "cpu.cfs_quota_us").write_text(str(quota))
        elif "cpu" in (v2 / "cgroup.controllers").read_text().split():
            self.path = v2 / name
            self.path.mkdir()
            (self.path / "cpu.max").write_text(f"{quota} {PERIOD}")
        else:
            raise OSError("no cgroup cpu controller (v1 /sys/fs/cgroup/cpu or v2 cpu.max)")
        self.share = quota / PERIOD

    def add(self, pid: int) -> None:
        with contextlib.suppress(ProcessLookupError, OSError):  # (a renderer gone meanwhile)
            (self.path / "cgroup.procs").write_text(str(pid))

    def busy_share(self) -> float:
        """The CPU a busy loop in the cgroup gets, as a share of one core over 2 s."""
        loop = subprocess.Popen([sys.executable, "-c", (
            "import os, time\nstart = time.monotonic()\nwhile time.monotonic() - start < 2: pass\n"
            "print(sum(os.times()[:2]))")], stdout=subprocess.PIPE, text=True)
        self.add(loop.pid)
        out, _ = loop.communicate(timeout=30)
        return float(out) / 2

    def close(self) -> None:
        for pid in (self.path / "cgroup.procs").read_text().split():  # back to the root's
            with contextlib.suppress(OSError):
                (self.path.parent / "cgroup.procs").write_text(pid)
        with contextlib.suppress(OSError):
            self.path.rmdir()


def renderers() -> list[int]:
    """Chromium's renderer processes started by this process (the pages, their workers)."""
    parents: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                stat = pathlib.Path(entry.path, "stat").read_text()
                parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    mine, more = {os.getpid()}, {os.getpid()}
    while more:
        more = {pid for pid, parent in parents.items() if parent in more} - mine
        mine |= more
    found = []
    for pid in mine:
        with contextlib.suppress(OSError):
            if b"--type=renderer" in pathlib.Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
    return found


class Held:
    """Moves Chromium's renderers into the quota every 50 ms while measuring (a new page or
    worker may get a new renderer)."""

    def __init__(self, quota: Quota | None) -> None:
        self.quota, self.stop = quota, threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        while self.quota and not self.stop.wait(0.05):
            for pid in renderers():
                self.quota.add(pid)

    def __enter__(self) -> Held:
        if self.quota:
            for pid in renderers():
                self.quota.add(pid)
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()


# -- bytes on the wire -----------------------------------------------------------------------

@contextlib.contextmanager
def counting_proxy(port: int) -> Iterator[tuple[str, list[int]]]:
    """A TCP relay to 127.0.0.1:``port``: its base URL, and the bytes the server sent."""
    sent = [0]
    lock = threading.Lock()
    listener = socket.create_server(("127.0.0.1", 0))
    done = threading.Event()

    def pipe(src: socket.socket, dst: socket.socket, count: bool) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                if count:
                    with lock:
                        sent[0] += len(data)
                dst.sendall(data)
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)

    def accept() -> None:
        listener.settimeout(0.2)
        while not done.is_set():
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", port))
            threading.Thread(target=pipe, args=(client, server, False), daemon=True).start()
            threading.Thread(target=pipe, args=(server, client, True), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", sent
    finally:
        done.set()
        thread.join(timeout=2)
        listener.close()


# -- on the phone ---------------------------------------------------------------------------

FIGURES = """() => {
    const nav = performance.getEntriesByType("navigation")[0], core = window.TonkCount;
    return {load: nav.loadEventEnd, start: core.startAt, ready: core.readyAt,
            steps: core.steps, memory: core.memory,
            starts: +document.documentElement.getAttribute("data-core-starts")};
}"""

FIRST_HAND = """async () => {
    const table = JSON.parse(document.getElementById("phone-table").textContent);
    const form = [["kind", "drop"], ["player", "Cy"], ["count-0", "20"], ["count-1", "15"],
                  ["count-2", "3"], ["count-3", "9"]];
    const t = performance.now();
    const said = await window.TonkCount.ask({op: "record", table, hands: [form]});
    if (!said.hands || said.hands[0].error) throw new Error(JSON.stringify(said));
    return performance.now() - t;
}"""


def ready_and_first_hand(page: Any) -> dict[str, Any]:
    page.wait_for_function("() => window.TonkCount && window.TonkCount.readyAt !== null",
                           timeout=START_SECONDS * 1000, polling=100)
    seen: dict[str, Any] = page.evaluate(FIGURES)
    seen["hand"] = page.evaluate(FIRST_HAND)
    return seen


def said(label: str, seen: dict[str, Any], wire: int | None = None) -> None:
    steps = seen.get("steps") or {}
    print(f"  {label}: page loaded {seen['load'] / 1000:.1f} s; core ready "
          f"{(seen['ready'] - seen['load']) / 1000:.1f} s after the load (its start took "
          f"{(seen['ready'] - seen['start']) / 1000:.1f} s: bundle {steps.get('bundle', 0)} ms, "
          f"Pyodide {steps.get('pyodide', 0)} ms, files {steps.get('files', 0)} ms, the core's "
          f"import {steps.get('core', 0)} ms; Pyodide's memory snapshot "
          f"{steps.get('snapshot', 'none')}); first hand counted "
          f"{seen['hand']:.0f} ms later"
          + (f"; {wire / 1e6:.2f} MB on the wire" if wire is not None else ""), flush=True)


def fill(page: Any, i: int) -> None:
    """Record hand ``i`` on the record form (a_hand's kinds, through the form)."""
    hand = a_hand(i)
    end = hand["end"]
    page.locator(f"label[for='kind-{end['kind']}']").click()
    if "player" in end:
        page.locator(f"label[for='player-{['Ann', 'Bob', 'Cy', 'Dee'].index(end['player'])}']"
                     ).click()
    for seat, name in enumerate(["Ann", "Bob", "Cy", "Dee"]):
        box = page.locator(f"#count-{seat}")
        if name in hand.get("counts", {}) and box.is_visible():
            box.fill(str(hand["counts"][name]))


def go(page: Any, url: str, tries: int = 3) -> None:
    """``page.goto``, again if the page's own reload cut it (the outbox sent, or a page
    from the phone reloading itself once the signal is back: it may do so more than once
    while the hands go)."""
    for _ in range(tries - 1):
        try:
            page.goto(url)
            return
        except Exception:  # playwright's Error: net::ERR_ABORTED, or interrupted
            page.wait_for_load_state("load")
    page.goto(url)


def walk(page: Any, session: str, hands: range, offline: bool) -> tuple[int, int | None]:
    """Record ``hands`` through the pages (every third, settle-up too): the pages' starts of
    the core added up, and the worker's own count at the end (None: no core asked)."""
    starts = 0

    def leave() -> int:
        page.wait_for_load_state("load")
        page.evaluate("() => new Promise((r) => requestIdleCallback(() => setTimeout(r, 200)))")
        return int(page.get_attribute("html", "data-core-starts") or 0)
    for i in hands:
        go(page, session + "/hands/new")
        starts += leave()
        fill(page, i)
        with page.expect_navigation():
            page.get_by_role("button", name="Save hand").click()
        if offline:
            page.wait_for_function(
                "(n) => document.querySelectorAll('#outbox li .phone-result').length >= n",
                arg=i - hands.start + 1, timeout=START_SECONDS * 1000)
        starts += leave()
        if i % 3 == 2:
            go(page, session + "/settle")
            starts += leave()
    worker: int | None = page.evaluate("() => window.TonkCount.workerStarts")
    return starts, worker


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quota", type=int, default=25_000,
                        help="µs of CPU each 100 ms for the renderers (25000: a quarter core)")
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    hands, offline_hands = (2, 2) if args.quick else (args.hands, HANDS_OFFLINE)
    print("The core on the phone" + (" (quick: not judged)" if args.quick else ""), flush=True)
    if not os.path.exists(CHROMIUM):
        print(f"  Chromium: skipped (none at {CHROMIUM})")
        return 0
    quota: Quota | None = None
    if not args.quick:
        try:
            quota = Quota(args.quota)
            share = quota.busy_share()
            print(f"  a quarter core: cgroup {quota.path}, a busy loop in it got "
                  f"{share:.0%} of a core (quota {quota.share:.0%})", flush=True)
            if share > quota.share * 1.5:
                print("  the quota does not hold here: measured at full speed")
                quota.close()
                quota = None
        except OSError as err:
            print(f"  no quota ({err}): measured at full speed", flush=True)
            quota = None
    from playwright.sync_api import sync_playwright

    # Chromium's profile under a short folder: its socket's path must fit 108 bytes, which a
    # test run's TMPDIR (tests/test_benchmarks.py) does not.
    try:
        with tempfile.TemporaryDirectory() as folder, \
                tempfile.TemporaryDirectory(prefix="tonk-", dir="/tmp") as short:
            os.environ["TMPDIR"] = short
            url = f"sqlite:///{folder}/phone.sqlite"
            token = prepare(url, EMAIL)
            with tonk_serve(url, workers=1, timeout=120) as served, \
                    counting_proxy(int(served.base.rsplit(":", 1)[1])) as (base, wire), \
                    sync_playwright() as pw:
                client = Client(served.base, token)
                session_id = new_session(client)
                for i in range(5):
                    client.call("POST", f"/api/v1/sessions/{session_id}/hands", a_hand(i))
                session = f"{base}/sessions/{session_id}"
                browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             timeout=120_000, args=[
                    "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-quic",
                    "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", "--disable-gpu-compositing"])
                try:
                    measure(browser, base, session, wire, quota, hands, offline_hands)
                finally:
                    browser.close()
    finally:
        if quota:
            quota.close()
    return 0


def measure(browser: Any, base: str, session: str, wire: list[int], quota: Quota | None,
            hands: int, offline_hands: int) -> None:
    context = browser.new_context(**PHONE)
    # Signing in, the home page would make the first visit's proof: it is left to the
    # session page, measured (the phone claims a proof until then).
    context.add_init_script("""if (/^\\/(signin)?$/.test(location.pathname)) try {
        localStorage.setItem("tonk-core", '{"version": "-"}');
        sessionStorage.setItem("tonk-core-kept", "1");
    } catch (e) { /* about:blank */ }""")
    page = context.new_page()
    page.goto(base + "/signin")
    page.fill("#email", EMAIL)
    page.fill("#password", PASSWORD)
    with page.expect_navigation():
        page.get_by_role("button", name="Sign in").click()
    page.evaluate("""() => { localStorage.removeItem("tonk-core");
                             sessionStorage.removeItem("tonk-core-kept"); }""")
    slow = f"a quarter core ({quota.path.name})" if quota else "full speed"
    before = wire[0]
    with Held(quota):
        page.goto(session)  # the first visit, signed in: the proof
        first = ready_and_first_hand(page)
        page.wait_for_timeout(2000)  # (the service worker's copies of the files)
    said(f"first visit, empty cache, {slow}", first, wire[0] - before)

    # A later visit with no signal: a new tab once the first one's core has gone.
    page.goto("about:blank")
    page.close()
    cdp = browser.new_browser_cdp_session()  # (its extended lifetime outlasts the tab:
    for target in cdp.send("Target.getTargets")["targetInfos"]:  # a phone's is ended by then)
        if target["type"] == "shared_worker":
            cdp.send("Target.closeTarget", {"targetId": target["targetId"]})
    context.set_offline(True)
    page = context.new_page()
    before = wire[0]
    with Held(quota):
        page.goto(session)
        later = ready_and_first_hand(page)
    said(f"later visit, no signal, from the phone's cache, {slow}", later, wire[0] - before)
    if not later["starts"]:
        print("  (the first tab's core was still running: reused, not started)")

    # A night walked: online, then with no signal.
    context.set_offline(False)
    go(page, session)
    online, _ = walk(page, session, range(5, 5 + hands), offline=False)
    context.set_offline(True)
    offline, worker = walk(page, session, range(5 + hands, 5 + hands + offline_hands),
                           offline=True)
    print(f"  a night walked: {hands} hands online through the record form, the session "
          f"page and settle-up: the core started {online} times; then {offline_hands} with "
          f"no signal: {offline} starts on the pages, the worker's own count "
          f"{worker} (a shared worker: "
          f"{page.evaluate('() => window.TonkCount.shared')})", flush=True)
    context.set_offline(False)
    page.goto("about:blank")
    context.close()


if __name__ == "__main__":
    sys.exit(main())
