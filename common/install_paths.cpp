// Path discovery relative to the running program, so that an installed xtap
// works from any directory and a relocated installation still finds its
// data. The relative paths come from CMake's GNUInstallDirs (CMakeLists.txt).
#include "common/install_paths.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

namespace xtap::install {

namespace {

bool is_executable_file(const std::string &p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0;
}

// DIR joined with a path relative to it, its leading "../" resolved so that
// messages show /usr/share/xtap rather than /usr/bin/../share/xtap.
std::string join_relative(std::string dir, std::string rel) {
  while (rel.rfind("../", 0) == 0 && dir.rfind('/') != std::string::npos) {
    dir.erase(dir.rfind('/'));
    rel.erase(0, 3);
  }
  return dir + "/" + rel;
}

}  // namespace

std::string program_dir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string self(buf, size_t(n));
  return self.substr(0, self.rfind('/'));
}

// The build tree's programs use the sources in place; any other copy is an
// installed one and uses only its own share directory, so that a broken
// installation says what is missing instead of quietly reading whatever
// source tree it was built from.
std::string datadir() {
  if (const char *d = std::getenv("XTAP_DATADIR"); d && *d) return d;
  std::string dir = program_dir();
  char build_bindir[PATH_MAX];  // /proc/self/exe has its symlinks resolved
  if (dir.empty() || (realpath(XTAP_BUILD_BINDIR, build_bindir) && dir == build_bindir))
    return XTAP_SOURCE_DATADIR;
  return join_relative(dir, XTAP_DATADIR_FROM_BINDIR);
}

std::string helper_program(const std::string &name) {
  std::string dir = program_dir();
  if (dir.empty()) return "";
  for (const std::string &p :
       {dir + "/" + name, join_relative(dir, XTAP_LIBEXECDIR_FROM_BINDIR) + "/" + name})
    if (is_executable_file(p)) return p;
  return "";
}

}  // namespace xtap::install
