// The run loop: load, HELLO, START, wait for the end event, STOP, DONE, unload.
#include "runner/session.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

#include <xtap/abi.h>

#include "common/file_io.h"
#include "common/json.h"
#include "common/modinfo.h"
#include "common/process.h"
#include "runner/aggregates_file.h"
#include "runner/control.h"
#include "runner/kmod.h"
#include "runner/monitor_terminal.h"
#include "runner/output_files.h"
#include "runner/privilege.h"
#include "runner/probe_stats.h"
#include "runner/prometheus.h"
#include "runner/relay_reader.h"
#include "runner/symbols.h"

namespace xtap::runner {

namespace {

using Clock = std::chrono::steady_clock;

void say(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void say(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::fputs("xtap-run: ", stderr);
  std::vfprintf(stderr, fmt, ap);
  std::fputc('\n', stderr);
  va_end(ap);
}

class Session {
 public:
  explicit Session(const Options& opt) : opt_(opt) {}
  int run();

 private:
  bool setup_signals();
  bool connect(const std::string& dir);
  bool spawn_command();
  void release_command(bool go);
  void run_system(const std::string& cmd);
  void wait_system();
  void request_stop(const char* why);
  void handle(const Message& m);
  void report(const char* kind, const std::string& text);
  void on_signal();
  void open_stdin_forward();
  void forward_stdin();
  void loop();
  int finish();
  bool write_aggregates();
  void print_summary_warnings(const xtap_done& d);
  bool check_options(uint64_t* switch_mb, unsigned* keep_files);
  int detach();

  const Options& opt_;
  ModInfo mi_;
  Control ctl_;
  RelayReader relay_;
  OutputFiles out_;
  PrometheusExporter prometheus_;
  PrometheusExporter feed_;  // --monitor-feed
  MonitorTerminal monitor_;
  int sig_fd_ = -1;
  pid_t child_ = -1;
  std::vector<pid_t> system_;  // system() commands still running
  int child_go_fd_ = -1;       // write end: one byte releases the child
  int stdin_proc_fd_ = -1;     // the module's /proc/xtap/MODULE/__stdin (input.* tapset)
  bool child_running_ = false;
  bool started_ = false;
  bool stop_sent_ = false;
  bool done_ = false;
  bool failed_ = false;     // runner-side failure or an ERROR message
  bool detaching_ = false;  // -F without -o: leave once the probes are armed
  xtap_done done_info_{};
  std::vector<ProbeStats> probe_stats_;  // PROBE_STATS, before DONE
  Clock::time_point deadline_{};
  std::string dir_;     // the module's debugfs directory
  std::string script_;  // the script's name (HELLO)
};

bool Session::setup_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&set, s);
  // Blocked before any thread or child exists, so only the signalfd sees them.
  if (sigprocmask(SIG_BLOCK, &set, nullptr) != 0) return false;
  sig_fd_ = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  signal(SIGPIPE, SIG_IGN);
  return sig_fd_ >= 0;
}

bool Session::connect(const std::string& dir) {
  std::string err;
  dir_ = dir;
  if (!ctl_.open(dir + "/ctl", &err)) {
    say("%s", err.c_str());
    return false;
  }
  pollfd p{ctl_.fd(), POLLIN, 0};
  if (poll(&p, 1, 5000) <= 0) {
    say("module %s did not say hello on its control file", mi_.name.c_str());
    return false;
  }
  std::vector<Message> msgs;
  int code = 0;
  bool read_ok = ctl_.read(&msgs, &code);
  // A detached session (-A) greets its new collector after whatever it
  // queued while nobody listened (warnings, exit()): handled below.
  size_t hello_at = 0;
  if (!opt_.attach.empty())
    while (hello_at < msgs.size() && msgs[hello_at].type != XTAP_MSG_HELLO) hello_at++;
  if (!read_ok || hello_at >= msgs.size() || msgs[hello_at].type != XTAP_MSG_HELLO) {
    say("module %s sent no HELLO message (%s)", mi_.name.c_str(),
        code ? std::strerror(code) : "protocol error");
    return false;
  }
  const Message hello = msgs[hello_at];
  msgs.erase(msgs.begin() + long(hello_at));
  if (hello.abi != XTAP_ABI_VERSION) {
    say("module %s speaks xtap ABI version %u but this xtap-run speaks version %u: "
        "use the xtap-run of the xtap that built the module",
        mi_.name.c_str(), hello.abi, XTAP_ABI_VERSION);
    return false;
  }
  xtap_hello h{};
  std::memcpy(&h, hello.payload.data(), std::min(hello.payload.size(), sizeof(h)));
  if (h.ncpus == 0 || h.subbuf_size == 0) {
    say("module %s sent a malformed HELLO", mi_.name.c_str());
    return false;
  }
  script_.assign(h.script, strnlen(h.script, sizeof(h.script)));
  if (opt_.verbose)
    say("script %s: %u CPUs, relay %llu x %llu bytes", h.script, h.ncpus,
        (unsigned long long)h.n_subbufs, (unsigned long long)h.subbuf_size);
  if (!relay_.open(dir, h.ncpus, h.subbuf_size, &err)) {
    say("%s", err.c_str());
    return false;
  }
  // A module with a format table writes binary printf records once asked;
  // one without (older) keeps formatting in the kernel. A flight-recorder
  // session (-F) stays text: it outlives this runner, overwriting its
  // oldest records, and whoever attaches later (-A) may be an older runner.
  if (relay_.load_formats(dir + "/formats", &err)) {
    if (!opt_.flight && !ctl_.send(XTAP_CMD_BINARY, 0, &err) && opt_.verbose)
      say("binary printf records not enabled: %s", err.c_str());
  } else if (!err.empty()) {
    say("%s", err.c_str());
    return false;
  }
  for (const Message& m : msgs) handle(m);
  // Served from here on, so that a scrape sees the begin probes' values.
  if (!opt_.prometheus.empty() && !prometheus_.start(opt_.prometheus, dir, &err)) {
    say("%s", err.c_str());
    return false;
  }
  if (!opt_.monitor_feed.empty()) {
    feed_.serve_feed();
    if (!feed_.start(opt_.monitor_feed, dir, &err)) {
      say("%s", err.c_str());
      return false;
    }
  }
  return true;
}

// Like stap: a command made of plain words is executed directly, so that
// target() is the command itself and no shell runs in the traced session;
// anything with shell syntax goes through /bin/sh -c.
static void exec_command(const std::string& cmd) {
  if (cmd.find_first_of("|&;<>()$`\\\"'*?[#~=%{}\n") == std::string::npos) {
    std::vector<std::string> words;
    std::string w;
    for (char ch : cmd + " ") {
      if (ch == ' ' || ch == '\t') {
        if (!w.empty()) words.push_back(w);
        w.clear();
      } else {
        w += ch;
      }
    }
    if (!words.empty()) {
      std::vector<char*> argv = process::exec_argv(words);
      execvp(argv[0], argv.data());
      fprintf(stderr, "xtap-run: cannot run '%s': %s\n", argv[0], strerror(errno));
      _exit(127);
    }
  }
  execl("/bin/sh", "sh", "-c", cmd.c_str(), (char*)nullptr);
}

bool Session::spawn_command() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return false;
  child_ = fork();
  if (child_ < 0) return false;
  if (child_ == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGPIPE, SIG_DFL);
    ::close(fds[1]);
    char go = 0;
    while (::read(fds[0], &go, 1) < 0 && errno == EINTR) {
    }
    if (go != 'g') _exit(127);  // the session ended before probes were armed
    if (!drop_to_caller()) _exit(126);
    exec_command(opt_.command);
    _exit(127);
  }
  ::close(fds[0]);
  child_go_fd_ = fds[1];
  child_running_ = true;
  return true;
}

void Session::release_command(bool go) {
  if (child_go_fd_ < 0) return;
  if (go) (void)!::write(child_go_fd_, "g", 1);
  ::close(child_go_fd_);
  child_go_fd_ = -1;
}

// system(cmd) from the script: run with /bin/sh -c, its output on the
// runner's stdout, without waiting (the probe that asked has long returned).
void Session::run_system(const std::string& cmd) {
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    say("system(\"%s\"): cannot fork: %s", cmd.c_str(), std::strerror(errno));
    return;
  }
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGPIPE, SIG_DFL);
    int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, 0);
    if (!drop_to_caller()) _exit(126);
    execl("/bin/sh", "sh", "-c", cmd.c_str(), (char*)nullptr);
    _exit(127);
  }
  system_.push_back(pid);
}

// At the end, system() commands get up to 2 s to finish, so that what they
// print is not cut off; the rest are left running.
void Session::wait_system() {
  auto until = Clock::now() + std::chrono::seconds(2);
  while (!system_.empty() && Clock::now() < until) {
    for (size_t i = 0; i < system_.size();) {
      if (waitpid(system_[i], nullptr, WNOHANG) != 0) {
        system_.erase(system_.begin() + long(i));
      } else {
        ++i;
      }
    }
    if (!system_.empty()) usleep(10000);
  }
}

void Session::request_stop(const char* why) {
  if (stop_sent_) return;
  stop_sent_ = true;
  // The end probes' output is printed on the plain terminal, after the view.
  monitor_.stop();
  release_command(false);
  if (opt_.verbose) say("stopping (%s)", why);
  std::string err;
  if (!ctl_.send(XTAP_CMD_STOP, 0, &err)) {
    say("%s", err.c_str());
    failed_ = true;
  }
}

void Session::handle(const Message& m) {
  switch (m.type) {
    case XTAP_MSG_STARTED:
      started_ = true;
      if (opt_.verbose) say("probes armed");
      if (opt_.timeout_s > 0)
        deadline_ = Clock::now() + std::chrono::milliseconds(long(opt_.timeout_s * 1000));
      release_command(true);
      open_stdin_forward();
      break;
    case XTAP_MSG_ERROR:
      report("error", m.text());
      failed_ = true;
      break;
    case XTAP_MSG_WARNING: report("warning", m.text()); break;
    case XTAP_MSG_SYSTEM: run_system(m.text()); break;
    case XTAP_MSG_EXIT: request_stop("the script asked to exit"); break;
    case XTAP_MSG_PROBE_STATS: {
      ProbeStats ps;
      if (parse_probe_stats(m, &ps)) probe_stats_.push_back(ps);
      break;
    }
    case XTAP_MSG_DONE:
      std::memcpy(&done_info_, m.payload.data(), std::min(m.payload.size(), sizeof(done_info_)));
      done_ = true;
      break;
    default: break;  // newer module: unknown messages are skipped
  }
}

// A run-time error or warning: "ERROR: text" on stderr, as stap, or with
// --format json a {"type":"error","text":...} line in the output stream.
void Session::report(const char* kind, const std::string& text) {
  if (opt_.json) {
    out_.write(std::string("{\"type\":\"") + kind + "\",\"text\":" + json::quote(text) + "}\n");
    return;
  }
  std::fprintf(stderr, "%s: %s\n", std::strcmp(kind, "error") ? "WARNING" : "ERROR", text.c_str());
}

void Session::on_signal() {
  signalfd_siginfo si;
  while (::read(sig_fd_, &si, sizeof(si)) == sizeof(si)) {
    if (si.ssi_signo == SIGCHLD) {
      int status;
      if (child_ > 0 && waitpid(child_, &status, WNOHANG) == child_) {
        child_running_ = false;
        child_ = -1;
        request_stop("command exited");
      }
      for (size_t i = 0; i < system_.size();) {
        if (waitpid(system_[i], &status, WNOHANG) != 0) {
          system_.erase(system_.begin() + long(i));
        } else {
          ++i;
        }
      }
    } else if (!stop_sent_) {
      request_stop(strsignal(si.ssi_signo));
    } else if (opt_.verbose) {
      say("still stopping, please wait");
    }
  }
}

// A script that reads its input (input.char, input.line) has a procfs
// file __stdin; xtap-run feeds it this process's standard input, one
// character per write as stap's collector does, so each runs the probe.
void Session::open_stdin_forward() {
  if (stdin_proc_fd_ >= 0 || monitor_.active()) return;  // --monitor's keys

  std::string path = "/proc/xtap/" + mi_.name + "/__stdin";
  stdin_proc_fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
}

void Session::forward_stdin() {
  char buf[4096];
  ssize_t n = ::read(STDIN_FILENO, buf, sizeof(buf));
  if (n <= 0) {
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    ::close(stdin_proc_fd_);  // end of input: nothing more to forward
    stdin_proc_fd_ = -1;
    return;
  }
  for (ssize_t i = 0; i < n; i++) {
    if (::write(stdin_proc_fd_, buf + i, 1) < 0 && errno != EINTR) {
      if (opt_.verbose) say("forwarding standard input: %s", std::strerror(errno));
      ::close(stdin_proc_fd_);
      stdin_proc_fd_ = -1;
      return;
    }
  }
}

void Session::loop() {
  while (!done_ && !(detaching_ && (started_ || stop_sent_))) {
    int timeout = -1;
    if (started_ && opt_.timeout_s > 0 && !stop_sent_) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now());
      if (left.count() <= 0) {
        request_stop("timeout");
        continue;
      }
      timeout = int(std::min<long long>(left.count(), 60000)) + 1;
    }
    bool feeding = stdin_proc_fd_ >= 0 && !stop_sent_;
    pollfd pfds[3] = {{ctl_.fd(), POLLIN, 0}, {sig_fd_, POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
    int n = poll(pfds, feeding ? 3 : 2, timeout);
    if (n < 0 && errno != EINTR) break;
    if (n <= 0) continue;
    if (pfds[1].revents) on_signal();
    if (feeding && pfds[2].revents) forward_stdin();
    if (pfds[0].revents) {
      std::vector<Message> msgs;
      int code = 0;
      if (!ctl_.read(&msgs, &code)) {
        if (code == EAGAIN) continue;
        say("control channel closed before DONE%s%s", code ? ": " : "",
            code ? std::strerror(code) : "");
        failed_ = true;
        break;
      }
      for (const Message& m : msgs) handle(m);
    }
  }
}

// The end-of-run warnings, in stap's words; an older module's DONE lacks
// the breakdown fields (0).
void Session::print_summary_warnings(const xtap_done& d) {
  if (d.errors || d.skipped)
    std::fprintf(stderr, "WARNING: Number of errors: %llu, skipped probes: %llu\n",
                 (unsigned long long)d.errors, (unsigned long long)d.skipped);
  if (d.skipped_lock)
    std::fprintf(stderr, "WARNING: Skipped due to global lock timeout: %llu\n",
                 (unsigned long long)d.skipped_lock);
  if (d.skipped_reentrant)
    std::fprintf(stderr, "WARNING: Skipped due to reentrancy: %llu\n",
                 (unsigned long long)d.skipped_reentrant);
  // The overload guard's skips, which did not end the session (XTAP_OVERLOAD=skip,
  // budgets); not in "skipped probes", as they count against no MAXSKIPPED.
  if (d.skipped_budget || d.skipped_overload)
    std::fprintf(stderr,
                 "WARNING: Skipped by the overload guard: %llu over probe budgets, %llu over "
                 "the CPU threshold\n",
                 (unsigned long long)d.skipped_budget, (unsigned long long)d.skipped_overload);
  if (d.dropped_records)
    std::fprintf(
        stderr,
        "WARNING: %llu output records (%llu bytes) were dropped: increase the buffer size\n",
        (unsigned long long)d.dropped_records, (unsigned long long)d.dropped_bytes);
  std::fputs(probe_stats_text(probe_stats_).c_str(), stderr);
  if (d.probe_stats_lost)
    std::fprintf(stderr, "WARNING: the losses of %llu more probes did not fit the message queue\n",
                 (unsigned long long)d.probe_stats_lost);
  if (relay_.corrupt())
    std::fprintf(stderr, "WARNING: %llu corrupt relay record streams were discarded\n",
                 (unsigned long long)relay_.corrupt());
  if (relay_.bad_items())
    std::fprintf(stderr, "WARNING: %llu binary printf records could not be formatted\n",
                 (unsigned long long)relay_.bad_items());
}

// --aggregates FILE: the globals after the end probes, for xtap --merge.
bool Session::write_aggregates() {
  AggregatesFile f;
  std::string err;
  f.module = mi_.name;
  f.script = script_;
  f.kernel = kernel_release();
  char host[256] = "";
  gethostname(host, sizeof(host) - 1);
  f.host = host;
  time_t now = time(nullptr);
  char when[32] = "";
  struct tm tm {};
  if (gmtime_r(&now, &tm)) strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
  f.time = when;
  if (!read_module_aggregates(dir_, &f, &err)) {
    say("--aggregates: %s", err.c_str());
    return false;
  }
  bool written;
  {
    AsCaller user;  // in setuid mode the file is the caller's, like -o's
    written = write_file(opt_.aggregates, encode_aggregates(f));
  }
  if (!written) {
    say("--aggregates: cannot write %s: %s", opt_.aggregates.c_str(), std::strerror(errno));
    return false;
  }
  if (opt_.verbose) say("wrote the aggregates to %s", opt_.aggregates.c_str());
  return true;
}

int Session::finish() {
  // The values after the end probes, served until the module goes.
  monitor_.stop();
  if (!opt_.prometheus.empty()) prometheus_.freeze();
  if (!opt_.monitor_feed.empty()) feed_.freeze();
  bool aggregates_failed = !opt_.aggregates.empty() && !write_aggregates();
  if (stdin_proc_fd_ >= 0) ::close(stdin_proc_fd_);
  wait_system();
  relay_.finish();
  relay_.close();
  ctl_.close();
  release_command(false);
  if (child_ > 0 && !child_running_) waitpid(child_, nullptr, WNOHANG);
  const xtap_done& d = done_info_;
  if (opt_.json) {
    // One line a run, whatever happened: what a log shipper keys alerts on.
    auto n = [](uint64_t v) { return std::to_string((unsigned long long)v); };
    out_.write(
        "{\"type\":\"summary\",\"hits\":" + n(d.hits) + ",\"records\":" + n(relay_.records()) +
        ",\"dropped_records\":" + n(d.dropped_records) + ",\"dropped_bytes\":" +
        n(d.dropped_bytes) + ",\"errors\":" + n(d.errors) + ",\"warnings\":" + n(d.warnings) +
        ",\"skipped\":" + n(d.skipped) + ",\"skipped_reentrant\":" + n(d.skipped_reentrant) +
        ",\"skipped_lock\":" + n(d.skipped_lock) + ",\"skipped_budget\":" + n(d.skipped_budget) +
        ",\"skipped_overload\":" + n(d.skipped_overload) + ",\"corrupt_streams\":" +
        n(relay_.corrupt()) + ",\"probes\":" + probe_stats_json(probe_stats_) +
        ",\"probe_stats_lost\":" + n(d.probe_stats_lost) +
        ",\"completed\":" + (done_ ? "true" : "false") + "}\n");
  } else {
    print_summary_warnings(d);
  }
  if (!relay_.switch_error().empty()) {
    say("switching output files: %s", relay_.switch_error().c_str());
    failed_ = true;
  }
  if (relay_.write_failed()) {
    say("writing the script output failed: %s", std::strerror(errno));
    failed_ = true;
  }
  if (opt_.verbose)
    say("done: %llu hits, %llu records", (unsigned long long)d.hits,
        (unsigned long long)relay_.records());
  return (failed_ || aggregates_failed || d.errors) ? 1 : 0;
}

// The option combinations that make sense, and -S's values.
bool Session::check_options(uint64_t* switch_mb, unsigned* keep_files) {
  std::string err;
  if (!opt_.switch_spec.empty()) {
    if (opt_.output.empty()) {
      say("-S switches output files: it needs -o FILE");
      return false;
    }
    if (opt_.bulk) {
      say("-b writes one file per CPU: -S does not apply");
      return false;
    }
    if (!parse_switch_spec(opt_.switch_spec, switch_mb, keep_files, &err)) {
      say("%s", err.c_str());
      return false;
    }
  }
  if (!opt_.prometheus.empty() && opt_.flight && opt_.output.empty()) {
    say("-F without -o leaves the module running detached: --prometheus applies to the later "
        "xtap-run -A");
    return false;
  }
  if (opt_.bulk && opt_.json) {
    say("-b writes each CPU's output as it is: --format json does not apply");
    return false;
  }
  if (opt_.flight && opt_.output.empty() &&
      (opt_.bulk || !opt_.command.empty() || opt_.timeout_s > 0)) {
    say("-F without -o leaves the module running detached: -b, -c and -T apply to the later "
        "xtap-run -A");
    return false;
  }
  return true;
}

// -F without -o, once the probes are armed: the module keeps the newest
// output in its relay buffers and runs on without a collector.
int Session::detach() {
  std::string err;
  if (!started_ || done_ || !ctl_.send(XTAP_CMD_DETACH, 0, &err)) {
    if (!err.empty()) say("%s", err.c_str());
    say("module %s did not start: nothing left running", mi_.name.c_str());
    return -1;
  }
  relay_.close();
  ctl_.close();
  std::fprintf(stderr,
               "xtap-run: %s runs in flight-recorder mode, keeping its newest output in memory; "
               "'xtap-run -A %s' prints it and stops it\n",
               mi_.name.c_str(), mi_.name.c_str());
  return 0;
}

int Session::run() {
  std::string err;
  uint64_t switch_mb = 0;
  unsigned keep_files = 0;
  if (!check_options(&switch_mb, &keep_files)) return 1;
  if (!opt_.attach.empty()) {
    mi_.name = opt_.attach;
  } else {
    auto mi = opt_.module_bytes.empty() ? read_modinfo(opt_.module, &err)
                                        : modinfo_of(opt_.module_bytes, opt_.module, &err);
    if (!mi) {
      say("%s", err.c_str());
      return 1;
    }
    mi_ = *mi;
    if (std::string why = wrong_kernel(mi_, opt_.module, kernel_release()); !why.empty()) {
      say("%s", why.c_str());
      return 1;
    }
  }
  // -b: the relay reader writes the per-CPU files; -o names them only.
  const std::string& merged_output = opt_.bulk ? std::string() : opt_.output;
  if (!out_.open(merged_output, !opt_.switch_spec.empty(), switch_mb, keep_files, &err)) {
    say("%s", err.c_str());
    return 1;
  }
  if (opt_.bulk) relay_.set_bulk(opt_.output.empty() ? "stpd" : opt_.output);
  // -F -o FILE: as stap, the collector goes to the background and writes
  // FILE (with -S, a series) until it is stopped (kill -INT or -TERM).
  if (opt_.flight && !opt_.output.empty()) {
    pid_t pid = fork();
    if (pid < 0) {
      say("cannot fork: %s", std::strerror(errno));
      return 1;
    }
    if (pid > 0) {
      std::fprintf(stderr, "xtap-run: collector running in the background as pid %d\n", int(pid));
      return 0;
    }
    // A daemon: its own session, and no hold on the terminal or on the
    // pipes of whoever started it (they would wait for it). Run-time
    // messages then go nowhere; --format json puts them into FILE.
    setsid();
    int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
      for (int fd = 0; fd <= 2; fd++) dup2(null, fd);
      ::close(null);
    }
  }
  detaching_ = opt_.flight && opt_.output.empty();
  if (!setup_signals()) {
    say("cannot set up signal handling: %s", std::strerror(errno));
    return 1;
  }
  std::string dbg = debugfs_dir(&err);
  if (dbg.empty()) {
    say("%s", err.c_str());
    return 1;
  }
  const std::string dir = dbg + "/" + XTAP_DEBUGFS_PREFIX + mi_.name;
  if (!opt_.attach.empty()) {
    if (access(dir.c_str(), F_OK) != 0) {
      say("no xtap module %s is loaded (see /proc/modules; xtap-run -F leaves one running)",
          mi_.name.c_str());
      return 1;
    }
  } else {
    std::string params;
    SymbolSources symbols;
    symbols.blacklist = dbg + "/kprobes/blacklist";
    if (!wildcard_params(mi_, symbols, &params, &err)) {
      say("%s", err.c_str());
      return 1;
    }
    if (load_module(opt_.module, mi_.name, params, &err, opt_.module_fd, opt_.module_bytes)) {
      say("%s", err.c_str());
      return 1;
    }
    if (opt_.verbose) say("inserted module %s", mi_.name.c_str());
  }

  int rc = 1;
  if (connect(dir)) {
    relay_.set_json(opt_.json);
    if (opt_.monitor_s > 0 && !detaching_) {
      std::string why;
      if (!monitor_.start(dir, mi_.name, opt_.monitor_s, opt_.output, &why) && opt_.verbose)
        say("--monitor: %s", why.c_str());
    }
    // -F without -o reads nothing: the output stays for the later -A.
    if (!detaching_) relay_.start(&out_);
    long target = opt_.target_pid;
    bool ok = true;
    if (!opt_.command.empty()) {
      ok = spawn_command();
      if (!ok) say("cannot run command: %s", std::strerror(errno));
      target = child_;
    }
    // An attached session was started by the -F run: it greets with STARTED.
    if (ok && opt_.attach.empty() && !ctl_.send(XTAP_CMD_START, target, &err)) {
      say("%s", err.c_str());
      ok = false;
    }
    if (ok) loop();
    else request_stop("start failed"), failed_ = true, loop();
    bool detach_failed = false;
    if (detaching_) {
      if (detach() == 0) return 0;
      // It could not be left running: stop it as any session.
      detach_failed = true;
      detaching_ = false;
      request_stop("detaching failed");
      loop();
    }
    rc = finish();
    if (detach_failed) rc = 1;
  } else {
    relay_.close();
    ctl_.close();
  }
  monitor_.stop();
  prometheus_.stop();  // it reads the module's files
  feed_.stop();
  if (unload_module(mi_.name, &err)) {
    say("%s", err.c_str());
    rc = 1;
  } else if (opt_.verbose) {
    say("removed module %s", mi_.name.c_str());
  }
  out_.close();
  return rc;
}

}  // namespace

int run_session(const Options& opt) {
  Session s(opt);
  return s.run();
}

}  // namespace xtap::runner
