// Runs the flame graph SVG's own script (no browser here) against a small
// stand-in for the DOM built from the SVG's frames, and checks what a user
// sees: zoom widths and hidden frames, search highlighting and its share,
// reset, and the ?s= / ?zoom= parameters. Usage: node THIS FILE.svg
// (flamegraph_test.cpp runs it). Prints "ok" or throws.
"use strict";
const fs = require("fs");
const vm = require("vm");
const assert = require("assert");

const svgText = fs.readFileSync(process.argv[2], "utf8");
const unescape = (s) => s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'").replace(/&amp;/g, "&");

class El {
  constructor(tag, attrs) {
    this.tag = tag;
    this.attrs = Object.assign({}, attrs);
    this.children = [];
    this.parentNode = null;
    this.nodeType = 1;
    this.textContent = "";
    this.listeners = {};
    this.value = "";
    const cls = new Set((this.attrs["class"] || "").split(" ").filter(Boolean));
    this.classList = {
      add: (c) => cls.add(c), remove: (c) => cls.delete(c), contains: (c) => cls.has(c),
    };
  }
  getAttribute(n) { return n in this.attrs ? this.attrs[n] : null; }
  setAttribute(n, v) { this.attrs[n] = String(v); }
  append(c) { c.parentNode = this; this.children.push(c); return c; }
  querySelector(tag) { return this.children.find((c) => c.tag === tag) || null; }
  addEventListener(type, f) { this.listeners[type] = f; }
  focus() {}
}

const attrsOf = (s) => {
  const a = {};
  for (const m of s.matchAll(/([\w-]+)="([^"]*)"/g)) a[m[1]] = unescape(m[2]);
  return a;
};
const root = new El("svg", attrsOf(svgText.match(/<svg ([^>]*)>/)[1]));
const byId = {};
for (const id of ["details", "matched", "reset", "search"]) byId[id] = root.append(new El(id === "search" ? "input" : "text", { id }));
const frames = [];
const frameRe = /<g class="f" ([^>]*)><title>([^<]*)<\/title><rect ([^>]*)\/><text ([^>]*)>([^<]*)<\/text><\/g>/g;
for (const m of svgText.matchAll(frameRe)) {
  const g = root.append(new El("g", Object.assign({ class: "f" }, attrsOf(m[1]))));
  g.append(new El("title", {})).textContent = unescape(m[2]);
  g.append(new El("rect", attrsOf(m[3])));
  g.append(new El("text", attrsOf(m[4]))).textContent = unescape(m[5]);
  frames.push(g);
}
assert(frames.length > 1, "no frames in the SVG");
const script = svgText.match(/<script[^>]*><!\[CDATA\[([\s\S]*?)\]\]><\/script>/)[1];

function load(search) {
  for (const g of frames) {  // a fresh page: the attributes as written
    g.classList.remove("hidden");
    g.classList.remove("anc");
  }
  const winListeners = {};
  const ctx = {
    document: {
      documentElement: root,
      querySelectorAll: (sel) => (sel === "g.f" ? frames.slice() : []),
      getElementById: (id) => byId[id] || null,
    },
    window: { location: { search }, addEventListener: (t, f) => { winListeners[t] = f; } },
    URLSearchParams,
  };
  vm.createContext(ctx);
  vm.runInContext(script + "\nflameInit();", ctx);
  return ctx;
}

const W = +root.getAttribute("width") - 2 * +root.getAttribute("data-pad");
const num = (g, a) => +g.querySelector("rect").getAttribute(a);
const hidden = (g) => g.classList.contains("hidden");
const name = (g) => g.getAttribute("data-n");

// Zoom into the widest frame at depth 2 that has callees.
let ctx = load("");
const target = frames.filter((g) => +g.getAttribute("data-d") === 2)
    .sort((a, b) => +b.getAttribute("data-w") - +a.getAttribute("data-w"))[0];
assert(target, "no frame at depth 2");
const tx = +target.getAttribute("data-x"), tw = +target.getAttribute("data-w"), td = 2;
// A click on the frame's rectangle zooms (the listener sits on the root).
root.listeners.click({ target: target.querySelector("rect") });
assert.strictEqual(num(target, "width").toFixed(2), W.toFixed(2));
assert.strictEqual(num(target, "x"), +root.getAttribute("data-pad"));
assert.strictEqual(byId.reset.getAttribute("visibility"), "visible");
for (const g of frames) {
  const x = +g.getAttribute("data-x"), w = +g.getAttribute("data-w"), d = +g.getAttribute("data-d");
  const inside = d >= td && x >= tx && x + w <= tx + tw;
  const below = d < td && x <= tx && x + w >= tx + tw;
  if (below) assert(g.classList.contains("anc") && num(g, "width").toFixed(2) === W.toFixed(2), name(g));
  else if (inside && w * W / tw >= 0.1) {
    assert(!hidden(g), "hidden inside the zoom: " + name(g));
    assert(Math.abs(num(g, "width") - w * W / tw) < 0.01, name(g));
  } else assert(hidden(g), "shown outside the zoom: " + name(g));
}
// Hover shows the title; reset restores the full graph.
root.listeners.mouseover({ target: target.querySelector("rect") });
assert.strictEqual(byId.details.textContent, target.querySelector("title").textContent);
root.listeners.click({ target: byId.reset });
assert(frames.every((g) => !hidden(g) && !g.classList.contains("anc")));
assert.strictEqual(byId.reset.getAttribute("visibility"), "hidden");

// Search the name of the zoomed frame: the matched share is its samples
// and those of other frames of that name not below it, over the total.
byId.search.value = name(target).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
byId.search.listeners.input();
const total = +root.getAttribute("data-total");
let spans = frames.filter((g) => name(g) === name(target) && +g.getAttribute("data-d") > 0)
    .map((g) => [+g.getAttribute("data-x"), +g.getAttribute("data-x") + +g.getAttribute("data-w")])
    .sort((a, b) => a[0] - b[0] || b[1] - a[1]);
let covered = 0, end = -1;
for (const s of spans) if (s[1] > end) { covered += s[1] - Math.max(s[0], end); end = s[1]; }
assert.strictEqual(byId.matched.textContent,
    "Matched: " + (100 * covered / total).toFixed(2) + "% (" + covered + " of " + total + " samples)");
assert.strictEqual(target.querySelector("rect").getAttribute("fill"), "rgb(230,0,230)");
byId.search.listeners.keydown({ key: "Escape" });
assert.strictEqual(byId.matched.textContent, " ");
assert(frames.every((g) => g.querySelector("rect").getAttribute("fill") !== "rgb(230,0,230)"));

// ?s=REGEX&zoom=NAME on load; an invalid regex is searched as text.
ctx = load("?s=" + encodeURIComponent("(") + "&zoom=" + encodeURIComponent(name(target)));
assert(byId.matched.textContent.startsWith("Matched: "), byId.matched.textContent);
assert.strictEqual(byId.reset.getAttribute("visibility"), "visible");
console.log("ok");
