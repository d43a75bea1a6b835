// The core on the phone: a module worker that runs app/core in Pyodide, from the app's own
// files (served by app/web/phone_core.py under addresses named by their content), and
// answers the same requests as app.core.phone: settle, compare, transfers, night, money.
// Loaded from /phone/core-worker.js (its policy allows compiling WebAssembly).
//
// A shared worker where the browser has them (tonk.js: one core for all of the app's tabs,
// kept across a tab's pages by `extendedLifetime`), else a dedicated one:
//
//   const worker = new SharedWorker("/phone/core-worker.js",
//                                   {type: "module", name: "tonk-core", extendedLifetime: true});
//   worker.port.postMessage({id: 1, request: {op: "settle", lang: "de", hand: {...}}});
//   worker.port.onmessage = ({data}) => data.id === 1 && JSON.parse(data.answer);
//
// A message that starts Python is first answered {starting: true}. Each message gets one
// reply {id, answer} (the answer as JSON text, the same bytes the
// server's Python gives), or {id, error} when the core could not be started. The first
// message starts Pyodide (seconds); {id, request: null} only starts it and replies
// {id, answer: null, memory, started, starts, version, steps} when the phone can count:
// memory, the bytes of Pyodide's WebAssembly memory then; started, whether this message
// started Python (false: it was running already, for this page or another); starts, how many
// times this worker has started it (more than once only after a failed start); version,
// Pyodide's; steps, how long each step of the running core's start took, in ms.

// The core's modules compiled by an earlier start, kept on the phone (Cache API): a start
// then compiles none of them (about half the core's import). Checked-hash pycs: a module
// changed since is compiled again from its source, so a stale copy is only slower.
const COMPILED = "/phone/compiled.zip";
const COMPILE = `
import importlib.util, io, os, zipfile
from importlib._bootstrap_external import _code_to_hash_pyc
out = io.BytesIO()
with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as pycs:
    for folder, _, names in sorted(os.walk(TONK_PATH + "/app")):
        for name in sorted(names):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, "rb") as f:
                    source = f.read()
                code = compile(source, path, "exec", dont_inherit=True)
                pyc = _code_to_hash_pyc(code, importlib.util.source_hash(source), True)
                pycs.writestr(os.path.relpath(importlib.util.cache_from_source(path), TONK_PATH),
                              bytes(pyc))
out.getvalue()
`;

async function phoneCache() {
  return self.caches ? caches.open("tonk-core-v1").catch(() => null) : null;
}

let started = null;
let memory = () => null;
let version = null;
let steps = null;
let starts = 0;

async function bytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

// Pyodide's memory once the core is imported and has answered in each language, kept on the
// phone (Cache API, ~31 MB) by the first start and restored by the next ones instead of
// starting Python and importing the core again: a start then takes Pyodide's WebAssembly,
// the memory and the files (seconds less on a slow phone). Made again for another core or
// Pyodide (the bundle's addresses name their contents); any failure falls back to a start.
const SNAPSHOT = "/phone/snapshot";
const WARM = ["en", "de", "ja"].map((lang) => JSON.stringify({
  op: "settle", lang, hand: { rules: "pagat", stake: "0.25", players: ["A", "B", "C"],
    end: { kind: "drop", player: "C" }, counts: { A: 3, B: 9, C: 5 } } }));

async function start() {
  const t0 = performance.now(), took = {};
  const since = (name, at) => { took[name] = Math.round(performance.now() - at); };
  const response = await fetch(new URL("core.json", self.location.href));
  if (!response.ok) throw new Error(`core.json: ${response.status}`);
  const bundle = await response.json();
  since("bundle", t0);
  // Everything at once: Pyodide's own files (its loader fetches the WebAssembly and the
  // standard library itself, while it compiles), Babel and the core's modules.
  const pyodideURL = new URL(bundle.pyodide, self.location.href);
  const zips = bundle.zips.map((zip) => bytes(new URL(zip, self.location.href)));
  const files = Promise.all(Object.entries(bundle.files).map(
    async ([target, url]) => [target, await bytes(new URL(url, self.location.href))]));
  zips.forEach((p) => p.catch(() => {}));  // (awaited below; a failure is thrown there)
  files.catch(() => {});
  // (the digests in the addresses: another core or Pyodide, another signature)
  const signature = [bundle.pyodide, ...Object.values(bundle.files).sort()].join(" ");
  const cache = await phoneCache();
  const kept = (key) => cache ? cache.match(key).then(
    (hit) => hit && hit.headers.get("X-Tonk-Core") === signature ? hit : null,
    () => null) : Promise.resolve(null);
  const pycs = kept(COMPILED), snapshot = kept(SNAPSHOT);
  const t1 = performance.now();
  const { loadPyodide } = await import(pyodideURL.href);
  const options = {
    indexURL: new URL(".", pyodideURL).href, packages: [],
    // no package of Pyodide's is loaded: its lock file's 119 kB are not fetched
    lockFileContents: Promise.resolve({ info: bundle.lock, packages: {} }),
  };
  let py = null;
  const memoryKept = await snapshot;
  if (memoryKept) {
    try {
      py = await loadPyodide({ ...options,
        _loadSnapshot: new Uint8Array(await memoryKept.arrayBuffer()) });
      took.snapshot = "restored";
    } catch (err) { py = null; }
  }
  py ??= await loadPyodide({ ...options, _makeSnapshot: !!cache });
  since("pyodide", t1);  // the loader, the WebAssembly compiled, the standard library
  const t2 = performance.now();
  // (restored, the core is imported already: its files are for what it reads later)
  for (const zip of zips) py.unpackArchive(await zip, "zip", { extractDir: bundle.path });
  for (const [target, data] of await files) {
    py.FS.mkdirTree(target.slice(0, target.lastIndexOf("/")));
    py.FS.writeFile(target, data);
  }
  const compiled = took.snapshot ? null : await pycs;
  if (compiled) {
    py.unpackArchive(new Uint8Array(await compiled.arrayBuffer()), "zip", { extractDir: bundle.path });
  }
  since("files", t2);  // (mostly waiting for them, fetched since the start)
  const t3 = performance.now();
  memory = () => py._module?.HEAPU8?.length ?? null;
  if (!took.snapshot) {
    py.runPython(`
import sys
sys.path.insert(0, ${JSON.stringify(bundle.path)})
sys.dont_write_bytecode = True
from app.core.phone import door
ANSWER = door(${JSON.stringify(bundle.path + "/translations")})
for _request in ${JSON.stringify(WARM)}:  # (JSON text: a list of str in Python too)
    ANSWER(_request)
`);
    if (cache) {
      try {
        const heap = py.makeMemorySnapshot();
        cache.put(SNAPSHOT, new Response(heap, { headers: { "X-Tonk-Core": signature } }))
          .catch(() => {});
        took.snapshot = "made";
      } catch (err) { /* the next start tries again */ }
    }
  }
  since("core", t3);  // the core's import (and the snapshot made), or nothing: restored
  since("all", t0);
  version = bundle.version;
  steps = took;
  took.compiled = !!compiled;
  if (cache && !took.snapshot && !compiled) keepCompiled(py, cache, signature);
  return py.globals.get("ANSWER");
}

// Compile the core's modules and keep them, once the phone can count (the next start's).
function keepCompiled(py, cache, signature) {
  setTimeout(() => {
    try {
      const zip = py.runPython(COMPILE).toJs();
      cache.put(COMPILED, new Response(zip, { headers: { "X-Tonk-Core": signature } }))
        .catch(() => {});
    } catch (err) { /* compiled again next time */ }
  }, 0);
}

async function handle({ id, request }, reply) {
  let answer;
  const first = started === null;
  if (first) {
    starts += 1;
    reply({ starting: true });  // (the asking page counts it now: it may be gone before the end)
  }
  try {
    started ??= start();
    answer = await started;
  } catch (err) {
    started = null; // the next message tries again (a file the network lost)
    reply({ id, error: String(err?.message ?? err) });
    return;
  }
  if (request === null) {
    reply({ id, answer: null, memory: memory(), started: first, starts, version,
            steps });
  } else {
    reply({ id, answer: answer(JSON.stringify(request)) });
  }
}

if (typeof SharedWorkerGlobalScope !== "undefined" && self instanceof SharedWorkerGlobalScope) {
  self.onconnect = ({ ports: [port] }) => {
    port.onmessage = ({ data }) => handle(data, (message) => port.postMessage(message));
  };
} else {
  self.onmessage = ({ data }) => handle(data, (message) => self.postMessage(message));
}
