// Resolving -r (a kernel release or a build directory) to a build target.
#include <sys/utsname.h>

#include <filesystem>
#include <fstream>

#include "kbuild/kbuild.h"

namespace fs = std::filesystem;

namespace xtap::kbuild {
namespace {

// The release a build directory was configured for.
std::string release_of(const std::string &dir) {
  std::ifstream in(dir + "/include/config/kernel.release");
  std::string r;
  std::getline(in, r);
  return r;
}

}  // namespace

bool resolve_target(const std::string &r, Target *t, std::string *error) {
  std::string release = r;
  if (release.find('/') != std::string::npos) {
    // A build directory.
    if (!fs::exists(release + "/Makefile")) {
      *error = "'" + r + "' is not a kernel build directory (no Makefile)";
      return false;
    }
    t->build_dir = fs::canonical(release).string();
    t->release = release_of(t->build_dir);
    if (t->release.empty()) {
      *error = "cannot tell the kernel release of build directory '" + r +
               "' (include/config/kernel.release is missing)";
      return false;
    }
    return true;
  }
  if (release.empty()) {
    struct utsname u;
    uname(&u);
    release = u.release;
  }
  std::string dir = "/lib/modules/" + release + "/build";
  if (!fs::exists(dir + "/Makefile")) {
    *error = "no kernel build directory for " + release + " (" + dir + ")";
    std::string avail;
    std::error_code ec;
    for (auto &e : fs::directory_iterator("/lib/modules", ec))
      if (fs::exists(e.path() / "build/Makefile")) avail += " " + e.path().filename().string();
    *error += avail.empty() ? "; install the matching linux-headers package"
                            : "; kernels with headers installed:" + avail;
    return false;
  }
  t->release = release;
  t->build_dir = fs::canonical(dir).string();
  return true;
}

std::string default_cache_dir() {
  if (const char *c = getenv("XTAP_CACHE_DIR"); c && *c) return c;
  if (const char *x = getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/xtap";
  if (const char *h = getenv("HOME"); h && *h) return std::string(h) + "/.cache/xtap";
  return "/tmp/xtap-cache";
}

}  // namespace xtap::kbuild
