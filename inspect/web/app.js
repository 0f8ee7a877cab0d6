// gochunk playground: chunk a text with any chunker and see the chunks.
// Served at / by gochunk serve (live: it calls /v1/chunkers and
// /v1/chunk), and inlined by gochunk inspect into one HTML file with its
// data (static: window.GOCHUNK_DATA). No dependencies, no network beyond
// the server it came from.
"use strict";
(function () {
  const $ = (sel, root) => (root || document).querySelector(sel);
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "on") for (const [ev, fn] of Object.entries(v)) e.addEventListener(ev, fn);
      else if (k === "text") e.textContent = v;
      else e.setAttribute(k, v === true ? "" : v);
    }
    for (const k of kids) if (k !== null && k !== undefined) e.append(k);
    return e;
  }
  const SVG = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, ...kids) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined) e.setAttribute(k, v);
    for (const k of kids) if (k !== null && k !== undefined) e.append(k);
    return e;
  }
  const fmt = (x) => (Math.abs(x) >= 100 ? String(Math.round(x)) : String(Number(x.toPrecision(3))));

  // cpIndex maps code-point offsets (the API's start_rune/end_rune) to
  // UTF-16 indices of text.
  function cpIndex(text) {
    const idx = [0];
    let u = 0;
    for (const ch of text) {
      u += ch.length;
      idx.push(u);
    }
    return idx;
  }

  function spansOf(c) {
    return c.spans && c.spans.length ? c.spans : [{ start_rune: c.start_rune, end_rune: c.end_rune }];
  }

  // niceTicks returns about n+1 round tick values (steps of 1, 2 or 5
  // times a power of ten, whole numbers when integer) within [lo, hi],
  // and the decimals to print them with.
  function niceTicks(lo, hi, n, integer) {
    const span = hi - lo > 0 ? hi - lo : 1;
    const raw = span / n, p = Math.pow(10, Math.floor(Math.log10(raw)));
    let step = [1, 2, 5, 10, 20].map((m) => m * p).find((v) => span / v <= n + 2);
    if (integer) step = Math.max(1, Math.round(step));
    const decimals = integer ? 0 : Math.max(0, -Math.floor(Math.log10(step)));
    const ticks = [];
    for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k++) {
      ticks.push(k === 0 ? 0 : k * step); // a zero tick is 0, never -7.07e-9
    }
    return { ticks, decimals };
  }

  // axes draws an x and a y axis with round ticks into g: x from 0 to xmax
  // (whole units), y from ymin to ymax (whole numbers when yInteger).
  function axes(g, x0, y0, w, h, xmax, ymax, xlabel, ylabel, ymin, yInteger) {
    ymin = ymin || 0;
    g.append(svg("line", { x1: x0, y1: y0, x2: x0 + w, y2: y0, stroke: "#6b7280" }));
    g.append(svg("line", { x1: x0, y1: y0, x2: x0, y2: y0 - h, stroke: "#6b7280" }));
    const xs = niceTicks(0, xmax, 4, true);
    for (const v of xs.ticks) {
      g.append(svg("text", { class: "tick-x", x: x0 + (w * v) / (xmax || 1), y: y0 + 12, "text-anchor": "middle" }, v.toFixed(0)));
    }
    const ys = niceTicks(ymin, ymax, 4, yInteger);
    for (const v of ys.ticks) {
      const y = y0 - (h * (v - ymin)) / (ymax - ymin || 1);
      g.append(svg("text", { class: "tick-y", x: x0 - 4, y: y + 3, "text-anchor": "end" }, v.toFixed(ys.decimals)));
      g.append(svg("line", { x1: x0, y1: y, x2: x0 + w, y2: y, stroke: "#f3f4f6" }));
    }
    g.append(svg("text", { x: x0 + w / 2, y: y0 + 26, "text-anchor": "middle" }, xlabel));
    g.append(svg("text", { x: 12, y: y0 - h / 2, transform: `rotate(-90 12 ${y0 - h / 2})`, "text-anchor": "middle" }, ylabel));
  }

  // histogram of the chunks' token counts.
  function histogram(chunks, unit) {
    const W = 380, H = 190, x0 = 46, y0 = H - 34, w = W - x0 - 14, h = H - 50;
    const sizes = chunks.map((c) => c.token_count);
    const max = Math.max(1, ...sizes), bins = Math.min(12, Math.max(1, chunks.length));
    const counts = new Array(bins).fill(0);
    for (const s of sizes) counts[Math.min(bins - 1, Math.floor((s / max) * bins))]++;
    const top = Math.max(1, ...counts);
    const s = svg("svg", { width: W, height: H, role: "img", "aria-label": "chunk sizes", class: "histogram" });
    axes(s, x0, y0, w, h, max, top, `chunk size (${unit})`, "chunks", 0, true);
    counts.forEach((n, i) => {
      const bh = (h * n) / top;
      s.append(svg("rect", { x: x0 + (w * i) / bins + 1, y: y0 - bh, width: w / bins - 2, height: bh, fill: "#60a5fa" },
        svg("title", {}, `${Math.round((max * i) / bins)}–${Math.round((max * (i + 1)) / bins)}: ${n} chunks`)));
    });
    return s;
  }

  // curve draws the chunker's trace: its curve, smoothing, threshold and
  // breakpoints; clicking a breakpoint shows that place in the text.
  function curve(tr, jump) {
    const W = 620, H = 190, x0 = 50, y0 = H - 34, w = W - x0 - 14, h = H - 50;
    const all = [...(tr.curve || []), ...(tr.smoothed || [])];
    if (tr.threshold !== undefined && tr.threshold !== null) all.push(tr.threshold);
    let lo = Math.min(...all), hi = Math.max(...all);
    if (hi - lo < 1e-9) hi = lo + 1;
    const n = Math.max(1, (tr.units || []).length - 1);
    const X = (u) => x0 + (w * u) / n, Y = (v) => y0 - (h * (v - lo)) / (hi - lo);
    const s = svg("svg", { width: W, height: H, role: "img", "aria-label": tr.curve_name || "curve", class: "curve" });
    axes(s, x0, y0, w, h, n, hi, "unit", tr.curve_name || "", lo, false);
    const line = (series, color) => {
      if (!series || !series.length) return;
      const off = tr.curve_offset || 0;
      s.append(svg("polyline", { fill: "none", stroke: color, "stroke-width": 1.4, points: series.map((v, i) => `${X(off + i).toFixed(1)},${Y(v).toFixed(1)}`).join(" ") }));
    };
    line(tr.curve, "#2563eb");
    line(tr.smoothed, "#16a34a");
    if (tr.threshold !== undefined && tr.threshold !== null) {
      s.append(svg("line", { x1: x0, x2: x0 + w, y1: Y(tr.threshold), y2: Y(tr.threshold), stroke: "#f59e0b" }, svg("title", {}, `threshold ${fmt(tr.threshold)}`)));
    }
    for (const b of tr.breakpoints || []) {
      if (b <= 0) continue;
      const l = svg("line", { x1: X(b - 0.5), x2: X(b - 0.5), y1: y0, y2: y0 - h, stroke: "#e11d48", "stroke-dasharray": "3,3", "stroke-width": 2, class: "breakpoint", style: "cursor:pointer" },
        svg("title", {}, `a chunk starts at unit ${b}: click to see it`));
      l.addEventListener("click", () => jump(tr.units[b]));
      s.append(l);
    }
    return s;
  }

  // where names where a chunk lies in its source: its lines or pages.
  function where(c) {
    if (c.pages) return c.pages[0] === c.pages[1] ? `page ${c.pages[0]}` : `pages ${c.pages[0]}–${c.pages[1]}`;
    if (c.lines) return c.lines[0] === c.lines[1] ? `line ${c.lines[0]}` : `lines ${c.lines[0]}–${c.lines[1]}`;
    return "";
  }

  // pagesView draws a PDF's pages (images the server rendered) with every
  // chunk's boxes over them, in the chunk's colour.
  function pagesView(pages, chunks) {
    const wrap = el("div", { class: "pages" });
    for (const p of pages) {
      const page = el("div", { class: "page", "data-page": p.page });
      page.append(el("img", { src: "data:image/png;base64," + p.png_base64, alt: `page ${p.page}` }));
      const s = svg("svg", { viewBox: `0 0 ${p.width} ${p.height}`, preserveAspectRatio: "none", class: "boxes" });
      chunks.forEach((c, i) => (c.boxes || []).filter((b) => b.page === p.page).forEach((b) => {
        s.append(svg("rect", { x: b.bbox[0], y: b.bbox[1], width: Math.max(b.bbox[2] - b.bbox[0], 1), height: Math.max(b.bbox[3] - b.bbox[1], 1), class: `b${i % 6}`, "data-chunk": c.chunk_index },
          svg("title", {}, `chunk ${c.chunk_index}: ${where(c)}`)));
      }));
      page.append(s);
      wrap.append(el("figure", {}, page, el("figcaption", { text: `page ${p.page}` })));
    }
    return wrap;
  }

  // view renders text with its chunks into a fresh element.
  function view(text, chunks, trace, unit, pages) {
    const out = el("div", { class: "view" });
    const cp = cpIndex(text);
    const runes = cp.length - 1;
    // Boundaries and, between them, the chunks covering each piece (a
    // sweep over span starts and ends).
    const events = [];
    chunks.forEach((c, i) => spansOf(c).forEach((s, k) => events.push([s.start_rune, 1, i, k], [s.end_rune, -1, i, k])));
    events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const cuts = [0, runes];
    for (const e of events) cuts.push(e[0]);
    const bounds = [...new Set(cuts)].sort((a, b) => a - b);
    const textEl = el("div", { class: "text", tabindex: 0 });
    let blk = el("div", { class: "blk" }), inBlk = 0, ev = 0;
    const active = new Map(); // chunk -> open spans
    const started = new Set();
    for (let i = 0; i + 1 < bounds.length; i++) {
      const a = bounds[i], b = bounds[i + 1];
      while (ev < events.length && events[ev][0] <= a) {
        const [, d, c] = events[ev++];
        active.set(c, (active.get(c) || 0) + d);
        if (active.get(c) === 0) active.delete(c);
      }
      const owners = [...active.keys()].sort((x, y) => x - y);
      const piece = text.slice(cp[a], cp[b]);
      let span;
      if (!owners.length) {
        span = el("span", { class: "gap", "data-s": a, "data-e": b, text: piece });
      } else {
        const c = owners[0], ch = chunks[c];
        const cls = [`c${c % 6}`];
        if (owners.length > 1) cls.push("ov");
        if (!started.has(c)) {
          cls.push("start");
          started.add(c);
        }
        const title = `chunk ${ch.chunk_index}: ${ch.token_count} ${unit}` + (owners.length > 1 ? `, overlapping chunk ${owners.slice(1).map((o) => chunks[o].chunk_index).join(", ")}` : "") + (spansOf(ch).length > 1 ? `, ${spansOf(ch).length} spans` : "");
        span = el("span", { class: cls.join(" "), "data-chunk": ch.chunk_index, "data-chunks": owners.map((o) => chunks[o].chunk_index).join(" "), "data-s": a, "data-e": b, title, text: piece });
      }
      blk.append(span);
      if (++inBlk >= 200) {
        textEl.append(blk);
        blk = el("div", { class: "blk" });
        inBlk = 0;
      }
    }
    textEl.append(blk);
    // Hovering a piece lights every piece of its chunk (all its spans),
    // and its boxes on the pages; hovering a box, its text.
    const pagesEl = pages && pages.length && chunks.some((c) => c.boxes) ? pagesView(pages, chunks) : null;
    const light = (c) => {
      out.querySelectorAll(".hl").forEach((x) => x.classList.remove("hl"));
      if (c === null || c === undefined) return;
      textEl.querySelectorAll(`[data-chunks~="${c}"]`).forEach((x) => x.classList.add("hl"));
      if (pagesEl) pagesEl.querySelectorAll(`rect[data-chunk="${c}"]`).forEach((x) => x.classList.add("hl"));
    };
    textEl.addEventListener("mouseover", (e) => light(e.target.getAttribute && e.target.getAttribute("data-chunk")));
    if (pagesEl) pagesEl.addEventListener("mouseover", (e) => light(e.target.getAttribute && e.target.getAttribute("data-chunk")));
    const jump = (unitSpan) => {
      if (!unitSpan) return;
      const r = unitSpan.start_rune;
      for (const sp of textEl.querySelectorAll("span[data-s]")) {
        if (+sp.dataset.s <= r && r < +sp.dataset.e) {
          sp.scrollIntoView({ block: "center" });
          sp.classList.add("hl");
          break;
        }
      }
    };
    const sizes = chunks.map((c) => c.token_count).sort((a, b) => a - b);
    const median = sizes.length ? sizes[Math.floor(sizes.length / 2)] : 0;
    out.append(el("div", { class: "summary", text: `${chunks.length} chunks; size in ${unit}: min ${sizes[0] || 0}, median ${median}, max ${sizes[sizes.length - 1] || 0}; ${runes} characters` }));
    const charts = el("div", { class: "charts" }, histogram(chunks, unit));
    if (trace && trace.curve && trace.curve.length) charts.append(curve(trace, jump));
    out.append(charts);
    out.append(el("div", { class: "legend", text: "Each colour is a chunk (▏ marks where one starts); hatched text is in two chunks (overlap); hover a piece to light its whole chunk, all its spans" + (pages && pages.length ? ", and its boxes on the pages (hover a box to light its text)." : ".") + (trace && trace.curve ? " Curve: blue raw, green smoothed, orange threshold, red dashes where chunks start (click one to see it)." : "") }));
    out.append(pagesEl ? el("div", { class: "withpages" }, textEl, pagesEl) : textEl);
    const rows = el("tbody");
    chunks.forEach((c) => rows.append(el("tr", { "data-row": c.chunk_index }, el("td", { class: "n", text: c.chunk_index }), el("td", { class: "n", text: c.token_count }),
      el("td", { text: spansOf(c).map((s) => `${s.start_rune}–${s.end_rune}`).join(", ") }), el("td", { class: "where", text: where(c) }), el("td", { text: c.text.slice(0, 90) }))));
    out.append(el("details", {}, el("summary", { text: "chunks" }),
      el("table", { class: "chunks" }, el("thead", {}, el("tr", {}, el("th", { text: "#" }), el("th", { text: unit }), el("th", { text: "spans (characters)" }), el("th", { text: "where" }), el("th", { text: "text" }))), rows)));
    return out;
  }

  // ---- static page (gochunk inspect) ----
  if (window.GOCHUNK_DATA) {
    const d = window.GOCHUNK_DATA;
    document.title = `gochunk inspect: ${d.title}`;
    const pane = el("section", { class: "pane", "data-pane": "a" }, el("div", { class: "summary", text: d.title }));
    pane.append(view(d.text, d.chunks, d.trace, d.unit || "tokens"));
    $("main").append(el("div", { class: "panes" }, pane));
    return;
  }

  // ---- live playground ----
  // The URL keeps the view. The page's own state has keys with no dot,
  // which no pane uses: text, and view=compare for two panes. Each
  // pane's chunker, tokenizer and parameters are under its name: a.size,
  // b.chunker, a.compare (semantic's parameter, never the page's). Links
  // written before the panes had names (chunker=semantic&size=80, with
  // compare=1 for two panes) still open: with no a. key, pane A reads
  // the keys without a dot, and compare=1 is the page's.
  const params = new URLSearchParams(location.search);
  const legacy = ![...params.keys()].some((k) => k.startsWith("a."));
  const twoPanes = params.get("view") === "compare" || (legacy && params.get("compare") === "1");
  const state = { registry: [], doc: null };
  const pageKeys = new Set(["text", "view"]);
  const given = (pane) => (name) => {
    if (pane === "a" && legacy) {
      if (pageKeys.has(name) || (name === "compare" && params.get(name) === "1")) return null;
      return params.get(name);
    }
    return params.get(pane + "." + name);
  };

  function paneForm(name) {
    const p = given(name), prefix = name + ".";
    const chunkerSel = el("select", { name: "chunker" });
    const tok = el("input", { name: "tokenizer", list: "tokenizers", placeholder: "default", value: p("tokenizer") || "" });
    const paramsBox = el("div", { class: "params" });
    const fill = () => {
      paramsBox.textContent = "";
      const info = state.registry.find((c) => c.name === chunkerSel.value);
      if (!info) return;
      for (const prm of info.params || []) {
        const given = p(prm.name);
        let input;
        if (prm.type === "bool") {
          input = el("input", { type: "checkbox", name: prm.name, "data-param": prm.type, "data-default": String(prm.default) });
          input.checked = given !== null ? given === "true" : !!prm.default;
        } else {
          const def = typeof prm.default === "object" ? JSON.stringify(prm.default) : String(prm.default);
          input = el("input", { name: prm.name, "data-param": prm.type, placeholder: def, value: given !== null ? given : "", type: prm.type === "int" || prm.type === "float" ? "number" : "text", step: prm.type === "float" ? "any" : undefined });
        }
        paramsBox.append(el("label", { title: prm.doc }, prm.name, input));
      }
    };
    chunkerSel.addEventListener("change", fill);
    const form = el("div", { class: "form" }, el("label", {}, "chunker", chunkerSel), el("label", {}, "tokenizer", tok), paramsBox);
    const result = el("div", { class: "result" });
    const pane = el("section", { class: "pane", "data-pane": name }, form, result);
    pane.setup = () => {
      for (const c of state.registry) chunkerSel.append(el("option", { value: c.name, text: c.name, title: c.summary }));
      chunkerSel.value = p("chunker") || "recursive";
      fill();
    };
    // config returns the request's chunker, tokenizer and parameters (only
    // those changed from their defaults), and records them for the URL.
    pane.config = (url) => {
      const config = {};
      url.set(prefix + "chunker", chunkerSel.value);
      if (tok.value) url.set(prefix + "tokenizer", tok.value);
      for (const input of paramsBox.querySelectorAll("[data-param]")) {
        const t = input.dataset.param;
        if (t === "bool") {
          if (String(input.checked) !== input.dataset.default) {
            config[input.name] = input.checked;
            url.set(prefix + input.name, String(input.checked));
          }
          continue;
        }
        if (input.value === "") continue;
        let v = input.value;
        if (t === "int" || t === "float") v = Number(v);
        else if (t !== "string") {
          try { v = JSON.parse(v); } catch (e) { /* a plain string */ }
        }
        config[input.name] = v;
        url.set(prefix + input.name, input.value);
      }
      return { chunker: chunkerSel.value, tokenizer: tok.value || undefined, config };
    };
    pane.show = (node) => {
      result.textContent = "";
      result.append(node);
    };
    return pane;
  }

  const textArea = el("textarea", { id: "text", placeholder: "Paste a text here, or drop a file (text, markdown, HTML, PDF, Word, PowerPoint, Excel, EPUB, e-mail) below." });
  textArea.value = params.get("text") || "";
  const fileInfo = el("span", {});
  const fileInput = el("input", { type: "file", accept: ".txt,.md,.markdown,.html,.htm,.pdf,.docx,.pptx,.xlsx,.odt,.ods,.odp,.epub,.eml,.mbox,text/*,application/pdf" });
  const drop = el("div", { class: "drop" }, "Drop a file here or ", fileInput, " ", fileInfo);
  async function takeFile(f) {
    const name = f.name.toLowerCase();
    if (name.endsWith(".pdf")) {
      const buf = new Uint8Array(await f.arrayBuffer());
      let bin = "";
      for (let i = 0; i < buf.length; i += 0x8000) bin += String.fromCharCode.apply(null, buf.subarray(i, i + 0x8000));
      state.doc = { pdf_base64: btoa(bin) };
      textArea.value = "";
      fileInfo.textContent = `${f.name} (PDF: its text is extracted by the server)`;
    } else if ([".docx", ".pptx", ".xlsx", ".odt", ".ods", ".odp", ".epub", ".eml", ".mbox"].some((x) => name.endsWith(x))) {
      const buf = new Uint8Array(await f.arrayBuffer());
      let bin = "";
      for (let i = 0; i < buf.length; i += 0x8000) bin += String.fromCharCode.apply(null, buf.subarray(i, i + 0x8000));
      state.doc = { file_base64: btoa(bin), file_name: f.name };
      textArea.value = "";
      fileInfo.textContent = `${f.name} (read by the server: its structure as markdown)`;
    } else if (name.endsWith(".html") || name.endsWith(".htm")) {
      state.doc = { html: await f.text() };
      textArea.value = "";
      fileInfo.textContent = `${f.name} (HTML: chunked as the markdown of its structure)`;
    } else {
      state.doc = null;
      textArea.value = await f.text();
      fileInfo.textContent = f.name;
    }
  }
  fileInput.addEventListener("change", () => fileInput.files[0] && takeFile(fileInput.files[0]));
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => { e.preventDefault(); drop.classList.remove("over"); if (e.dataTransfer.files[0]) takeFile(e.dataTransfer.files[0]); });
  textArea.addEventListener("input", () => { state.doc = null; fileInfo.textContent = ""; });

  const compare = el("input", { type: "checkbox", id: "compare" });
  compare.checked = twoPanes;
  const a = paneForm("a"), b = paneForm("b");
  const panes = el("div", { class: "panes" }, a);
  const runBtn = el("button", { id: "run", text: "Chunk" });
  const status = el("span", { class: "summary", id: "status" });
  $("main").append(el("div", { class: "input" }, textArea, drop,
    el("div", { class: "form" }, runBtn, el("label", { style: "flex-direction:row;align-items:center;gap:.3em" }, compare, "compare two configurations"), status)), panes,
    el("datalist", { id: "tokenizers" }, ...["runes", "words", "bytes", "cl100k_base", "o200k_base"].map((t) => el("option", { value: t }))));
  const layout = () => {
    panes.classList.toggle("two", compare.checked);
    if (compare.checked && !b.isConnected) panes.append(b);
    if (!compare.checked && b.isConnected) b.remove();
  };
  compare.addEventListener("change", layout);

  // api calls the server's API, with the bearer token the server asks
  // for when it has one: asked once on a 401, kept for this tab only.
  async function api(path, init = {}) {
    for (;;) {
      const headers = Object.assign({}, init.headers || {});
      const token = sessionStorage.getItem("gochunk-token");
      if (token) headers["Authorization"] = "Bearer " + token;
      const r = await fetch(path, Object.assign({}, init, { headers }));
      if (r.status !== 401) return r;
      const t = window.prompt("This server needs its API token (gochunk serve --token):");
      if (!t) return r;
      sessionStorage.setItem("gochunk-token", t);
    }
  }

  async function runPane(pane, doc, url) {
    const req = pane.config(url);
    req.trace = true;
    req.documents = [doc];
    if (doc.pdf_base64) req.render_pages = true; // the chunks' boxes over the pages
    const started = performance.now();
    const r = await api("/v1/chunk", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(req) });
    const body = await r.json();
    if (!r.ok) throw new Error(body.error ? body.error.message : r.statusText);
    const docs = body.documents;
    if (docs[0].error) throw new Error(docs[0].error);
    const shown = (res) => res.error ? el("div", { class: "error", text: res.error }) : view(res.text, res.chunks, res.trace, body.tokenizer, res.pages);
    if (docs.length === 1) {
      pane.show(shown(docs[0]));
    } else {
      // An e-mail's attachments come back as documents of their own:
      // one is shown at a time, chosen here.
      const pick = el("select", { class: "document" }, ...docs.map((d, i) => el("option", { value: String(i), text: d.attachment_of ? `attachment ${d.id}` : d.id })));
      const holder = el("div", {}, shown(docs[0]));
      pick.addEventListener("change", () => holder.replaceChildren(shown(docs[+pick.value])));
      pane.show(el("div", {}, el("label", { class: "summary" }, `${docs.length} documents: `, pick), holder));
    }
    return performance.now() - started;
  }

  async function run() {
    const doc = state.doc || { text: textArea.value };
    if (!state.doc && !textArea.value.trim()) {
      status.textContent = "Paste a text first.";
      return;
    }
    const url = new URLSearchParams();
    if (compare.checked) url.set("view", "compare");
    status.textContent = "chunking…";
    document.body.dataset.state = "running";
    try {
      const times = [await runPane(a, doc, url)];
      if (compare.checked) times.push(await runPane(b, doc, url));
      if (!state.doc && textArea.value.length <= 8000) url.set("text", textArea.value);
      history.replaceState(null, "", "?" + url.toString());
      status.textContent = `done in ${times.map((t) => Math.round(t) + " ms").join(" and ")}`;
      document.body.dataset.state = "done";
    } catch (e) {
      (compare.checked ? [a, b] : [a]).forEach((p) => p.show(el("div", { class: "error", text: String(e.message || e) })));
      status.textContent = "failed";
      document.body.dataset.state = "error";
    }
  }
  runBtn.addEventListener("click", run);

  api("/v1/chunkers").then((r) => r.json()).then((d) => {
    state.registry = d.chunkers;
    a.setup();
    b.setup();
    layout();
    document.body.dataset.state = "ready";
    if (params.get("text") !== null) run();
  }).catch((e) => { status.textContent = "cannot read /v1/chunkers: " + e; });
})();
