// The inlined instances of a debuginfo file's functions, as a compact
// column table that is written once per build-id under <cache>/dwarf/ and
// mmap'ed on later runs (symbols/dwarf_inlines.cpp finds them by walking
// every function's DIE tree, a few seconds and some 400 MB for a vmlinux;
// this index makes a lookup touch only the name and file columns).
//
// Layout (little-endian, host order; a file written by another version or
// cut short is rejected and rebuilt): a 32-byte header (magic, version,
// count, file count, string bytes), then the columns entry[], die[],
// outer[] (u64), name[], file[] (string offsets / file numbers, u32),
// line[] (i32), the file table (u32 string offsets), and the strings,
// each NUL-terminated. Rows are sorted by name, then file, then entry.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace xtap {

struct InlineRow {
  std::string name, file;
  int line = 0;
  uint64_t entry = 0, die = 0, outer = 0;
};

class InlineIndex {
 public:
  ~InlineIndex();
  // The bytes of an index of `rows` (sorted here).
  static std::string serialize(std::vector<InlineRow> rows);
  // An index over `bytes` (kept); null when they are not a valid index.
  static std::unique_ptr<InlineIndex> from_bytes(std::string bytes);
  // The index file `path`, mapped; null when it is missing or invalid.
  static std::unique_ptr<InlineIndex> map_file(const std::string &path);

  uint32_t size() const { return count_; }
  // Calls `take` with each row whose name matches `name_glob` (fnmatch)
  // and whose file `file_ok` accepts (called once per distinct file),
  // in row order.
  void match(const std::string &name_glob, const std::function<bool(const char *)> &file_ok,
             const std::function<void(uint32_t)> &take) const;
  InlineRow row(uint32_t i) const;

 private:
  InlineIndex() = default;
  bool validate(const char *base, size_t size);
  const char *str(uint32_t off) const;
  const char *name(uint32_t i) const { return str(name_[i]); }

  std::string owned_;
  void *map_ = nullptr;
  size_t map_size_ = 0;
  uint32_t count_ = 0, files_ = 0, strings_size_ = 0;
  const uint64_t *entry_ = nullptr, *die_ = nullptr, *outer_ = nullptr;
  const uint32_t *name_ = nullptr, *file_ = nullptr, *file_name_ = nullptr;
  const int32_t *line_ = nullptr;
  const char *strings_ = nullptr;
};

}  // namespace xtap
