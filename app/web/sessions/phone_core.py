"""The core on the phone: what a Web Worker (``static/core-worker.js``) loads to
count with no signal, served by the app under addresses named by their content, each kept a
year by the browser (``immutable``): a changed file has a new address.

- ``/phone/core.json``: the bundle, asked again each time (``no-cache``): where Pyodide is,
  and each file the worker writes into Pyodide's file system with its address;
- ``/phone/pyodide/<digest>/<name>``: the vendored Pyodide and Babel
  (``static/vendor/pyodide``, made by ``scripts/vendor_pyodide.py``), under the digest of
  their manifest, which holds every file's SHA-256 (Pyodide finds its own files next to
  ``pyodide.mjs``, so the folder, not each file, carries the digest), brotli'd for a
  browser that takes it (``<name>.br``, compressed once by the vendoring script at brotli's
  best: a quarter smaller than gzip, and minutes of CPU), else gzipped;
- ``/phone/core/<digest>/<path>``: each module of ``app/core`` and each compiled catalogue,
  under its own digest, brotli'd or gzipped for a browser that takes it;
- ``/phone/core-worker.js``: the worker, with the policy it needs to compile WebAssembly
  (``wasm-unsafe-eval``; the pages' own policy stays as strict as it was).

:func:`bundle` is the one list of what the phone holds; ``tests/test_phone_core.py`` runs
exactly it in Pyodide.
"""
from __future__ import annotations

import functools
import gzip
import hashlib
import json
from pathlib import Path

import brotli
from flask import Response, abort, jsonify, request, send_file, url_for
from flask.typing import ResponseReturnValue

from ...http.assets import YEAR
from ...http.headers import CONTENT_SECURITY_POLICY
from ..shared import bp
from ..shared.present import OUTCOMES

APP = Path(__file__).resolve().parents[2]  # the app package (this is app/web/sessions/)
VENDOR = APP / "static" / "vendor" / "pyodide"
#: Where the phone's file system keeps the core, Babel and the catalogues (first on sys.path).
ROOT = "/tonk"
#: Pyodide's files the worker fetches (the service worker keeps them): not its lock file,
#: whose few lines the worker is given in the bundle (it loads no package of Pyodide's).
RUNTIME = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
           "babel.zip")
#: The worker's policy: the pages' own, and WebAssembly compiled from the app's files.
WORKER_POLICY = CONTENT_SECURITY_POLICY.replace("script-src 'self'",
                                                "script-src 'self' 'wasm-unsafe-eval'")


def bundle() -> dict[str, Path]:
    """Every file the phone's Python needs besides Pyodide and Babel, by its path in
    Pyodide's file system: each module of ``app/core`` (``app`` is a namespace package
    there: the app's own ``__init__`` would import Flask) and the compiled catalogues."""
    core = APP / "core"
    files = {f"{ROOT}/app/core/{p.relative_to(core).as_posix()}": p
              for p in sorted(core.rglob("*.py")) if "__pycache__" not in p.parts}
    translations = APP.parent / "translations"
    files |= {f"{ROOT}/translations/{mo.relative_to(translations).as_posix()}": mo
              for mo in sorted(translations.glob("*/LC_MESSAGES/messages.mo"))}
    return files


@functools.lru_cache(maxsize=512)
def _digest(path: Path, mtime_ns: int, size: int) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def digest(path: Path) -> str:
    """The digest of ``path`` as it is now (read again when the file changes)."""
    stat = path.stat()
    return _digest(path, stat.st_mtime_ns, stat.st_size)


def _kept(response: Response) -> Response:
    response.headers["Cache-Control"] = f"public, max-age={YEAR}, immutable"
    return response


@bp.app_template_global("outcome_words")
def outcome_words() -> dict[str, str]:
    """How a hand ended, in the reader's words: for the hands the phone settles."""
    return {key: str(word) for key, word in OUTCOMES.items()}


@bp.get("/phone/core.json")
def core_bundle() -> ResponseReturnValue:
    manifest = json.loads((VENDOR / "manifest.json").read_text(encoding="utf-8"))
    response = jsonify({
        "lock": _lock_info(digest(VENDOR / "pyodide-lock.json")),
        "pyodide": url_for("web.pyodide_file", version=digest(VENDOR / "manifest.json"),
                           name="pyodide.mjs"),
        "version": manifest["pyodide"],
        "path": ROOT,
        "zips": [url_for("web.pyodide_file", version=digest(VENDOR / "manifest.json"),
                         name="babel.zip")],
        "cache": [url_for("web.pyodide_file", version=digest(VENDOR / "manifest.json"),
                          name=name) for name in RUNTIME],
        "files": {target: url_for("web.core_file", version=digest(source),
                                  name=target.removeprefix(ROOT + "/"))
                  for target, source in bundle().items()},
    })
    response.headers["Cache-Control"] = "no-cache"  # asked again each time: 304 if unchanged
    response.add_etag()
    return response.make_conditional(request)


@bp.get("/phone/pyodide/<version>/<name>")
def pyodide_file(version: str, name: str) -> ResponseReturnValue:
    manifest = json.loads((VENDOR / "manifest.json").read_text(encoding="utf-8"))
    if version != digest(VENDOR / "manifest.json") or name not in manifest["files"]:
        abort(404)
    mimetype = ("application/wasm" if name.endswith(".wasm") else
                "text/javascript" if name.endswith(".mjs") else None)
    packed = VENDOR / f"{name}.br"
    if request.accept_encodings["br"] and packed.exists():
        # its own validators (the .br file's), answered 304 when a phone asks with them
        response = send_file(packed, mimetype=mimetype, max_age=YEAR)
        response.headers["Content-Encoding"] = "br"
    elif request.accept_encodings["gzip"]:
        response = Response(_gzipped(name, version), mimetype=mimetype)
        response.headers["Content-Encoding"] = "gzip"
    else:
        return _kept(send_file(VENDOR / name, mimetype=mimetype, max_age=YEAR))
    response.headers["Vary"] = "Accept-Encoding"
    return _kept(response)


@functools.lru_cache(maxsize=4)
def _lock_info(version: str) -> dict[str, str]:
    """What Pyodide reads of its lock file to start (``info``: its ABI, platform and Python)."""
    lock = json.loads((VENDOR / "pyodide-lock.json").read_text(encoding="utf-8"))
    return dict(lock["info"])


@functools.lru_cache(maxsize=16)
def _gzipped(name: str, version: str) -> bytes:
    """A vendored file gzipped, once a process (the app compresses nothing else; these are
    15 MB as they are, 5 MB so, and a phone fetches them on a poor signal)."""
    return gzip.compress((VENDOR / name).read_bytes(), 6, mtime=0)


@bp.get("/phone/core/<version>/<path:name>")
def core_file(version: str, name: str) -> ResponseReturnValue:
    source = bundle().get(f"{ROOT}/{name}")
    if source is None or version != digest(source):
        abort(404)
    coding = next((c for c in ("br", "gzip") if request.accept_encodings[c]), None)
    if coding is None:
        return _kept(send_file(source, mimetype="application/octet-stream", max_age=YEAR))
    response = Response(_packed(source, version, coding), mimetype="application/octet-stream")
    response.headers["Content-Encoding"] = coding
    response.headers["Vary"] = "Accept-Encoding"
    return _kept(response)


@functools.lru_cache(maxsize=256)
def _packed(source: Path, version: str, coding: str) -> bytes:
    """A module of the core or a catalogue compressed, once a process and version (0.6 MB
    of them as they are, 0.17 MB brotli'd at its best: milliseconds each)."""
    data = source.read_bytes()
    return brotli.compress(data, quality=11) if coding == "br" else \
        gzip.compress(data, 9, mtime=0)


@bp.get("/phone/core-worker.js")
def core_worker() -> ResponseReturnValue:
    response = send_file(APP / "static" / "core-worker.js", mimetype="text/javascript",
                         max_age=0)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Content-Security-Policy"] = WORKER_POLICY
    return response
