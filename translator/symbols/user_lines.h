// The DWARF line table of a user-space program or library, for
// usymfileline(): rows of (address, file, line), read with libdw from the
// file itself or from its separate debug file (/usr/lib/debug/.build-id/,
// where Debian's -dbgsym packages put it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xtap {

struct LineRow {
  uint64_t address = 0;  // link-time virtual address
  uint32_t file = 0;     // index into LineTable::files
  uint32_t line = 0;     // 0: the end of a sequence (no line from here on)
};

struct LineTable {
  std::vector<std::string> files;
  std::vector<LineRow> rows;  // sorted by address
};

// The line table of `path` (build_id: its GNU build-id in hex, to find a
// separate debug file; may be ""). False with *why when there is no DWARF.
bool read_line_table(const std::string &path, const std::string &build_id, LineTable *out,
                     std::string *why);

}  // namespace xtap
