"""The vendored Pyodide and Babel (app/static/vendor/pyodide) are the files the
script made from the registries: each file's SHA-256 and size are its manifest's, no file is
there that the manifest does not list, and the manifest pins the versions the script and
requirements.lock name. Fast and offline (``scripts/vendor_pyodide.py --check`` asks the
registries again)."""
from __future__ import annotations

import hashlib
import json
import pathlib
import re
import zipfile

import brotli

from app.web.sessions.phone_core import RUNTIME
from scripts.vendor_pyodide import PACKED

ROOT = pathlib.Path(__file__).resolve().parent.parent
VENDOR = ROOT / "app" / "static" / "vendor" / "pyodide"
MANIFEST = json.loads((VENDOR / "manifest.json").read_text(encoding="utf-8"))


def test_every_vendored_file_has_its_manifest_digest():
    wrong = []
    for name, expected in MANIFEST["files"].items():
        data = (VENDOR / name).read_bytes()
        if (hashlib.sha256(data).hexdigest(), len(data)) != (expected["sha256"],
                                                             expected["bytes"]):
            wrong.append(name)
    assert not wrong, f"changed since scripts/vendor_pyodide.py wrote them: {wrong}"


def test_the_folder_holds_the_manifest_files_and_nothing_else():
    present = {p.name for p in VENDOR.iterdir()} - {"manifest.json", "README.md"}
    assert present == set(MANIFEST["files"]) | {f"{name}.br" for name in PACKED}
    for needed in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                   "pyodide-lock.json", "babel.zip", "pyodide.LICENSE", "cpython.LICENSE"):
        assert needed in MANIFEST["files"], needed


def test_the_files_the_phone_fetches_are_kept_brotlid_too():
    """``<name>.br`` is the file at brotli's best (the manifest's brotli size), sent to a
    browser that takes brotli (app/web/phone_core.py)."""
    assert set(PACKED) == set(RUNTIME)
    for name in PACKED:
        packed = (VENDOR / f"{name}.br").read_bytes()
        assert len(packed) == MANIFEST["files"][name]["brotli"], name
        assert brotli.decompress(packed) == (VENDOR / name).read_bytes(), name


def test_the_versions_are_the_pinned_ones():
    script = (ROOT / "scripts" / "vendor_pyodide.py").read_text(encoding="utf-8")
    pinned = re.search(r'^PYODIDE = "([^"]+)"', script, re.M)
    assert pinned is not None and MANIFEST["pyodide"] == pinned.group(1)
    lock = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    assert f"babel=={MANIFEST['babel']}\n" in lock
    readme = (VENDOR / "README.md").read_text(encoding="utf-8")
    assert f"pyodide@{MANIFEST['pyodide']}" in readme and MANIFEST["babel"] in readme


def test_babel_keeps_only_the_apps_languages_and_its_licences():
    with zipfile.ZipFile(VENDOR / "babel.zip") as babel:
        names = set(babel.namelist())
    locales = {n.rsplit("/", 1)[1] for n in names if n.startswith("babel/locale-data/")}
    assert locales == {"root.dat", "en.dat", "de.dat", "ja.dat", "LICENSE.unicode"}
    assert "babel/LICENSE" in names
    # compiled: a first start compiles none of Babel (the differential test imports it)
    assert "babel/numbers.pyc" in names and not [n for n in names if n.endswith(".py")]


def test_the_standard_library_is_cut_and_compiled():
    with zipfile.ZipFile(VENDOR / "python_stdlib.zip") as stdlib:
        names = stdlib.namelist()
    assert "decimal.pyc" in names and "fractions.pyc" in names and "gettext.pyc" in names
    assert not [n for n in names if n.endswith(".py")]
    assert "tkinter/__init__.pyc" not in names and len(names) < 300
