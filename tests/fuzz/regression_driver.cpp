// Feeds every file named on the command line (or found under a directory
// named there) through the fuzz target's entry point (frontend_entry.h),
// each in a child process with a time limit, so that a crash or hang found
// by the fuzzer stays fixed in any build, without libFuzzer. Prints one
// line per input and `fuzz-regressions: N passed, N failed`.
// With --absurd it runs the generated inputs of absurd_inputs.cpp instead,
// each of which must also end in the error it names.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absurd_inputs.h"
#include "frontend_entry.h"

namespace fs = std::filesystem;

namespace {

constexpr int kTimeLimitSeconds = 20;  // pass 1-2 of any regression input takes well under a second

std::string read_all(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs one input in a child: a crash or a hang then fails this input only,
// and the time limit comes from the kernel (RLIMIT_CPU) rather than a timer
// the input could starve.
// `expect_code`: "*" for any outcome, "" for no error, else the code of
// the first error.
std::string run_one(const std::string &text, const std::string &expect_code = "*") {
  pid_t pid = fork();
  if (pid < 0) return std::string("fork failed: ") + std::strerror(errno);
  if (pid == 0) {
    rlimit cpu{kTimeLimitSeconds, kTimeLimitSeconds + 1};
    setrlimit(RLIMIT_CPU, &cpu);
    alarm(kTimeLimitSeconds * 3);  // a hang that sleeps rather than spins
    // A kept finding runs as the fuzzer ran it, and with the tapsets too.
    auto r = xtap::fuzz::run_frontend(text, xtap::fuzz::TapsetMode::Always);
    if (expect_code == "*") xtap::fuzz::run_frontend(text, xtap::fuzz::TapsetMode::ByInput);
    if (expect_code != "*" && r.first_error.substr(0, r.first_error.find(' ')) != expect_code) {
      std::string got = r.first_error.empty() ? "no error" : r.first_error.substr(0, 300);
      std::cerr << "expected " << (expect_code.empty() ? "no error" : expect_code) << ", got "
                << got << "\n";
      _exit(2);
    }
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    if (sig == SIGXCPU || sig == SIGALRM)
      return "hang: no answer within " + std::to_string(kTimeLimitSeconds) + " s";
    return std::string("crash: signal ") + strsignal(sig);
  }
  if (WEXITSTATUS(status) == 2) return "wrong outcome (above)";
  return "exit status " + std::to_string(WEXITSTATUS(status));
}

int report(int passed, int failed) {
  std::cout << "fuzz-regressions: " << passed << " passed, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}

int run_absurd() {
  int passed = 0, failed = 0;
  for (const auto &in : xtap::fuzz::absurd_inputs()) {
    std::string why = run_one(in.text, in.expect_code);
    (why.empty() ? passed : failed)++;
    std::cout << (why.empty() ? "ok    " : "FAIL  ") << in.name << (why.empty() ? "" : ": " + why)
              << std::endl;
  }
  return report(passed, failed);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc == 2 && std::string(argv[1]) == "--absurd") return run_absurd();
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    fs::path a = argv[i];
    if (fs::is_directory(a)) {
      for (const auto &e : fs::recursive_directory_iterator(a))
        if (e.is_regular_file() && e.path().filename() != "README.md") inputs.push_back(e.path());
    } else {
      inputs.push_back(a);
    }
  }
  std::sort(inputs.begin(), inputs.end());
  int passed = 0, failed = 0;
  for (const auto &p : inputs) {
    std::string why = run_one(read_all(p));
    if (why.empty()) {
      ++passed;
      std::cout << "ok    " << p.string() << "\n";
    } else {
      ++failed;
      std::cout << "FAIL  " << p.string() << ": " << why << "\n";
    }
  }
  return report(passed, failed);
}
