// ann_compare.cjs measures hnswlib-node, usearch and LanceDB on the
// vectors BenchmarkANNCompare (store/ann_compare_test.go) exported, in the
// same run as gochunk's index: build time, then for each search setting
// recall@k against the exact neighbours the benchmark computed, latency
// p50/p99 of one client and queries per second per CPU second.
//
//     NODE_PATH=DIR/node_modules node ann_compare.cjs OUT/meta.json
//
// where DIR holds `npm install -E @lancedb/lancedb@0.31.0 hnswlib-node
// usearch` (installed outside the repository; install scripts allowed for
// hnswlib-node's and usearch's native builds). A library that is not
// installed is skipped. It prints one JSON object per line:
// {"lib", "setting", "build_s", "build_cpu_s", "build_rss_mb", "recall",
// "p50_ms", "p99_ms", "qps", "cpu_qps"}.
//
// With ANN_INDEX_DIR set, each library's built index is kept there (with its
// build figures in LIB.build.json) and a later run loads it instead of
// building: the builds, which take CPU minutes at a million vectors, can run
// apart, and the searches of every library then run one after another in
// the same minutes. ANN_LIBS (default "hnswlib,usearch,lancedb") picks the
// libraries, ANN_BUILD_ONLY=1 stops after the builds.
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");

const meta = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const dir = path.dirname(process.argv[2]);
const read = (name) => {
  const b = fs.readFileSync(path.join(dir, name));
  return new Float32Array(b.buffer, b.byteOffset, b.length / 4);
};
const { n, dims: d, queries: nq, k } = meta;
const base = read("base.f32");
const queries = read("queries.f32");
const gtBuf = fs.readFileSync(path.join(dir, "truth.i32"));
const truth = new Int32Array(gtBuf.buffer, gtBuf.byteOffset, gtBuf.length / 4);
const row = (m, i) => m.subarray(i * d, (i + 1) * d);

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

function out(o) {
  console.log(JSON.stringify(o));
}

// measure runs search(q) -> ids for every query and reports its recall
// and timings.
async function measure(lib, setting, build, search) {
  const lat = [];
  let found = 0;
  const c0 = cpu();
  for (let i = 0; i < nq; i++) {
    const t0 = process.hrtime.bigint();
    const ids = await search(row(queries, i));
    lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const want = new Set(truth.subarray(i * k, (i + 1) * k));
    for (const id of ids.slice(0, k)) if (want.has(Number(id))) found++;
  }
  const cpuS = cpu() - c0;
  lat.sort((a, b) => a - b);
  const total = lat.reduce((a, b) => a + b, 0);
  out({
    lib, setting, build_s: build.wall, build_cpu_s: build.cpu, build_rss_mb: build.rss_mb, recall: found / (nq * k),
    p50_ms: lat[Math.floor(nq / 2)], p99_ms: lat[Math.min(nq - 1, Math.floor(nq * 0.99))],
    qps: nq / (total / 1000), cpu_qps: nq / cpuS,
  });
}

const keep = process.env.ANN_INDEX_DIR || "";
const buildOnly = process.env.ANN_BUILD_ONLY === "1";
const rssMB = () => Math.round(process.resourceUsage().maxRSS / 1024);

// built returns the kept build figures of lib, or null.
function built(lib) {
  if (!keep) return null;
  try {
    return JSON.parse(fs.readFileSync(path.join(keep, `${lib}.build.json`), "utf8"));
  } catch {
    return null;
  }
}

function keepBuild(lib, b) {
  if (!keep) return;
  fs.mkdirSync(keep, { recursive: true });
  fs.writeFileSync(path.join(keep, `${lib}.build.json`), JSON.stringify({ wall: b.wall, cpu: b.cpu, rss_mb: b.rss_mb, efc: b.efc }));
}

function timed(fn) {
  const t0 = process.hrtime.bigint();
  const c0 = cpu();
  const r = fn();
  return { r, wall: Number(process.hrtime.bigint() - t0) / 1e9, cpu: cpu() - c0, rss_mb: rssMB() };
}

function load(name) {
  try {
    return require(name);
  } catch (e) {
    process.stderr.write(`ann_compare: ${name} not installed (${e.message.split("\n")[0]}): skipped\n`);
    return null;
  }
}

const efs = (meta.efs || [10, 16, 24, 32, 48, 64, 96, 128, 192, 256]);
// The graphs' construction breadth (hnswlib's efConstruction, usearch's
// expansion_add): ANN_EFC, default 200 and 128 (their own defaults); a
// lower one builds faster for a little less recall at a given ef.
const efc = Number(process.env.ANN_EFC || 0);

async function hnswlib() {
  const lib = load("hnswlib-node");
  if (!lib) return;
  const file = keep && path.join(keep, "hnswlib.bin");
  let b = built("hnswlib");
  let index;
  if (b) {
    index = new lib.HierarchicalNSW("cosine", d);
    index.readIndexSync(file);
  } else {
    b = timed(() => {
      const index = new lib.HierarchicalNSW("cosine", d);
      index.initIndex(n, 16, efc || 200, 100);
      for (let i = 0; i < n; i++) index.addPoint(Array.from(row(base, i)), i);
      return index;
    });
    index = b.r;
    b.efc = efc || 200;
    if (keep) {
      fs.mkdirSync(keep, { recursive: true });
      index.writeIndexSync(file);
    }
    keepBuild("hnswlib", b);
  }
  if (buildOnly) return;
  for (const ef of efs) {
    index.setEf(Math.max(ef, k));
    await measure(`hnswlib-node (M=16, efConstruction=${b.efc || 200})`, `ef=${ef}`, b, (q) => index.searchKnn(Array.from(q), k).neighbors);
  }
}

async function usearch() {
  const lib = load("usearch");
  if (!lib) return;
  const file = keep ? path.join(keep, "usearch.usearch") : path.join(os.tmpdir(), `ann_compare_usearch_${process.pid}.usearch`);
  let b = built("usearch");
  if (!b) {
    b = timed(() => {
      const index = new lib.Index({ dimensions: d, metric: "cos", connectivity: 16, expansion_add: efc || 128, expansion_search: 64 });
      const keys = new BigUint64Array(n);
      for (let i = 0; i < n; i++) keys[i] = BigInt(i);
      // One thread, as the others build, unless ANN_THREADS says more
      // (build CPU seconds stay comparable; wall time does not).
      index.add(keys, base, Number(process.env.ANN_THREADS || 1));
      return index;
    });
    b.r.save(file);
    b.r = null;
    b.efc = efc || 128;
    keepBuild("usearch", b);
  }
  if (buildOnly) return;
  try {
    for (const ef of efs) {
      const index = new lib.Index({ dimensions: d, metric: "cos", connectivity: 16, expansion_add: 128, expansion_search: Math.max(ef, k) });
      index.load(file);
      await measure(`usearch (connectivity 16, expansion_add ${b.efc || 128}, f32)`, `ef=${ef}`, b, (q) => Array.from(index.search(q, k, 1).keys, Number));
    }
  } finally {
    if (!keep) fs.rmSync(file, { force: true });
  }
}

async function lancedb() {
  const lib = load("@lancedb/lancedb");
  if (!lib) return;
  const where = keep ? path.join(keep, "lancedb") : fs.mkdtempSync(path.join(os.tmpdir(), "ann_compare_lance_"));
  try {
    const db = await lib.connect(where);
    const parts = Math.max(1, Math.round(Math.sqrt(n)));
    let b = built("lancedb");
    let table;
    if (b) {
      table = await db.openTable("v");
    } else {
      // Rows go in batches: a million rows as one array of JS numbers
      // would need gigabytes of heap.
      const batch = 50000;
      const rows = (from) => {
        const r = [];
        for (let i = from; i < Math.min(n, from + batch); i++) r.push({ id: i, vector: Array.from(row(base, i)) });
        return r;
      };
      const t0 = process.hrtime.bigint();
      const c0 = cpu();
      table = await db.createTable("v", rows(0), { mode: "overwrite" });
      for (let from = batch; from < n; from += batch) await table.add(rows(from));
      await table.createIndex("vector", {
        config: lib.Index.ivfPq({ numPartitions: parts, numSubVectors: d / 8, distanceType: "cosine" }),
      });
      b = { wall: Number(process.hrtime.bigint() - t0) / 1e9, cpu: cpu() - c0, rss_mb: rssMB() };
      keepBuild("lancedb", b);
    }
    if (buildOnly) return;
    // Without refining, PQ's codes alone reached recall@10 ≈ 0.5 at any
    // nprobes on 10k vectors: the refined search is the one to compare.
    for (const refine of [10]) {
      for (const np of meta.nprobes || [1, 2, 4, 8, 16, 32, 64]) {
        if (np > parts) continue;
        await measure(`LanceDB 0.31 (IVF_PQ, ${parts} partitions, ${d / 8} sub-vectors)`, `nprobes=${np} refine=${refine}`, b, async (q) => {
          let s = table.vectorSearch(q).distanceType("cosine").nprobes(np).limit(k).select(["id"]);
          if (refine > 1) s = s.refineFactor(refine);
          const r = await s.toArray();
          return r.map((x) => x.id);
        });
      }
    }
  } finally {
    if (!keep) fs.rmSync(where, { recursive: true, force: true });
  }
}

(async () => {
  const only = (process.env.ANN_LIBS || "hnswlib,usearch,lancedb").split(",");
  if (only.includes("hnswlib")) await hnswlib();
  if (only.includes("usearch")) await usearch();
  if (only.includes("lancedb")) await lancedb();
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
