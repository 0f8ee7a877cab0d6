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
    python3 ceilings.py lengths                # reference coverage by sentence length
    python3 ceilings.py length LAM             # structure plus density from sentence length (adaptive's)
    python3 ceilings.py cohesion LAM W         # the same plus W times the lexical cohesion across each cut (adaptive's)
    python3 ceilings.py mesoscale W LAM        # oracle: true density averaged over ±W characters
    python3 ceilings.py fine LAM [MIX]         # oracle: which sentences, relative to their ±1,000 characters (MIX true, the rest noise)
    python3 ceilings.py windows                # density's spread against random windows' (simulated)
    python3 ceilings.py loco LAM               # density from 9 text features, fitted leaving each corpus out

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
    elif what == "lengths":
        bins = [(0, 64), (64, 128), (128, 256), (256, 10 ** 9)]
        for c in CORPORA:
            t = text[c]
            cov = coverage(t, c, questions)
            row = []
            for lo, hi in bins:
                u = [(a, b) for a, b in units(t) if lo <= b - a < hi]
                row.append("%d-%s: %.2f (%d)" % (lo, hi - 1 if hi < 10 ** 9 else "", sum(sum(cov[a:b]) for a, b in u) / max(1, sum(b - a for a, b in u)), len(u)))
            print("%-20s %s" % (c, "  ".join(row)))
    elif what == "length":
        lam = float(sys.argv[2])
        report("structure + length density, weight %g" % lam, run(text, questions, density_cost(lambda c, t, u: length_density(u), lam), 2.0), questions, base)
    elif what == "cohesion":
        lam, w = float(sys.argv[2]), float(sys.argv[3])
        length_cost = density_cost(lambda c, t, u: length_density(u), lam)

        def make(c, t, u, pos, target):
            base_cost = length_cost(c, t, u, pos, target)
            coh = cohesion(t, u, pos, target / 2)
            return lambda j, i: base_cost(j, i) + w * coh[i]
        report("length density %g, cohesion %g" % (lam, w), run(text, questions, make, 2.0), questions, base)
    elif what == "mesoscale":
        w, lam = int(sys.argv[2]), float(sys.argv[3])

        def meso(c, t, u):
            pc = prefix(coverage(t, c, questions))
            rho = [(pc[min(len(t), b + w)] - pc[max(0, a - w)]) / (min(len(t), b + w) - max(0, a - w)) for a, b in u]
            m = sum(r * (b - a) for r, (a, b) in zip(rho, u)) / sum(b - a for a, b in u)
            return [r / m - 1 for r in rho]
        report("oracle density averaged over ±%d, weight %g" % (w, lam), run(text, questions, density_cost(meso, lam), 2.0), questions, base)
    elif what == "fine":
        lam = float(sys.argv[2])
        mix = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0

        def fine(c, t, u):
            rel = relative_coverage(t, u, coverage(t, c, questions))
            m, sd = statistics.mean(rel), statistics.pstdev(rel)
            rng = random.Random(7)
            truth = [r / m - 1 for r in rel]
            noisy = [mix * x + (1 - mix) * rng.gauss(0, sd / m) for x in truth]
            print("%-20s correlation with the truth %+.2f" % (c, pearson(noisy, truth)))
            return noisy
        report("oracle sentence choice, %d%% true, weight %g" % (100 * mix, lam), run(text, questions, density_cost(fine, lam), 2.0), questions, base)
    elif what == "windows":
        for c in CORPORA:
            t = text[c]
            qs = [r for q, r in questions if q == c]
            real = spread([min(x, 1) for x in coverage(t, c, questions)])
            rng = random.Random(1)
            sims = []
            for _ in range(20):
                sim = bytearray(len(t))
                for refs in qs:
                    w = rng.randrange(0, max(1, len(t) - 4000))
                    for s, e in refs:
                        n = e - s
                        at = rng.randrange(w, max(w + 1, min(len(t) - n, w + 4000 - n)))
                        sim[at:at + n] = b"\x01" * n
                sims.append(spread(sim))
            print("%-20s spread of density over ±1,000 characters: %.2f; random windows, uniform choice: %.2f ± %.2f" % (c, real, statistics.mean(sims), statistics.pstdev(sims)))
    elif what == "loco":
        lam = float(sys.argv[2])
        data = {}
        for c in CORPORA:
            t = text[c]
            u = units(t)
            cov = coverage(t, c, questions)
            y = [sum(cov[a:b]) / (b - a) for a, b in u]
            my = statistics.mean(y)
            data[c] = (standardised(text_features(t, u)), [v / my - 1 for v in y])
        fitted = {}
        for held in CORPORA:
            w = ridge([r for c in CORPORA if c != held for r in data[c][0]], [v for c in CORPORA if c != held for v in data[c][1]])
            pred = [sum(a * b for a, b in zip(r, w)) for r in data[held][0]]
            sd = statistics.pstdev(pred)
            fitted[held] = [0.85 * p / sd for p in pred]  # the spread of log sentence lengths
            print("%-20s held out: correlation %+.2f (length alone %+.2f)" % (held, pearson(pred, data[held][1]), pearson([r[0] for r in data[held][0]], data[held][1])))
        report("9 features, fitted on the other corpora, weight %g" % lam, run(text, questions, density_cost(lambda c, t, u: fitted[c], lam), 2.0), questions, base)
    else:
        print(__doc__)


def prefix(values):
    out = [0]
    for v in values:
        out.append(out[-1] + v)
    return out


def density_cost(predict, lam):
    """The cost of adaptive (balanced sizes, paragraph breaks first) less
    lam times the chunk's mean predicted density, weighted by length."""
    def make(c, t, u, pos, target):
        pm = prefix(r * (b - a) for r, (a, b) in zip(predict(c, t, u), u))
        cls = [break_class(t, p) for p in pos]
        return lambda j, i: ((pos[i] - pos[j] - target) / target) ** 2 + [0, 0.1, 0.3][cls[i]] - lam * (pm[i] - pm[j]) / (pos[i] - pos[j])
    return make


def cohesion(t, u, pos, window):
    """For each unit boundary in pos, the TF-IDF cosine of the words within
    window characters before and after it (IDF over the units, no stop
    words), as adaptive computes it."""
    words = [[w.lower() for w in re.findall(r"[^\W_]+", t[a:b])] for a, b in u]
    df = {}
    for ws in words:
        for x in set(ws):
            df[x] = df.get(x, 0) + 1
    idf = {x: math.log(len(u) / d) for x, d in df.items()}

    def bag(ws):
        out = {}
        for x in ws:
            out[x] = out.get(x, 0) + 1
        return out
    out = [0.0] * len(pos)
    for k in range(1, len(u)):
        lo = k - 1
        while lo > 0 and u[k - 1][1] - u[lo][0] < window:
            lo -= 1
        hi = k + 1
        while hi < len(u) and u[hi - 1][1] - u[k][0] < window:
            hi += 1
        left = bag(x for ws in words[lo:k] for x in ws)
        right = bag(x for ws in words[k:hi] for x in ws)
        dot = sum(idf[x] ** 2 * c * right.get(x, 0) for x, c in left.items())
        nl = math.sqrt(sum((idf[x] * c) ** 2 for x, c in left.items()))
        nr = math.sqrt(sum((idf[x] * c) ** 2 for x, c in right.items()))
        out[k] = dot / (nl * nr) if nl and nr else 0.0
    return out


def length_density(u):
    """adaptive's density: the log of a sentence's length less its mean
    (the constant does not matter at a fixed chunk count)."""
    logs = [math.log(b - a + 1) for a, b in u]
    m = statistics.mean(logs)
    return [x - m for x in logs]


def relative_coverage(t, u, cov, w=1000):
    """Each unit's reference coverage over that of the ±w characters
    around it: which sentences were chosen, not how many questions fell
    near them."""
    pc = prefix(cov)
    out = []
    for a, b in u:
        lo, hi = max(0, a - w), min(len(t), b + w)
        near = (pc[hi] - pc[lo]) / (hi - lo)
        out.append((pc[b] - pc[a]) / (b - a) / near if near else 0.0)
    return out


def spread(cov, w=1000):
    """Coefficient of variation of coverage averaged over ±w characters."""
    pc = prefix(cov)
    n = len(cov)
    vals = [(pc[min(n, i + w)] - pc[max(0, i - w)]) / (min(n, i + w) - max(0, i - w)) for i in range(0, n, 100)]
    return statistics.pstdev(vals) / statistics.mean(vals)


STOP = set("the a an and or of to in on for with is are was were be been it this that i you we they he she my your our their "
           "as at by from not but so if do does did have has had can will would should could me us them his her its what which "
           "who whom when where why how all any some no than then there here just also very".split())


def text_features(t, u):
    """Per unit: log length, a question, digits, capitalised words, the
    rarest content word's IDF, share of content words, first of its line,
    first or second person, an exclamation."""
    words = [re.findall(r"[A-Za-z]+", t[a:b].lower()) for a, b in u]
    df = {}
    for ws in words:
        for x in set(ws):
            df[x] = df.get(x, 0) + 1
    rows = []
    for (a, b), ws in zip(u, words):
        s = t[a:b]
        n = max(1, len(ws))
        content = [x for x in ws if x not in STOP]
        rows.append([math.log(b - a + 1), float(s.rstrip().rstrip("\"')”’").endswith("?")), float(bool(re.search(r"\d", s))),
                     sum(x[:1].isupper() for x in re.findall(r"[A-Za-z]+", s)[1:]) / n,
                     max([math.log(len(u) / df[x]) for x in content] or [0]), len(content) / n,
                     float(break_class(t, a) <= 1), float(bool(re.search(r"\b(I|you|You|we|We)\b", s))), float("!" in s)])
    return rows


def standardised(rows):
    cols = []
    for col in zip(*rows):
        m, sd = statistics.mean(col), statistics.pstdev(col) or 1
        cols.append([(v - m) / sd for v in col])
    return [list(r) for r in zip(*cols)]


def ridge(x, y, alpha=1.0):
    """Least squares with an L2 penalty, by Gauss-Jordan elimination."""
    k = len(x[0])
    m = [[alpha * (i == j) for j in range(k)] + [0.0] for i in range(k)]
    for r, v in zip(x, y):
        for i in range(k):
            m[i][k] += r[i] * v
            for j in range(k):
                m[i][j] += r[i] * r[j]
    for i in range(k):
        p = max(range(i, k), key=lambda r: abs(m[r][i]))
        m[i], m[p] = m[p], m[i]
        for r in range(k):
            if r != i:
                f = m[r][i] / m[i][i]
                for c in range(i, k + 1):
                    m[r][c] -= f * m[i][c]
    return [m[i][k] / m[i][i] for i in range(k)]


def pearson(x, y):
    mx, my = statistics.mean(x), statistics.mean(y)
    sx = math.sqrt(sum((a - mx) ** 2 for a in x))
    sy = math.sqrt(sum((b - my) ** 2 for b in y))
    return sum((a - mx) * (b - my) for a, b in zip(x, y)) / (sx * sy) if sx and sy else 0.0


if __name__ == "__main__":
    main()
