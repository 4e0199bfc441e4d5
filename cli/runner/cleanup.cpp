// xtap-run --cleanup: find xtap modules by their debugfs directories
// (XTAP_DEBUGFS_PREFIX + module name) and remove those nobody collects from.
#include "runner/cleanup.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <xtap/abi.h>

#include "runner/control.h"
#include "runner/kmod.h"

namespace xtap::runner {

namespace {

std::vector<std::string> xtap_modules(const std::string& debugfs) {
  std::vector<std::string> names;
  const std::string prefix = XTAP_DEBUGFS_PREFIX;
  if (DIR* d = opendir(debugfs.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      // A session's directory has its control file; anything else with the
      // prefix (a test module's own debugfs file) is not ours.
      if (n.size() > prefix.size() && n.compare(0, prefix.size(), prefix) == 0 &&
          access((debugfs + "/" + n + "/ctl").c_str(), F_OK) == 0)
        names.push_back(n.substr(prefix.size()));
    }
    closedir(d);
  }
  return names;
}

}  // namespace

int cleanup_orphans(bool verbose) {
  std::string err;
  std::string dbg = debugfs_dir(&err);
  if (dbg.empty()) {
    std::fprintf(stderr, "xtap-run: %s\n", err.c_str());
    return 1;
  }
  int rc = 0;
  int removed = 0;
  for (const std::string& name : xtap_modules(dbg)) {
    const std::string ctl = dbg + "/" + XTAP_DEBUGFS_PREFIX + name + "/ctl";
    int fd = ::open(ctl.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
      if (errno == EBUSY) {
        std::fprintf(stderr, "xtap-run: module %s has a running collector: left alone\n",
                     name.c_str());
      } else {
        std::fprintf(stderr, "xtap-run: cannot open %s: %s\n", ctl.c_str(), std::strerror(errno));
        rc = 1;
      }
      continue;
    }
    // Closing the control file without DONE stops the module's probes.
    ::close(fd);
    if (unload_module(name, &err)) {
      std::fprintf(stderr, "xtap-run: %s\n", err.c_str());
      rc = 1;
      continue;
    }
    removed++;
    std::printf("xtap-run: removed orphaned module %s\n", name.c_str());
  }
  if (verbose) std::fprintf(stderr, "xtap-run: cleanup removed %d module(s)\n", removed);
  return rc;
}

}  // namespace xtap::runner
