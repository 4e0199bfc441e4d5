// Small process, file and hashing helpers of the Kbuild driver.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "kbuild/kbuild.h"

namespace xtap::kbuild {

int run_logged(const std::vector<std::string> &argv, const std::string &cwd,
               const std::string &log, bool echo) {
  if (echo) {
    for (const auto &a : argv) std::cerr << a << ' ';
    std::cerr << '\n';
  }
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, 0);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(127);
    std::vector<char *> args;
    for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (echo) {
    std::ifstream in(log);
    std::cerr << in.rdbuf();
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string hash_hex(const std::string &data) {
  // FNV-1a, 64-bit, twice with different seeds for a 128-bit key: a cache
  // key, not a security boundary.
  auto fnv = [&](uint64_t h) {
    for (unsigned char c : data) {
      h ^= c;
      h *= 1099511628211ull;
    }
    return h;
  };
  char buf[40];
  snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(fnv(14695981039346656037ull)),
           static_cast<unsigned long long>(fnv(0x84222325cbf29ce4ull ^ data.size())));
  return buf;
}

}  // namespace xtap::kbuild
