#!/usr/bin/env bash
# Builds the gochunk Python wheel into OUTDIR and prints its path:
#
#   python/build-wheel.sh OUTDIR
#
# It compiles gochunk as a C shared library (go build -buildmode=c-shared,
# which needs cgo: a C compiler such as gcc) and packs it with the Python
# module (python/gochunk) into a platform wheel, using python3's standard
# library only. Install it with: pip install OUTDIR/gochunk-*.whl
#
# The wheel is for the machine that builds it (its OS, architecture and C
# library). GOCHUNK_VERSION sets the version (PEP 440, e.g. 0.1.0); by
# default 0.0.0.dev0+gCOMMIT. PYTHON names the interpreter (default python3).
set -euo pipefail
if [[ $# -ne 1 ]]; then
  echo "usage: python/build-wheel.sh OUTDIR" >&2
  exit 2
fi
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
version=${GOCHUNK_VERSION:-}
ldflags="-s -w"
if [[ -n $version ]]; then
  ldflags+=" -X github.com/gochunk/gochunk/internal/version.version=v$version"
else
  commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
  version="0.0.0.dev0+g$commit"
fi
case "$(go env GOOS)" in
  darwin) lib=libgochunk.dylib ;;
  windows) lib=libgochunk.dll ;;
  *) lib=libgochunk.so ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=1 go build -trimpath -ldflags "$ldflags" -buildmode=c-shared -o "$tmp/$lib" ./python/capi
"$python" python/mkwheel.py --lib "$tmp/$lib" --version "$version" --out "$out"
