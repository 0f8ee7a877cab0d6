#!/usr/bin/env python3
"""Packs the gochunk Python package and its compiled library into a
platform wheel (PEP 427), with the standard library only: a zip holding
gochunk/, and gochunk-VERSION.dist-info/ with METADATA, WHEEL and RECORD.

    mkwheel.py --lib libgochunk.so --version 0.1.0 --out DIR

Run by build-wheel.sh; prints the wheel's path.
"""

import argparse
import base64
import hashlib
import os
import re
import sysconfig
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def platform_tag() -> str:
    # The library is this machine's: linux_x86_64, macosx_11_0_arm64, ...
    return re.sub(r"[^A-Za-z0-9_]", "_", sysconfig.get_platform())


def metadata(version: str) -> str:
    readme = open(os.path.join(HERE, "README.md"), encoding="utf-8").read()
    return (
        "Metadata-Version: 2.1\n"
        "Name: gochunk\n"
        f"Version: {version}\n"
        "Summary: Chunking with exact offsets, in process: gochunk's Go library through ctypes\n"
        "Home-page: https://github.com/gochunk/gochunk\n"
        "License: see the repository\n"
        "Requires-Python: >=3.8\n"
        "Classifier: Programming Language :: Python :: 3\n"
        "Classifier: Programming Language :: Go\n"
        "Description-Content-Type: text/markdown\n"
        "\n" + readme
    )


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", required=True, help="the compiled library (libgochunk.so/.dylib/.dll)")
    ap.add_argument("--version", required=True, help="the package's version (PEP 440)")
    ap.add_argument("--out", required=True, help="directory of the wheel")
    args = ap.parse_args()
    if not re.fullmatch(r"[0-9]+(\.[0-9]+)*((a|b|rc)[0-9]+)?(\.post[0-9]+)?(\.dev[0-9]+)?(\+[a-z0-9.]+)?", args.version):
        raise SystemExit(f"mkwheel: --version {args.version!r}: want a PEP 440 version such as 0.1.0 or 0.0.0.dev0+g1234abc")
    tag = f"py3-none-{platform_tag()}"
    dist = f"gochunk-{args.version}.dist-info"
    files = []
    pkg = os.path.join(HERE, "gochunk")
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py") or name == "py.typed":
            with open(os.path.join(pkg, name), "rb") as f:
                files.append((f"gochunk/{name}", f.read(), 0o644))
    with open(args.lib, "rb") as f:
        files.append((f"gochunk/{os.path.basename(args.lib)}", f.read(), 0o755))
    files.append((f"{dist}/METADATA", metadata(args.version).encode(), 0o644))
    files.append((f"{dist}/WHEEL", (
        "Wheel-Version: 1.0\n"
        "Generator: gochunk mkwheel.py\n"
        "Root-Is-Purelib: false\n"
        f"Tag: {tag}\n").encode(), 0o644))
    files.append((f"{dist}/top_level.txt", b"gochunk\n", 0o644))
    record = [record_line(n, d) for n, d, _ in files] + [f"{dist}/RECORD,,"]
    files.append((f"{dist}/RECORD", ("\n".join(record) + "\n").encode(), 0o644))
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"gochunk-{args.version}-{tag}.whl")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data, mode in files:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))  # reproducible
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    print(path)


if __name__ == "__main__":
    main()
