// The guest's share of the user's files (carry.h).
#include "vm/carry.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "common/file_io.h"
#include "common/shared_libs.h"

namespace fs = std::filesystem;

namespace xtap::vm {
namespace {

// A #! script whose interpreter is a #! script ... at most this deep (the
// kernel allows 4 levels).
constexpr int kMaxInterpreterDepth = 4;

// Paths where the guest keeps its own files (guest_init.h, initramfs.h):
// the shell that runs /init and the jobs, the runner, the mounts.
bool reserved_in_guest(const std::string &p) {
  static const std::set<std::string> files = {"/init", "/bin/sh", "/bin/busybox", "/bin/xtap-run",
                                              "/bin/xtap-stream"};
  if (files.count(p)) return true;
  for (const char *dir : {"/proc/", "/sys/", "/dev/", "/jobs/", "/run/xtap-vm/"})
    if (p.rfind(dir, 0) == 0) return true;
  return false;
}

// The interpreter a "#!" line names, "" when the file has none.
std::string shebang_interpreter(const std::string &head) {
  if (head.compare(0, 2, "#!") != 0) return "";
  size_t start = head.find_first_not_of(" \t", 2);
  if (start == std::string::npos) return "";
  size_t end = head.find_first_of(" \t\n", start);
  return head.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::string first_bytes(const std::string &path, size_t n) {
  FILE *f = fopen(path.c_str(), "rb");
  if (!f) return "";
  std::string s(n, '\0');
  s.resize(fread(s.data(), 1, n, f));
  fclose(f);
  return s;
}

std::string mib(uint64_t bytes) { return std::to_string((bytes + (1 << 19)) >> 20) + " MiB"; }

class Planner {
 public:
  Planner(const std::string &sysroot, CarryPlan *plan, CarryError *err)
      : sysroot_(sysroot), plan_(plan), err_(err) {}

  // Adds r's file to *files, and a #! script's interpreter after it,
  // after checking each; false after setting *err_.
  bool check_root(const CarryRoot &r, int depth, std::vector<std::string> *files) {
    if (r.path.empty() || r.path[0] != '/')
      return fail(r, "not an absolute path", "name the file by its full path");
    if (reserved_in_guest(r.path)) {
      if (r.guest_may_stand_in) {
        plan_->notes.push_back(r.path + " (" + r.named_by + "): the guest's own runs instead");
        return true;
      }
      return fail(r, "the guest keeps a file of its own there (busybox, or a mount)",
                  "probe the file by another of its names, e.g. its real path (readlink -f)");
    }
    struct stat st;
    std::string host = sysroot_ + r.path;
    if (stat(host.c_str(), &st) != 0) return fail(r, "no such file", "check the path");
    if (!S_ISREG(st.st_mode)) return fail(r, "not a regular file", "");
    std::string head = first_bytes(host, 256);
    if (head.compare(0, 4, "\177ELF") == 0) {
      files->push_back(r.path);
      return true;
    }
    std::string interp = shebang_interpreter(head);
    if (interp.empty())
      return fail(r, "neither an ELF program nor a #! script",
                  "--vm carries programs, shared libraries and scripts with a #! line");
    if (depth >= kMaxInterpreterDepth) return fail(r, "its #! interpreters nest too deeply", "");
    files->push_back(r.path);  // the script itself; load_closure skips it (no ELF)
    CarryRoot i{interp, "the #! interpreter of " + r.path, true};
    return check_root(i, depth + 1, files);
  }

  // `path` (as the target names it) into the guest: its real file once,
  // and a symlink at `path` when that is another name of it.
  void place(const std::string &path) {
    std::string normal = fs::path(path).lexically_normal().string();
    std::string host = sysroot_ + normal, real = normal;
    if (sysroot_.empty()) {
      char *r = realpath(host.c_str(), nullptr);
      if (r) real = r;
      free(r);
    }
    if (placed_.insert(real).second) {
      struct stat st;
      uint64_t size = stat((sysroot_ + real).c_str(), &st) == 0 ? st.st_size : 0;
      plan_->bytes += size;
      plan_->files.emplace_back(sysroot_ + real, real);
      if (size > biggest_size_) {
        biggest_size_ = size;
        biggest_ = real;
      }
    }
    if (normal != real && linked_.insert(normal).second) plan_->symlinks.emplace_back(normal, real);
  }

  std::string biggest() const { return biggest_ + " (" + mib(biggest_size_) + ")"; }

  bool fail(const CarryRoot &r, const std::string &why, const std::string &hint) {
    *err_ = {r.path, r.named_by, why, hint};
    return false;
  }

 private:
  std::string sysroot_;
  CarryPlan *plan_;
  CarryError *err_;
  std::set<std::string> placed_, linked_;
  std::string biggest_;
  uint64_t biggest_size_ = 0;
};

}  // namespace

bool plan_carry(const std::vector<CarryRoot> &roots, const std::string &sysroot, uint64_t max_bytes,
                CarryPlan *plan, CarryError *err) {
  Planner p(sysroot, plan, err);
  std::vector<std::string> files;
  for (const auto &r : roots)
    if (!p.check_root(r, 0, &files)) return false;
  if (files.empty()) return true;
  LoadClosure closure = load_closure(files, sysroot);
  if (!closure.missing.empty()) {
    *err = {closure.missing[0], "", "a library the loader would not find",
            "install it, or give the program an RPATH/RUNPATH to it (ld.so.cache and the system "
            "directories are searched as ld.so searches them; LD_LIBRARY_PATH is not)"};
    return false;
  }
  for (const auto &f : files) p.place(f);
  for (const auto &f : closure.files) {
    if (reserved_in_guest(f)) {
      *err = {f, "", "a library in a place the guest keeps for its own files", ""};
      return false;
    }
    p.place(f);
  }
  // The guest's loader then finds each library where the host's did, also
  // those the cache knows in directories of their own (ld.so.conf.d).
  if (!closure.files.empty() && fs::exists(sysroot + "/etc/ld.so.cache"))
    plan->files.emplace_back(sysroot + "/etc/ld.so.cache", "/etc/ld.so.cache");
  if (plan->bytes > max_bytes) {
    *err = {p.biggest(), "",
            "the files to carry take " + mib(plan->bytes) + ", more than the " + mib(max_bytes) +
                " the guest can hold beside its own",
            "give the guest more memory with --vm-memory (it keeps the files in RAM)"};
    return false;
  }
  return true;
}

}  // namespace xtap::vm
