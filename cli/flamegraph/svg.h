// An interactive flame graph as one self-contained SVG (inline CSS and
// JavaScript, no external files): hover shows a frame's name, samples and
// share; a click zooms into a frame; a search box highlights matching
// frames and shows their share; "Reset Zoom" goes back. The same stacks
// give the same bytes.
#pragma once

#include <string>

#include "flamegraph/stacks.h"

namespace xtap::flamegraph {

struct SvgOptions {
  std::string title = "Flame Graph";
  int width = 1200;  // pixels
  int frame_height = 16;
  int font_size = 12;
  double min_width = 0.1;  // narrower frames (and what is above them) are left out
};

std::string render_svg(const FoldedStacks &stacks, const SvgOptions &options = {});

// XML text and attribute escaping (& < > " ').
std::string xml_escape(const std::string &s);

// The script of the SVG (svg_script.cpp).
extern const char *const kFlameGraphScript;

}  // namespace xtap::flamegraph
