// Source files and positions inside them.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace xtap {

struct SourceFile {
  std::string name;  // as shown in diagnostics ("t.stp", "<input>")
  std::string text;

  // The text of 1-based line `line`, without its newline.
  std::string_view line_text(int line) const;
};

struct Expansion;

struct Location {
  const SourceFile *file = nullptr;
  int line = 0;    // 1-based; 0 = unknown
  int column = 0;  // 1-based
  int length = 1;  // characters to underline
  // Set on code that a macro or probe alias put here: where it was expanded.
  std::shared_ptr<const Expansion> via;

  bool valid() const { return file != nullptr && line > 0; }
  // "file:line:col"
  std::string str() const;
};

// One step of a macro or alias expansion chain: what was expanded, where.
struct Expansion {
  std::string what;  // "macro '@sq'", "probe alias 'my.tick'"
  Location at;       // the use site (its own `via` continues the chain)
};

}  // namespace xtap
