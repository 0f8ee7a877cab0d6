"""Tests of the installed gochunk wheel against the gochunk command line.

Run by python/capi's Go test (TestWheel) in a fresh virtual environment
where the wheel is installed; by hand:

    GOCHUNK_CLI=./gochunk GOCHUNK_CORPUS=../shared/eval/chroma python -m unittest -v python/tests/test_gochunk.py

GOCHUNK_CLI is the gochunk binary to compare with; GOCHUNK_CORPUS a
directory of text documents (the corpus tests skip without it).
"""

import json
import os
import subprocess
import sys
import tempfile
import threading
import unittest

import gochunk

CLI = os.environ.get("GOCHUNK_CLI", "")
CORPUS = os.environ.get("GOCHUNK_CORPUS", "")

# Configurations compared with the command line: a chunker and the
# keyword arguments of gochunk.Chunker, which are gochunk chunk --config's.
CONFIGS = [
    ("semantic", {"size": 512, "tokenizer": "cl100k_base"}),
    ("recursive", {"size": 300}),
    ("token", {"size": 128, "overlap": 16, "tokenizer": "cl100k_base"}),
    ("sentence", {"size": 200, "tokenizer": "words"}),
    ("markdown", {"size": 400, "parents": 2000, "context": "headings"}),
]


def cli(*args, stdin=None):
    """Runs the command line: (exit status, stdout, stderr)."""
    p = subprocess.run([CLI, *args], input=stdin, capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode()


def cli_records(name, params, path):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(dict(params, chunker=name), f)
    try:
        code, out, err = cli("chunk", "--config", f.name, path)
    finally:
        os.unlink(f.name)
    if code != 0:
        raise AssertionError(f"gochunk chunk {name} {params} {path}: {err}")
    return [json.loads(line) for line in out.splitlines()]


def corpus_files():
    if not CORPUS or not os.path.isdir(CORPUS):
        return []
    return sorted(os.path.join(CORPUS, n) for n in os.listdir(CORPUS) if n.endswith((".md", ".txt")))


def cli_message(stderr, prefix):
    """The command line's message after its prefix (gochunk chunk: NAME: )."""
    line = stderr.strip().splitlines()[-1]
    assert line.startswith(prefix), (line, prefix)
    return line[len(prefix):]


@unittest.skipUnless(CLI, "GOCHUNK_CLI (the gochunk binary) is not set")
class SameAsCLI(unittest.TestCase):
    def setUp(self):
        self.files = corpus_files()
        if not self.files:
            self.skipTest(f"no corpus (GOCHUNK_CORPUS={CORPUS!r}: ../shared/eval/chroma is absent)")

    def test_records(self):
        for name, params in CONFIGS:
            chunker = gochunk.Chunker(name, **params)
            texts = []
            for path in self.files:
                with self.subTest(chunker=name, file=os.path.basename(path)):
                    want = cli_records(name, params, path)
                    self.assertTrue(want, "the command line wrote no records")
                    with open(path, encoding="utf-8") as f:
                        text = f.read()
                    texts.append(text)
                    got = chunker(text, source=path)
                    self.assertEqual([c.to_dict() for c in got], want)
                    self.assertEqual([c.to_dict() for c in chunker.chunk_file(path)], want)
                    b = text.encode("utf-8")
                    for c in chunker(text):  # no source: the same chunks
                        if c.spans:  # several spans: their texts joined by "\n"
                            self.assertEqual(c.text, "\n".join(text[s["start_rune"]:s["end_rune"]] for s in c.spans))
                            continue
                        self.assertEqual(c.text, text[c.start_index:c.end_index])
                        self.assertEqual(c.text.encode("utf-8"), b[c.start:c.end])
                    self.assertEqual([c.text for c in chunker(text)], [r["text"] for r in want])
            # A list is chunked in parallel, its results in order.
            batch = chunker.chunk_batch(texts, sources=self.files)
            for path, got in zip(self.files, batch):
                self.assertEqual([c.to_dict() for c in got], cli_records(name, params, path))

    def test_extract(self):
        for path in self.files:
            code, out, err = cli("extract", path)
            self.assertEqual(code, 0, err)
            self.assertEqual(gochunk.extract(path).text, out.decode("utf-8"))

    def test_cli_flags(self):
        # The README's example: the flags give what the keywords give.
        path = self.files[0]
        code, out, err = cli("chunk", "--chunker", "semantic", "--size", "512", "--tokenizer", "cl100k_base", path)
        self.assertEqual(code, 0, err)
        want = [json.loads(line) for line in out.splitlines()]
        got = gochunk.Chunker("semantic", size=512, tokenizer="cl100k_base").chunk_file(path)
        self.assertEqual([c.to_dict() for c in got], want)


@unittest.skipUnless(CLI, "GOCHUNK_CLI (the gochunk binary) is not set")
class Spans(unittest.TestCase):
    def test_table(self):
        # The table chunker repeats a table's header in each chunk: chunks
        # of several spans, whose text is their spans' joined by "\n".
        rows = "\n".join(f"| {i} | name {i} | a longer value, number {i} |" for i in range(120))
        text = "# Table\n\n| id | name | value |\n|---|---|---|\n" + rows + "\n"
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False, encoding="utf-8") as f:
            f.write(text)
        try:
            want = cli_records("table", {"size": 100}, f.name)
            got = gochunk.Chunker("table", size=100)(text, source=f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual([c.to_dict() for c in got], want)
        multi = [c for c in got if c.spans]
        self.assertTrue(multi, "no chunk of several spans")
        for c in multi:
            self.assertEqual(c.text, "\n".join(text[s["start_rune"]:s["end_rune"]] for s in c.spans))


class Offsets(unittest.TestCase):
    def test_code_points(self):
        text = ("Ünïcödé text: 😀 emoji, 漢字 and e\u0301 combining marks.\n\n" * 40) + "The end."
        for name, params in CONFIGS:
            with self.subTest(chunker=name):
                chunks = gochunk.Chunker(name, **params)(text)
                self.assertTrue(chunks)
                for c in chunks:
                    self.assertEqual(c.text, text[c.start_index:c.end_index])
                    self.assertEqual(c.text.encode(), text.encode()[c.start:c.end])
                self.assertEqual(chunks[-1].end_index, len(text.rstrip()) if name != "token" else len(text))

    def test_list_and_empty(self):
        chunker = gochunk.Chunker("recursive", size=10)
        out = chunker(["one two three four five six seven eight nine ten eleven twelve", "", "x"])
        self.assertEqual(len(out), 3)
        self.assertGreater(len(out[0]), 1)
        self.assertEqual(out[1], [])
        self.assertEqual([c.text for c in out[2]], ["x"])
        self.assertEqual(chunker([]), [])


@unittest.skipUnless(CLI, "GOCHUNK_CLI (the gochunk binary) is not set")
class Errors(unittest.TestCase):
    def check(self, fn, args, prefix, stdin=None):
        with self.assertRaises(gochunk.Error) as cm:
            fn()
        self.assertIsInstance(cm.exception, ValueError)
        code, _, err = cli(*args, stdin=stdin)
        self.assertNotEqual(code, 0)
        self.assertEqual(str(cm.exception), cli_message(err, prefix))
        return cm.exception

    def test_configuration(self):
        self.check(lambda: gochunk.Chunker("nope"), ["chunk", "--chunker", "nope", "/dev/null"], "gochunk chunk: ")
        self.check(lambda: gochunk.Chunker("recursive", size=-3),
                   ["chunk", "--chunker", "recursive", "--size", "-3", "/dev/null"], "gochunk chunk: ")
        self.check(lambda: gochunk.Chunker("recursive", tokenizer="nope"),
                   ["chunk", "--tokenizer", "nope", "/dev/null"], "gochunk chunk: ")
        with self.assertRaises(gochunk.Error) as cm:
            gochunk.Chunker("semantic", sise=3)
        self.assertIn('unknown setting "sise"', str(cm.exception))
        self.assertIn("threshold_type", str(cm.exception))  # names the chunker's parameters

    def test_input(self):
        chunker = gochunk.Chunker()
        e = self.check(lambda: chunker("a\ud800b"), ["chunk", "-"], 'gochunk chunk: -: ',
                       stdin=b"a\xed\xa0\x80b")
        self.assertEqual(e.index, 0)
        with self.assertRaises(gochunk.Error) as cm:
            chunker(["fine", "a\ud800b"])
        self.assertEqual(cm.exception.index, 1)
        with self.assertWarnsRegex(RuntimeWarning, "U\\+FFFD"):
            repaired = gochunk.Chunker(invalid_utf8="repair")("a\ud800b")
        self.assertEqual(repaired[0].text, "a\ufffdb")

    def test_files(self):
        missing = "/nonexistent/gochunk-test.txt"
        self.check(lambda: gochunk.extract(missing), ["extract", missing], "gochunk extract: ")
        e = self.check(lambda: gochunk.Chunker().chunk_file(missing), ["chunk", missing], "gochunk chunk: ")
        self.assertIn(missing, str(e))  # a file's error names it
        with tempfile.NamedTemporaryFile(suffix=".png", delete=False) as f:
            f.write(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
        try:
            self.check(lambda: gochunk.extract(f.name), ["extract", f.name], "gochunk extract: ")
        finally:
            os.unlink(f.name)

    def test_closed(self):
        chunker = gochunk.Chunker()
        chunker.close()
        with self.assertRaisesRegex(gochunk.Error, "closed"):
            chunker("text")
        chunker.close()  # twice: nothing


class Threads(unittest.TestCase):
    def test_concurrent(self):
        # Four threads each chunk a long text. Each call records, inside
        # Go, when it entered and left: with the GIL released the four
        # calls are all in Go at once (the latest entry precedes the
        # earliest exit); with it held they would run one after another.
        text = " ".join(f"Sentence {i} is about topic {i % 17}, which matters." for i in range(30000))
        chunker = gochunk.Chunker("semantic", size=256)
        want = chunker(text)
        barrier = threading.Barrier(4)
        spans, results, errors = [None] * 4, [None] * 4, []

        def work(k):
            try:
                barrier.wait()
                results[k], spans[k] = chunker._chunk_timed(text)
            except Exception as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        for r in results:
            self.assertEqual(r, want)
        latest_entry = max(s[0] for s in spans)
        earliest_exit = min(s[1] for s in spans)
        self.assertLess(latest_entry, earliest_exit, f"the calls did not overlap: {spans}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
