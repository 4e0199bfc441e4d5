// The loader's search (shared_libs.h), after glibc's elf/dl-load.c and
// elf/dl-cache.c.
#include "common/shared_libs.h"

#include <sys/stat.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <set>

#include "common/elf_file.h"
#include "common/file_io.h"

namespace xtap {
namespace {

// More files than this in one closure: a loop or a broken file; the rest
// are left out.
constexpr size_t kMaxFiles = 512;

// ld.so.cache entry flags of a 64-bit x86 glibc library (FLAG_ELF_LIBC6 |
// FLAG_X8664_LIB64 in glibc's ldconfig.h).
constexpr int32_t kX8664Libc6 = 0x0303;

// Debian's x86-64 glibc: its system search path (`ld.so --help`) and what
// $LIB and $PLATFORM stand for.
const char *const kSystemDirs[] = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib",
                                   "/usr/lib"};
const char kDstLib[] = "lib/x86_64-linux-gnu";
const char kDstPlatform[] = "x86_64";

template <typename T>
bool read_at(const std::string &bytes, size_t off, T *out) {
  if (off > bytes.size() || sizeof(T) > bytes.size() - off) return false;
  std::memcpy(out, bytes.data() + off, sizeof(T));
  return true;
}

std::string cstring_at(const std::string &bytes, size_t off) {
  if (off >= bytes.size()) return "";
  size_t end = bytes.find('\0', off);
  return end == std::string::npos ? "" : bytes.substr(off, end - off);
}

bool is_file(const std::string &p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string dir_of(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// "$ORIGIN/../lib:/opt/x" -> its directories, with $ORIGIN (also
// ${ORIGIN}) the directory of `object`, $LIB and $PLATFORM expanded.
std::vector<std::string> search_dirs(const std::string &list, const std::string &object) {
  std::vector<std::string> dirs;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(':', start);
    if (end == std::string::npos) end = list.size();
    std::string dir = list.substr(start, end - start);
    for (const auto &[token, value] :
         {std::pair<std::string, std::string>{"ORIGIN", dir_of(object)},
          {"LIB", kDstLib},
          {"PLATFORM", kDstPlatform}})
      for (const std::string &spelling : {"${" + token + "}", "$" + token})
        for (size_t at; (at = dir.find(spelling)) != std::string::npos;)
          dir.replace(at, spelling.size(), value);
    if (!dir.empty()) dirs.push_back(dir);
    start = end + 1;
  }
  return dirs;
}

// An object the closure has met: its path, and the DT_RPATHs of its chain
// of loaders, which its own search takes after its DT_RPATH.
struct Loaded {
  std::string path;
  std::vector<std::string> loader_rpath_dirs;
};

class Search {
 public:
  explicit Search(std::string sysroot) : sysroot_(std::move(sysroot)) {
    cache_ = LdSoCache::read(sysroot_ + "/etc/ld.so.cache");
  }

  void add_root(const std::string &path) {
    seen_.insert(key(path));
    queue_.push_back({path, {}});
  }

  LoadClosure run() {
    for (size_t i = 0; i < queue_.size() && out_.files.size() < kMaxFiles; ++i) visit(queue_[i]);
    return std::move(out_);
  }

 private:
  // By name, not by file: the loader opens each name (the program's
  // /lib64/ld-linux-x86-64.so.2 and libc's /lib/x86_64-linux-gnu/ one are
  // one file), and every name must exist where it runs.
  static std::string key(const std::string &path) {
    return std::filesystem::path(path).lexically_normal().string();
  }

  void add(const std::string &path, std::vector<std::string> loader_rpath_dirs) {
    if (!seen_.insert(key(path)).second) return;
    out_.files.push_back(path);
    queue_.push_back({path, std::move(loader_rpath_dirs)});
  }

  void visit(Loaded obj) {
    std::string err;
    auto elf = ElfFile::open(sysroot_ + obj.path, &err);
    if (!elf) return;
    if (std::string interp = elf->interpreter(); !interp.empty()) add(interp, {});
    ElfFile::Dynamic dyn = elf->dynamic();
    // The RPATH chain: this object's (ignored when it has a RUNPATH, as
    // ld.so ignores it), then its loaders'.
    std::vector<std::string> rpath_dirs;
    if (dyn.runpath.empty()) rpath_dirs = search_dirs(dyn.rpath, obj.path);
    rpath_dirs.insert(rpath_dirs.end(), obj.loader_rpath_dirs.begin(), obj.loader_rpath_dirs.end());
    std::vector<std::string> runpath_dirs = search_dirs(dyn.runpath, obj.path);
    // An object with a RUNPATH searches no RPATH, not even its loaders'.
    const std::vector<std::string> no_dirs;
    for (const auto &name : dyn.needed) {
      std::string path = find(name, dyn.runpath.empty() ? rpath_dirs : no_dirs, runpath_dirs);
      if (path.empty()) out_.missing.push_back(name + " (needed by " + obj.path + ")");
      else add(path, rpath_dirs);
    }
  }

  std::string find(const std::string &name, const std::vector<std::string> &rpath_dirs,
                   const std::vector<std::string> &runpath_dirs) const {
    if (name.find('/') != std::string::npos) return is_file(sysroot_ + name) ? name : "";
    auto in = [&](const std::vector<std::string> &dirs) -> std::string {
      for (const auto &d : dirs)
        if (is_file(sysroot_ + d + "/" + name)) return d + "/" + name;
      return "";
    };
    if (std::string p = in(rpath_dirs); !p.empty()) return p;
    if (std::string p = in(runpath_dirs); !p.empty()) return p;
    if (std::string p = cache_.find(name); !p.empty() && is_file(sysroot_ + p)) return p;
    return in(std::vector<std::string>(std::begin(kSystemDirs), std::end(kSystemDirs)));
  }

  std::string sysroot_;
  LdSoCache cache_;
  std::set<std::string> seen_;
  std::vector<Loaded> queue_;
  LoadClosure out_;
};

}  // namespace

LdSoCache LdSoCache::read(const std::string &path) {
  LdSoCache cache;
  std::string bytes = read_file(path);
  static const char kOld[] = "ld.so-1.7.0", kNew[] = "glibc-ld.so.cache1.1";
  size_t start = 0;
  if (bytes.compare(0, sizeof kOld - 1, kOld) == 0) {
    // The old format's entries (12 bytes each, after a 16-byte header),
    // then the new format, 8-byte aligned.
    uint32_t nold = 0;
    if (!read_at(bytes, 12, &nold)) return cache;
    start = (16 + uint64_t(nold) * 12 + 7) & ~uint64_t(7);
  }
  if (bytes.compare(start, sizeof kNew - 1, kNew) != 0) return cache;
  uint32_t nlibs = 0;
  if (!read_at(bytes, start + 20, &nlibs)) return cache;
  std::string strings = bytes.substr(start);  // key and value offsets count from here
  for (uint32_t i = 0; i < nlibs; ++i) {
    struct {
      int32_t flags;
      uint32_t key, value, osversion;
      uint64_t hwcap;
    } e;
    if (!read_at(bytes, start + 48 + size_t(i) * 24, &e)) break;
    // hwcap != 0: a glibc-hwcaps or legacy hwcap variant; the baseline
    // entry of the same name serves every CPU.
    if (e.flags != kX8664Libc6 || e.hwcap != 0) continue;
    std::string name = cstring_at(strings, e.key), file = cstring_at(strings, e.value);
    if (!name.empty() && !file.empty()) cache.paths_.emplace(name, file);
  }
  return cache;
}

std::string LdSoCache::find(const std::string &name) const {
  auto it = paths_.find(name);
  return it == paths_.end() ? "" : it->second;
}

LoadClosure load_closure(const std::vector<std::string> &roots, const std::string &sysroot) {
  Search s(sysroot);
  for (const auto &r : roots) s.add_root(r);
  return s.run();
}

}  // namespace xtap
