// The flame graph's layout and SVG: see svg.h. The root ("all") is at the
// bottom, callers below their callees; siblings in name order, so that a
// frame's width is the samples of its subtree and the picture depends on
// the stacks only.
#include "flamegraph/svg.h"

#include <cstdio>
#include <map>
#include <memory>
#include <vector>

namespace xtap::flamegraph {
namespace {

struct Node {
  uint64_t samples = 0;
  std::map<std::string, std::unique_ptr<Node>> children;
};

// Deeper frames than this are left out (their samples stay with the
// frame above): the layout recurses once a frame, and no real stack (the
// kernel's are at most 20 deep here) comes near it.
constexpr int kMaxDepth = 1000;

void add_stack(Node *root, const std::string &folded, uint64_t count) {
  root->samples += count;
  Node *n = root;
  size_t from = 0;
  int depth = 0;
  while (from <= folded.size() && depth++ < kMaxDepth) {
    size_t semi = folded.find(';', from);
    if (semi == std::string::npos) semi = folded.size();
    std::string name = folded.substr(from, semi - from);
    from = semi + 1;
    if (name.empty()) continue;  // "a;;b": an empty frame is no frame
    auto &child = n->children[name];
    if (!child) child = std::make_unique<Node>();
    child->samples += count;
    n = child.get();
  }
}

std::string fixed(double v, int decimals = 2) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// FNV-1a: a frame's colour follows its name, the same in every graph.
uint32_t name_hash(const std::string &s, uint32_t seed) {
  uint32_t h = 2166136261u ^ seed;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

// flamegraph.pl's warm palette: reds to yellows.
std::string frame_colour(const std::string &name) {
  double a = (name_hash(name, 1) % 1000) / 1000.0, b = (name_hash(name, 2) % 1000) / 1000.0,
         c = (name_hash(name, 3) % 1000) / 1000.0;
  return "rgb(" + std::to_string(205 + int(50 * c)) + "," + std::to_string(int(230 * a)) + "," +
         std::to_string(int(55 * b)) + ")";
}

// The label that fits in a frame's width, as the script computes it on zoom.
std::string fit_label(const std::string &name, double width, int font_size) {
  int fits = int((width - 6) / (font_size * 0.59));
  if (fits < 3) return "";
  if (int(name.size()) <= fits) return name;
  return name.substr(0, fits - 2) + "..";
}

struct Layout {
  const SvgOptions &o;
  double scale;   // pixels per sample
  int max_depth;  // of the drawn frames
  int height;
  uint64_t total;
  std::string frames;
};

constexpr int kPad = 10, kTop = 54, kBottom = 34;

int deepest(const Node &n, double scale, double min_width, int depth) {
  int d = depth;
  for (const auto &[name, child] : n.children)
    if (child->samples * scale >= min_width)
      d = std::max(d, deepest(*child, scale, min_width, depth + 1));
  return d;
}

void draw(Layout &l, const std::string &name, const Node &n, uint64_t x, int depth) {
  double px = kPad + x * l.scale, pw = n.samples * l.scale;
  int y = l.height - kBottom - (depth + 1) * l.o.frame_height;
  std::string esc = xml_escape(name);
  std::string share = l.total ? fixed(100.0 * n.samples / l.total) : "0.00";
  l.frames += "<g class=\"f\" data-n=\"" + esc + "\" data-x=\"" + std::to_string(x) +
              "\" data-w=\"" + std::to_string(n.samples) + "\" data-d=\"" + std::to_string(depth) +
              "\"><title>" + esc + " (" + std::to_string(n.samples) +
              (n.samples == 1 ? " sample, " : " samples, ") + share + "%)</title><rect x=\"" +
              fixed(px) + "\" y=\"" + std::to_string(y) + "\" width=\"" + fixed(pw) +
              "\" height=\"" + std::to_string(l.o.frame_height - 1) + "\" fill=\"" +
              (depth == 0 ? std::string("rgb(240,200,120)") : frame_colour(name)) +
              "\" rx=\"2\"/><text x=\"" + fixed(px + 3) + "\" y=\"" +
              std::to_string(y + l.o.frame_height - 4) + "\">" +
              xml_escape(fit_label(name, pw, l.o.font_size)) + "</text></g>\n";
  uint64_t child_x = x;
  for (const auto &[child_name, child] : n.children) {
    if (child->samples * l.scale >= l.o.min_width) draw(l, child_name, *child, child_x, depth + 1);
    child_x += child->samples;
  }
}

// The length of the valid UTF-8 sequence at s[i], 0 when it is not one.
size_t utf8_length(const std::string &s, size_t i) {
  unsigned char c = s[i];
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return 0;
  return n;
}

}  // namespace

std::string xml_escape(const std::string &s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      // Symbol names are bytes; the XML must be UTF-8.
      size_t n = utf8_length(s, i);
      if (n == 0) {
        out += '?';
      } else {
        out.append(s, i, n);
        i += n - 1;
      }
      continue;
    }
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // Control characters are not allowed in XML 1.0 text.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t') out += '?';
        else out += c;
    }
  }
  return out;
}

std::string render_svg(const FoldedStacks &stacks, const SvgOptions &o) {
  Node root;
  for (const auto &[folded, count] : stacks) add_stack(&root, folded, count);
  double plot = o.width - 2.0 * kPad;
  Layout l{o, root.samples ? plot / root.samples : 0, 0, 0, root.samples, ""};
  l.max_depth = root.samples ? deepest(root, l.scale, o.min_width, 0) : 0;
  l.height = kTop + (l.max_depth + 1) * o.frame_height + kBottom;
  if (root.samples) draw(l, "all", root, 0, 0);

  std::string w = std::to_string(o.width), h = std::to_string(l.height),
              fs = std::to_string(o.font_size);
  std::string svg;
  svg += "<?xml version=\"1.0\" standalone=\"no\"?>\n";
  svg += "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + w + "\" height=\"" +
         h + "\" viewBox=\"0 0 " + w + " " + h + "\" onload=\"flameInit()\" data-pad=\"" +
         std::to_string(kPad) + "\" data-total=\"" + std::to_string(root.samples) +
         "\" data-font=\"" + fs + "\">\n";
  svg +=
      "<style type=\"text/css\"><![CDATA[\n"
      "text { font-family: Verdana, 'DejaVu Sans', sans-serif; font-size: " +
      fs +
      "px; fill: #000; }\n"
      "#title { font-size: " +
      std::to_string(o.font_size + 5) +
      "px; text-anchor: middle; }\n"
      "g.f { cursor: pointer; }\n"
      "g.f text { pointer-events: none; }\n"
      "g.f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
      "g.anc { opacity: 0.5; }\n"
      "g.hidden { display: none; }\n"
      ".button { cursor: pointer; fill: #2050a0; }\n"
      "#search { width: 220px; font-size: 12px; }\n"
      "]]></style>\n";
  svg += "<script type=\"text/ecmascript\"><![CDATA[\n" + std::string(kFlameGraphScript) +
         "]]></script>\n";
  svg += "<rect x=\"0\" y=\"0\" width=\"" + w + "\" height=\"" + h + "\" fill=\"#f8f8f0\"/>\n";
  svg += "<text id=\"title\" x=\"" + fixed(o.width / 2.0) + "\" y=\"24\">" + xml_escape(o.title) +
         "</text>\n";
  svg += "<text id=\"reset\" class=\"button\" x=\"" + std::to_string(kPad) +
         "\" y=\"24\" visibility=\"hidden\">Reset Zoom</text>\n";
  svg += "<foreignObject x=\"" + std::to_string(o.width - kPad - 232) +
         "\" y=\"8\" width=\"232\" height=\"26\">"
         "<input xmlns=\"http://www.w3.org/1999/xhtml\" id=\"search\" type=\"search\" "
         "placeholder=\"Search (regex), Ctrl-F\" title=\"frames whose name "
         "matches\"/></foreignObject>\n";
  if (!root.samples)
    svg += "<text x=\"" + fixed(o.width / 2.0) + "\" y=\"" + std::to_string(kTop + 12) +
           "\" text-anchor=\"middle\">no stacks</text>\n";
  svg += "<g id=\"frames\">\n" + l.frames + "</g>\n";
  int text_y = l.height - 12;
  svg += "<text id=\"details\" x=\"" + std::to_string(kPad) + "\" y=\"" + std::to_string(text_y) +
         "\"> </text>\n";
  svg += "<text id=\"matched\" x=\"" + std::to_string(o.width - kPad) + "\" y=\"" +
         std::to_string(text_y) + "\" text-anchor=\"end\"> </text>\n";
  svg += "</svg>\n";
  return svg;
}

}  // namespace xtap::flamegraph
