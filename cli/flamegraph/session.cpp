// --folded and --flamegraph: see flame_output.h.
#include "flamegraph/session.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "common/process.h"
#include "flamegraph/svg.h"

namespace xtap::flamegraph {
namespace {

pid_t g_runner = -1;

void pass_signal_on(int sig) {
  if (g_runner > 0) kill(g_runner, sig);
}

bool write_file(const std::string &path, const std::string &text, const char *what) {
  if (path == "-") {
    std::cout << text << std::flush;
    return true;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out << text;
  if (!out || !out.flush()) {
    std::cerr << "xtap: " << what << ": cannot write '" << path << "': " << strerror(errno) << "\n";
    return false;
  }
  return true;
}

}  // namespace

void collect_stacks(const std::string &text, StackCollector *c, std::ostream *rest) {
  size_t from = 0;
  while (from < text.size()) {
    size_t nl = text.find('\n', from);
    bool whole = nl != std::string::npos;
    std::string line = text.substr(from, whole ? nl - from : std::string::npos);
    if (!c->add_line(line) && rest) *rest << line << (whole ? "\n" : "");
    from = whole ? nl + 1 : text.size();
  }
}

bool write_flame_files(const OutputFiles &o, StackCollector &c) {
  c.finish();
  bool ok = true;
  if (!o.folded.empty()) ok &= write_file(o.folded, folded_text(c.stacks()), "--folded");
  if (!o.svg.empty()) {
    SvgOptions so;
    so.title = o.title;
    ok &= write_file(o.svg, render_svg(c.stacks(), so), "--flamegraph");
  }
  if (c.stacks().empty()) {
    std::cerr
        << "xtap: warning[XTP2260]: no stacks in the output: the "
        << (o.svg.empty() ? "folded file is" : "flame graph is") << " empty\n"
        << "  hint: print each stack with its count, as `print_stack(bt); printf(\"\\t%d\\n\", n)`"
           " or as folded lines \"f1;f2;f3 COUNT\" (docs/errors/XTP2260.md)\n";
  } else if (!o.quiet && ok) {
    std::cerr << "xtap: " << c.total_samples() << " samples in " << c.stacks().size() << " stacks";
    if (!o.folded.empty() && o.folded != "-") std::cerr << ", folded in " << o.folded;
    if (!o.svg.empty() && o.svg != "-") std::cerr << ", flame graph in " << o.svg;
    std::cerr << "\n";
  }
  return ok;
}

int run_collecting_stacks(const OutputFiles &o, const std::vector<std::string> &args) {
  std::ofstream file;
  std::ostream *rest = &std::cout;
  if (!o.rest.empty()) {
    file.open(o.rest, std::ios::binary | std::ios::trunc);
    if (!file) {
      std::cerr << "xtap: cannot write '" << o.rest << "': " << strerror(errno) << "\n";
      return 1;
    }
    rest = &file;
  }
  int fds[2];
  if (pipe(fds) != 0) {
    std::cerr << "xtap: pipe: " << strerror(errno) << "\n";
    return 1;
  }
  std::cout.flush();
  pid_t pid = fork();
  if (pid < 0) {
    std::cerr << "xtap: fork: " << strerror(errno) << "\n";
    return 1;
  }
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    std::vector<char *> argv = process::exec_argv(args);
    execvp(argv[0], argv.data());
    fprintf(stderr, "xtap: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  close(fds[1]);
  g_runner = pid;
  // The terminal's Ctrl-C reaches the runner too; a kill of xtap alone is
  // passed on, so that the runner ends the session cleanly either way.
  struct sigaction sa = {};
  sa.sa_handler = pass_signal_on;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  StackCollector collector;
  FILE *in = fdopen(fds[0], "r");
  char *buf = nullptr;
  size_t cap = 0;
  ssize_t n;
  while (true) {
    errno = 0;
    n = getline(&buf, &cap, in);
    if (n < 0) {
      if (errno == EINTR) {
        clearerr(in);
        continue;
      }
      break;
    }
    bool whole = n > 0 && buf[n - 1] == '\n';
    std::string line(buf, whole ? n - 1 : n);
    if (!collector.add_line(line)) {
      *rest << line << (whole ? "\n" : "");
      if (rest == &std::cout) std::cout.flush();
    }
  }
  free(buf);
  fclose(in);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_runner = -1;
  rest->flush();
  bool ok = write_flame_files(o, collector);
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return code ? code : ok ? 0 : 1;
}

int convert_stacks(const OutputFiles &o) {
  std::ostringstream text;
  if (o.from_stacks == "-") {
    text << std::cin.rdbuf();
  } else {
    std::ifstream in(o.from_stacks, std::ios::binary);
    if (!in) {
      std::cerr << "xtap: --from-stacks: cannot read '" << o.from_stacks << "': " << strerror(errno)
                << "\n";
      return 1;
    }
    text << in.rdbuf();
  }
  StackCollector c;
  collect_stacks(text.str(), &c, nullptr);
  return write_flame_files(o, c) ? 0 : 1;
}

}  // namespace xtap::flamegraph
