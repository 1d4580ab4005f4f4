"use strict";
// Draws report.html from the embedded report.json (version 2). Cards are created only when they
// scroll into view, and a card's trail only when it is opened, so a big audit opens fast.
(function () {
  const report = JSON.parse(document.getElementById("report-data").textContent);
  const app = document.getElementById("app");
  const results = report.results || [];
  // The node table is a table of columns; claims name its rows by position (or, rarely, by id).
  // GraphRAG's ids (id, human_readable_id, community, title, row) are gathered into `ids`.
  const table = report.nodes || {};
  const nodeIds = table.node_id || [];
  const ID_COLUMNS = ["id", "human_readable_id", "community", "title", "row"];
  const nodes = Object.fromEntries(nodeIds.map((id, row) => {
    const ids = {};
    for (const key of ID_COLUMNS) if (table[key] && table[key][row] !== null) ids[key] = table[key][row];
    return [id, { stage: table.stage[row], kind: table.kind[row], ids, text: table.text ? table.text[row] : null }];
  }));
  const nid = (ref) => (typeof ref === "number" ? nodeIds[ref] : ref);
  const sentences = report.sentences || {};
  const BATCH = 40;
  const VERDICT_CLASS = { "Fully Supported": "fs", "Not Fully Supported": "nfs", "Inconclusive": "inc" };
  const NFS = "Not Fully Supported";

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined) continue;
      if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value);
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }
  const fmt = (n) => (n === null || n === undefined ? "?" : Number(n).toLocaleString("en-US"));
  // Inconclusive with no node left to check: no source text yielded evidence (ClaimResult.not_traced).
  const NOT_TRACED = "not traced to the source";
  const notTraced = (r) => r.verdict === "Inconclusive" && r.stop_reason === "no_candidates";
  const badge = (verdict) => el("span", { class: "badge v-" + (VERDICT_CLASS[verdict] || "inc"), text: verdict });
  // A sentence is `<row>#<n>`: its node's row in the node table (or `<node id>#<n>`).
  const nodeOf = (sentenceId) => {
    const node = sentenceId.slice(0, sentenceId.lastIndexOf("#"));
    return /^\d+$/.test(node) && Number(node) < nodeIds.length ? nodeIds[Number(node)] : node;
  };
  const indexOf = (sentenceId) => Number(sentenceId.slice(sentenceId.lastIndexOf("#") + 1));
  const stageText = (r) =>
    r.verdict !== NFS ? "" : r.error_stages === null || r.error_stages === undefined ? "unknown" : r.error_stages.join(", ");
  const NODES_SHOWN = 6; // node boxes per iteration before "show more": 46 of them made a 4,800-pixel card

  // The claim's words without support: its last Not Fully Supported verdict's gaps (the claim's
  // own are cleared when support found higher up led nowhere), as report.md takes them.
  function unsupportedGaps(r) {
    if (r.gaps && r.gaps.length) return r.gaps;
    const judged = r.iterations.filter((it) => it.verdict === NFS);
    return judged.length ? judged[judged.length - 1].gaps || [] : [];
  }
  const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const holds = (text, words) => new RegExp(`(?<![\\p{L}\\p{N}_])${escaped(words)}(?![\\p{L}\\p{N}_])`, "iu").test(text);
  // Which of `words` a node's evidence sentences say: where the unsupported words entered.
  const saidBy = (sentenceIds, words) => words.filter((w) => sentenceIds.some((s) => holds(sentences[s] || "", w)));
  const quoted = (words) => words.map((w) => `'${w}'`).join(", ");

  function nodeLabel(id) {
    const info = nodes[id];
    if (!info) return id;
    const ids = info.ids || {};
    return ids.title ? `${id} — ${ids.title}` : id;
  }

  function idsText(info) {
    const ids = (info && info.ids) || {};
    return Object.entries(ids).filter(([key]) => key !== "title").map(([key, value]) => `${key} ${value}`).join(" · ");
  }

  // ---- summary -------------------------------------------------------------------------------
  function kindsByStage() {
    const kinds = {};
    for (const info of Object.values(nodes)) (kinds[info.stage] = kinds[info.stage] || new Set()).add(info.kind);
    return kinds;
  }

  function stageChart(summary) {
    const rows = Object.entries(summary.error_stages || {}).map(([stage, n]) => [stage, n]);
    if (summary.unlocalized) rows.push(["unknown", summary.unlocalized]);
    if (!rows.length) return el("p", { class: "muted", text: "No claim is Not Fully Supported." });
    const kinds = kindsByStage();
    const most = Math.max(...rows.map(([, n]) => n));
    const chart = el("div", { class: "bars", role: "img", "aria-label": "claims per error stage" });
    for (const [stage, n] of rows) {
      const names = kinds[stage] ? ` (${[...kinds[stage]].join(", ")})` : "";
      chart.append(
        el("span", { text: stage === "unknown" ? "no stage named" : `stage ${stage}${names}` }),
        el("div", { class: "bar", style: `width:${(100 * n) / most}%`, title: `${n} claims` }),
        el("span", { class: "num", text: fmt(n) })
      );
    }
    return chart;
  }

  function summaryPanel() {
    const s = report.summary;
    const verdicts = el("div", { class: "verdicts" });
    for (const [verdict, n] of Object.entries(s.verdicts)) {
      const note = verdict === "Inconclusive" && s.not_traced ? ` (${fmt(s.not_traced)} ${NOT_TRACED})` : "";
      verdicts.append(el("span", { class: "t-" + VERDICT_CLASS[verdict] }, el("b", { text: fmt(n) }), " " + verdict + note));
    }
    const usage = report.usage && report.usage.total;
    const cost = usage
      ? el("div", {},
          el("div", { class: "figure", text: usage.cost_usd === null ? "cost unknown" : "$" + usage.cost_usd.toFixed(4) }),
          el("div", { class: "muted", text: `${fmt(usage.calls)} model calls (${fmt(usage.cached_calls)} from cache), ` +
            `${fmt(usage.input_tokens + usage.output_tokens)} tokens` }))
      : el("div", {}, el("div", { class: "figure", text: "no model calls" }),
          el("div", { class: "muted", text: `verifier ${report.verifier}` }));
    return el("section", { class: "summary" },
      el("div", { class: "panel" }, el("div", { class: "figure", text: fmt(s.claims) + " claims" }), verdicts,
        s.failed ? el("div", { class: "t-nfs", text: `${fmt(s.failed)} could not be verified` }) : null),
      el("div", { class: "panel chart" }, el("b", { text: "Where unsupported claims were introduced" }), stageChart(s)),
      el("div", { class: "panel" }, cost),
      el("div", { class: "panel" }, el("div", { class: "figure", text: `${fmt(s.nodes_read)} of ${fmt(s.nodes_in_dag)}` }),
        el("div", { class: "muted", text: `nodes read (${s.mean_nodes_read_per_claim} per claim on average)` })));
  }

  // ---- terminals (index audits) ----------------------------------------------------------------
  function terminalTable() {
    const rows = new Map(report.terminals.map((t) => [t, { claims: 0, flagged: 0 }]));
    for (const r of results) {
      const row = rows.get(r.terminal) || rows.set(r.terminal, { claims: 0, flagged: 0 }).get(r.terminal);
      row.claims += 1;
      if (r.verdict === NFS) row.flagged += 1;
    }
    const ranked = [...rows.entries()].filter(([, row]) => row.claims)
      .sort((a, b) => b[1].flagged / b[1].claims - a[1].flagged / a[1].claims || b[1].flagged - a[1].flagged);
    const body = el("tbody");
    for (const [terminal, row] of ranked) {
      const link = el("a", { href: "#claims", onclick: () => { filters.terminal.value = terminal; update(); } }, nodeLabel(terminal));
      body.append(el("tr", {}, el("td", {}, link), el("td", { class: "num", text: fmt(row.claims) }),
        el("td", { class: "num", text: fmt(row.flagged) }),
        el("td", { class: "num", text: Math.round((100 * row.flagged) / row.claims) + "%" })));
    }
    return el("section", {}, el("h2", { text: "Terminals ranked by the share of flagged claims" }),
      el("div", { class: "panel terminals" }, el("table", {},
        el("thead", {}, el("tr", {}, el("th", { text: "terminal" }), el("th", { class: "num", text: "claims" }),
          el("th", { class: "num", text: "Not Fully Supported" }), el("th", { class: "num", text: "share" }))), body)));
  }

  // ---- the trail ----------------------------------------------------------------------------------
  function sentenceLine(ids, evidence) {
    const line = el("div", { class: "sentences" });
    let last = null;
    for (const id of ids) {
      const index = indexOf(id);
      if (last !== null && index !== last + 1) line.append(el("span", { class: "gap", text: " … " }));
      else if (last !== null) line.append(" ");
      const text = sentences[id] === undefined ? `[${id}]` : sentences[id];
      const title = `${nodeOf(id)}#${index}`;
      line.append(evidence.has(id) ? el("mark", { class: "evidence", title, text }) : el("span", { class: "context", title, text }));
      last = index;
    }
    return line;
  }

  function highlighted(text, marks) {
    const box = el("div", { class: "fulltext" });
    let rest = text;
    for (const mark of marks) {
      const at = rest.indexOf(mark);
      if (at < 0) continue;
      box.append(rest.slice(0, at), el("mark", { class: "evidence", text: mark }));
      rest = rest.slice(at + mark.length);
    }
    box.append(rest);
    return box;
  }

  function nodeBox(id, evidenceIds, contextIds, summary, carried, says) {
    const info = nodes[id] || {};
    const evidence = new Set(evidenceIds);
    const ids = [...new Set([...evidenceIds, ...contextIds])].sort((a, b) => indexOf(a) - indexOf(b));
    const head = el("div", { class: "node-head" }, el("span", { class: "stage", text: `stage ${info.stage ?? "?"}` }),
      el("span", { text: info.kind || "node" }), el("code", { text: id }),
      idsText(info) ? el("span", { text: idsText(info) }) : null,
      info.ids && info.ids.title ? el("span", { text: info.ids.title }) : null,
      carried ? el("span", { text: "(root carried from an earlier iteration)" }) : null,
      says.length ? el("span", { class: "says t-nfs", text: `says ${quoted(says)}` }) : null);
    const box = el("div", { class: "node", "data-node": id }, head, sentenceLine(ids, evidence));
    if (summary) box.append(el("div", { class: "muted", text: "Evidence Selection summary: " + summary }));
    if (info.text) {
      const marks = evidenceIds.map((s) => sentences[s]).filter(Boolean);
      let shown = null;
      box.append(el("button", { class: "more", type: "button", onclick: (event) => {
        if (shown) { shown.remove(); shown = null; event.target.textContent = "whole node"; return; }
        shown = highlighted(info.text, marks);
        box.append(shown);
        event.target.textContent = "hide node";
      } }, "whole node"));
    }
    return box;
  }

  function trail(r) {
    const words = unsupportedGaps(r).map((g) => g.text);
    const path = el("div", { class: "path" });
    const top = nodes[r.terminal] || {};
    path.append(el("div", { class: "step" }, el("div", { class: "iter-head", text: `Output: ${nodeLabel(r.terminal)}` }),
      el("div", { class: "muted", text: `stage ${top.stage ?? "?"} · ${top.kind || "node"}` })));
    for (const it of r.iterations) {
      const bySentence = (list) => {
        const grouped = {};
        for (const id of list || []) (grouped[nodeOf(id)] = grouped[nodeOf(id)] || []).push(id);
        return grouped;
      };
      const evidence = bySentence(it.evidence);
      const context = bySentence(it.context);
      const summaries = {};
      for (const excerpt of it.excerpts || []) {
        // A summary stored as sentence ids only strings the highlighted sentences together.
        if (excerpt.is_root || excerpt.text === undefined || excerpt.text === null || typeof r.texts[excerpt.text] !== "string") continue;
        for (const n of excerpt.covers && excerpt.covers.length ? excerpt.covers : [excerpt.node_id]) summaries[nid(n)] = r.texts[excerpt.text];
      }
      const carried = new Set((it.carried_roots || []).map(nid));
      const says = {};
      for (const id of (it.nodes_with_evidence || []).map(nid)) says[id] = saidBy(evidence[id] || [], words);
      // By stage, those saying an unsupported word first: they are always shown, the others fill up to NODES_SHOWN.
      const withEvidence = Object.keys(says)
        .sort((a, b) => ((nodes[b] || {}).stage ?? 0) - ((nodes[a] || {}).stage ?? 0) || (says[b].length > 0) - (says[a].length > 0));
      const step = el("div", { class: "step iter" },
        el("div", { class: "iter-head" }, `Iteration ${it.index}: `, badge(it.verdict),
          el("span", { class: "muted", text: ` read ${it.checked.length} node(s), evidence in ${withEvidence.length}` })));
      if (it.reasoning) step.append(el("div", { class: "reasoning", text: it.reasoning }));
      const box = (id) => nodeBox(id, evidence[id] || [], context[id] || [], summaries[id], carried.has(id), says[id]);
      const saying = withEvidence.filter((id) => says[id].length);
      const room = Math.max(NODES_SHOWN - saying.length, 0);
      const first = new Set([...saying, ...withEvidence.filter((id) => !says[id].length).slice(0, room)]);
      for (const id of withEvidence) if (first.has(id)) step.append(box(id));
      const rest = withEvidence.filter((id) => !first.has(id));
      if (rest.length) {
        const more = el("button", { class: "more", type: "button", onclick: () => {
          more.replaceWith(...rest.map(box));
        } }, `show ${rest.length} more node(s) with evidence`);
        step.append(more);
      }
      if (!withEvidence.length) step.append(el("div", { class: "muted", text: "No evidence found." }));
      path.append(step);
    }
    return path;
  }

  function citationLine(c) {
    // What the claim's sentence cites and how each cited record stands in its trail.
    if (!c) return null;
    if (!c.cited || !c.cited.length) return el("div", { class: "muted", text: "Cites nothing." });
    const parts = [...(c.supporting || []).map((n) => `${nodeLabel(n)} (evidence)`),
      ...(c.no_evidence || []).map((n) => `${nodeLabel(n)} (read, no evidence: mis-cited)`),
      ...(c.not_reached || []).map((n) => `${nodeLabel(n)} (not reached)`),
      ...(c.unknown || []).map((label) => `${label} (not among the output's sources: an invented or wrong citation)`)];
    return el("div", { class: c.unknown && c.unknown.length ? "t-nfs" : "muted",
      text: "Cites: " + parts.join(", ") + (c.incomplete ? " (+more)" : "") });
  }

  function claimText(r) {
    // The claim, with the words its evidence does not support marked (hover for why).
    const gaps = [...unsupportedGaps(r)].sort((a, b) => a.start - b.start);
    const node = el("div", { class: "claim" });
    let at = 0;
    for (const gap of gaps) {
      if (gap.start < at || gap.end > r.claim.text.length) continue;
      node.append(r.claim.text.slice(at, gap.start),
        el("mark", { class: "gap", title: gapTitle(gap), text: r.claim.text.slice(gap.start, gap.end) }));
      at = gap.end;
    }
    node.append(r.claim.text.slice(at));
    return node;
  }

  function whereSaid(r) {
    // At the error stage(s), the nodes whose evidence says the claim's unsupported words: which of
    // a stage's several nodes to fix.
    if (r.verdict !== NFS || !r.error_stages || !r.error_stages.length) return null;
    const words = unsupportedGaps(r).map((g) => g.text);
    const found = new Map();
    for (const it of r.iterations) {
      for (const id of (it.nodes_with_evidence || []).map(nid)) {
        if (!r.error_stages.includes((nodes[id] || {}).stage) || found.has(id)) continue;
        const said = saidBy((it.evidence || []).filter((s) => nodeOf(s) === id), words);
        if (said.length) found.set(id, said);
      }
    }
    if (!found.size) return null;
    const parts = [...found].map(([id, said]) => `${quoted(said)} in ${nodeLabel(id)}`);
    return el("div", { class: "says t-nfs", text: "Where the unsupported words are said: " + parts.join("; ") });
  }

  function gapTitle(gap) {
    // Hover text of marked words: the check that flagged them, why, and what it compared them with.
    return (gap.check ? gap.check + " check: " : "") + gap.why + (gap.quote ? "\nThe evidence says: \u201c" + gap.quote + "\u201d" : "");
  }

  function flagLines(r) {
    // One line per check that flagged words of the claim, quoting the evidence sentence it compared.
    const last = r.iterations.length ? r.iterations[r.iterations.length - 1] : null;
    const flagged = (r.gaps ?? (last && last.gaps) ?? []).filter((gap) => gap.check);
    if (!flagged.length || r.verdict === "Fully Supported") return null;
    return el("ul", { class: "flags" }, ...flagged.map((gap) => el("li", {},
      el("strong", { text: gap.check + " check" }), ": ",
      el("mark", { class: "gap", text: gap.text }), " " + gap.why,
      gap.quote ? el("blockquote", { class: "compared", text: gap.quote }) : null)));
  }

  function card(r) {
    const cls = VERDICT_CLASS[r.verdict] || "inc";
    const stages = stageText(r);
    const details = el("details", { class: "trail" }, el("summary", { text: `Evidence trail (${r.iterations.length} iteration(s), ${r.nodes_read || 0} nodes read)` }));
    details.addEventListener("toggle", () => { if (details.open && details.children.length === 1) details.append(trail(r)); });
    return el("article", { class: `card v-border-${cls}`, id: "claim-" + r.claim.id },
      el("header", {}, badge(r.verdict), notTraced(r) ? el("span", { class: "t-inc", text: NOT_TRACED }) : null,
        stages ? el("span", { class: "t-nfs", text: "error stage " + stages }) : null,
        el("span", { class: "muted", text: r.terminal }),
        el("a", { class: "anchor", href: "#claim-" + encodeURIComponent(r.claim.id), text: "#" + r.claim.id })),
      claimText(r),
      flagLines(r),
      r.error_note ? el("div", { class: "muted", text: r.error_note }) : null,
      whereSaid(r),
      el("div", { class: "reasoning", text: r.reasoning }),
      el("div", { class: "muted", text: "Interim verdicts: " + r.iterations.map((it) => it.verdict).join(" → ") }),
      citationLine(r.citations),
      details);
  }

  // ---- filters and lazy list ------------------------------------------------------------------------
  const searchable = results.map((r) => (r.claim.id + "\n" + r.claim.text + "\n" + r.reasoning + "\n" + r.terminal).toLowerCase());
  const filters = {
    verdict: el("select", { "aria-label": "verdict" }, el("option", { value: "", text: "all verdicts" }),
      ...Object.keys(VERDICT_CLASS).map((v) => el("option", { value: v, text: v })),
      report.summary.not_traced ? el("option", { value: NOT_TRACED, text: "Inconclusive, " + NOT_TRACED }) : null),
    stage: el("select", { "aria-label": "error stage" }, el("option", { value: "", text: "all error stages" }),
      ...Object.keys(report.summary.error_stages || {}).map((s) => el("option", { value: s, text: "stage " + s })),
      report.summary.unlocalized ? el("option", { value: "unknown", text: "no stage named" }) : null),
    terminal: el("select", { "aria-label": "terminal" }, el("option", { value: "", text: "all terminals" }),
      ...report.terminals.map((t) => el("option", { value: t, text: nodeLabel(t) }))),
    search: el("input", { type: "search", placeholder: "search claims, reasoning, ids…", "aria-label": "search" }),
  };
  const count = el("span", { id: "count" });
  const list = el("div", { id: "claims-list" });
  const sentinel = el("div", { id: "sentinel" });
  let shown = [];
  let rendered = 0;

  function matches(r, i, query) {
    const verdict = filters.verdict.value;
    if (verdict && (verdict === NOT_TRACED ? !notTraced(r) : r.verdict !== verdict)) return false;
    if (filters.terminal.value && r.terminal !== filters.terminal.value) return false;
    const stage = filters.stage.value;
    if (stage) {
      if (r.verdict !== NFS) return false;
      if (stage === "unknown" ? r.error_stages !== null && r.error_stages !== undefined : !(r.error_stages || []).includes(Number(stage))) return false;
    }
    return !query || query.every((word) => searchable[i].includes(word));
  }

  function renderMore() {
    const end = Math.min(rendered + BATCH, shown.length);
    const chunk = document.createDocumentFragment();
    for (; rendered < end; rendered += 1) chunk.append(card(results[shown[rendered]]));
    list.append(chunk);
  }

  function update() {
    const query = filters.search.value.toLowerCase().split(/\s+/).filter(Boolean);
    shown = [];
    results.forEach((r, i) => { if (matches(r, i, query)) shown.push(i); });
    rendered = 0;
    list.replaceChildren();
    count.textContent = `${fmt(shown.length)} of ${fmt(results.length)} claims shown`;
    if (!shown.length) list.append(el("p", { class: "empty", text: "No claim matches these filters." }));
    renderMore();
  }

  function showHash() {
    const id = decodeURIComponent(location.hash.replace(/^#claim-/, ""));
    const index = results.findIndex((r) => r.claim.id === id);
    if (!location.hash.startsWith("#claim-") || index < 0) return;
    if (!shown.includes(index)) {
      for (const f of Object.values(filters)) f.value = "";
      update();
    }
    while (rendered <= shown.indexOf(index)) renderMore();
    for (const focused of list.querySelectorAll(".card.focused")) focused.classList.remove("focused");
    const target = document.getElementById("claim-" + id);
    target.classList.add("focused");
    target.scrollIntoView();
  }

  let typing = null;
  filters.search.addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(update, 150); });
  for (const name of ["verdict", "stage", "terminal"]) filters[name].addEventListener("change", update);
  new IntersectionObserver((entries) => { if (entries.some((e) => e.isIntersecting) && rendered < shown.length) renderMore(); },
    { rootMargin: "600px" }).observe(sentinel);
  window.addEventListener("hashchange", showHash);

  const notes = ((report.dag_metadata || {}).notes || []).map((note) => el("p", { class: "muted", text: "Note: " + note }));
  const failed = (report.failed || []).length
    ? el("section", {}, el("h2", { text: `Claims that could not be verified (${report.failed.length})` }),
        el("ul", {}, ...report.failed.map((f) => el("li", {}, el("code", { text: f.claim.id }), ` ${f.claim.text}: ${f.error}`))))
    : null;
  document.getElementById("loading").remove();
  const parts = [
    el("p", { class: "meta", text: `verifier ${report.verifier} · q=${report.config.q} · ${report.created} · ` +
      `veritrail-graphrag ${report.tool_version} · ${report.terminals.length} terminal(s)` }),
    report.verifier_note ? el("p", { class: "muted", text: `Verifier ${report.verifier}: ${report.verifier_note}` }) : null,
    report.summary.languages ? el("p", { class: "muted", id: "languages", text: report.summary.languages.note }) : null,
    ...notes, summaryPanel(), report.terminals.length > 1 ? terminalTable() : null, failed,
    el("h2", { id: "claims", text: "Claims" }),
    el("div", { class: "filters" }, filters.verdict, filters.stage, filters.terminal, filters.search, count),
    list, sentinel];
  app.append(...parts.filter(Boolean));
  update();
  showHash();
  document.body.dataset.ready = "true";
})();
