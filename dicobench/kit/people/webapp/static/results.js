// The results explorer: every row of one scored run (or two side by side) with its images, the
// question, and per run the reply, what was read from it, the outcome, the error type and the
// judge's verdict. Read only. Every text from the runs and the build is inserted as text.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { rows: [], row: null };
const viewer = new Viewer($("viewer"), SETTINGS.images.length);
const RUNS = SETTINGS.runs;
const MARK = { right: "✓", wrong: "✗", unscored: "?" };
const FILTERS = { group: "f-group", in: "f-in", outcome: "f-outcome", error: "f-error" };

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
function label(t) { return String(t).replace(/_/g, " "); }

function disagree(r) {  // both runs scored the row and read or decided it differently
  const [a, b] = r.runs;
  return !!(a && b && a.outcome !== "unscored" && b.outcome !== "unscored" && (a.outcome !== b.outcome || a.read !== b.read));
}

function matches(r) {
  const g = $("f-group").value, inRun = $("f-in").value, o = $("f-outcome").value, e = $("f-error").value;
  if (g && r.group !== g) return false;
  if (o === "disagree") return disagree(r);
  if (o === "only0" || o === "only1") {
    const k = +o.slice(4), a = r.runs[k], b = r.runs[1 - k];
    return !!(a && b && a.outcome === "right" && b.outcome === "wrong");
  }
  const runs = (inRun === "" ? r.runs : [r.runs[+inRun]]).filter(Boolean);
  return runs.some(x => (!o || x.outcome === o) && (!e || x.error_type === e) && (!$("f-unparsed").checked || x.unparsed));
}
function visible() { return state.rows.filter(matches); }

function keepFilters() {  // in the address, so a view of the results can be shared or reloaded
  const params = new URLSearchParams();
  for (const [key, id] of Object.entries(FILTERS)) if ($(id).value) params.set(key, $(id).value);
  if ($("f-unparsed").checked) params.set("unparsed", "1");
  if (state.row) params.set("row", state.row.id);
  history.replaceState(null, "", "?" + params.toString());
}

function renderSummary() {
  const box = $("summary");
  box.textContent = "";
  RUNS.forEach((run, k) => {
    const s = el("span", "run run" + k);
    s.appendChild(el("b", null, run.name));
    s.appendChild(document.createTextNode(` ${run.accuracy}% ${run.ci} (n=${run.n}${run.complete ? "" : ", incomplete"})`));
    s.title = `model ${run.model || "-"}; folder ${run.folder}`;
    box.appendChild(s);
  });
}

function renderList() {
  const list = $("list"), shown = visible();
  list.textContent = "";
  for (const r of shown) {
    const item = el("button", "item" + (state.row && state.row.id === r.id ? " current" : ""));
    item.dataset.id = r.id;
    r.runs.forEach((x, k) => item.appendChild(el("span", "mark " + (x ? x.outcome : "absent") + " run" + k, x ? MARK[x.outcome] : "–")));
    item.appendChild(el("span", "name", r.id));
    item.addEventListener("click", () => show(r.id));
    list.appendChild(item);
  }
  if (!shown.length) list.appendChild(el("div", "keys", "no row matches these filters"));
  const at = shown.findIndex(r => state.row && r.id === state.row.id);
  $("position").textContent = `${at < 0 ? "-" : at + 1} of ${shown.length} shown (${state.rows.length} rows)`;
  const current = list.querySelector(".current");
  if (current) current.scrollIntoView({ block: "nearest" });
}

function renderOptions(row) {
  const options = $("options");
  options.textContent = "";
  const items = row.options.length ? row.options : [{ letter: "→", text: row.answer }];
  for (const o of items) {
    const li = el("li", o.letter === row.answer || !row.options.length ? "correct" : "");
    li.appendChild(el("b", null, o.letter + (row.options.length ? "." : "")));
    li.appendChild(document.createTextNode(" " + o.text));
    row.runs.forEach((x, k) => {
      if (x && x.read !== null && x.read === o.letter) li.appendChild(el("span", "chosen run" + k, RUNS[k].name));
    });
    options.appendChild(li);
  }
}

function renderAnswers(row) {
  const box = $("answers");
  box.textContent = "";
  row.runs.forEach((x, k) => {
    const card = el("section", "answer run" + k);
    const head = el("h2");
    head.appendChild(el("span", "swatch run" + k));
    head.appendChild(document.createTextNode(RUNS[k].name));
    card.appendChild(head);
    if (!x) { card.appendChild(el("div", "keys", "not in this run")); box.appendChild(card); return; }
    const badges = el("div", "badges");
    badges.appendChild(el("span", "badge " + x.outcome, x.outcome));
    if (x.error_type) badges.appendChild(el("span", "badge kind", label(x.error_type)));
    if (x.unparsed && x.error_type !== "unparsed") badges.appendChild(el("span", "badge kind", "nothing read"));
    if (x.judge) badges.appendChild(el("span", "badge judge", "judge: " + label(x.judge)));
    card.appendChild(badges);
    const facts = el("dl", "meta");
    const add = (k2, v) => { facts.appendChild(el("dt", null, k2)); facts.appendChild(el("dd", null, v)); };
    add("read", x.read === null ? "nothing" : x.read);
    add("right answer", x.answer);
    if (x.unscored) add("unscored", x.unscored);
    card.appendChild(facts);
    card.appendChild(el("div", "keys", "reply"));
    card.appendChild(el("pre", "reply", x.response === null ? "(no reply)" : x.response));
    box.appendChild(card);
  });
}

async function show(id) {
  const seq = state.shown = (state.shown || 0) + 1;  // a later show wins over one still loading
  state.target = id;  // keys step on from the row asked for, even while it loads
  delete document.body.dataset.row;  // names the row shown only once all of it is: not while another loads
  const row = await api("api/row/" + encodeURIComponent(id));
  if (seq !== state.shown) return;
  state.row = row;
  $("question").textContent = row.question;
  renderOptions(row);
  renderAnswers(row);
  const meta = $("meta");
  meta.textContent = "";
  for (const [k, v] of Object.entries(row.meta)) { meta.appendChild(el("dt", null, k)); meta.appendChild(el("dd", null, v)); }
  meta.appendChild(el("dt", null, "id")); meta.appendChild(el("dd", null, row.id));
  renderList();
  keepFilters();
  await viewer.load(SETTINGS.images.map((_, i) => `image/${encodeURIComponent(id)}/${i}?v=${row.version}`), row.boxes);
  if (seq !== state.shown) return;
  document.body.dataset.row = id;
}

function step(delta) {
  const list = visible();
  if (!list.length) return;
  let i = list.findIndex(r => r.id === state.target);
  i = i < 0 ? 0 : Math.max(0, Math.min(list.length - 1, i + delta));
  show(list[i].id);
}

function refilter() {  // the list follows the filters at once; a row they hide gives way to the first shown
  renderList();
  keepFilters();
  const list = visible();
  if (list.length && !list.some(r => r.id === state.target)) show(list[0].id);
}

document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "SELECT" || e.target.tagName === "INPUT" && e.target.type === "text") return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const acts = { j: () => step(1), ArrowRight: () => step(1), k: () => step(-1), ArrowLeft: () => step(-1),
                 c: () => viewer.toggleBoxes() };
  if (acts[e.key]) acts[e.key]();
  else if (!viewerKeys(viewer, e.key)) return;
  e.preventDefault();
});
document.querySelectorAll(".tools button").forEach(b => b.addEventListener("click", () => {
  if (b.dataset.act === "c") viewer.toggleBoxes(); else viewerKeys(viewer, b.dataset.act);
}));
$("prev").addEventListener("click", () => step(-1));
$("next").addEventListener("click", () => step(1));
for (const id of [...Object.values(FILTERS), "f-unparsed"]) $(id).addEventListener("change", refilter);
window.addEventListener("resize", () => viewer.fit());

(async function start() {
  $("title").textContent = `${SETTINGS.benchmark} results`;
  document.title = `${SETTINGS.benchmark} results: ${RUNS.map(r => r.name).join(" vs ")}`;
  $("group-label").textContent = SETTINGS.group.replace("augmentation", "config");
  SETTINGS.error_types.forEach(t => $("f-error").add(new Option(label(t), t)));
  if (RUNS.length > 1) {
    $("f-in-label").hidden = false;
    RUNS.forEach((run, k) => $("f-in").add(new Option(run.name, String(k))));
    $("f-outcome").add(new Option("the runs disagree", "disagree"));
    RUNS.forEach((run, k) => $("f-outcome").add(new Option(`only ${run.name} right`, "only" + k)));
  }
  hideComparisonTools();
  renderSummary();
  const data = await api("api/rows");
  state.rows = data.rows;
  [...new Set(data.rows.map(r => r.group))].forEach(g => $("f-group").add(new Option(g, g)));
  const params = new URLSearchParams(location.search);
  for (const [key, id] of Object.entries(FILTERS)) {
    const value = params.get(key);
    if (value !== null && [...$(id).options].some(o => o.value === value)) $(id).value = value;
  }
  $("f-unparsed").checked = params.get("unparsed") === "1";
  viewer.showBoxes = true;  // the cues are what a wrong answer is about
  const list = visible();
  const first = list.find(r => r.id === params.get("row")) || list[0] || state.rows[0];
  await show(first.id);
  document.body.dataset.ready = "1";
})();
