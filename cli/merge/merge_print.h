// The fleet view of merged globals (merge.h): text in the format xtap
// prints a script's unread globals at the end (stap's), with histograms
// and @quantiles drawn as the module draws them, or one JSON document.
#pragma once

#include <string>

#include "merge/merge.h"

namespace xtap::merge {

struct PrintOptions {
  bool per_host = false;  // each host's share under each merged value
};

std::string merged_text(const Merged &m, const PrintOptions &o);
std::string merged_json(const Merged &m, const PrintOptions &o);

}  // namespace xtap::merge
