"""Vendor qrcode-generator, the QR encoder a phone's night draws its share QR with before
the night is on the server (no signal, so no server's QR), reproducibly.

    python scripts/vendor_qrcode.py            # fetches from the npm registry, writes the folder
    python scripts/vendor_qrcode.py --check    # does the registry still give the committed bytes?

Fetches ``qrcode-generator@VERSION``'s tarball from the npm registry, checks it against the
registry's integrity (``INTEGRITY``, sha512, as ``npm view qrcode-generator@VERSION
dist.integrity`` says), and writes ``dist/qrcode.js`` unchanged into
``app/static/vendor/qrcode-generator/`` beside its licence (MIT, Kazuhiko Arase: the
package holds it only as the file's header, so ``LICENSE`` is written from it here).
Nothing else of the package is used: the phone calls ``qrcode(0, "M")`` and
``createSvgTag``.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import io
import pathlib
import sys
import tarfile
import urllib.request

VERSION = "2.0.4"
INTEGRITY = ("sha512-mZSiP6RnbHl4xL2Ap5HfkjLnmxfKcPWpWe/c+5XxCuetEenqmNFf1FH/ftXPCtFG5/"
             "TDobjsjz6sSNL0Sr8Z9g==")
TARBALL = f"https://registry.npmjs.org/qrcode-generator/-/qrcode-generator-{VERSION}.tgz"
FOLDER = pathlib.Path(__file__).resolve().parent.parent / "app/static/vendor/qrcode-generator"
LICENSE = """qrcode-generator {version} (https://github.com/kazuhikoarase/qrcode-generator),
vendored unchanged as qrcode.js by scripts/vendor_qrcode.py.

MIT License

Copyright (c) 2009 Kazuhiko Arase

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.

The word "QR Code" is a registered trademark of DENSO WAVE INCORPORATED.
"""


def fetched() -> dict[str, bytes]:
    """The files this folder holds, as the registry's tarball gives them."""
    with urllib.request.urlopen(TARBALL, timeout=60) as answer:  # noqa: S310 - the registry
        packed = answer.read()
    algorithm, _dash, digest = INTEGRITY.partition("-")
    if base64.b64encode(hashlib.new(algorithm, packed).digest()).decode() != digest:
        raise SystemExit(f"{TARBALL}: not the bytes of {INTEGRITY}")
    with tarfile.open(fileobj=io.BytesIO(packed), mode="r:gz") as tar:
        member = tar.extractfile("package/dist/qrcode.js")
        assert member is not None
        script = member.read()
    return {"qrcode.js": script, "LICENSE": LICENSE.format(version=VERSION).encode()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the committed files instead of writing them")
    args = parser.parse_args(argv)
    files = fetched()
    if args.check:
        differ = [n for n, data in files.items() if (FOLDER / n).read_bytes() != data]
        for name in differ:
            print(f"{FOLDER / name}: differs from the registry's", file=sys.stderr)
        return 1 if differ else 0
    FOLDER.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (FOLDER / name).write_bytes(data)
    print(f"wrote {', '.join(files)} into {FOLDER}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
