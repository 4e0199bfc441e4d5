// A real kernel module for the tests of the runner and the ELF reader: built
// by the xtap of this build tree (`xtap -p4`) against an installed kernel's
// headers, through xtap's module cache, so that only the first run of a
// fresh cache pays for the runtime build.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "common/file_io.h"
#include "common/process.h"
#include "temp_dir.h"

namespace xtap::test {

struct RealModule {
  std::string path;     // the .ko
  std::string release;  // the kernel it was built for
  std::string error;    // why there is none
};

// The newest release under /lib/modules with a build directory, or "".
inline std::string installed_kernel_with_headers() {
  std::string best;
  std::error_code ec;
  for (const auto &e : std::filesystem::directory_iterator("/lib/modules", ec))
    if (std::filesystem::exists(e.path() / "build/Makefile") && e.path().filename().string() > best)
      best = e.path().filename().string();
  return best;
}

// The script has a wildcard probe point, so that .modinfo has an
// xtap_wildcard entry besides name= and vermagic=.
inline const RealModule &real_module() {
  static const RealModule m = [] {
    RealModule r;
    r.release = installed_kernel_with_headers();
    if (r.release.empty()) {
      r.error = "no kernel headers installed under /lib/modules";
      return r;
    }
    static TempDir scratch;  // one per test process: ctest runs them in parallel
    std::string dir = scratch.str();
    process::SpawnSpec s;
    const std::string script = "probe kprobe.function(\"vfs_rea*\") { } probe begin { exit() }";
    s.argv = {
        XTAP_BINARY_DIR "/cli/xtap", "-p4", "-r", r.release, "-m", "t_unit_real", "-e", script};
    s.cwd = dir;
    s.stdout_path = s.stderr_path = dir + "/xtap.log";
    if (process::run_to_end(s, &r.error) != 0) {
      r.error += read_file(s.stdout_path);
      return r;
    }
    r.path = dir + "/t_unit_real.ko";
    return r;
  }();
  return m;
}

}  // namespace xtap::test

// Skips the test when no module can be built here (no kernel headers).
#define XTAP_NEED_REAL_MODULE(m)                                   \
  const ::xtap::test::RealModule &m = ::xtap::test::real_module(); \
  if (m.path.empty()) GTEST_SKIP() << "no real module: " << m.error
