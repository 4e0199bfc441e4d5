// The flame graph's script: hover details, zoom, search. Plain ES5 that
// runs in the SVG document of any current browser; it reads the layout
// from the frames' data-* attributes (x and width in samples, depth, name)
// written by svg.cpp. URL parameters ?s=REGEX and ?zoom=NAME search and
// zoom on load (for links and headless checks).
#include "flamegraph/svg.h"

namespace xtap::flamegraph {

const char *const kFlameGraphScript = R"JS("use strict";
var flame = {};
function flameInit() {
  var svg = document.documentElement;
  flame.pad = +svg.getAttribute("data-pad");
  flame.total = +svg.getAttribute("data-total");
  flame.font = +svg.getAttribute("data-font");
  flame.width = +svg.getAttribute("width") - 2 * flame.pad;
  flame.frames = [].slice.call(document.querySelectorAll("g.f"));
  flame.frames.forEach(function (g) {
    g.fx = +g.getAttribute("data-x");
    g.fw = +g.getAttribute("data-w");
    g.fd = +g.getAttribute("data-d");
    g.fn = g.getAttribute("data-n");
    g.rect = g.querySelector("rect");
    g.label = g.querySelector("text");
    g.fill = g.rect.getAttribute("fill");
    if (g.fd === 0) flame.root = g;
  });
  flame.details = document.getElementById("details");
  flame.matched = document.getElementById("matched");
  flame.reset = document.getElementById("reset");
  flame.search = document.getElementById("search");
  svg.addEventListener("mouseover", function (e) {
    var g = frameOf(e.target);
    if (g) flame.details.textContent = g.querySelector("title").textContent;
  });
  svg.addEventListener("mouseout", function (e) {
    if (frameOf(e.target)) flame.details.textContent = " ";
  });
  svg.addEventListener("click", function (e) {
    var g = frameOf(e.target);
    if (g) zoom(g);
    else if (e.target === flame.reset) zoom(null);
  });
  if (flame.search) {
    flame.search.addEventListener("input", function () { search(flame.search.value); });
    flame.search.addEventListener("keydown", function (e) {
      if (e.key === "Escape") { flame.search.value = ""; search(""); }
    });
  }
  window.addEventListener("keydown", function (e) {
    if (flame.search && (e.ctrlKey || e.metaKey) && e.key === "f") {
      e.preventDefault();
      flame.search.focus();
    }
  });
  var params = new URLSearchParams(window.location.search);
  if (params.get("zoom")) {
    var best = null;
    flame.frames.forEach(function (g) {
      if (g.fn === params.get("zoom") && (!best || g.fw > best.fw)) best = g;
    });
    if (best) zoom(best);
  }
  if (params.get("s")) {
    if (flame.search) flame.search.value = params.get("s");
    search(params.get("s"));
  }
}
function frameOf(node) {
  while (node && node.nodeType === 1) {
    if (node.classList && node.classList.contains("f")) return node;
    node = node.parentNode;
  }
  return null;
}
function place(g, x, w) {
  g.rect.setAttribute("x", x.toFixed(2));
  g.rect.setAttribute("width", w.toFixed(2));
  g.label.setAttribute("x", (x + 3).toFixed(2));
  var fits = Math.floor((w - 6) / (flame.font * 0.59));
  g.label.textContent = fits < 3 ? "" : g.fn.length <= fits ? g.fn : g.fn.substring(0, fits - 2) + "..";
}
// Zoom into g (null: the whole graph): its subtree fills the width, its
// callers stay below at full width, faded; everything else is hidden.
function zoom(g) {
  var z = g || flame.root;
  if (!z) return;
  var scale = flame.width / z.fw;
  flame.frames.forEach(function (f) {
    f.classList.remove("hidden");
    f.classList.remove("anc");
    if (f.fd < z.fd && f.fx <= z.fx && f.fx + f.fw >= z.fx + z.fw) {
      f.classList.add("anc");
      place(f, flame.pad, flame.width);
    } else if (f.fd >= z.fd && f.fx >= z.fx && f.fx + f.fw <= z.fx + z.fw && f.fw * scale >= 0.1) {
      place(f, flame.pad + (f.fx - z.fx) * scale, f.fw * scale);
    } else {
      f.classList.add("hidden");
    }
  });
  flame.reset.setAttribute("visibility", z === flame.root ? "hidden" : "visible");
}
// Highlight the frames whose name matches (a regular expression, or the
// plain text when it is not one) and show their share of all samples,
// nested matches counted once.
function search(term) {
  var re = null;
  if (term) {
    try { re = new RegExp(term); } catch (err) {
      re = new RegExp(term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    }
  }
  var spans = [];
  flame.frames.forEach(function (f) {
    var hit = re !== null && f.fd > 0 && re.test(f.fn);
    f.rect.setAttribute("fill", hit ? "rgb(230,0,230)" : f.fill);
    if (hit) spans.push([f.fx, f.fx + f.fw]);
  });
  spans.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });
  var covered = 0, end = -1;
  spans.forEach(function (s) {
    if (s[1] <= end) return;
    covered += s[1] - Math.max(s[0], end);
    end = s[1];
  });
  flame.matched.textContent = re === null ? " " :
      "Matched: " + (flame.total ? (100 * covered / flame.total).toFixed(2) : "0.00") + "% (" + covered + " of " +
      flame.total + " samples)";
}
)JS";

}  // namespace xtap::flamegraph
