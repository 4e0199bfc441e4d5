#include "diag/diagnostics.h"

#include <algorithm>

namespace xtap {

Diagnostic &Diagnostics::error(std::string code, Location loc, std::string message) {
  ++errors_;
  diags_.push_back({Severity::Error, std::move(code), std::move(loc), std::move(message), {}});
  return diags_.back();
}

Diagnostic &Diagnostics::warning(std::string code, Location loc, std::string message) {
  diags_.push_back({Severity::Warning, std::move(code), std::move(loc), std::move(message), {}});
  return diags_.back();
}

static void print_source(std::ostream &os, const Location &loc) {
  if (!loc.valid()) return;
  std::string_view line = loc.file->line_text(loc.line);
  os << "  " << line << "\n  ";
  // Keep tabs so that the caret lines up under tab-indented source.
  for (int i = 1; i < loc.column && i - 1 < static_cast<int>(line.size()); ++i)
    os << (line[i - 1] == '\t' ? '\t' : ' ');
  os << '^';
  for (int i = 1; i < loc.length; ++i) os << '~';
  os << "\n";
}

void Diagnostics::print_one(std::ostream &os, const Diagnostic &d) {
  os << d.loc.str() << ": " << (d.severity == Severity::Error ? "error" : "warning") << "["
     << d.code << "]: " << d.message << "\n";
  print_source(os, d.loc);
  if (!d.hint.empty()) os << "  hint: " << d.hint << "\n";
  // The macro and alias expansions that brought this code here, innermost first.
  for (const Expansion *e = d.loc.via.get(); e; e = e->at.via.get()) {
    os << e->at.str() << ": note: in expansion of " << e->what << "\n";
    print_source(os, e->at);
  }
}

void Diagnostics::print(std::ostream &os) const {
  for (const auto &d : diags_) print_one(os, d);
}

static size_t edit_distance(const std::string &a, const std::string &b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closest_match(const std::string &name, const std::vector<std::string> &candidates) {
  std::string best;
  size_t best_d = name.size() / 3 + 2;  // beyond this a suggestion only confuses
  for (const auto &c : candidates) {
    size_t d = edit_distance(name, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

}  // namespace xtap
