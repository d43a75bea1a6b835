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
// Each message gets one reply {id, answer} (the answer as JSON text, the same bytes the
// server's Python gives), or {id, error} when the core could not be started. The first
// message starts Pyodide (seconds); {id, request: null} only starts it and replies
// {id, answer: null, memory, started, starts, version, steps} when the phone can count:
// memory, the bytes of Pyodide's WebAssembly memory then; started, whether this message
// started Python (false: it was running already, for this page or another); starts, how many
// times this worker has started it (more than once only after a failed start); version,
// Pyodide's; steps, how long each step of the start took, in ms (null when it was running).

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
  const t1 = performance.now();
  const { loadPyodide } = await import(pyodideURL.href);
  const py = await loadPyodide({
    indexURL: new URL(".", pyodideURL).href, packages: [],
    // no package of Pyodide's is loaded: its lock file's 119 kB are not fetched
    lockFileContents: Promise.resolve({ info: bundle.lock, packages: {} }),
  });
  since("pyodide", t1);  // the loader, the WebAssembly compiled, the standard library
  const t2 = performance.now();
  for (const zip of zips) py.unpackArchive(await zip, "zip", { extractDir: bundle.path });
  for (const [target, data] of await files) {
    py.FS.mkdirTree(target.slice(0, target.lastIndexOf("/")));
    py.FS.writeFile(target, data);
  }
  since("files", t2);  // (mostly waiting for them, fetched since the start)
  const t3 = performance.now();
  py.globals.set("TONK_PATH", bundle.path);
  memory = () => py._module?.HEAPU8?.length ?? null;
  py.runPython(`
import sys
sys.path.insert(0, TONK_PATH)
sys.dont_write_bytecode = True
from app.core.phone import door
ANSWER = door(f"{TONK_PATH}/translations")
`);
  since("core", t3);  // the core's import
  since("all", t0);
  version = bundle.version;
  steps = took;
  return py.globals.get("ANSWER");
}

async function handle({ id, request }, reply) {
  let answer;
  const first = started === null;
  if (first) starts += 1;
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
            steps: first ? steps : null });
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
