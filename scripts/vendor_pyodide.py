"""Vendor Pyodide and a trimmed Babel for the core on the phone, reproducibly.

    python scripts/vendor_pyodide.py            # needs npm, pip and node; writes the folder
    python scripts/vendor_pyodide.py --check    # the same, into a temporary folder: does the
                                                # registry still give the committed bytes?

Fetches ``pyodide@PYODIDE`` from the npm registry (``npm pack``) and the Babel wheel of
requirements.lock from PyPI (``pip download``), then writes into ``app/static/vendor/pyodide``:

- Pyodide's runtime unchanged: ``pyodide.mjs``, ``pyodide.asm.mjs``, ``pyodide.asm.wasm``,
  ``pyodide-lock.json`` (``loadPyodide`` reads it at start; no package of it is loaded);
- ``python_stdlib.zip``: Pyodide's standard library cut to the modules Pyodide itself and the
  core import (found by running the core, in Pyodide under Node, over the worked hands and
  known answers in every language: ``scripts/core_in_pyodide.mjs`` with ``TONK_TRACE``),
  compiled to bytecode by Pyodide's own Python (a cold start then compiles none of it),
  its line numbers kept and the columns of its instructions not (a third less);
- ``babel.zip``: Babel's modules the core imports, compiled as the library is, its
  ``global.dat`` and the locale data of ``root``, ``en``, ``de`` and ``ja`` only, with its
  licences;
- ``manifest.json``: each file's SHA-256, its size raw, gzipped and brotli'd (node's zlib),
  and where it came from (``tests/test_vendor_pyodide.py`` checks the digests);
- ``<name>.br`` beside each file the phone fetches (``PACKED``): it brotli'd at brotli's best
  (node's zlib, quality 11), which the app sends a browser that takes brotli: a quarter
  smaller than gzip, and minutes of CPU, too slow to make on a request.

The licences (``pyodide.LICENSE``: MPL-2.0; ``cpython.LICENSE``: PSF) are not in the npm
package; they are committed beside the files (see the folder's README.md) and their digests
are in the manifest too. Zips are written with fixed dates and in name order, stored (not
deflated: the server's compression of the whole does better), so the same inputs give the
same bytes.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

#: The pinned Pyodide (npm registry). Its Python is 3.14.
PYODIDE = "314.0.7"
ROOT = pathlib.Path(__file__).resolve().parent.parent
VENDOR = ROOT / "app" / "static" / "vendor" / "pyodide"
#: Taken unchanged from the npm package.
RUNTIME = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "pyodide-lock.json")
#: Committed beside the files (not in the npm package): their digests go in the manifest.
LICENCES = ("pyodide.LICENSE", "cpython.LICENSE")
#: The languages of the app and the locale data they fall back to.
LOCALES = ("root", "en", "de", "ja")
#: Babel's files the core needs besides its modules.
BABEL_DATA = ("babel/global.dat", "babel/locale-data/LICENSE.unicode",
              *(f"babel/locale-data/{name}.dat" for name in LOCALES))
STDLIB_IN_PYODIDE = "/lib/python314.zip/"
#: Where the phone unpacks babel.zip (app.web.sessions.phone_core.ROOT).
BABEL_IN_PYODIDE = "/tonk/"
#: The files the phone's worker fetches, kept brotli'd beside them (``<name>.br``).
PACKED = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
          "babel.zip")
_FIXED_DATE = (1980, 1, 1, 0, 0, 0)


def babel_version() -> str:
    found = re.search(r"^babel==(\S+)$", (ROOT / "requirements.lock").read_text(), re.M)
    if found is None:
        raise SystemExit("requirements.lock pins no babel")
    return found.group(1)


def run(*command: str, cwd: pathlib.Path | None = None, **kwargs: object) -> str:
    done = subprocess.run(command, cwd=cwd, check=True, capture_output=True, text=True,
                          **kwargs)  # type: ignore[call-overload]
    return str(done.stdout)


def write_zip(path: pathlib.Path, members: dict[str, bytes]) -> None:
    """A zip of ``members`` (name → bytes), the same bytes for the same members."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as out:
        for name in sorted(members):
            info = zipfile.ZipInfo(name, date_time=_FIXED_DATE)
            info.external_attr = 0o644 << 16
            out.writestr(info, members[name])


def fetch(work: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    """The npm package, unpacked, and the Babel wheel."""
    run("npm", "pack", f"pyodide@{PYODIDE}", "--pack-destination", str(work), cwd=work)
    with tarfile.open(work / f"pyodide-{PYODIDE}.tgz") as tar:
        tar.extractall(work, filter="data")
    run(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary",
        ":all:", f"babel=={babel_version()}", "-d", str(work / "wheels"))
    wheel = next((work / "wheels").glob("babel-*.whl"))
    return work / "package", wheel


def babel_members(wheel: pathlib.Path, modules: set[str] | None) -> dict[str, bytes]:
    """The Babel zip's members: its ``.py`` files (only ``modules``' when given), data of
    :data:`LOCALES`, licences."""
    with zipfile.ZipFile(wheel) as whl:
        names = whl.namelist()
        keep = [n for n in names if n in BABEL_DATA or n.endswith("/licenses/LICENSE")
                or (n.startswith("babel/") and n.endswith(".py")
                    and (modules is None or n in modules))]
        return {("babel/LICENSE" if n.endswith("/licenses/LICENSE") else n): whl.read(n)
                for n in keep}


def trace(out: pathlib.Path, work: pathlib.Path) -> set[str]:
    """Run the core in Pyodide from ``out`` over the worked hands and known answers in
    every language; the files of every module imported by the end."""
    bundle = {"path": "/tonk", "zips": [str(out / "babel.zip")],
              "files": core_files()}
    (work / "bundle.json").write_text(json.dumps(bundle))
    (work / "requests.jsonl").write_text("".join(
        json.dumps(r) + "\n" for r in sample_requests()))
    trace_file = work / "trace.json"
    with (work / "requests.jsonl").open() as stdin:
        done = subprocess.run(["node", str(ROOT / "scripts" / "core_in_pyodide.mjs"), str(out),
                               str(work / "bundle.json")], stdin=stdin, capture_output=True,
                              text=True, env={**os.environ, "TONK_TRACE": str(trace_file)})
    if done.returncode:
        tail = "\n".join(line[:300] for line in done.stderr.splitlines()[-25:])
        raise SystemExit(f"the core did not run in Pyodide:\n{tail}")
    return set(json.loads(trace_file.read_text()))


def core_files() -> dict[str, str]:
    """What the app serves the phone's worker besides Pyodide and Babel (the core and the
    compiled catalogues), by its path in Pyodide's file system."""
    sys.path.insert(0, str(ROOT))
    from app.web.sessions.phone_core import bundle

    return {target: str(source) for target, source in bundle().items()}


#: Run in Pyodide: its standard library (the cut zip it started from) compiled by its own
#: Python, each module's ``.py`` replaced by its ``.pyc`` (unchecked: the zip holds no
#: source to check against), written as :func:`write_zip` writes. Each code object keeps its
#: line numbers (``co_lines()``, checked the same) but not the columns of each instruction:
#: its location table is written again in the form that holds lines only (code 13, or 15
#: for none: CPython's Objects/locations.md). The columns only place a traceback's carets;
#: without them the library is a quarter smaller brotli'd (1.10 MB to 0.83).
_COMPILE = """
import importlib.util, marshal, zipfile

def varint(n):
    out = bytearray()
    while n >= 64:
        out.append(0x40 | (n & 63))
        n >>= 6
    out.append(n)
    return out

def lines_only(code):
    consts = tuple(lines_only(c) if isinstance(c, type(code)) else c for c in code.co_consts)
    table, line = bytearray(), code.co_firstlineno
    for start, end, at in code.co_lines():
        units = (end - start) // 2
        while units:
            n = min(units, 8)
            units -= n
            if at is None:
                table.append(0x80 | 15 << 3 | n - 1)
            else:
                table.append(0x80 | 13 << 3 | n - 1)
                table += varint((line - at) << 1 | 1 if at < line else (at - line) << 1)
                line = at
    new = code.replace(co_consts=consts, co_linetable=bytes(table))
    if list(new.co_lines()) != list(code.co_lines()):
        raise ValueError(f"{code.co_filename}: {code.co_qualname}: lines changed")
    return new

for source, target, where in ZIPS:
    with zipfile.ZipFile(source) as given, \\
            zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as out:
        for name in sorted(given.namelist()):
            data = given.read(name)
            if name.endswith(".py"):
                code = compile(data, where + name, "exec", dont_inherit=True)
                data = (importlib.util.MAGIC_NUMBER + (0).to_bytes(12, "little")
                        + marshal.dumps(lines_only(code)))
                name += "c"
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            out.writestr(info, data)
"""


def compile_zips(out: pathlib.Path, work: pathlib.Path) -> None:
    """Replace the sources of the cut standard library and of Babel by their bytecode,
    compiled in Pyodide: its cold start then compiles none of them. The library: half its
    CPU time (3.4 s to 1.7 s to the first hand in Node), for about 0.2 MB more brotli'd
    (the sources 0.61 MB, the bytecode without its columns 0.83 MB; with them it was
    1.10 MB). Babel (imported from the folder it is unpacked into, its ``.pyc`` beside
    its data): its import 20-60 ms instead of 90-600 ms in Node here."""
    script = work / "compile.mjs"
    zips = [("/lib/python314.zip", "/tmp/stdlib.zip", STDLIB_IN_PYODIDE),
            ("/tmp/babel.zip", "/tmp/babel-compiled.zip", BABEL_IN_PYODIDE)]
    script.write_text(
        f"import {{ loadPyodide }} from {json.dumps((out / 'pyodide.mjs').as_uri())};\n"
        "import { readFileSync, writeFileSync } from 'node:fs';\n"
        f"const py = await loadPyodide({{ indexURL: {json.dumps(str(out) + '/')}, "
        "packages: [] });\n"
        f"py.FS.writeFile('/tmp/babel.zip', readFileSync({json.dumps(str(out / 'babel.zip'))}));\n"
        f"py.runPython({json.dumps(f'ZIPS = {zips!r}' + _COMPILE)});\n"
        f"writeFileSync({json.dumps(str(out / 'python_stdlib.zip'))}, "
        "py.FS.readFile('/tmp/stdlib.zip'));\n"
        f"writeFileSync({json.dumps(str(out / 'babel.zip'))}, "
        "py.FS.readFile('/tmp/babel-compiled.zip'));\n")
    run("node", str(script))


def sample_requests() -> list[dict[str, object]]:
    """Every worked hand and known answer, settled and compared, in every language, a
    refusal of each op, fewest transfers, a night with side bets, money formats, hands
    recorded on the phone and the /check form of every preset and end: every op of
    app.core.phone."""
    sys.path.insert(0, str(ROOT))
    from app.core import PRESETS
    from tests.hands import END_KINDS, hand_form

    data = ROOT / "tests" / "data"
    hands = [case["hand"] for case in json.loads((data / "examples.json").read_text())]
    hands += [case["hand"] for case in json.loads((data / "settle_answers.json").read_text())
              if not case.get("table")]
    out: list[dict[str, object]] = []
    for lang in ("en", "de", "ja"):
        out += [{"op": "settle", "lang": lang, "hand": hand} for hand in hands]
        out += [{"op": "compare", "lang": lang, "hand": hand} for hand in hands[:80]]
        out += [{"op": "transfers", "lang": lang, "balances": {"Ann": "4.50", "Bob": "-4"}},
                {"op": "transfers", "lang": lang, "balances": {"Ann": "1.5", "Bob": "-1.5"}}]
        out += [{"op": "money", "lang": lang, "currency": c, "amounts": ["1234.5", "-2"]}
                for c in ("EUR", "JPY", "USD", "chips", None)]
        out.append({"op": "night", "lang": lang, "rules": "pagat", "stake": "0.25",
                    "players": ["Ann", "Bob", "Cy"], "side_bets": {"high_card": {},
                                                                   "naturals": {}},
                    "hands": [{"end": {"kind": "tonk_out", "player": "Bob"},
                               "side_bets": [{"bet": "high_card", "suit": "S",
                                              "winner": None}]},
                              {"end": {"kind": "drop", "player": "Cy"},
                               "counts": {"Ann": 3, "Bob": 9, "Cy": 5}}]})
        out.append({"op": "record", "lang": lang, "table": {
            "rules": "pagat", "stake": "0.25", "currency": "EUR",
            "side_bets": {"high_card": {"stake": "0.25"}}, "seats": ["Ann", "Bob", "Cy", "Zed"],
            "seated": ["Ann", "Bob", "Cy"], "dealer": "Cy", "number": 4,
            "totals": {"Ann": "1.00", "Bob": "-0.75", "Cy": "-0.75"}, "side": {},
            "pots": {"high_card": [["Ann", "0.25"], ["Zed", "0.25"]]}, "moved": {"Zed": "0"}},
            "hands": [[["kind", "drop"], ["player", "Cy"], ["count-0", "20"],
                       ["count-1", "15"], ["count-2", "3"]], [["kind", "nothing"]]]})
        out += [{"op": "check_form", "lang": lang, "fields": [[k, v] for k, v in
                                                              hand_form(preset, kind).items()]}
                for preset in PRESETS for kind in END_KINDS]
        out.append({"op": "check_form", "lang": lang, "fields": "players=Ann"})
    return out


def sizes(path: pathlib.Path) -> dict[str, object]:
    """The file's digest and sizes; a file of PACKED is written brotli'd beside it."""
    data = path.read_bytes()
    packed = str(path.with_name(path.name + ".br")) if path.name in PACKED else ""
    brotli = run("node", "-e", "const z=require('zlib');const fs=require('fs');"
                 "const b=z.brotliCompressSync(fs.readFileSync(process.argv[1]));"
                 "if (process.argv[2]) fs.writeFileSync(process.argv[2], b);"
                 "process.stdout.write(String(b.length))", str(path), packed)
    return {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data),
            "gzip": len(gzip.compress(data, 9, mtime=0)), "brotli": int(brotli)}


def vendor(out: pathlib.Path, work: pathlib.Path) -> dict[str, object]:
    package, wheel = fetch(work)
    out.mkdir(parents=True, exist_ok=True)
    for name in RUNTIME:
        shutil.copyfile(package / name, out / name)
    for name in LICENCES:
        if out != VENDOR:
            shutil.copyfile(VENDOR / name, out / name)
    # First with everything, to learn what is used; then cut to that.
    shutil.copyfile(package / "python_stdlib.zip", out / "python_stdlib.zip")
    write_zip(out / "babel.zip", babel_members(wheel, None))
    used = trace(out, work)
    with zipfile.ZipFile(package / "python_stdlib.zip") as stdlib:
        kept = {n: stdlib.read(n) for n in stdlib.namelist()
                if STDLIB_IN_PYODIDE + n in used}
    write_zip(out / "python_stdlib.zip", kept)
    write_zip(out / "babel.zip", babel_members(
        wheel, {f.removeprefix("/tonk/") for f in used if f.startswith("/tonk/babel/")}))
    compile_zips(out, work)
    # the cut, compiled library and Babel run the same requests, importing the same modules
    used_again = {f.removesuffix("c") if f.startswith((STDLIB_IN_PYODIDE,
                                                       BABEL_IN_PYODIDE + "babel/")) else f
                  for f in trace(out, work)}
    if used_again != used:
        raise SystemExit(f"the cut library imports other modules: {used_again ^ used}")
    files = {name: sizes(out / name) for name in sorted(
        (*RUNTIME, "python_stdlib.zip", "babel.zip", *LICENCES))}
    manifest: dict[str, object] = {
        "pyodide": PYODIDE, "babel": babel_version(),
        "from": {"npm": f"pyodide@{PYODIDE}", "pypi": f"babel=={babel_version()}"},
        "files": files}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="vendor into a temporary folder and compare with the committed")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        out = work / "out" if args.check else VENDOR
        fetched = work / "fetched"
        fetched.mkdir()
        manifest = vendor(out, fetched)
        if args.check:
            committed = json.loads((VENDOR / "manifest.json").read_text())
            if committed != manifest:
                print("the registry gives other files than those committed", file=sys.stderr)
                return 1
    files = manifest["files"]
    assert isinstance(files, dict)
    total = {k: sum(f[k] for f in files.values()) for k in ("bytes", "gzip", "brotli")}
    for name, f in files.items():
        print(f"{name:22} {f['bytes']:>10,} raw {f['gzip']:>10,} gzip {f['brotli']:>10,} br")
    print(f"{'total':22} {total['bytes']:>10,} raw {total['gzip']:>10,} gzip "
          f"{total['brotli']:>10,} br")
    return 0


if __name__ == "__main__":
    sys.exit(main())
