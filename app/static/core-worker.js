// The core on the phone: a module Web Worker that runs app/core in Pyodide, from
// the app's own files (served by app/web/phone_core.py under addresses named by their
// content), and answers the same requests as app.core.phone: settle, compare, transfers,
// night, money. Loaded from /phone/core-worker.js (its policy allows compiling WebAssembly).
//
//   const worker = new Worker("/phone/core-worker.js", {type: "module"});
//   worker.postMessage({id: 1, request: {op: "settle", lang: "de", hand: {...}}});
//   worker.onmessage = ({data}) => data.id === 1 && JSON.parse(data.answer);
//
// Each message gets one reply {id, answer} (the answer as JSON text, the same bytes the
// server's Python gives), or {id, error} when the core could not be started. The first
// message starts Pyodide (seconds); {id, request: null} only starts it and replies
// {id, answer: null, memory} when the phone can count (memory: the bytes of Pyodide's
// WebAssembly memory then).

let started = null;
let memory = () => null;

async function bytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

async function start() {
  const response = await fetch(new URL("core.json", self.location.href));
  if (!response.ok) throw new Error(`core.json: ${response.status}`);
  const bundle = await response.json();
  const pyodideURL = new URL(bundle.pyodide, self.location.href);
  const { loadPyodide } = await import(pyodideURL.href);
  const py = await loadPyodide({ indexURL: new URL(".", pyodideURL).href, packages: [] });
  for (const zip of bundle.zips) {
    py.unpackArchive(await bytes(new URL(zip, self.location.href)), "zip",
      { extractDir: bundle.path });
  }
  const files = await Promise.all(Object.entries(bundle.files).map(
    async ([target, url]) => [target, await bytes(new URL(url, self.location.href))]));
  for (const [target, data] of files) {
    py.FS.mkdirTree(target.slice(0, target.lastIndexOf("/")));
    py.FS.writeFile(target, data);
  }
  py.globals.set("TONK_PATH", bundle.path);
  memory = () => py._module?.HEAPU8?.length ?? null;
  py.runPython(`
import sys
sys.path.insert(0, TONK_PATH)
sys.dont_write_bytecode = True
from app.core.phone import door
ANSWER = door(f"{TONK_PATH}/translations")
`);
  return py.globals.get("ANSWER");
}

self.onmessage = async ({ data }) => {
  const { id, request } = data;
  let answer;
  try {
    started ??= start();
    answer = await started;
  } catch (err) {
    started = null; // the next message tries again (a file the network lost)
    self.postMessage({ id, error: String(err?.message ?? err) });
    return;
  }
  if (request === null) self.postMessage({ id, answer: null, memory: memory() });
  else self.postMessage({ id, answer: answer(JSON.stringify(request)) });
};
