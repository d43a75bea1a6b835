// The core in Pyodide under Node.js, with no network: what the phone runs, run here by the
// differential test (tests/test_phone_core.py) and by scripts/vendor_pyodide.py (to learn
// which modules of the standard library and of Babel the core uses).
//
//   node scripts/core_in_pyodide.mjs VENDOR_DIR BUNDLE.json < requests.jsonl > answers.jsonl
//
// VENDOR_DIR holds pyodide.mjs and the files it loads (app/static/vendor/pyodide).
// BUNDLE.json: {"files": {"/tonk/app/core/hand.py": "/abs/path/app/core/hand.py", ...},
// "zips": ["/abs/path/babel.zip"], "path": "/tonk"}: files written into Pyodide's file
// system (app.web.sessions.phone_core.bundle(), what the app serves the phone's worker), zips
// unpacked into "path", which goes first on sys.path. Each line of standard
// input is one request of app.core.phone; each line of standard output its answer, in order.
// The last line on standard error is JSON: {"start_ms", "first_ms", "answer_ms", "count"}
// (cold start to a loaded interpreter, then to the core imported, then the whole batch).
// With TONK_TRACE=FILE, the files of every module imported by the end are written to FILE.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

// An error is said in its message alone (node would print the minified line it came from).
process.on("uncaughtException", (err) => {
  process.stderr.write(`${err.message ?? err}\n`);
  process.exit(1);
});
process.on("unhandledRejection", (err) => {
  process.stderr.write(`${err?.message ?? err}\n`);
  process.exit(1);
});

const [vendorDir, bundlePath] = process.argv.slice(2);
const bundle = JSON.parse(readFileSync(bundlePath, "utf8"));
const started = performance.now();
const { loadPyodide } = await import(pathToFileURL(path.join(vendorDir, "pyodide.mjs")).href);
// indexURL: every file comes from the vendored folder, nothing from a CDN.
const py = await loadPyodide({ indexURL: path.resolve(vendorDir) + "/", packages: [] });
const loaded = performance.now();

for (const zip of bundle.zips) {
  const data = readFileSync(zip); // a Buffer, which Pyodide takes as a plain Uint8Array
  py.unpackArchive(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), "zip",
    { extractDir: bundle.path });
}
for (const [target, source] of Object.entries(bundle.files)) {
  py.FS.mkdirTree(path.posix.dirname(target));
  py.FS.writeFile(target, readFileSync(source));
}
py.globals.set("TONK_PATH", bundle.path);
py.runPython(`
import sys
sys.path.insert(0, TONK_PATH)
sys.dont_write_bytecode = True
import importlib, os
from app.core.phone import door

# Every module of the core, not only those the door uses: the phone holds them all, and an
# import Pyodide lacks fails here, at once.
for _name in sorted(os.listdir(f"{TONK_PATH}/app/core")):
    if _name.endswith(".py") and _name != "__init__.py":
        importlib.import_module(f"app.core.{_name[:-3]}")

ANSWER = door(f"{TONK_PATH}/translations")

def answer_lines(text):
    return "\\n".join(ANSWER(line) for line in text.splitlines() if line)
`);
const ready = performance.now();

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk); // a pipe: read it as it comes
const requests = Buffer.concat(chunks).toString("utf8");
const answerLines = py.globals.get("answer_lines");
const answers = answerLines(requests);
const done = performance.now();
process.stdout.write(answers + "\n");

if (process.env.TONK_TRACE) {
  const files = py.runPython(`
import json
json.dumps(sorted({f for m in list(sys.modules.values())
                   if isinstance(f := getattr(m, "__file__", None), str)}))`);
  writeFileSync(process.env.TONK_TRACE, files);
}
const count = requests.split("\n").filter((line) => line).length;
process.stderr.write(JSON.stringify({
  start_ms: loaded - started, first_ms: ready - started, answer_ms: done - ready, count,
}) + "\n");
