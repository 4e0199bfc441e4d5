// The inline-instance index's format (symbols/inline_index.h).
#include "symbols/inline_index.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>

namespace xtap {
namespace {

constexpr char kMagic[8] = {'X', 'T', 'A', 'P', 'I', 'N', 'L', '\0'};
constexpr uint32_t kVersion = 1;

struct Header {
  char magic[8];
  uint32_t version, count, files, strings;
  uint64_t total;
};
static_assert(sizeof(Header) == 32);

size_t total_size(uint64_t n, uint64_t files, uint64_t strings) {
  return sizeof(Header) + n * (3 * 8 + 3 * 4) + files * 4 + strings;
}

template <typename T>
void put(std::string &out, size_t at, T v) {
  std::memcpy(&out[at], &v, sizeof v);
}

}  // namespace

InlineIndex::~InlineIndex() {
  if (map_) munmap(map_, map_size_);
}

std::string InlineIndex::serialize(std::vector<InlineRow> rows) {
  std::sort(rows.begin(), rows.end(), [](const InlineRow &a, const InlineRow &b) {
    return a.name != b.name   ? a.name < b.name
           : a.file != b.file ? a.file < b.file
                              : a.entry < b.entry;
  });
  // Strings once each; files numbered in the order they are first seen.
  std::string strings(1, '\0');
  std::map<std::string, uint32_t> string_at, file_no;
  std::vector<uint32_t> file_names;
  auto intern = [&](const std::string &s) {
    auto [it, fresh] = string_at.emplace(s, static_cast<uint32_t>(strings.size()));
    if (fresh) strings.append(s).push_back('\0');
    return it->second;
  };
  uint64_t n = rows.size();
  std::vector<uint32_t> names(n), files(n);
  for (size_t i = 0; i < n; ++i) {
    names[i] = intern(rows[i].name);
    auto [it, fresh] = file_no.emplace(rows[i].file, static_cast<uint32_t>(file_names.size()));
    if (fresh) file_names.push_back(intern(rows[i].file));
    files[i] = it->second;
  }
  std::string out(total_size(n, file_names.size(), strings.size()), '\0');
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kVersion;
  h.count = static_cast<uint32_t>(n);
  h.files = static_cast<uint32_t>(file_names.size());
  h.strings = static_cast<uint32_t>(strings.size());
  h.total = out.size();
  std::memcpy(out.data(), &h, sizeof h);
  size_t at = sizeof h;
  for (size_t i = 0; i < n; ++i) put(out, at + 8 * i, rows[i].entry);
  at += 8 * n;
  for (size_t i = 0; i < n; ++i) put(out, at + 8 * i, rows[i].die);
  at += 8 * n;
  for (size_t i = 0; i < n; ++i) put(out, at + 8 * i, rows[i].outer);
  at += 8 * n;
  for (size_t i = 0; i < n; ++i) put(out, at + 4 * i, names[i]);
  at += 4 * n;
  for (size_t i = 0; i < n; ++i) put(out, at + 4 * i, files[i]);
  at += 4 * n;
  for (size_t i = 0; i < n; ++i) put(out, at + 4 * i, static_cast<int32_t>(rows[i].line));
  at += 4 * n;
  for (size_t i = 0; i < file_names.size(); ++i) put(out, at + 4 * i, file_names[i]);
  at += 4 * file_names.size();
  std::memcpy(&out[at], strings.data(), strings.size());
  return out;
}

// Checks the header against the size; the columns' values are checked
// where they are used (a string offset past the end reads as "", a file
// number past the table as no file), so a damaged index cannot crash.
bool InlineIndex::validate(const char *base, size_t size) {
  Header h;
  if (size < sizeof h) return false;
  std::memcpy(&h, base, sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0 || h.version != kVersion ||
      h.total != size || total_size(h.count, h.files, h.strings) != size || h.strings == 0)
    return false;
  count_ = h.count;
  files_ = h.files;
  const char *at = base + sizeof h;
  entry_ = reinterpret_cast<const uint64_t *>(at);
  die_ = entry_ + count_;
  outer_ = die_ + count_;
  name_ = reinterpret_cast<const uint32_t *>(outer_ + count_);
  file_ = name_ + count_;
  line_ = reinterpret_cast<const int32_t *>(file_ + count_);
  file_name_ = reinterpret_cast<const uint32_t *>(line_ + count_);
  strings_ = reinterpret_cast<const char *>(file_name_ + files_);
  strings_size_ = h.strings;
  return strings_[strings_size_ - 1] == '\0';
}

std::unique_ptr<InlineIndex> InlineIndex::from_bytes(std::string bytes) {
  std::unique_ptr<InlineIndex> x(new InlineIndex());
  x->owned_ = std::move(bytes);
  if (!x->validate(x->owned_.data(), x->owned_.size())) return nullptr;
  return x;
}

std::unique_ptr<InlineIndex> InlineIndex::map_file(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st {};
  void *m = MAP_FAILED;
  if (fstat(fd, &st) == 0 && st.st_size >= static_cast<off_t>(sizeof(Header)))
    m = mmap(nullptr, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (m == MAP_FAILED) return nullptr;
  std::unique_ptr<InlineIndex> x(new InlineIndex());
  x->map_ = m;
  x->map_size_ = st.st_size;
  if (!x->validate(static_cast<const char *>(m), st.st_size)) return nullptr;
  return x;
}

const char *InlineIndex::str(uint32_t off) const {
  return off < strings_size_ ? strings_ + off : "";
}

void InlineIndex::match(const std::string &name_glob,
                        const std::function<bool(const char *)> &file_ok,
                        const std::function<void(uint32_t)> &take) const {
  // Rows are sorted by name: a glob's literal prefix narrows them to a
  // range found by binary search; only a glob that starts with a
  // wildcard reads the whole name column.
  size_t plen = name_glob.find_first_of("*?[\\");
  bool literal = plen == std::string::npos;
  std::string prefix = name_glob.substr(0, literal ? name_glob.size() : plen);
  uint32_t lo = 0, hi = count_;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (std::strcmp(name(mid), prefix.c_str()) < 0) lo = mid + 1;
    else hi = mid;
  }
  std::vector<signed char> file_verdict(files_, -1);
  for (uint32_t i = lo; i < count_; ++i) {
    const char *n = name(i);
    if (std::strncmp(n, prefix.c_str(), prefix.size()) != 0) break;
    if (literal && n[prefix.size()] != '\0') break;  // past the rows of that name
    if (!literal && fnmatch(name_glob.c_str(), n, 0) != 0) continue;
    uint32_t f = file_[i];
    if (f >= files_) continue;
    if (file_verdict[f] < 0) file_verdict[f] = file_ok(str(file_name_[f])) ? 1 : 0;
    if (file_verdict[f]) take(i);
  }
}

InlineRow InlineIndex::row(uint32_t i) const {
  InlineRow r;
  if (i >= count_) return r;
  r.name = name(i);
  r.file = file_[i] < files_ ? str(file_name_[file_[i]]) : "";
  r.line = line_[i];
  r.entry = entry_[i];
  r.die = die_[i];
  r.outer = outer_[i];
  return r;
}

}  // namespace xtap
