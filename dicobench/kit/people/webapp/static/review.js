// The review page: one row at a time; each decision is saved (on disk) before it shows as saved.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { rows: [], index: 0, row: null, criteria: new Set(), reviewer: "" };
const viewer = new Viewer($("viewer"), SETTINGS.images.length);

function mine(r) { return r.decisions[state.reviewer]; }
function matches(r) {
  const g = $("filter-group").value, s = $("filter-status").value, d = mine(r);
  if (g && r.group !== g) return false;
  if (s === "unreviewed") return !d;
  if (s === "rejected") return Object.values(r.decisions).some(x => x.verdict === "reject");
  if (s === "accepted") return d && d.verdict === "accept";
  if (s === "disagreed") return new Set(Object.values(r.decisions).map(x => x.verdict)).size > 1;
  return true;
}
function visible() { return state.rows.filter(matches); }

function renderProgress() {
  const groups = {};
  for (const r of state.rows) {
    const g = groups[r.group] || (groups[r.group] = [0, 0]);
    g[1]++; if (mine(r)) g[0]++;
  }
  const done = state.rows.filter(mine).length;
  const bar = (label, d, n, cls) => `<div class="bar ${cls || ""}" title="${label}: ${d}/${n} reviewed"><i style="width:${100 * d / Math.max(n, 1)}%"></i><b>${label} ${d}/${n}</b></div>`;
  $("progress").innerHTML = bar("reviewed", done, state.rows.length, "total")
    + Object.entries(groups).map(([g, [d, n]]) => bar(esc(g), d, n)).join("");
}

function renderOthers() {
  // what the log says (names, criteria, notes) comes with the build folder: inserted as text only
  const r = state.rows.find(x => x.id === state.row.id);
  const entries = Object.entries(r ? r.decisions : {});
  const box = $("others");
  box.replaceChildren();
  if (!entries.length) {
    const none = document.createElement("div");
    none.className = "keys"; none.textContent = "no decision yet";
    box.append(none);
    return;
  }
  for (const [who, d] of entries) {
    const line = document.createElement("div"), name = document.createElement("b"), verdict = document.createElement("span");
    name.textContent = who;
    verdict.className = d.verdict === "reject" ? "verdict-reject" : "verdict-accept";
    verdict.textContent = d.verdict;
    line.append(name, ": ", verdict,
      (d.criteria.length ? " (" + d.criteria.join(", ") + ")" : "") + (d.note ? " — " + d.note : ""));
    box.append(line);
  }
}

function renderAgreement(a) {
  $("agreement").innerHTML = a.pairs.length
    ? a.pairs.map(p => `agreement ${esc(p.reviewers.join(" / "))}: ${(100 * p.agreement).toFixed(0)}% over ${p.rows} rows, Cohen's κ ${p.kappa === null ? "n/a" : p.kappa.toFixed(2)}`).join("<br>")
    : `reviewers: ${a.reviewers.map(esc).join(", ") || "none yet"}`;
}

function esc(t) { const d = document.createElement("div"); d.textContent = String(t); return d.innerHTML; }

async function refresh() {
  const data = await api("api/rows");
  state.rows = data.rows;
  const groups = [...new Set(data.rows.map(r => r.group))];
  const sel = $("filter-group");
  if (sel.options.length === 1) groups.forEach(g => sel.add(new Option(g, g)));
  $("malformed").innerHTML = data.malformed.map(m => `${esc(data.log)} line ${m.line}: ${esc(m.error)} (kept; not counted)`).join("<br>");
  renderAgreement(data.agreement);
  renderProgress();
}

async function show(id) {
  const seq = state.shown = (state.shown || 0) + 1;  // a later show wins over one still loading
  state.target = id;  // keys step on from the row asked for, even while it loads
  const row = await api("api/row/" + encodeURIComponent(id));
  if (seq !== state.shown) return;
  state.row = row;
  const list = visible();
  $("position").textContent = `row ${list.findIndex(r => r.id === id) + 1} of ${list.length} shown`;
  $("question").textContent = row.question;
  $("options").innerHTML = row.options.map(o => `<li class="${o.letter === row.answer ? "correct" : ""}"><b>${o.letter}.</b> ${esc(o.text)}</li>`).join("")
    + (row.options.length ? "" : `<li class="correct"><b>→</b> ${esc(row.answer)}</li>`);
  $("meta").innerHTML = Object.entries(row.meta).map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join("");
  const d = (state.rows.find(r => r.id === id) || { decisions: {} }).decisions[state.reviewer];
  state.criteria = new Set(d ? d.criteria : []);
  $("note").value = d ? d.note : "";
  renderCriteria();
  renderOthers();
  $("status").textContent = d ? `you: ${d.verdict}` : "";
  $("status").className = "status";
  await viewer.load(SETTINGS.images.map((_, i) => `image/${encodeURIComponent(id)}/${i}?v=${row.version}`), row.boxes);
  if (seq !== state.shown) return;
  document.body.dataset.row = id;
}

function renderCriteria() {
  $("criteria").innerHTML = SETTINGS.criteria.map(([key, label], i) =>
    `<label><input type="checkbox" data-key="${key}" ${state.criteria.has(key) ? "checked" : ""}> <kbd>${i + 1}</kbd> ${esc(label)}</label>`).join("");
  $("criteria").querySelectorAll("input").forEach(box => box.addEventListener("change", () => {
    box.checked ? state.criteria.add(box.dataset.key) : state.criteria.delete(box.dataset.key);
  }));
}

function step(delta) {
  const list = visible();
  if (!list.length) return;
  let i = list.findIndex(r => r.id === state.target);
  i = i < 0 ? 0 : Math.max(0, Math.min(list.length - 1, i + delta));
  show(list[i].id);
}

function nextUnreviewed() {
  const list = visible(), at = list.findIndex(r => r.id === state.target);
  const next = [...list.slice(at + 1), ...list.slice(0, at + 1)].find(r => !mine(r));
  if (next) show(next.id); else { $("status").textContent = "every row shown is reviewed"; $("status").className = "status saved"; }
}

async function decide(verdict) {
  const id = state.row.id;
  const body = { id, reviewer: state.reviewer, verdict, criteria: verdict === "reject" ? [...state.criteria] : [], note: $("note").value };
  $("status").textContent = "saving…"; $("status").className = "status";
  try {
    const res = await api("api/decision", body);
    if (!res.saved) throw new Error("not saved");
    await refresh();
    $("status").textContent = `saved: ${verdict}`; $("status").className = "status saved";
    document.body.dataset.saved = (+(document.body.dataset.saved || 0) + 1).toString();
    const list = visible(), at = list.findIndex(r => r.id === id);
    const next = list.slice(Math.max(at + 1, 0)).find(r => !mine(r)) || list[at + 1];
    if (next) await show(next.id); else renderOthers();
  } catch (e) {
    $("status").textContent = "NOT saved: " + e.message; $("status").className = "status error";
  }
}

function toggleCriterion(i) {
  const key = SETTINGS.criteria[i] && SETTINGS.criteria[i][0];
  if (!key) return;
  state.criteria.has(key) ? state.criteria.delete(key) : state.criteria.add(key);
  renderCriteria();
}

document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "TEXTAREA" || e.target.tagName === "SELECT" || e.target.tagName === "INPUT" && e.target.type === "text") {
    if (e.key === "Escape") e.target.blur();
    return;
  }
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const k = e.key;
  const acts = {
    a: () => decide("accept"), r: () => decide("reject"), n: () => $("note").focus(), j: () => step(1), ArrowRight: () => step(1),
    k: () => step(-1), ArrowLeft: () => step(-1), u: () => nextUnreviewed(), c: () => viewer.toggleBoxes(),
  };
  if (/^[1-9]$/.test(k) && +k <= SETTINGS.criteria.length) toggleCriterion(+k - 1);
  else if (acts[k]) acts[k]();
  else if (!viewerKeys(viewer, k)) return;
  e.preventDefault();
});

document.querySelectorAll(".tools button").forEach(b => b.addEventListener("click", () => {
  if (b.dataset.act === "c") viewer.toggleBoxes(); else viewerKeys(viewer, b.dataset.act);
}));
$("accept").addEventListener("click", () => decide("accept"));
$("reject").addEventListener("click", () => decide("reject"));
$("prev").addEventListener("click", () => step(-1));
$("next").addEventListener("click", () => step(1));
$("next-unreviewed").addEventListener("click", nextUnreviewed);
for (const id of ["filter-group", "filter-status"]) $(id).addEventListener("change", () => { const l = visible(); if (l.length) show(l[0].id); });
$("reviewer").addEventListener("change", async () => { state.reviewer = $("reviewer").value.trim() || SETTINGS.reviewer; await refresh(); nextUnreviewed(); });
window.addEventListener("resize", () => viewer.fit());

(async function start() {
  const params = new URLSearchParams(location.search);
  state.reviewer = params.get("reviewer") || SETTINGS.reviewer;
  $("reviewer").value = state.reviewer;
  $("note").maxLength = SETTINGS.note_limit;
  $("title").textContent = `${SETTINGS.benchmark} review`;
  $("group-label").textContent = SETTINGS.group.replace("augmentation", "config");
  hideComparisonTools();
  await refresh();
  const first = state.rows.find(r => !mine(r)) || state.rows[0];  // resume at the first unreviewed row
  await show(first.id);
  document.body.dataset.ready = "1";
})();
