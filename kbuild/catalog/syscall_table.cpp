// Reading the target's system call numbers (see syscall_table.h).
#include "kbuild/catalog/syscall_table.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <sstream>

namespace xtap::kcatalog {
namespace {

bool is_identifier_char(char c) { return isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool parse_int(std::string_view s, int *v) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && end == s.data() + s.size();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

std::vector<SyscallEntry> parse_unistd(const std::string &text) {
  std::vector<SyscallEntry> out;
  std::istringstream in(text);
  std::string line;
  const std::string define = "#define __NR_";
  while (std::getline(in, line)) {
    if (line.rfind(define, 0) != 0) continue;
    size_t name_end = define.size();
    while (name_end < line.size() && is_identifier_char(line[name_end])) ++name_end;
    SyscallEntry e;
    e.name = line.substr(define.size(), name_end - define.size());
    // Only plain numbers: unistd_64.h also defines helpers in other forms.
    if (!e.name.empty() && parse_int(trim(std::string_view(line).substr(name_end)), &e.nr))
      out.push_back(e);
  }
  return out;
}

std::vector<SyscallEntry> parse_syscall_entries(const std::string &text) {
  std::vector<SyscallEntry> out;
  std::istringstream in(text);
  std::string line;
  // __SYSCALL(0, sys_read), __SYSCALL_NORETURN(60, sys_exit) ...
  while (std::getline(in, line)) {
    if (line.rfind("__SYSCALL", 0) != 0) continue;
    size_t open = line.find('('), comma = line.find(','), close = line.rfind(')');
    if (open == std::string::npos || comma == std::string::npos || close == std::string::npos ||
        !(open < comma && comma < close))
      continue;
    SyscallEntry e;
    std::string_view l = line;
    if (!parse_int(trim(l.substr(open + 1, comma - open - 1)), &e.nr)) continue;
    e.entry = trim(l.substr(comma + 1, close - comma - 1));
    out.push_back(e);
  }
  return out;
}

bool read_syscall_table(const std::string &build_dir, const std::string &arch,
                        std::vector<SyscallEntry> *table, std::string *error) {
  std::string base = build_dir + "/arch/" + arch + "/include/generated";
  std::string unistd = base + "/uapi/asm/unistd_64.h";
  std::ifstream in(unistd);
  if (!in) {
    *error = "cannot read the system call numbers: " + unistd +
             " is missing (only 64-bit x86 kernels are supported)";
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  *table = parse_unistd(text.str());
  if (table->empty()) {
    *error = unistd + ": no '#define __NR_name number' lines";
    return false;
  }
  // The entry table also says which numbers are syscalls at all
  // (__NR_syscalls is a count). Without it (older or unusual build trees),
  // the function is assumed to be sys_<name>.
  std::ifstream entries_in(base + "/asm/syscalls_64.h");
  if (entries_in) {
    std::ostringstream entries;
    entries << entries_in.rdbuf();
    std::map<int, std::string> entry_by_nr;
    for (const SyscallEntry &e : parse_syscall_entries(entries.str())) entry_by_nr[e.nr] = e.entry;
    std::vector<SyscallEntry> known;
    for (SyscallEntry &e : *table) {
      auto it = entry_by_nr.find(e.nr);
      if (it == entry_by_nr.end()) continue;
      e.entry = it->second;
      known.push_back(std::move(e));
    }
    table->swap(known);
  } else {
    table->erase(std::remove_if(table->begin(), table->end(),
                                [](const SyscallEntry &e) { return e.name == "syscalls"; }),
                 table->end());
    for (SyscallEntry &e : *table) e.entry = "sys_" + e.name;
  }
  std::sort(table->begin(), table->end(),
            [](const SyscallEntry &a, const SyscallEntry &b) { return a.nr < b.nr; });
  return true;
}

}  // namespace xtap::kcatalog
