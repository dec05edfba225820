// The study page: one item at a time under the server's clock; it never learns the answer.
"use strict";

const $ = (id) => document.getElementById(id);
const viewer = new Viewer($("viewer"), SETTINGS.images.length);
let item = null, deadline = null, ticker = null, busy = false;

function esc(t) { const d = document.createElement("div"); d.textContent = String(t); return d.innerHTML; }

function tick() {
  if (deadline === null) { $("countdown").textContent = "no time limit"; return; }
  const left = Math.max(0, (deadline - performance.now()) / 1000);
  $("countdown").textContent = left.toFixed(left < 10 ? 1 : 0) + " s";
  $("countdown").classList.toggle("low", left < 10);
  if (left <= 0 && item && !busy) submit(null);
}

async function next() {
  const got = await api("api/next", {});
  clearInterval(ticker);
  if (got.done) {
    item = null;
    $("item").hidden = true; $("done").hidden = false; $("countdown").textContent = "";
    $("done-text").textContent = `All ${SETTINGS.n} items answered; the answers are in ${got.file} of the build.`;
    document.body.dataset.done = "1";
    return;
  }
  item = got;
  $("position").textContent = `item ${got.position} of ${got.n}`;
  $("question").textContent = got.question;
  $("options").innerHTML = got.options.map(o => `<li data-letter="${o.letter}"><b>${o.letter}.</b> ${esc(o.text)}</li>`).join("");
  $("options").querySelectorAll("li").forEach(li => li.addEventListener("click", () => submit(li.dataset.letter)));
  $("free").hidden = got.options.length > 0;
  $("free-text").value = "";
  $("status").textContent = "";
  deadline = got.seconds_left === null ? null : performance.now() + got.seconds_left * 1000;
  await viewer.load(SETTINGS.images.map((_, i) => `image/${got.k}/${i}?key=${got.key}`), []);
  if (!got.options.length) $("free-text").focus();
  tick();
  ticker = setInterval(tick, 100);
  document.body.dataset.k = String(got.k);
  document.body.dataset.position = String(got.position);
}

async function submit(response) {
  if (!item || busy) return;
  busy = true;
  try {
    await api("api/answer", { k: item.k, response });
    document.body.dataset.answered = String(+(document.body.dataset.answered || 0) + 1);
    await next();
  } catch (e) {
    $("status").textContent = "not saved: " + e.message; $("status").className = "status error";
    await next();  // the server may have recorded a timeout meanwhile
  } finally { busy = false; }
}

document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (!$("start").hidden) { if (e.key === "Enter") { e.preventDefault(); begin(); } return; }
  if (e.target.id === "free-text") {
    if (e.key === "Enter" && e.target.value.trim()) submit(e.target.value.trim());
    return;
  }
  if (!item) return;
  const letter = e.key.toUpperCase();
  if (item.options.some(o => o.letter.toUpperCase() === letter) && e.key.length === 1 && /[a-eA-E]/.test(e.key)) {
    submit(item.options.find(o => o.letter.toUpperCase() === letter).letter);
  } else if (!viewerKeys(viewer, e.key)) return;
  e.preventDefault();
});

document.querySelectorAll(".tools button").forEach(b => b.addEventListener("click", () => viewerKeys(viewer, b.dataset.act)));
window.addEventListener("resize", () => viewer.fit());

async function begin() {
  if ($("start").hidden) return;
  $("start").hidden = true; $("item").hidden = false;
  await next();
}
$("begin").addEventListener("click", begin);

(async function start() {
  $("title").textContent = `${SETTINGS.benchmark} study`;
  hideComparisonTools();
  $("who").textContent = `participant ${SETTINGS.participant}`;
  $("instructions").textContent = SETTINGS.instructions;
  const s = await api("api/state");
  if (s.answered) $("instructions").textContent += ` ${s.answered} already answered; you continue where you left off.`;
  document.body.dataset.ready = "1";
})();
