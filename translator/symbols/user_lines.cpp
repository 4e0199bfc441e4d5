#include "symbols/user_lines.h"

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <map>

namespace xtap {

namespace {

// Where Debian's debug packages keep the DWARF of a stripped file.
std::string build_id_debug_file(const std::string &build_id) {
  if (build_id.size() < 3) return "";
  return "/usr/lib/debug/.build-id/" + build_id.substr(0, 2) + "/" + build_id.substr(2) + ".debug";
}

bool read_rows(Dwarf *dw, LineTable *out) {
  std::map<std::string, uint32_t> file_index;
  Dwarf_Off off = 0, next = 0;
  size_t header = 0;
  bool any = false;
  while (dwarf_nextcu(dw, off, &next, &header, nullptr, nullptr, nullptr) == 0) {
    Dwarf_Die cu;
    Dwarf_Lines *lines = nullptr;
    size_t n = 0;
    if (dwarf_offdie(dw, off + header, &cu) && dwarf_getsrclines(&cu, &lines, &n) == 0) {
      for (size_t i = 0; i < n; ++i) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        Dwarf_Addr addr = 0;
        int lineno = 0;
        bool end = false;
        if (!l || dwarf_lineaddr(l, &addr) != 0) continue;
        dwarf_lineendsequence(l, &end);
        if (!end && dwarf_lineno(l, &lineno) != 0) continue;
        const char *src = dwarf_linesrc(l, nullptr, nullptr);
        auto [it, fresh] = file_index.emplace(src ? src : "??", out->files.size());
        if (fresh) out->files.push_back(it->first);
        out->rows.push_back({addr, it->second, end ? 0u : static_cast<uint32_t>(lineno)});
        any = true;
      }
    }
    off = next;
  }
  return any;
}

}  // namespace

bool read_line_table(const std::string &path, const std::string &build_id, LineTable *out,
                     std::string *why) {
  *out = {};
  for (const std::string &candidate : {path, build_id_debug_file(build_id)}) {
    if (candidate.empty()) continue;
    int fd = open(candidate.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
    bool ok = dw && read_rows(dw, out);
    if (dw) dwarf_end(dw);
    close(fd);
    if (ok) {
      // by address; at one address the last row wins (end rows of a
      // sequence share it with the next sequence's first row, and come first)
      std::stable_sort(out->rows.begin(), out->rows.end(), [](const LineRow &a, const LineRow &b) {
        return a.address < b.address || (a.address == b.address && a.line == 0 && b.line != 0);
      });
      return true;
    }
    *out = {};
  }
  *why = "no DWARF line table (no debug file for build-id " +
         (build_id.empty() ? "none" : build_id) + ")";
  return false;
}

}  // namespace xtap
