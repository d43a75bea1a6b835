"""The core on the phone, measured: what the phone caches, how long a phone-sized Chromium
with its CPU slowed 4x (DevTools' CPU throttling) takes from opening a session page to
"can count by itself", how long it then takes to settle a hand, how much memory the core
holds, and whether the page's own first paint and load are any slower for it.

    python benchmarks/bench_phone.py [--rate 4] [--hands 50] [--quick]

On `tonk serve` (one worker) with a session of four players and five hands, at 390x844:

- bytes: every file the service worker keeps for the core (vendored Pyodide and Babel, the
  modules of app/core, the compiled catalogues), raw, gzipped (as the app serves Pyodide)
  and brotli'd;
- cold start: the first visit of the session page, nothing cached: navigation to
  ``<html data-counting="phone">``, and of it the worker's own start; warm start: the next
  visit (the files from the service worker's cache, WebAssembly compiled code from the
  browser's). DevTools' throttling slows the page's thread, not a Web Worker's (the
  worker's start takes as long at 1x as at 4x here): for a phone 4x slower than this
  machine, count four times the worker's start;
- a hand: the page asks the core to settle one more hand ``--hands`` times (the phone's
  ``record`` op from the session's state): the median and the slowest;
- memory: Pyodide's WebAssembly memory once started;
- the page: first contentful paint and the load event of the session page with the core
  and with counting.js blocked, both warm.

``--quick`` (the test suite's): no throttling, the cold start and three hands: shows the
measurement still runs; nothing is judged. Needs Chromium (scripts/test.sh installs it) and
Playwright.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import pathlib
import shutil
import statistics
import sys
import tempfile
import time
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from tests.live import Client, a_hand, new_session, prepare, tonk_serve  # noqa: E402

EMAIL, PASSWORD = "keeper@example.com", "correct horse battery staple"  # prepare()'s
CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
PHONE: dict[str, Any] = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 1,
                         "is_mobile": True, "has_touch": True}
COLD_START_SECONDS = 300


def cached_bytes(quality: int = 11) -> tuple[int, int, int, int]:
    """(files, raw, gzip, brotli at ``quality``) of everything the phone keeps for the core
    (brotli's best, 11, takes a minute or two here)."""
    import brotli

    from app.web.phone_core import VENDOR, bundle

    manifest = json.loads((VENDOR / "manifest.json").read_text(encoding="utf-8"))
    paths = [VENDOR / name for name in manifest["files"]] + list(bundle().values())
    raw = gz = br = 0
    for path in paths:
        data = path.read_bytes()
        raw += len(data)
        gz += len(gzip.compress(data, 6, mtime=0))
        br += len(brotli.compress(data, quality=quality))
    return len(paths), raw, gz, br


def timed_visit(page: Any, url: str) -> dict[str, Any]:
    """Open ``url`` and wait until the phone can count: ms from the navigation's start to
    the first paint, the load event and the core's start."""
    page.goto(url)
    page.wait_for_function("() => window.TonkCount && window.TonkCount.readyAt !== null",
                           timeout=COLD_START_SECONDS * 1000, polling=100)
    seen: dict[str, Any] = page.evaluate("""() => {
        const nav = performance.getEntriesByType("navigation")[0];
        const paint = performance.getEntriesByName("first-contentful-paint")[0];
        return {ready: window.TonkCount.readyAt, start: window.TonkCount.startAt,
                load: nav.loadEventEnd,
                paint: paint ? paint.startTime : null, memory: window.TonkCount.memory};
    }""")
    return seen


def painted(page: Any, url: str) -> dict[str, Any]:
    page.goto(url)
    page.wait_for_load_state("load")
    seen: dict[str, Any] = page.evaluate("""() => {
        const nav = performance.getEntriesByType("navigation")[0];
        const paint = performance.getEntriesByName("first-contentful-paint")[0];
        return {load: nav.loadEventEnd, paint: paint ? paint.startTime : null};
    }""")
    return seen


def hand_times(page: Any, hands: int) -> list[float]:
    times: list[float] = page.evaluate("""async (hands) => {
        const table = JSON.parse(document.getElementById("phone-table").textContent);
        const form = [["kind", "drop"], ["player", "Cy"], ["count-0", "20"], ["count-1", "15"],
                      ["count-2", "3"], ["count-3", "9"]];
        const times = [];
        for (let i = 0; i < hands; i++) {
            const t = performance.now();
            const said = await window.TonkCount.ask({op: "record", table, hands: [form]});
            if (!said.hands || said.hands[0].error) throw new Error(JSON.stringify(said));
            times.push(performance.now() - t);
        }
        return times;
    }""", hands)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=4.0, help="CPU slowdown (4: a phone)")
    parser.add_argument("--hands", type=int, default=50)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    rate, hands = (1.0, 3) if args.quick else (args.rate, args.hands)
    print("The core on the phone" + (" (quick: not judged)" if args.quick else ""), flush=True)
    quality = 4 if args.quick else 11
    files, raw, gz, br = cached_bytes(quality)
    print(f"  cached: {files} files, {raw / 1e6:.1f} MB raw, {gz / 1e6:.1f} MB gzip, "
          f"{br / 1e6:.1f} MB brotli (quality {quality})", flush=True)
    if not os.path.exists(CHROMIUM):
        print(f"  Chromium: skipped (none at {CHROMIUM})")
        return 0
    from playwright.sync_api import sync_playwright

    # Chromium's profile under a short folder: its socket's path must fit 108 bytes, which a
    # test run's TMPDIR (tests/test_benchmarks.py) does not.
    with tempfile.TemporaryDirectory() as folder, \
            tempfile.TemporaryDirectory(prefix="tonk-", dir="/tmp") as short:
        os.environ["TMPDIR"] = short
        url = f"sqlite:///{folder}/phone.sqlite"
        token = prepare(url, EMAIL)
        with tonk_serve(url, workers=1, timeout=120) as served, sync_playwright() as pw:
            client = Client(served.base, token)
            session_id = new_session(client)
            for i in range(5):
                client.call("POST", f"/api/v1/sessions/{session_id}/hands", a_hand(i))
            session = f"{served.base}/sessions/{session_id}"
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         timeout=120_000, args=[
                "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-quic",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-gpu-compositing"])
            try:
                context = browser.new_context(**PHONE)
                page = context.new_page()
                page.goto(served.base + "/signin")
                page.fill("#email", EMAIL)
                page.fill("#password", PASSWORD)
                with page.expect_navigation():
                    page.get_by_role("button", name="Sign in").click()
                context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate",
                                                   {"rate": rate})
                started = time.perf_counter()
                cold = timed_visit(page, session)
                print(f"  cold start (CPU {rate:g}x slower): can count after "
                      f"{cold['ready'] / 1000:.1f} s (page loaded at {cold['load']:.0f} ms; "
                      f"the core's worker started at {cold['start'] / 1000:.1f} s and took "
                      f"{(cold['ready'] - cold['start']) / 1000:.1f} s; "
                      f"{time.perf_counter() - started:.1f} s wall)", flush=True)
                if args.quick:  # (the cold start and a few hands show it all still runs)
                    times = hand_times(page, hands)
                    print(f"  {hands} hands settled on the phone, the slowest in "
                          f"{max(times):.1f} ms")
                    return 0
                page.wait_for_function("() => !!navigator.serviceWorker.controller")
                page.goto(session)  # (the worker's first page: the core fetched through it)
                page.wait_for_function("() => window.TonkCount.readyAt !== null",
                                       timeout=COLD_START_SECONDS * 1000)
                warm = timed_visit(page, session)
                print(f"  warm start (from the phone's cache): can count after "
                      f"{warm['ready'] / 1000:.1f} s (the worker: "
                      f"{(warm['ready'] - warm['start']) / 1000:.1f} s)", flush=True)
                memory = warm.get("memory")
                print("  memory: " + (f"{memory / 1e6:.0f} MB of WebAssembly memory"
                                      if memory else "not reported"))
                times = sorted(hand_times(page, hands))
                print(f"  a hand settled on the phone: median {statistics.median(times):.1f} ms, "
                      f"slowest {times[-1]:.1f} ms ({hands} hands)", flush=True)
                with_core = painted(page, session)
                page.route("**/static/counting.js*", lambda route: route.abort())
                without = painted(page, session)
                print(f"  the session page, warm: first paint {with_core['paint']:.0f} ms, load "
                      f"{with_core['load']:.0f} ms with the core; {without['paint']:.0f} ms and "
                      f"{without['load']:.0f} ms without counting.js", flush=True)
            finally:
                browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
