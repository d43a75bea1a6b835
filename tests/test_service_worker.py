"""The service worker (app/static/sw.js) run in Node with a stand-in for the browser's
caches: signing out forgets the kept pages, and a page whose answer was still on its way
then is not kept after it (else the account that left would stay on the phone, shown
offline to whoever uses it next). Needs ``node`` (skipped with the reason when missing)."""
from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent

#: sw.js in a context of its own: a Cache API of maps, a fetch whose answers arrive when the
#: test says, and the worker's events dispatched by hand.
HARNESS = r"""
const fs = require("fs"), vm = require("vm");
const stores = new Map();
const cache = (name) => {
  if (!stores.has(name)) stores.set(name, new Map());
  const store = stores.get(name);
  return { put: async (url, r) => { store.set(String(url), r); },
           match: async (url) => store.get(String(url)), keys: async () => [...store.keys()] };
};
const caches = {
  open: async (name) => cache(name), has: async (name) => stores.has(name),
  delete: async (name) => stores.delete(name), match: async () => undefined,
  keys: async () => [...stores.keys()],
};
const listeners = {};
let release;
const late = new Promise((done) => { release = done; });
class Body {
  constructor(text, init = {}) { this.text_ = text; this.status = init.status ?? 200;
    this.headers = new Map(Object.entries(init.headers ?? {"Content-Type": "text/html"}));
    this.ok = this.status < 300; this.redirected = false; this.type = "basic"; }
  clone() { return this; }
  async blob() { await late; return this.text_; }  // (the body arrives when released)
}
class HeadersLike extends Map { set(k, v) { return super.set(k, v); } }
const self = {
  location: new URL("http://127.0.0.1/sw.js"), registration: {},
  addEventListener: (type, f) => { listeners[type] = f; },
  clients: { matchAll: async () => [] },
};
const context = { self, caches, URL, Promise, setTimeout, console, Map, Date,
  Headers: HeadersLike, Response: Body, fetch: async () => new Body("<html>Ann's night"),
  importScripts: () => {}, TonkOutbox: {} };
vm.createContext(context);
vm.runInContext(fs.readFileSync(process.argv[2], "utf8"), context);
(async () => {
  const waits = [];
  const event = (type, data) => ({ ...data, waitUntil: (p) => waits.push(p),
                                   respondWith: (p) => waits.push(p) });
  const request = { url: "http://127.0.0.1/sessions/7", method: "GET", mode: "navigate" };
  listeners.fetch(event("fetch", { request }));        // the page asked for ...
  await new Promise((done) => setTimeout(done, 10));  // (its answer is on its way)
  let answered = false;
  if (listeners.message) {                             // ... and the account signs out
    listeners.message(event("message", { data: "forget-pages",
      ports: [{ postMessage: () => { answered = true; } }] }));
  } else {
    await caches.delete("tonk-pages");                 // (as the page alone did before)
  }
  release();                                           // then the answer arrives
  await Promise.all(waits); await new Promise((done) => setTimeout(done, 20));
  const kept = stores.has("tonk-pages") ? [...stores.get("tonk-pages").keys()] : [];
  // and a page asked for after the sign-out is kept as always
  listeners.fetch(event("fetch", { request: { ...request, url: "http://127.0.0.1/check" } }));
  await new Promise((done) => setTimeout(done, 20));
  const after = stores.has("tonk-pages") ? [...stores.get("tonk-pages").keys()] : [];
  // a page asks for its record form to be kept before it is opened (offline.js): kept,
  // what is kept already not fetched again, and what the worker never keeps left out
  let fetched = 0;
  context.fetch = async () => { fetched += 1; return new Body("<html>a form"); };
  listeners.message(event("message", { data: { keep: ["/sessions/7/hands/new", "/check",
                                                      "/account"] } }));
  await Promise.all(waits); await new Promise((done) => setTimeout(done, 20));
  const ahead = [...stores.get("tonk-pages").keys()];
  console.log(JSON.stringify({ answered, kept, after, ahead, fetched }));
})();
"""


def test_a_page_on_its_way_at_sign_out_is_not_kept(tmp_path):
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the service worker cannot be run here")
    harness = tmp_path / "harness.js"
    harness.write_text(HARNESS)
    done = subprocess.run([node, str(harness), str(ROOT / "app" / "static" / "sw.js")],
                          capture_output=True, text=True, timeout=60, check=True)
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["kept"] == []  # the signed-out account's page is not kept after
    assert seen["answered"]  # the page waits for the worker to have forgotten
    assert seen["after"] == ["http://127.0.0.1/check"]
    assert seen["ahead"] == ["http://127.0.0.1/check", "http://127.0.0.1/sessions/7/hands/new"]
    assert seen["fetched"] == 1
