#include "codegen/user_symbols.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "common/c_writer.h"
#include "common/shared_libs.h"
#include "symbols/elf_symbols.h"
#include "symbols/user_cfi.h"
#include "symbols/user_lines.h"

namespace xtap {

namespace fs = std::filesystem;

namespace {

// The tapset functions (tapsets/ucontext.stp) that read the tables.
const std::set<std::string> kSymbolFunctions = {
    "usymname",         "usymdata",          "umodname",      "ubacktrace",
    "print_ubacktrace", "sprint_ubacktrace", "ustack",        "print_usyms",
    "sprint_usyms",     "print_ustack",      "sprint_ustack", "ucallers"};
const std::set<std::string> kLineFunctions = {"usymfileline", "usymfile", "usymline"};
// Those that walk the user stack (ucallers() through ustack()).
const std::set<std::string> kStackFunctions = {"ubacktrace", "print_ubacktrace",
                                               "sprint_ubacktrace", "ustack"};

// A line table larger than this is left out: the module would be huge.
constexpr size_t kMaxLineRows = 400000;

bool is_file(const std::string &p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string find_libc(const std::string &sysroot) {
  for (const char *dir :
       {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"}) {
    std::string p = std::string(dir) + "/libc.so.6";
    if (is_file(sysroot + p)) return p;
  }
  return "";
}

// Of two names of one address, the one a reader knows: fewer leading
// underscores ("malloc" over "__libc_malloc"), then the shorter.
bool better_name(const std::string &a, const std::string &b) {
  auto under = [](const std::string &s) { return s.find_first_not_of('_'); };
  if (under(a) != under(b)) return under(a) < under(b);
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

std::string hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "0x%llxULL", static_cast<unsigned long long>(v));
  return buf;
}

// The symbols of a stripped file's separate debug file (Debian's -dbg
// packages: /usr/lib/debug/.build-id/xx/rest.debug, under sysroot), when
// it is there and has the same build-id; null otherwise.
std::unique_ptr<ElfSymbols> debug_symbols(const ElfSymbols &elf, const std::string &sysroot) {
  std::string id = elf.build_id(), why;
  if (id.size() < 3) return nullptr;
  std::string path =
      sysroot + "/usr/lib/debug/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug";
  if (!is_file(path)) return nullptr;
  auto debug = ElfSymbols::open(path, &why);
  if (!debug || debug->build_id() != id || debug->table() != ".symtab") return nullptr;
  return debug;
}

// The rows of `host`'s call-frame information (symbols/user_cfi.h) by file
// offset, as a C array; the fields that point xtap_ubinary at it, or "".
std::string emit_cfi_table(CWriter &w, const std::string &host, const std::string &id,
                           const ElfSymbols &elf, const std::string &file,
                           std::vector<std::string> *notes) {
  std::vector<CfiRow> rows;
  CfiStats stats;
  std::string why;
  if (!read_user_cfi(host, &rows, &stats, &why)) {
    notes->push_back(file + " " + why);
    return "";
  }
  static const char *const kKinds[] = {"XTAP_UCFI_NONE", "XTAP_UCFI_RSP", "XTAP_UCFI_RBP",
                                       "XTAP_UCFI_END", "XTAP_UCFI_SIGNAL"};
  size_t n = 0;
  std::optional<uint64_t> last;
  w.open("static const struct xtap_ucfi xtap_ucfi_" + id + "[] = {");
  for (const auto &r : rows) {
    auto off = elf.file_offset(r.address);
    // outside every loadable segment (a gap row past the text's end), or
    // out of order: the runtime's binary search needs ascending offsets
    if (!off || *off > UINT32_MAX || (last && *off <= *last)) continue;
    last = off;
    w.line("{ " + std::to_string(*off) + ", " + std::to_string(r.cfa_offset) + ", " +
           std::to_string(r.rbp_offset) + ", " + kKinds[static_cast<int>(r.kind)] + " },");
    n++;
  }
  w.close("};");
  return ", .cfi = xtap_ucfi_" + id + ", .ncfi = " + std::to_string(n);
}

}  // namespace

std::string command_program(const std::string &cmd, const std::string &sysroot) {
  size_t start = cmd.find_first_not_of(" \t");
  if (start == std::string::npos) return "";
  std::string word = cmd.substr(start, cmd.find_first_of(" \t", start) - start);
  if (word.find('/') != std::string::npos)
    return word[0] == '/' ? word : fs::absolute(word).lexically_normal().string();
  const char *path = getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (size_t pos = 0; pos <= dirs.size();) {
    size_t end = dirs.find(':', pos);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(pos, end - pos);
    if (!dir.empty() && is_file(sysroot + dir + "/" + word)) return dir + "/" + word;
    pos = end + 1;
  }
  return "";
}

UserSymbolUse user_symbol_use(const Script &s) {
  UserSymbolUse use = UserSymbolUse::None;
  for (const auto &f : s.functions) {
    if (kLineFunctions.count(f->name)) return UserSymbolUse::Lines;
    if (kSymbolFunctions.count(f->name)) use = UserSymbolUse::Symbols;
  }
  return use;
}

bool user_stack_use(const Script &s) {
  for (const auto &f : s.functions)
    if (kStackFunctions.count(f->name)) return true;
  return false;
}

std::vector<std::string> user_symbol_files(const Elaborated &e, const UserSymbolSources &src,
                                           std::vector<std::string> *notes) {
  std::vector<std::string> named;
  for (const auto &dp : e.probes)
    if (std::string f = dp->user_file(); !f.empty()) named.push_back(f);
  if (!src.command.empty()) {
    std::string prog = command_program(src.command, src.sysroot);
    if (prog.empty())
      notes->push_back("-c: no program '" + src.command + "' found in $PATH for its symbols");
    else named.push_back(prog);
  }
  for (const auto &m : src.modules) {
    // -d NAME without a '/' that is no file here is a kernel module: kallsyms has it
    if (m.find('/') == std::string::npos && !is_file(src.sysroot + m)) continue;
    std::string p = m[0] == '/' ? m : fs::absolute(m).lexically_normal().string();
    if (!is_file(src.sysroot + p))
      notes->push_back("-d " + m + ": no such file; its symbols are left out");
    else named.push_back(p);
  }
  if (src.ldd) {
    // As ld.so would load them (common/shared_libs.h), without running
    // the loader on the files as ldd(1) does, and under --sysroot too.
    std::vector<std::string> programs = named;
    for (auto &lib : load_closure(programs, src.sysroot).files) named.push_back(lib);
  }
  if (std::string libc = find_libc(src.sysroot); !libc.empty()) named.push_back(libc);

  std::vector<std::string> files;
  std::set<std::string> seen;
  for (const auto &f : named) {
    std::error_code ec;
    std::string key = fs::weakly_canonical(src.sysroot + f, ec).string();
    if (seen.insert(ec ? f : key).second) files.push_back(f);
  }
  return files;
}

std::string emit_user_symbol_tables(const std::vector<std::string> &files, UserTableParts parts,
                                    const std::string &sysroot, std::vector<std::string> *notes) {
  bool lines = parts.lines;
  CWriter w;
  std::vector<std::string> entries;
  for (const auto &file : files) {
    std::string host = sysroot + file, why;
    auto elf = ElfSymbols::open(host, &why);
    struct stat st;
    if (!elf || stat(host.c_str(), &st) != 0) {
      notes->push_back(file + ": " + (elf ? "cannot be read" : why) + "; its symbols are left out");
      continue;
    }
    // one symbol per file offset, sorted by offset; a stripped library's
    // local functions (libc's start_thread, clone3) from its debug file
    std::map<uint64_t, const ElfFunction *> by_offset;
    std::unique_ptr<ElfSymbols> debug;
    if (elf->table() != ".symtab") debug = debug_symbols(*elf, sysroot);
    for (const ElfSymbols *from : {elf.get(), debug.get()}) {
      if (!from) continue;
      for (const auto &f : from->functions()) {
        auto off = elf->file_offset(f.address);
        if (!off) continue;
        auto [it, fresh] = by_offset.emplace(*off, &f);
        if (!fresh && better_name(f.name, it->second->name)) it->second = &f;
      }
    }
    std::string id = std::to_string(entries.size());
    std::string fields = "{ .path = " + c_string_literal(file) + ", .file_size = " +
                         std::to_string(static_cast<unsigned long long>(st.st_size)) + "ULL";
    if (!by_offset.empty()) {
      w.open("static const struct xtap_usym xtap_usyms_" + id + "[] = {");
      size_t name_at = 0;
      for (const auto &[off, f] : by_offset) {
        w.line("{ " + hex(off) + ", " + std::to_string(std::min<uint64_t>(f->size, UINT32_MAX)) +
               ", " + std::to_string(name_at) + " },");
        name_at += f->name.size() + 1;
      }
      w.close("};");
      w.open("static const char xtap_unames_" + id + "[] =");
      for (const auto &[off, f] : by_offset)
        w.line(c_string_literal(f->name + std::string(1, '\0')));
      w.close(";");
      fields += ", .syms = xtap_usyms_" + id + ", .nsyms = " + std::to_string(by_offset.size()) +
                ", .names = xtap_unames_" + id;
    }
    LineTable table;
    if (lines && !read_line_table(host, elf->build_id(), &table, &why))
      notes->push_back(file + ": " + why);
    std::vector<LineRow> rows;
    for (const auto &r : table.rows) {
      // an end row may sit one past its segment: place it after the last byte
      auto off = r.line ? elf->file_offset(r.address) : elf->file_offset(r.address - 1);
      if (off) rows.push_back({r.line ? *off : *off + 1, r.file, r.line});
    }
    std::stable_sort(rows.begin(), rows.end(), [](const LineRow &a, const LineRow &b) {
      return a.address < b.address || (a.address == b.address && a.line == 0 && b.line != 0);
    });
    if (rows.size() > kMaxLineRows) {
      notes->push_back(file + ": its line table has " + std::to_string(rows.size()) +
                       " rows, more than the " + std::to_string(kMaxLineRows) +
                       " a module carries; left out");
      rows.clear();
    }
    if (!rows.empty()) {
      w.open("static const struct xtap_uline xtap_ulines_" + id + "[] = {");
      for (const auto &r : rows)
        w.line("{ " + hex(r.address) + ", " + std::to_string(r.file) + ", " +
               std::to_string(r.line) + " },");
      w.close("};");
      w.open("static const char *const xtap_ufiles_" + id + "[] = {");
      for (const auto &f : table.files) w.line(c_string_literal(f) + ",");
      w.close("};");
      fields += ", .lines = xtap_ulines_" + id + ", .nlines = " + std::to_string(rows.size()) +
                ", .files = xtap_ufiles_" + id;
    }
    if (parts.cfi) fields += emit_cfi_table(w, host, id, *elf, file, notes);
    entries.push_back(fields + " }");
  }
  if (entries.empty()) return "";
  w.open("static const struct xtap_ubinary xtap_ubinaries[] = {");
  for (const auto &e : entries) w.line(e + ",");
  w.close("};");
  return w.str();
}

}  // namespace xtap
