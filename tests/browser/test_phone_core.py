"""The core counting in Chromium: the app's Web Worker (static/core-worker.js)
starts Pyodide from the app's own addresses, with the pages' strict policy and no other
host, and answers a settle-up, a hand and a refusal in German and Japanese with the same
bytes as the server's Python. The test makes a dedicated worker itself (the pages' fallback
where there are no shared workers; test_core_starts.py drives the shared one the pages make)."""
from __future__ import annotations

import json
import pathlib
import time

from app.core.phone import door

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
REQUESTS = [
    {"op": "settle", "lang": "de", "hand": {
        "rules": "pagat", "stake": "0.25", "players": ["Ann", "Bob", "Cy"], "dealer": "Cy",
        "end": {"kind": "drop", "player": "Cy"}, "counts": {"Ann": 3, "Bob": 9, "Cy": 5}}},
    {"op": "settle", "lang": "ja", "hand": {
        "rules": "pagat", "players": ["Ann", "Bob"], "end": {"kind": "tonk_out",
                                                             "player": "Zed"}}},
    {"op": "transfers", "lang": "en", "balances": {"Ann": "4.50", "Bob": "-2.25",
                                                   "Cy": "-2.25"}},
    {"op": "money", "lang": "ja", "currency": "JPY", "amounts": ["1234", "-50"]},
]


def test_the_worker_answers_as_the_server_does(live_server, page):
    page.goto(live_server + "/check")
    outside: list[str] = []
    page.on("request", lambda r: None if r.url.startswith(live_server) or
            r.url.startswith(("data:", "blob:")) else outside.append(r.url))
    started = time.perf_counter()
    answers = page.evaluate("""async (requests) => {
        const worker = new Worker("/phone/core-worker.js", {type: "module"});
        const waiting = new Map();
        // ({starting: true} first: this message starts Python)
        worker.onmessage = ({data}) => data.starting || waiting.get(data.id)(data);
        let failed = null;
        worker.onerror = (event) => { failed = event.message || "the worker failed"; };
        const ask = (id, request) => new Promise((resolve) => {
            waiting.set(id, resolve);
            worker.postMessage({id, request});
            // Pyodide that cannot compile its WebAssembly never answers: fail, saying so
            setTimeout(() => resolve({error: failed || "no answer in 120 s"}), 120000);
        });
        const ready = await ask(0, null);
        if (ready.error) return {error: ready.error};
        const out = [];
        for (const [i, request] of requests.entries()) out.push(await ask(i + 1, request));
        worker.terminate();
        return out;
    }""", REQUESTS)
    took = time.perf_counter() - started
    assert not isinstance(answers, dict), answers
    answer = door(str(ROOT / "translations"))
    assert [a["answer"] for a in answers] == [answer(json.dumps(r)) for r in REQUESTS]
    assert "Cy" in answers[0]["answer"] and '"field":"end.player"' in answers[1]["answer"]
    assert outside == []
    print(f"worker: started and answered in {took:.1f} s")
