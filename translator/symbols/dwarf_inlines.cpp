// Inlined instances of functions (DW_TAG_inlined_subroutine): where a
// function's body was copied into a caller. kernel.function("f").inline
// probes each copy's entry pc, and plain kernel.function("f") does too, as
// in stap. Finding them means walking every function's DIE tree (inlined
// instances nest inside lexical blocks and other inlined instances): a
// vmlinux takes seconds and some 400 MB, so it is done once per build-id
// and kept as a compact index under <cache>/dwarf/ (symbols/inline_index.h)
// that later runs map and search by name without reading the DWARF.
#include <dwarf.h>
#include <unistd.h>

#include <filesystem>
#include <unordered_set>

#include "common/cache_lock.h"
#include "common/file_io.h"
#include "symbols/dwarf_impl.h"
#include "symbols/inline_index.h"

namespace xtap {
namespace {

std::string name_of(Dwarf_Die *die) {
  Dwarf_Attribute a;
  const char *s = dwarf_attr_integrate(die, DW_AT_name, &a) ? dwarf_formstring(&a) : nullptr;
  return s ? s : "";
}

// Appends the inlined instances under `die` (which belongs to the function
// at offset `outer`); `depth` bounds pathological nesting.
void collect(Dwarf_Die *die, uint64_t outer, Dwarf_Addr bias, int depth,
             std::vector<InlineRow> *out) {
  Dwarf_Die c;
  if (depth > 64 || dwarf_child(die, &c) != 0) return;
  do {
    int tag = dwarf_tag(&c);
    if (tag == DW_TAG_inlined_subroutine) {
      Dwarf_Addr entry;
      InlineRow f;
      f.name = name_of(&c);
      if (!f.name.empty() && dwarf_entrypc(&c, &entry) == 0) {
        const char *file = dwarf_decl_file(&c);
        f.file = file ? file : "";
        dwarf_decl_line(&c, &f.line);
        f.entry = entry + bias;
        f.die = dwarf_dieoffset(&c);
        f.outer = outer;
        out->push_back(std::move(f));
      }
    }
    if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block)
      collect(&c, outer, bias, depth + 1, out);
  } while (dwarf_siblingof(&c, &c) == 0);
}

}  // namespace

// Every inlined instance under the functions of the index (an alias
// shares its function's DIE: each tree is walked once).
std::vector<InlineRow> KernelDwarf::walk_inlined() const {
  Impl &im = *impl_;
  std::vector<InlineRow> rows;
  std::unordered_set<uint64_t> seen;
  for (const DwarfFunction &f : functions_) {
    Dwarf_Die die;
    if (seen.insert(f.die).second && dwarf_offdie(im.dw, f.die, &die))
      collect(&die, f.die, im.bias, 0, &rows);
  }
  return rows;
}

// The index from the cache; else built, written (atomically, under the
// entry's lock, so that concurrent runs build it once) and used. A file
// that is cut short or of another version is rebuilt over.
const InlineIndex &KernelDwarf::inline_index() const {
  if (inline_index_) return *inline_index_;
  const std::string &file = inline_index_file_;
  if (!file.empty()) inline_index_ = InlineIndex::map_file(file);
  if (!inline_index_ && !file.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(file).parent_path(), ec);
    CacheLock lock(file);
    inline_index_ = InlineIndex::map_file(file);
    if (!inline_index_) {
      std::string bytes = InlineIndex::serialize(walk_inlined());
      std::string tmp = file + ".tmp" + std::to_string(getpid());
      if (write_file(tmp, bytes)) std::filesystem::rename(tmp, file, ec);
      if (ec) std::filesystem::remove(tmp, ec);
      inline_index_ = InlineIndex::from_bytes(std::move(bytes));
    }
  }
  if (!inline_index_)
    inline_index_ = InlineIndex::from_bytes(InlineIndex::serialize(walk_inlined()));
  return *inline_index_;
}

std::vector<const DwarfFunction *> KernelDwarf::match_inlined(const std::string &name_glob,
                                                              const std::string &file_glob) const {
  const InlineIndex &index = inline_index();
  std::vector<const DwarfFunction *> out;
  index.match(
      name_glob,
      [&](const char *file) { return file_glob.empty() || file_matches(file_glob, file); },
      [&](uint32_t i) {
        auto it = inlined_.find(i);
        if (it == inlined_.end()) {
          InlineRow r = index.row(i);
          DwarfFunction f;
          f.name = std::move(r.name);
          f.file = std::move(r.file);
          f.line = r.line;
          f.entry = r.entry;
          f.die = r.die;
          f.inlined = true;
          f.outer = r.outer;
          it = inlined_.emplace(i, std::move(f)).first;
        }
        out.push_back(&it->second);
      });
  return out;
}

}  // namespace xtap
