"""Ceilings of precision Ω at a fixed number of chunks per corpus, on the
development corpora of Chroma's chunking evaluation (../shared/eval/chroma).

Every segmentation here is contiguous and covers the corpus, cut only at
sentence or line ends, with exactly (or at most) the chunk counts that
semchunk at 800 characters makes (chatlogs 59, state_of_the_union 68,
wikitexts 225). Precision Ω follows Chroma's definition (a chunk that
touches a reference counts), over character offsets.

    python3 ceilings.py semchunk CHUNKS_DIR    # score gochunk's semchunk-800 output
    python3 ceilings.py boundaries             # oracle: never cut a question's references
    python3 ceilings.py sizes                  # oracle: sizes from where the references are
    python3 ceilings.py density MIX            # balanced DP with a density that is MIX true
    python3 ceilings.py structure              # text only: paragraph-first, balanced DP
    python3 ceilings.py features               # correlations of text features with coverage

CHUNKS_DIR holds NAME.jsonl from `gochunk chunk --chunker semchunk --size 800
../shared/eval/chroma/NAME.md > CHUNKS_DIR/NAME.jsonl`; with SEMCHUNK=CHUNKS_DIR
in the environment every other line adds the paired bootstrap interval of its
difference from semchunk. CHROMA=DIR reads the data from elsewhere. Pure
Python 3, no packages; `sizes` takes a few minutes.
"""

import bisect
import csv
import json
import math
import os
import random
import re
import statistics
import sys

DATA = os.environ.get("CHROMA", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "eval", "chroma"))
CORPORA = ["chatlogs", "state_of_the_union", "wikitexts"]
BUDGET = {"chatlogs": 59, "state_of_the_union": 68, "wikitexts": 225}


def load():
    text = {c: open(os.path.join(DATA, c + ".md"), encoding="utf-8").read() for c in CORPORA}
    questions = []
    with open(os.path.join(DATA, "questions.csv"), encoding="utf-8") as f:
        for row in csv.DictReader(f):
            refs = [(r["start_index"], r["end_index"]) for r in json.loads(row["references"])]
            questions.append((row["corpus_id"], refs))
    return text, questions


def union(ranges):
    out = []
    for s, e in sorted(ranges):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def length(ranges):
    return sum(e - s for s, e in ranges)


def omega(chunks, questions):
    """Mean precision Ω per corpus and over all questions; chunks maps a
    corpus to its sorted (start, end) ranges."""
    scores = {c: [] for c in CORPORA}
    for corpus, refs in questions:
        ch = chunks[corpus]
        starts = [s for s, _ in ch]
        hit, inter = [], []
        for rs, re_ in refs:
            i = bisect.bisect_right(starts, re_) - 1
            while i >= 0 and ch[i][1] >= rs:
                s, e = ch[i]
                if s <= re_:
                    hit.append((s, e))
                    inter.append((max(s, rs), min(e, re_)))
                i -= 1
        covered = union(hit)
        uncovered = []
        for s, e in union(refs):
            cur = s
            for a, b in covered:
                if b <= cur or a >= e:
                    continue
                if a > cur:
                    uncovered.append((cur, a))
                cur = max(cur, b)
            if cur < e:
                uncovered.append((cur, e))
        num = length(union([r for r in inter if r[1] > r[0]]))
        den = length(union(hit + uncovered))
        scores[corpus].append(num / den if num and den else 0.0)
    allq = [x for c in CORPORA for x in scores[c]]
    return {c: statistics.mean(scores[c]) for c in CORPORA}, statistics.mean(allq), scores


def units(text):
    """Sentences and lines: the places a chunk may end."""
    cuts = {0, len(text)}
    for m in re.finditer(r"\n+", text):
        cuts.add(m.end())
    cuts = sorted(cuts)
    out = []
    for a, b in zip(cuts, cuts[1:]):
        ends = sorted({a, b} | {a + m.end() for m in re.finditer(r"[.!?][\"”’)']?\s+", text[a:b])})
        out.extend((x, y) for x, y in zip(ends, ends[1:]) if y > x)
    return out


def break_class(text, p):
    """0 at a paragraph break (a blank line), 1 at a line break, 2 inside a line."""
    if p == 0 or p >= len(text):
        return 0
    newlines, q = 0, p - 1
    while q >= 0 and text[q].isspace():
        newlines += text[q] == "\n"
        q -= 1
    return 0 if newlines >= 2 else 1 if newlines == 1 else 2


def trim(text, segments):
    out = []
    for a, b in segments:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            out.append((a, b))
    return out


def segment(pos, n_chunks, cost, max_size):
    """Exactly n_chunks chunks over the unit boundaries pos, minimising the
    sum of cost(j, i) of the chunks pos[j]:pos[i], none over max_size
    (but a single unit)."""
    n = len(pos) - 1
    inf = float("inf")
    prev = [inf] * (n + 1)
    prev[0] = 0.0
    back = []
    for _ in range(n_chunks):
        cur, arg = [inf] * (n + 1), [-1] * (n + 1)
        for i in range(1, n + 1):
            j = i - 1
            while j >= 0 and (pos[i] - pos[j] <= max_size or j == i - 1):
                if prev[j] < inf:
                    c = prev[j] + cost(j, i)
                    if c < cur[i]:
                        cur[i], arg[i] = c, j
                j -= 1
        back.append(arg)
        prev = cur
    out, i = [], n
    for arg in reversed(back):
        j = arg[i]
        out.append((pos[j], pos[i]))
        i = j
    return out[::-1]


def coverage(text, corpus, questions):
    cov = bytearray(len(text))
    for c, refs in questions:
        if c == corpus:
            for s, e in refs:
                cov[s:e] = b"\x01" * (e - s)
    return cov


def run(text, questions, make_cost, max_factor):
    chunks = {}
    for c in CORPORA:
        t = text[c]
        u = units(t)
        pos = [a for a, _ in u] + [u[-1][1]]
        target = len(t) / BUDGET[c]
        chunks[c] = trim(t, segment(pos, BUDGET[c], make_cost(c, t, u, pos, target), max_factor * target))
    return chunks


def report(name, chunks, questions, base=None):
    per, overall, scores = omega(chunks, questions)
    line = "%-44s %s  all %.1f" % (name, "  ".join("%s %.1f" % (c, 100 * per[c]) for c in CORPORA), 100 * overall)
    if base is not None:
        d = [a - b for c in CORPORA for a, b in zip(scores[c], base[c])]
        rng = random.Random(1)
        boot = sorted(sum(rng.choice(d) for _ in d) / len(d) for _ in range(2000))
        line += "  vs semchunk %+.1f [%+.1f, %+.1f]" % (100 * sum(d) / len(d), 100 * boot[50], 100 * boot[1949])
    print(line)
    return scores


def main():
    text, questions = load()
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    base = None
    if os.environ.get("SEMCHUNK"):
        sem = {c: [(j["start_rune"], j["end_rune"]) for j in map(json.loads, open(os.path.join(os.environ["SEMCHUNK"], c + ".jsonl")))] for c in CORPORA}
        _, _, base = omega(sem, questions)
    if what == "semchunk":
        sem = {c: [(j["start_rune"], j["end_rune"]) for j in map(json.loads, open(os.path.join(sys.argv[2], c + ".jsonl")))] for c in CORPORA}
        report("semchunk, size 800", sem, questions)
    elif what == "boundaries":
        def make(c, t, u, pos, target):
            hulls = [(min(s for s, _ in r), max(e for _, e in r)) for q, r in questions if q == c]
            cut = [sum(1 for a, b in hulls if a < p < b) for p in pos]
            return lambda j, i: ((pos[i] - pos[j] - target) / target) ** 2 + (cut[i] if i < len(pos) - 1 else 0)
        report("oracle boundaries, balanced sizes", run(text, questions, make, 2.0), questions, base)
    elif what == "sizes":
        def make(c, t, u, pos, target):
            qs = [r for q, r in questions if q == c]
            hulls = [(min(s for s, _ in r), max(e for _, e in r)) for r in qs]
            cut = [10 * sum(1 for a, b in hulls if a < p < b) for p in pos]

            def cost(j, i):
                a, b = pos[j], pos[i]
                gain = 0.0
                for r in qs:
                    inside = sum(max(0, min(e, b) - max(s, a)) for s, e in r)
                    if inside:
                        gain += inside / (b - a)
                return -gain + (cut[i] if i < len(pos) - 1 else 0)
            return cost
        report("oracle sizes and boundaries", run(text, questions, make, 3.0), questions, base)
    elif what == "density":
        mix = float(sys.argv[2])

        def make(c, t, u, pos, target):
            cov = coverage(t, c, questions)
            true = [sum(cov[a:b]) / (b - a) for a, b in u]
            mean = sum(true) / len(true)
            rng = random.Random(7)
            rho = [mix * x + (1 - mix) * rng.random() * 2 * mean for x in true]
            pm = [0.0]
            for (a, b), r in zip(u, rho):
                pm.append(pm[-1] + r * (b - a))
            cls = [break_class(t, p) for p in pos]
            return lambda j, i: ((pos[i] - pos[j] - target) / target) ** 2 + [0, 0.1, 0.3][cls[i]] - (pm[i] - pm[j]) / (pos[i] - pos[j])
        report("density %.0f%% true, balanced" % (100 * mix), run(text, questions, make, 2.0), questions, base)
    elif what == "structure":
        def make(c, t, u, pos, target):
            cls = [break_class(t, p) for p in pos]
            return lambda j, i: ((pos[i] - pos[j] - target) / target) ** 2 + [0, 0.1, 0.3][cls[i]]
        report("text only: paragraph-first, balanced", run(text, questions, make, 2.0), questions, base)
    elif what == "features":
        for c in CORPORA:
            t = text[c]
            u = units(t)
            cov = coverage(t, c, questions)
            y = [sum(cov[a:b]) / (b - a) for a, b in u]
            feats = {"length": [], "letters": [], "numbers": [], "capitals": []}
            for a, b in u:
                s = t[a:b]
                words = re.findall(r"\w+", s) or [""]
                feats["length"].append(b - a)
                feats["letters"].append(sum(ch.isalpha() for ch in s) / (b - a))
                feats["numbers"].append(sum(w[:1].isdigit() for w in words) / len(words))
                feats["capitals"].append(sum(w[:1].isupper() for w in words[1:]) / len(words))
            print(c, "  ".join("%s %+.2f" % (k, pearson(v, y)) for k, v in feats.items()))
    else:
        print(__doc__)


def pearson(x, y):
    mx, my = statistics.mean(x), statistics.mean(y)
    sx = math.sqrt(sum((a - mx) ** 2 for a in x))
    sy = math.sqrt(sum((b - my) ** 2 for b in y))
    return sum((a - mx) * (b - my) for a, b in zip(x, y)) / (sx * sy) if sx and sy else 0.0


if __name__ == "__main__":
    main()
