#!/usr/bin/env python3
"""Measures the gochunk Python package against the gochunk command line:
the overhead of one call (a short text), and the throughput (MB/s of
input) of chunking in process, from a list on Go's threads, and from
Python threads, beside `gochunk chunk` on the same files (its process
start included).

    python3 python/bench.py --cli ./gochunk [--corpus ../shared/eval/chroma] [--repeat 5]

Wall-clock figures: run it on an idle machine, and say which.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import gochunk

CONFIGS = [
    ("recursive", {"size": 512}),
    ("token", {"size": 512, "tokenizer": "cl100k_base"}),
    ("sentence", {"size": 512, "tokenizer": "cl100k_base"}),
    ("semantic", {"size": 512, "tokenizer": "cl100k_base"}),
    # semchunk's published benchmark: 512 tokens of GPT-4's tokenizer.
    ("semchunk", {"size": 512, "tokenizer": "cl100k_base"}),
]


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def cli_args(name, params):
    args = ["chunk", "--chunker", name]
    for k, v in params.items():
        args += [f"--{k.replace('_', '-')}", str(v)]
    return args


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True, help="the gochunk binary")
    ap.add_argument("--corpus", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "eval", "chroma"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--calls", type=int, default=20000, help="calls of the overhead measure")
    args = ap.parse_args()

    files = sorted(os.path.join(args.corpus, n) for n in os.listdir(args.corpus) if n.endswith((".md", ".txt")))
    texts = [open(f, encoding="utf-8").read() for f in files]
    corpus_mb = sum(len(t.encode()) for t in texts) / 1e6
    # A large file as well: 20 copies of the corpus, so that the command
    # line's start is a small part of its time.
    big = "\n\n".join(texts) * 20
    big_mb = len(big.encode()) / 1e6
    tmp = tempfile.mkdtemp()
    big_path = os.path.join(tmp, "big.md")
    with open(big_path, "w", encoding="utf-8") as f:
        f.write(big)

    print(f"# gochunk {gochunk.version()}; python {sys.version.split()[0]}; {os.cpu_count()} cores; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"# corpus: {len(files)} files, {corpus_mb:.2f} MB; big: {big_mb:.2f} MB")

    # Overhead: the time of one call on a short text, and of a short text
    # in a list of 1000 (one call).
    c = gochunk.Chunker("recursive", size=512)
    short = "Hello, world. A short text of two sentences."
    c(short)
    n = args.calls
    t = time.perf_counter()
    for _ in range(n):
        c(short)
    per_call = (time.perf_counter() - t) / n
    many = [short] * 1000
    per_item = best(lambda: c(many), args.repeat) / 1000
    cli_call = best(lambda: subprocess.run([args.cli, "chunk", "-"], input=short.encode(), capture_output=True), args.repeat)
    print(f"\noverhead (recursive, a {len(short)}-character text): one call {per_call * 1e6:.1f} µs; "
          f"in a list of 1000 {per_item * 1e6:.1f} µs a text; gochunk chunk - (a process) {cli_call * 1e3:.1f} ms")

    print("\n| chunker | python, text by text | python, one list (Go's threads) | python, 4 threads | "
          "gochunk chunk FILES | python, big file | gochunk chunk big file | tokens/s (one list) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, params in CONFIGS:
        ch = gochunk.Chunker(name, **params)
        ch(texts[0])  # warm: tokenizer tables, embedder
        seq = best(lambda: [ch(t) for t in texts], args.repeat)
        lst = best(lambda: ch(texts), args.repeat)

        def threaded():
            ts = [threading.Thread(target=lambda k=k: [ch(t) for t in texts[k::4]]) for k in range(4)]
            for th in ts:
                th.start()
            for th in ts:
                th.join()
        thr = best(threaded, args.repeat)
        cli = best(lambda: subprocess.run([args.cli, *cli_args(name, params), *files], check=True,
                                          stdout=subprocess.DEVNULL), args.repeat)
        pbig = best(lambda: ch(big), max(1, args.repeat // 2))
        cbig = best(lambda: subprocess.run([args.cli, *cli_args(name, params), big_path], check=True,
                                           stdout=subprocess.DEVNULL), max(1, args.repeat // 2))
        tokens = sum(c.token_count for doc in ch(texts) for c in doc)
        print(f"| {name} {params} | {corpus_mb / seq:.1f} MB/s | {corpus_mb / lst:.1f} MB/s | {corpus_mb / thr:.1f} MB/s | "
              f"{corpus_mb / cli:.1f} MB/s | {big_mb / pbig:.1f} MB/s | {big_mb / cbig:.1f} MB/s | "
              f"{tokens / lst / 1e3:.0f}k {ch.unit} |")
    os.remove(big_path)
    os.rmdir(tmp)


if __name__ == "__main__":
    main()
