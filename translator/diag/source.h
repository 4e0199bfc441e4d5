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

struct Location {
  const SourceFile *file = nullptr;
  int line = 0;    // 1-based; 0 = unknown
  int column = 0;  // 1-based
  int length = 1;  // characters to underline

  bool valid() const { return file != nullptr && line > 0; }
  // "file:line:col"
  std::string str() const;
};

}  // namespace xtap
