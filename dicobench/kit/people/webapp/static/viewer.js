// Two-image comparison viewer shared by the review and study pages: zoom and pan kept in
// step across the images, a loupe, side-by-side / slider / flicker views, boxes on demand.
// Each pane fits its own image (a portrait image beside a landscape one fills its pane too);
// zoom and pan are one transform on top of every pane's fit, so the images move together.
"use strict";

class Viewer {
  constructor(root, count) {
    this.root = root;
    this.count = count;
    this.mode = "side";
    this.scale = 1; this.tx = 0; this.ty = 0;  // zoom (1: fit) and pan (pane pixels), shared by the panes
    this.fits = [];  // per pane: the image's fit, {s, x, y}
    this.flip = 0; this.blinkTimer = null; this.loupe = false; this.showBoxes = false;
    this.split = 50; this.boxes = [];
    root.innerHTML = "";
    root.classList.add("viewer");
    this.panes = [];
    for (let i = 0; i < count; i++) {
      const pane = document.createElement("div");
      pane.className = "pane";
      pane.innerHTML = '<div class="stage"><div class="fitted"><img class="base" draggable="false" alt="">'
        + '<img class="over" draggable="false" alt=""><div class="boxes"></div></div></div><div class="loupe"></div><div class="tag"></div>';
      root.appendChild(pane);
      this.panes.push(pane);
      this._wire(pane);
    }
    this.sliderInput = document.createElement("input");
    this.sliderInput.type = "range"; this.sliderInput.min = 0; this.sliderInput.max = 100; this.sliderInput.value = 50;
    this.sliderInput.className = "split"; this.sliderInput.title = "slider position ([ and ])";
    this.sliderInput.addEventListener("input", () => { this.split = +this.sliderInput.value; this.render(); });
    root.appendChild(this.sliderInput);
    // the panes change size with the page around them (a header that wraps, the countdown's text): fit again
    new ResizeObserver(() => { if (this.natural) this.fit(); }).observe(root);
  }

  load(urls, boxes) {
    this.urls = urls; this.boxes = boxes || []; this.flip = 0;
    this.natural = null;
    const ready = [];
    this.panes.forEach((pane, i) => {
      const base = pane.querySelector("img.base");
      base.src = urls[i];
      ready.push(base.decode ? base.decode().catch(() => null) : Promise.resolve());
      pane.querySelector("img.over").src = urls[1] || "";
    });
    return Promise.all(ready).then(() => {
      this.sizes = this.panes.map(p => { const im = p.querySelector("img.base"); return [im.naturalWidth, im.naturalHeight]; });
      this.natural = this.sizes[0];
      this.fit();
    });
  }

  setMode(mode) {
    if (this.count < 2) mode = "side";
    this.mode = mode;
    if (mode !== "flicker") this.blink(false);
    this.fit();
  }
  cycleMode() { const m = ["side", "slider", "flicker"]; this.setMode(m[(m.indexOf(this.mode) + 1) % m.length]); }
  toggleFlip() { if (this.mode !== "flicker") this.setMode("flicker"); this.flip = 1 - this.flip; this.render(); }
  blink(on) {
    if (on === undefined) on = !this.blinkTimer;
    clearInterval(this.blinkTimer); this.blinkTimer = null;
    if (on) {
      if (this.mode !== "flicker") this.setMode("flicker");
      this.blinkTimer = setInterval(() => { this.flip = 1 - this.flip; this.render(); }, 500);
    }
    this.render();
  }
  toggleBoxes() { this.showBoxes = !this.showBoxes; this.render(); }
  toggleLoupe() { this.loupe = !this.loupe; this.panes.forEach(p => p.querySelector(".loupe").style.display = "none"); this.render(); }
  nudgeSplit(d) { this.split = Math.max(0, Math.min(100, this.split + d)); this.sliderInput.value = this.split; this.render(); }

  visiblePanes() { return this.mode === "side" ? this.panes : [this.panes[0]]; }

  fit() {
    if (!this.natural) return this.render();
    this.render();  // lay panes out first
    const w = this.panes[0].clientWidth, h = this.panes[0].clientHeight;
    this.fits = this.panes.map((pane, i) => {  // in slider and flicker views pane 0 shows both images at image 1's fit
      const [iw, ih] = this.sizes[this.mode === "side" ? i : 0];
      const s = Math.min(w / iw, h / ih);
      return { s, x: (w - iw * s) / 2, y: (h - ih * s) / 2 };
    });
    this.scale = 1; this.tx = 0; this.ty = 0;
    this.render();
  }
  zoomAt(factor, px, py) {
    const f = this.fits.length ? this.fits[0].s : 1;  // image pixels per screen pixel at most 16, at least 0.05
    const s = Math.max(0.05 / f, Math.min(16 / f, this.scale * factor));
    if (px === undefined) { px = this.panes[0].clientWidth / 2; py = this.panes[0].clientHeight / 2; }
    this.tx = px - (px - this.tx) * s / this.scale; this.ty = py - (py - this.ty) * s / this.scale;
    this.scale = s; this.render();
  }
  fullResolution() {
    // image 1 at 100%, centred on the cue (the target for a composite) when the row has one, else on the view's centre
    if (!this.fits.length) return;
    const s = 1 / this.fits[0].s, cue = this.boxes.find(b => b.target) || this.boxes[0];
    if (!cue) return this.zoomAt(s / this.scale);
    const pane = this.mode === "side" && this.count > 1 ? cue.image : 0, fit = this.fits[pane];
    const cx = fit.x + (cue.bbox[0] + cue.bbox[2] / 2) * fit.s, cy = fit.y + (cue.bbox[1] + cue.bbox[3] / 2) * fit.s;
    this.scale = s;
    this.tx = this.panes[pane].clientWidth / 2 - cx * s; this.ty = this.panes[pane].clientHeight / 2 - cy * s;
    this.render();
  }

  _wire(pane) {
    let drag = null;
    pane.addEventListener("wheel", (e) => {
      e.preventDefault();
      const r = pane.getBoundingClientRect();
      this.zoomAt(e.deltaY < 0 ? 1.25 : 0.8, e.clientX - r.left, e.clientY - r.top);
    }, { passive: false });
    pane.addEventListener("pointerdown", (e) => {
      if (this.mode === "slider" && e.shiftKey) return;
      drag = [e.clientX, e.clientY, this.tx, this.ty]; pane.setPointerCapture(e.pointerId);
    });
    pane.addEventListener("pointermove", (e) => {
      const r = pane.getBoundingClientRect();
      if (drag) { this.tx = drag[2] + e.clientX - drag[0]; this.ty = drag[3] + e.clientY - drag[1]; this.render(); }
      if (this.loupe) this._loupeAt(e.clientX - r.left, e.clientY - r.top);
    });
    pane.addEventListener("pointerup", () => { drag = null; });
    pane.addEventListener("pointerleave", () => this.panes.forEach(p => p.querySelector(".loupe").style.display = "none"));
  }

  _shown(i) {  // which image a pane shows now
    if (this.mode === "side") return i;
    return this.mode === "flicker" ? this.flip : 0;
  }

  _loupeAt(x, y) {
    const zoom = 2, radius = 90;
    this.visiblePanes().forEach((pane, i) => {
      const fit = this.fits[i] || { s: 1, x: 0, y: 0 };
      const ix = ((x - this.tx) / this.scale - fit.x) / fit.s, iy = ((y - this.ty) / this.scale - fit.y) / fit.s;
      const l = pane.querySelector(".loupe");
      const img = (this.mode === "slider" && ix * 100 / this.natural[0] > this.split) ? 1 : this._shown(i);
      l.style.display = "block";
      l.style.left = (x - radius) + "px"; l.style.top = (y - radius) + "px";
      l.style.backgroundImage = `url("${this.urls[img]}")`;
      const size = this.sizes[img] || this.natural;
      l.style.backgroundSize = `${size[0] * zoom}px ${size[1] * zoom}px`;
      l.style.backgroundPosition = `${radius - ix * zoom}px ${radius - iy * zoom}px`;
    });
  }

  _keepLabelsIn(pane, layer, shown) {  // a label running past the pane's edge slides back inside it
    const edge = pane.getBoundingClientRect();
    layer.querySelectorAll(".box span").forEach(span => {
      const r = span.getBoundingClientRect();
      const shift = r.right > edge.right ? Math.max(edge.right - r.right, edge.left - r.left) : Math.max(0, edge.left - r.left);
      if (shift) span.style.transform = `translateX(${shift / shown}px)`;
    });
  }

  render() {
    this.root.dataset.mode = this.mode;
    this.sliderInput.style.display = this.mode === "slider" ? "block" : "none";
    this.panes.forEach((pane, i) => {
      const visible = this.mode === "side" || i === 0;
      pane.style.display = visible ? "block" : "none";
      const stage = pane.querySelector(".stage");
      stage.style.transform = `translate(${this.tx}px, ${this.ty}px) scale(${this.scale})`;
      const fit = this.fits[i] || { s: 1, x: 0, y: 0 }, shown = this.scale * fit.s;  // screen pixels per image pixel
      const fitted = pane.querySelector(".fitted");
      fitted.style.transform = `translate(${fit.x}px, ${fit.y}px) scale(${fit.s})`;
      fitted.style.setProperty("--s", shown);
      const base = pane.querySelector("img.base"), over = pane.querySelector("img.over");
      over.style.display = (this.mode === "side" || this.count < 2) ? "none" : "block";
      over.style.clipPath = this.mode === "slider" ? `inset(0 0 0 ${this.split}%)` : "none";
      over.style.opacity = this.mode === "flicker" ? this.flip : 1;
      const tag = pane.querySelector(".tag");
      const labels = (window.SETTINGS && SETTINGS.images) || ["Image 1", "Image 2"];
      tag.textContent = this.mode === "side" ? labels[i] : this.mode === "slider" ? `${labels[0]} | ${labels[1]}` : labels[this.flip];
      const layer = pane.querySelector(".boxes");
      layer.innerHTML = "";
      if (this.showBoxes) {
        for (const b of this.boxes) {
          if (this.mode === "side" && this.count > 1 && b.image !== i) continue;
          const d = document.createElement("div");
          // a label goes inside a box a tenth of the image wide or more (a composite's panels: never over a
          // neighbour's), else above it (a cue, a few dozen pixels)
          const width = (this.sizes && this.sizes[b.image] || this.natural || [Infinity])[0];
          d.className = "box img" + b.image + (b.bbox[2] >= 0.1 * width ? " inside" : "");
          d.style.left = b.bbox[0] + "px"; d.style.top = b.bbox[1] + "px";
          d.style.width = b.bbox[2] + "px"; d.style.height = b.bbox[3] + "px";
          d.innerHTML = "<span></span>"; d.firstChild.textContent = b.label;
          layer.appendChild(d);
        }
        if (visible) this._keepLabelsIn(pane, layer, shown);
      }
    });
  }
}

function viewerKeys(viewer, key) {
  // the comparison keys both pages share; true when the key was one of them
  const acts = {
    v: () => viewer.cycleMode(), s: () => viewer.setMode("side"), f: () => viewer.toggleFlip(),
    x: () => viewer.blink(), l: () => viewer.toggleLoupe(), "+": () => viewer.zoomAt(1.25), "=": () => viewer.zoomAt(1.25),
    "-": () => viewer.zoomAt(0.8), "0": () => viewer.fit(), z: () => viewer.fullResolution(),
    "[": () => viewer.nudgeSplit(-5), "]": () => viewer.nudgeSplit(5),
  };
  if (!acts[key]) return false;
  acts[key]();
  return true;
}

function api(path, body) {
  const headers = { "X-Token": SETTINGS.token };
  const init = body === undefined ? { headers } : { method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify(body) };
  return fetch(path, init).then(async (r) => {
    const data = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(data.error || `${r.status} ${r.statusText}`);
    return data;
  });
}

function hideComparisonTools() {
  // side by side, slider and flicker need two images: their buttons and their keys' help go
  if (SETTINGS.images.length > 1) return;
  document.querySelectorAll('.tools button[data-act="s"], .tools button[data-act="v"], .tools button[data-act="f"], .tools button[data-act="x"], .compare-keys')
    .forEach(b => { b.hidden = true; });
}
