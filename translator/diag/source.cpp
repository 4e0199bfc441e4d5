#include "diag/source.h"

namespace xtap {

std::string_view SourceFile::line_text(int line) const {
  std::string_view t = text;
  for (int l = 1; l < line; ++l) {
    size_t nl = t.find('\n');
    if (nl == std::string_view::npos) return {};
    t.remove_prefix(nl + 1);
  }
  size_t nl = t.find('\n');
  return nl == std::string_view::npos ? t : t.substr(0, nl);
}

std::string Location::str() const {
  if (!valid()) return "<unknown>";
  return file->name + ":" + std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace xtap
