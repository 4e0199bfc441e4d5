#include "xtap/dumps.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "probes/provider.h"

namespace xtap::cli {

std::string probe_type_spelling(const std::string &spelling) {
  static const std::regex quoted(R"(\("[^"]*"\))");
  static const std::regex number(R"(\((N|M|ADDR|\d+)\))");
  std::string s = std::regex_replace(spelling, quoted, "(string)");
  s = std::regex_replace(s, number, "(number)");
  // The timer providers spell their period without its argument.
  static const std::set<std::string> periods = {"timer.ns",   "timer.us",     "timer.ms",
                                                "timer.s",    "timer.hz",     "timer.sec",
                                                "timer.msec", "timer.jiffies"};
  if (periods.count(s)) s += "(number)";
  return s;
}

void print_probe_types(std::ostream &os) {
  std::set<std::string> types = {"begin", "begin(number)", "end",  "end(number)",
                                 "error", "error(number)", "never"};
  for (const auto *p : probe_providers())
    for (const auto &s : p->spellings()) {
      // "f[.call|.return]" stands for three spellings.
      auto br = s.find('[');
      if (br != std::string::npos && s.back() == ']') {
        std::string base = s.substr(0, br), alts = s.substr(br + 1, s.size() - br - 2);
        types.insert(probe_type_spelling(base));
        size_t start = 0;
        while (start <= alts.size()) {
          size_t bar = alts.find('|', start);
          if (bar == std::string::npos) bar = alts.size();
          types.insert(probe_type_spelling(base + alts.substr(start, bar - start)));
          start = bar + 1;
        }
        continue;
      }
      types.insert(probe_type_spelling(s));
    }
  for (const auto &t : types) os << t << "\n";
}

void print_probe_aliases(std::ostream &os, const Script &tapsets, bool verbose) {
  std::map<std::string, std::string> aliases;  // sorted, one line per name
  for (const auto &a : tapsets.aliases) {
    std::string points;
    for (const auto &p : a->points) points += (points.empty() ? "" : ", ") + p.str();
    auto &line = aliases[a->name.str()];
    line += (line.empty() ? "" : ", ") + points;
  }
  for (const auto &[name, points] : aliases) os << name << (verbose ? " = " + points : "") << "\n";
}

void print_functions(std::ostream &os, const Script &tapsets) {
  std::set<std::string> lines;
  for (const auto &f : tapsets.functions) {
    std::string line = f->name + ":" + type_name(f->declared_return) + " (";
    for (size_t i = 0; i < f->params.size(); ++i)
      line += (i ? ", " : "") + f->params[i]->name + ":" + type_name(f->params[i]->declared);
    lines.insert(line + ")");
  }
  for (const auto &l : lines) os << l << "\n";
}

}  // namespace xtap::cli
