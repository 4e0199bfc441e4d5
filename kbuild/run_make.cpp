// make through the shared process spawner, its output kept in a log so that
// a failed build can show the compiler's messages.
#include "kbuild/run_make.h"

#include <iostream>

#include "common/file_io.h"
#include "common/process.h"

namespace xtap::kbuild {

int run_make(const std::vector<std::string> &args, const std::string &log, bool echo,
             std::string *error) {
  process::SpawnSpec spec;
  spec.argv = {"make"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.stdout_path = spec.stderr_path = log;
  if (echo) {
    for (const auto &a : spec.argv) std::cerr << a << ' ';
    std::cerr << '\n';
  }
  int rc = process::run_to_end(spec, error);
  if (rc < 0 && error->find("cannot run make") != std::string::npos)
    *error += " (install make and the compiler the kernel was built with)";
  if (echo) std::cerr << read_file(log);
  return rc;
}

}  // namespace xtap::kbuild
