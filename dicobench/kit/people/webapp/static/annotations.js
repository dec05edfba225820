// The annotation review page: one card per object, its picture drawn by the server when the card
// scrolls into view (loading="lazy"), accept / reject saved at once.
"use strict";

const state = { annotations: [] };
const reviewerInput = document.getElementById("reviewer");
reviewerInput.value = SETTINGS.reviewer;

function card(a) {
  const el = document.createElement("figure");
  el.className = "object";
  el.dataset.id = a.id;
  const img = document.createElement("img");
  img.loading = "lazy";
  img.alt = `${a.label} in ${a.file_name}`;
  img.src = `image/${a.id}`;
  const caption = document.createElement("figcaption");
  const score = a.score === null || a.score === undefined ? "" : ` (score ${a.score.toFixed(2)})`;
  caption.textContent = `${a.label}${score}, ${a.file_name}` + (a.ignore ? ", never edited" : "");
  el.append(img, caption);
  for (const verdict of ["accept", "reject"]) {
    const button = document.createElement("button");
    button.textContent = verdict;
    button.dataset.verdict = verdict;
    button.addEventListener("click", () => decide(a, verdict, el));
    el.append(button);
  }
  mark(el, a.verdict);
  return el;
}

function mark(el, verdict) {
  el.dataset.verdict = verdict || "";
  el.querySelectorAll("button").forEach(b => b.classList.toggle("chosen", b.dataset.verdict === verdict));
}

function decide(a, verdict, el) {
  api("api/decision", { id: a.id, verdict, reviewer: reviewerInput.value })
    .then(() => { a.verdict = verdict; mark(el, verdict); show(); })
    .catch(e => { document.getElementById("status").textContent = `not saved: ${e.message}`; });
}

function show() {
  const wanted = document.getElementById("filter-status").value;
  let shown = 0;
  document.querySelectorAll(".object").forEach(el => {
    const v = el.dataset.verdict;
    const keep = !wanted || (wanted === "unreviewed" ? !v : v === wanted);
    el.hidden = !keep;
    shown += keep;
  });
  const done = state.annotations.filter(a => a.verdict).length;
  document.getElementById("position").textContent = `${shown} shown, ${done} of ${state.annotations.length} reviewed`;
}

document.getElementById("filter-status").addEventListener("change", show);
api("api/annotations").then(data => {
  state.annotations = data.annotations;
  const box = document.getElementById("objects");
  data.annotations.forEach(a => box.append(card(a)));
  document.getElementById("status").textContent = `verdicts are saved in ${data.log}`;
  show();
}).catch(e => { document.getElementById("status").textContent = `cannot list the annotations: ${e.message}`; });
