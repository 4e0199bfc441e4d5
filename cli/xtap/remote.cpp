// xtap --remote: probe, build, ship, run and relay.
#include "xtap/remote.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "common/build_id.h"
#include "common/file_io.h"
#include "common/process.h"
#include "kbuild/kbuild.h"
#include "vm/guest_init.h"
#include "vm/vm.h"
#include "xtap/bundle.h"
#include "xtap/merge_cmd.h"
#include "xtap/remote_ssh.h"

namespace fs = std::filesystem;

namespace xtap::cli {
namespace {

struct Host {
  RemoteTarget target;
  std::unique_ptr<SshConnection> ssh;
  std::string error;  // why this host cannot run, "" while it can
  std::string release, machine, build_id;
  std::string module;      // local path of the module built for it
  std::string remote_dir;  // its temporary directory on the host
  // --merge: where xtap-run writes the aggregates, beside remote_dir (which
  // the session removes), or "".
  std::string aggregates;
  // The session.
  pid_t pid = -1;
  int in = -1, out = -1, err = -1;
  std::string out_partial, err_partial;  // a line not yet ended (several hosts)
  long lines = 0, bytes = 0;
  int status = -1;
  long long started_ms = 0, ended_ms = 0;
};

bool fail(Host &h, const std::string &why) {
  h.error = why;
  return false;
}

// What every host is asked first, in one round trip: kernel release,
// machine, uid, and its build-id notes in hex (od is in coreutils and
// busybox; xtap-run reads the same /sys/kernel/notes).
const char *kProbeCommand =
    "uname -r; uname -m; id -u; od -An -v -tx1 /sys/kernel/notes 2>/dev/null | tr -d ' \\n'; echo";

bool probe(Host &h, const std::string &control_path, const std::vector<std::string> &ssh_options) {
  h.ssh = std::make_unique<SshConnection>(h.target, ssh_options, control_path);
  std::string err;
  if (!h.ssh->open(&err)) return fail(h, err);
  std::string out;
  int rc = h.ssh->run(kProbeCommand, &out, &err);
  if (rc == 255) return fail(h, explain_ssh_failure(h.target, err));
  std::istringstream lines(out);
  std::string uid, notes;
  std::getline(lines, h.release);
  std::getline(lines, h.machine);
  std::getline(lines, uid);
  std::getline(lines, notes);
  if (rc != 0 || h.release.empty() || uid.empty())
    return fail(h, h.target.label + ": cannot read the host's kernel release (exit " +
                       std::to_string(rc) +
                       (err.empty() ? "" : ": " + err.substr(0, err.find('\n'))) +
                       ")\n  hint: xtap needs a POSIX shell with uname and id on the host");
  struct utsname u;
  uname(&u);
  if (h.machine != u.machine)
    return fail(h, h.target.label + ": the host is " + h.machine + ", this machine builds for " +
                       u.machine + "\n  hint: build on a " + h.machine +
                       " machine (xtap does not cross-compile)");
  if (uid != "0")
    return fail(h, h.target.label + ": logged in as uid " + uid +
                       ", but loading a kernel module needs root" +
                       "\n  hint: connect as root (--remote ssh://root@" + h.target.host +
                       (h.target.port ? ":" + std::to_string(h.target.port) : "") + ")");
  std::string raw;
  for (size_t i = 0; i + 1 < notes.size(); i += 2)
    raw += char(std::stoi(notes.substr(i, 2), nullptr, 16));
  h.build_id = build_id_from_notes(raw);
  return true;
}

// Passes 1-4 for `release` in a child (as a bundle's kernels are built),
// in `dir`; the module's path, or "" after the child said why.
std::string build_for(const Options &o, const std::string &release, const std::string &dir,
                      const std::function<int(const Options &)> &compile) {
  std::string out_path = dir + "/.stdout-" + release;
  std::cout.flush();
  std::cerr.flush();
  pid_t pid = fork();
  if (pid < 0) return "";
  if (pid == 0) {
    int fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || chdir(dir.c_str()) != 0) _exit(1);
    dup2(fd, STDOUT_FILENO);
    Options one = o;
    // One name on every kernel, as in a bundle: --merge checks that the
    // hosts' aggregates come from one script by it.
    std::string err;
    one.module_name = fleet_module_name(o, &err);
    one.remotes.clear();
    one.kernels.clear();
    one.kernel = release;
    one.last_pass = 4;
    one.output_file.clear();
    one.strip_debug = true;  // the hosts symbolise from kallsyms; DWARF would only slow the copy
    int rc = compile(one);
    std::cout.flush();
    std::cerr.flush();
    _exit(rc);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "";
  std::string ko, line;
  std::istringstream lines(read_file(out_path));
  while (std::getline(lines, line))
    if (!line.empty()) ko = line;
  return ko;
}

// The runner shipped to the hosts: xtap-run without its symbols (2 MB
// rather than 6).
std::string shipped_runner(const std::string &dir, std::string *error) {
  std::string runner = vm::sibling_program("xtap-run");
  if (runner.empty()) {
    *error = "xtap-run not found next to xtap";
    return "";
  }
  process::SpawnSpec s;
  std::string copy = dir + "/xtap-run";
  s.argv = {"strip", "-o", copy, runner};
  std::string err;
  if (process::run_to_end(s, &err) == 0) return copy;
  return runner;
}

// The session on the host: xtap-run in the background, a watcher on the
// ssh channel's stdin that stops it (SIGTERM: a background job of a
// non-interactive shell starts with SIGINT ignored, which xtap-run's
// signalfd could not see) on a "stop" line from xtap or when the
// connection goes away, then the temporary directory is removed and the
// runner's status returned.
std::string session_command(const Host &h, const std::vector<std::string> &runner_args) {
  std::string d = vm::shell_quote(h.remote_dir);
  std::string run = "\"$d\"/xtap-run";
  for (const auto &a : runner_args) run += " " + vm::shell_quote(a);
  // Beside the directory, which the session removes: fetched afterwards.
  if (!h.aggregates.empty()) run += " --aggregates " + vm::shell_quote(h.aggregates);
  run += " \"$d\"/" + vm::shell_quote(fs::path(h.module).filename().string());
  return "d=" + d + "; exec 3<&0; " + run + " </dev/null & p=$!; " +
         "{ while read -r l; do [ \"$l\" = stop ] && break; done; kill -TERM $p 2>/dev/null; } <&3 "
         ">/dev/null 2>&1 & "
         "w=$!; wait $p; st=$?; kill $w 2>/dev/null; rm -rf \"$d\"; exit $st";
}

bool ship(Host &h) {
  std::string out, err;
  int rc = h.ssh->run("mktemp -d /tmp/xtap-remote.XXXXXX", &out, &err);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  if (rc != 0 || out.empty() || out[0] != '/')
    return fail(h,
                h.target.label + ": cannot make a temporary directory on the host: " +
                    (err.empty() ? "exit " + std::to_string(rc) : err.substr(0, err.find('\n'))) +
                    "\n  hint: xtap needs mktemp and a writable /tmp there");
  h.remote_dir = out;
  return true;
}

bool upload(Host &h, const std::string &local, const std::string &name, const std::string &mode) {
  std::string dest = vm::shell_quote(h.remote_dir + "/" + name);
  std::string out, err;
  int rc = h.ssh->run("cat > " + dest + " && chmod " + mode + " " + dest, &out, &err, local);
  if (rc == 0) return true;
  return fail(h, h.target.label + ": cannot copy " + name + " to " + h.remote_dir + ": " +
                     (err.empty() ? "exit " + std::to_string(rc) : err.substr(0, err.find('\n'))) +
                     "\n  hint: is /tmp on the host full or read-only?");
}

void remove_remote_dir(Host &h) {
  if (h.remote_dir.empty()) return;
  std::string out, err;
  h.ssh->run("rm -rf " + vm::shell_quote(h.remote_dir), &out, &err);
  h.remote_dir.clear();
}

// --merge: the host's aggregates file, fetched and removed there.
std::optional<merge::HostDump> fetch_aggregates(Host &h) {
  std::string agg = vm::shell_quote(h.aggregates);
  std::string out, err;
  int rc = h.ssh->run("cat " + agg + " && rm -f " + agg, &out, &err);
  if (rc != 0) {
    std::cerr << "xtap: " << h.target.label << ": no aggregates to merge ("
              << (err.empty() ? "exit " + std::to_string(rc) : err.substr(0, err.find('\n')))
              << ")\n";
    return std::nullopt;
  }
  auto d = merge::decode_dump(out, h.target.label, &err);
  if (!d) std::cerr << "xtap: --merge: " << err << "\n";
  else d->label = h.target.label;
  return d;
}

std::string json_label(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

constexpr size_t kMaxPartialLine = 64 << 10;

// Output of one host: as it comes with one host; with several, whole
// lines prefixed by "[LABEL] " (JSON records get a "host" member instead).
void relay(Host &h, bool is_err, const char *data, size_t n, bool several, bool json,
           std::ostream &out) {
  std::ostream &os = is_err ? std::cerr : out;
  if (!is_err) h.bytes += n;
  for (size_t i = 0; i < n; i++)
    if (data[i] == '\n' && !is_err) h.lines++;
  if (!several) {
    os.write(data, n);
    os.flush();
    return;
  }
  std::string &partial = is_err ? h.err_partial : h.out_partial;
  partial.append(data, n);
  size_t start = 0, nl;
  while ((nl = partial.find('\n', start)) != std::string::npos) {
    std::string line = partial.substr(start, nl - start);
    if (json && !line.empty() && line[0] == '{')
      os << "{\"host\":\"" << json_label(h.target.label) << "\"," << line.substr(1) << "\n";
    else os << "[" << h.target.label << "] " << line << "\n";
    start = nl + 1;
  }
  partial.erase(0, start);
  // Output that never ends a line is not held without bound: past
  // kMaxPartialLine it goes out as a line of its own.
  if (partial.size() > kMaxPartialLine) {
    os << "[" << h.target.label << "] " << partial << "\n";
    partial.clear();
  }
  os.flush();
}

void flush_partial(Host &h, bool several, std::ostream &out) {
  if (!several) return;
  if (!h.out_partial.empty()) out << "[" << h.target.label << "] " << h.out_partial << "\n";
  if (!h.err_partial.empty()) std::cerr << "[" << h.target.label << "] " << h.err_partial << "\n";
  h.out_partial.clear();
  h.err_partial.clear();
}

// Runs every ready host's session at once until all have ended; the
// first SIGINT/SIGTERM/SIGHUP asks each to stop, a second closes their
// control channels, a third kills the local ssh processes (each host's
// watcher still unloads the module and removes its files).
// --prometheus ADDR:PORT: host i's xtap-run serves 127.0.0.1:PORT there,
// and its ssh forwards ADDR:PORT+i here to it (-L); the addresses are said
// on stderr. Returns host i's runner arguments and fills *ssh_extra.
std::vector<std::string> prometheus_forward(const std::vector<std::string> &runner_args, size_t i,
                                            const std::string &label, bool quiet,
                                            std::vector<std::string> *ssh_extra) {
  std::vector<std::string> args = runner_args;
  auto at = std::find(args.begin(), args.end(), "--prometheus");
  if (at == args.end() || at + 1 == args.end()) return args;
  std::string local = *(at + 1);
  size_t colon = local.rfind(':');
  std::string port = local.substr(colon + 1), addr = local.substr(0, colon);
  std::string here = std::to_string(std::stoi(port) + int(i));
  *(at + 1) = "127.0.0.1:" + port;
  *ssh_extra = {"-o", "ExitOnForwardFailure=yes", "-L", addr + ":" + here + ":127.0.0.1:" + port};
  if (!quiet)
    std::cerr << "xtap: " << label << ": /metrics forwarded to http://" << addr << ":" << here
              << "/metrics\n";
  return args;
}

void run_sessions(std::vector<Host *> &hosts, const std::vector<std::string> &runner_args,
                  int sig_fd, bool several, bool json, std::ostream &out, bool quiet) {
  for (size_t i = 0; i < hosts.size(); i++) {
    Host *h = hosts[i];
    std::string err;
    std::vector<std::string> ssh_extra;
    std::vector<std::string> args =
        prometheus_forward(runner_args, i, h->target.label, quiet, &ssh_extra);
    h->started_ms = process::now_ms();
    h->pid = spawn_piped(h->ssh->argv_for(session_command(*h, args), ssh_extra), &h->in, &h->out,
                         &h->err, &err);
    if (h->pid < 0) fail(*h, h->target.label + ": cannot start ssh: " + err);
  }
  int signals = 0;
  char buf[65536];
  for (;;) {
    std::vector<pollfd> pfds = {{sig_fd, POLLIN, 0}};
    std::vector<std::pair<Host *, bool>> who = {{nullptr, false}};
    for (Host *h : hosts) {
      if (h->out >= 0) pfds.push_back({h->out, POLLIN, 0}), who.push_back({h, false});
      if (h->err >= 0) pfds.push_back({h->err, POLLIN, 0}), who.push_back({h, true});
    }
    if (pfds.size() == 1) break;
    if (poll(pfds.data(), pfds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    bool stop = false;
    if (pfds[0].revents & POLLIN) {
      signalfd_siginfo si;
      stop = read(sig_fd, &si, sizeof si) == sizeof si;
    }
    // Nowhere left to write the output (`xtap --remote ... | head`): stop
    // the sessions as a Ctrl-C would, once.
    if (!out.good() && signals == 0) stop = true;
    if (stop) {
      signals++;
      if (!quiet && signals == 1 && several)
        std::cerr << "xtap: ending the sessions on " << hosts.size() << " hosts\n";
      for (Host *h : hosts) {
        if (signals == 1 && h->in >= 0) {
          (void)!write(h->in, "stop\n", 5);
        } else if (signals == 2 && h->in >= 0) {
          close(h->in);
          h->in = -1;
        } else if (signals >= 3 && h->pid > 0 && h->status < 0) {
          kill(h->pid, SIGTERM);
        }
      }
    }
    for (size_t i = 1; i < pfds.size(); i++) {
      if (!(pfds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      auto [h, is_err] = who[i];
      int &fd = is_err ? h->err : h->out;
      ssize_t n = read(fd, buf, sizeof buf);
      if (n > 0) {
        relay(*h, is_err, buf, size_t(n), several, json, out);
      } else if (n == 0 || errno != EINTR) {
        close(fd);
        fd = -1;
      }
    }
    for (Host *h : hosts) {
      if (h->pid > 0 && h->out < 0 && h->err < 0 && h->status < 0) {
        int st = 0;
        while (waitpid(h->pid, &st, 0) < 0 && errno == EINTR) {
        }
        h->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        h->ended_ms = process::now_ms();
        if (h->in >= 0) close(h->in), h->in = -1;
        flush_partial(*h, several, out);
        if (h->status == 255)
          std::cerr << "xtap: " << h->target.label
                    << ": the ssh connection failed or was lost; the host's end unloads the module "
                       "and removes "
                    << h->remote_dir << " when it notices\n";
        else h->remote_dir.clear();  // the session removed it
      }
    }
  }
}

std::string seconds(long long ms) {
  char b[32];
  snprintf(b, sizeof b, "%.1f s", ms / 1000.0);
  return b;
}

// The first failure's exit status, once one happened; each host's error
// is said as it happens.
struct Failures {
  int first = 0;
  void note() {
    if (!first) first = 1;
  }
  void report(const Host &h) {
    std::cerr << "xtap: " << h.error << "\n";
    note();
  }
};

// --remote TARGETs parsed into hosts, each given once; false when one is
// not (said).
bool parse_hosts(const Options &o, std::vector<Host> *hosts) {
  hosts->resize(o.remotes.size());
  std::set<std::string> labels;
  for (size_t i = 0; i < o.remotes.size(); i++) {
    std::string err;
    if (!parse_remote_target(o.remotes[i], &(*hosts)[i].target, &err)) {
      std::cerr << "xtap: " << err << "\n";
      return false;
    }
    if (!labels.insert((*hosts)[i].target.label).second) {
      std::cerr << "xtap: --remote " << (*hosts)[i].target.label << " is given twice\n";
      return false;
    }
  }
  return true;
}

// Why `h` cannot run a module built here for its kernel: headers missing
// here, or another build of the same release; "" when it can.
std::string kernel_mismatch(const Host &h, const kbuild::Env &env) {
  kbuild::Target t;
  std::string why;
  if (!kbuild::resolve_target(h.release, &t, &why))
    return h.target.label + ": the host runs kernel " + h.release +
           ", whose headers are not installed here\n  hint: install linux-headers-" + h.release +
           " on this machine, or build a bundle where they are and run it with xtap-run "
           "(docs/fleet.md)";
  std::string local_id, id_err;
  if (!h.build_id.empty() && kbuild::kernel_build_id(t, env, &local_id, &id_err) &&
      local_id != h.build_id)
    return h.target.label + ": the host runs another build of " + h.release + " (kernel build-id " +
           h.build_id + ") than the one installed here (" + local_id +
           ")\n  hint: update the host's or this machine's kernel packages so that they match";
  return "";
}

// Step 2: one module per kernel release the hosts run, built here.
void build_modules(const Options &o, std::vector<Host> &hosts, const std::string &work,
                   const std::function<int(const Options &)> &compile, Failures &failures) {
  kbuild::Env env;
  env.cache_dir = kbuild::default_cache_dir();
  env.version = XTAP_VERSION;
  std::map<std::string, std::string> built;  // release -> module ("" when it failed)
  for (Host &h : hosts) {
    if (!h.error.empty()) continue;
    if (std::string why = kernel_mismatch(h, env); !why.empty()) {
      fail(h, why);
      failures.report(h);
      continue;
    }
    if (!built.count(h.release)) {
      if (o.verbose)
        std::cerr << "xtap: building for " << h.release << " (" << h.target.label << ")\n";
      std::string dir = work + "/build-" + std::to_string(built.size());
      fs::create_directories(dir);
      built[h.release] = build_for(o, h.release, dir, compile);
    }
    h.module = built[h.release];
    if (h.module.empty()) {
      fail(h, h.target.label + ": no module for " + h.release + " (the build failed, see above)");
      failures.note();
    }
  }
}

// Step 3: xtap-run and the module copied to every host that got this far;
// the hosts that are ready to run.
std::vector<Host *> ship_all(std::vector<Host> &hosts, const std::string &work,
                             Failures &failures) {
  std::string err;
  std::string runner = shipped_runner(work, &err);
  std::vector<Host *> ready;
  for (Host &h : hosts) {
    if (!h.error.empty()) continue;
    if (runner.empty()) {
      fail(h, err);
      failures.report(h);
      continue;
    }
    if (ship(h) && upload(h, runner, "xtap-run", "755") &&
        upload(h, h.module, fs::path(h.module).filename().string(), "644")) {
      ready.push_back(&h);
    } else {
      failures.report(h);
      remove_remote_dir(h);
    }
  }
  return ready;
}

// Step 5, with several hosts: a line for all of them, then one per host.
void print_figures(const std::vector<Host> &hosts, long long elapsed_ms) {
  int ok = 0;
  long lines = 0, bytes = 0;
  for (const Host &h : hosts) {
    ok += h.error.empty() && h.status == 0;
    lines += h.lines;
    bytes += h.bytes;
  }
  std::cerr << "xtap: " << hosts.size() << " hosts: " << ok << " ran to the end, "
            << hosts.size() - ok << " failed; " << lines << " lines (" << bytes
            << " bytes) of output in " << seconds(elapsed_ms) << "\n";
  for (const Host &h : hosts) {
    std::cerr << "xtap:   " << h.target.label << "  ";
    if (!h.error.empty()) {
      std::string why = h.error.substr(0, h.error.find('\n'));
      if (why.rfind(h.target.label + ": ", 0) == 0) why = why.substr(h.target.label.size() + 2);
      std::cerr << "not run: " << why << "\n";
    } else {
      std::cerr << h.release << "  exit " << h.status << "  " << h.lines << " lines  "
                << seconds(h.ended_ms - h.started_ms) << "\n";
    }
  }
}

}  // namespace

int run_remote(const Options &o, const std::vector<std::string> &runner_args,
               const std::function<int(const Options &)> &compile) {
  std::vector<Host> hosts;
  if (!parse_hosts(o, &hosts)) return 1;
  std::string templ = (fs::temp_directory_path() / "xtap-remote-XXXXXX").string();
  if (!mkdtemp(templ.data())) {
    std::cerr << "xtap: cannot create a work directory: " << strerror(errno) << "\n";
    return 1;
  }
  const std::string work = templ;
  struct RemoveWork {
    std::string dir;
    ~RemoveWork() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } remove_work{work};

  // 1. Ask every host, in parallel (each may take ssh's connect timeout).
  {
    std::vector<std::thread> probes;
    for (size_t i = 0; i < hosts.size(); i++)
      probes.emplace_back(
          [&, i] { probe(hosts[i], work + "/c" + std::to_string(i), o.ssh_options); });
    for (auto &t : probes) t.join();
  }
  bool several = hosts.size() > 1;
  Failures failures;
  for (Host &h : hosts)
    if (!h.error.empty()) failures.report(h);

  // 2. Build once per kernel release (and build) the hosts run.
  build_modules(o, hosts, work, compile, failures);

  // 3. Signals are ours from here on: a Ctrl-C must end the sessions, not
  // leave a module loaded on a host.
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, s);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  int sig_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  signal(SIGPIPE, SIG_IGN);
  std::vector<Host *> ready = ship_all(hosts, work, failures);
  for (Host *h : ready)
    if (o.merge) h->aggregates = h->remote_dir + ".agg";
  signalfd_siginfo pending;
  bool interrupted = read(sig_fd, &pending, sizeof pending) == sizeof pending;

  // 4. Run.
  std::ofstream file_out;
  if (!o.output_file.empty()) {
    file_out.open(o.output_file, std::ios::binary | std::ios::trunc);
    if (!file_out) {
      std::cerr << "xtap: cannot write " << o.output_file << ": " << strerror(errno) << "\n";
      interrupted = true;
      failures.note();
    }
  }
  std::ostream &out = o.output_file.empty() ? std::cout : file_out;
  long long t0 = process::now_ms();
  if (!interrupted && !ready.empty())
    run_sessions(ready, runner_args, sig_fd, several, o.json, out, o.quiet);
  long long t1 = process::now_ms();
  out.flush();
  for (Host *h : ready) {
    // A lost connection (255) may still work for this; an interrupted
    // session never got to remove its directory.
    if (h->status == 255 || interrupted) remove_remote_dir(*h);
    if (h->status != 0 && !failures.first) failures.first = h->status < 0 ? 1 : h->status;
  }
  // --merge: every host that ran to the end, merged below.
  std::vector<merge::HostDump> dumps;
  for (Host *h : ready) {
    if (h->aggregates.empty()) continue;
    if (auto d = fetch_aggregates(*h)) dumps.push_back(std::move(*d));
    else if (!failures.first) failures.first = 1;
  }
  for (Host &h : hosts)
    if (h.ssh) h.ssh->close();
  if (sig_fd >= 0) close(sig_fd);
  if (interrupted && !failures.first) failures.first = 130;

  // 5. Figures, with several hosts.
  if (several && !o.quiet) print_figures(hosts, t1 - t0);
  if (o.merge && !dumps.empty()) {
    int rc = print_merged(std::move(dumps), o, out);
    if (rc && !failures.first) failures.first = rc;
  }
  if (!several && ready.size() == 1) return ready[0]->status < 0 ? 1 : ready[0]->status;
  return failures.first;
}

}  // namespace xtap::cli
