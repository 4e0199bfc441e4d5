// ssh plumbing for `xtap --remote`.
#include "xtap/remote_ssh.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "common/file_io.h"
#include "common/process.h"

namespace fs = std::filesystem;

namespace xtap::cli {

bool parse_remote_target(const std::string &spec, RemoteTarget *t, std::string *error) {
  std::string rest = spec;
  auto bad = [&](const std::string &why) {
    *error = "--remote " + spec + ": " + why;
    return false;
  };
  size_t scheme = rest.find("://");
  if (scheme != std::string::npos) {
    std::string name = rest.substr(0, scheme);
    if (name != "ssh")
      return bad("xtap reaches hosts over ssh only; use ssh://[USER@]HOST[:PORT] or USER@HOST");
    rest = rest.substr(scheme + 3);
    if (!rest.empty() && rest.back() == '/') rest.pop_back();
    if (rest.find('/') != std::string::npos)
      return bad("a target has no path; use ssh://[USER@]HOST[:PORT]");
  }
  *t = RemoteTarget{};
  t->spec = spec;
  size_t at = rest.rfind('@');
  if (at != std::string::npos) {
    t->user = rest.substr(0, at);
    rest = rest.substr(at + 1);
    if (t->user.empty()) return bad("empty user name before '@'");
  }
  std::string port;
  if (!rest.empty() && rest[0] == '[') {  // [IPv6] or [IPv6]:PORT
    size_t close = rest.find(']');
    if (close == std::string::npos) return bad("unbalanced '[' in the host");
    t->host = rest.substr(1, close - 1);
    std::string after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return bad("expected ':PORT' after ']'");
      if (scheme == std::string::npos)
        return bad("a port needs the ssh:// form: ssh://[HOST]:PORT");
      port = after.substr(1);
      if (port.empty()) return bad("empty port after ':'");
    }
  } else {
    size_t colon = rest.find(':');
    // A port only in the ssh:// form: USER@HOST:PATH is scp's, not a port.
    if (colon != std::string::npos) {
      if (scheme == std::string::npos) return bad("a port needs the ssh:// form: ssh://HOST:PORT");
      port = rest.substr(colon + 1);
      rest = rest.substr(0, colon);
      if (port.empty()) return bad("empty port after ':'");
    }
    t->host = rest;
  }
  if (t->host.empty()) return bad("no host name");
  if (t->host.find_first_of(" \t'\"\\;&|<>$`") != std::string::npos || t->host[0] == '-')
    return bad("'" + t->host + "' is not a host name");
  if (!t->user.empty() &&
      (t->user.find_first_of(" \t'\"\\;&|<>$`") != std::string::npos || t->user[0] == '-'))
    return bad("'" + t->user + "' is not a user name");
  if (scheme != std::string::npos && !port.empty()) {
    char *end = nullptr;
    long n = strtol(port.c_str(), &end, 10);
    if (*end || n < 1 || n > 65535) return bad("'" + port + "' is not a port number");
    t->port = int(n);
  }
  std::string host = t->host.find(':') != std::string::npos ? "[" + t->host + "]" : t->host;
  t->label = (t->user.empty() ? "" : t->user + "@") + host +
             (t->port ? ":" + std::to_string(t->port) : "");
  return true;
}

SshConnection::SshConnection(RemoteTarget target, std::vector<std::string> ssh_options,
                             std::string control_path)
    : target_(std::move(target)),
      options_(std::move(ssh_options)),
      control_path_(std::move(control_path)) {}

SshConnection::~SshConnection() { close(); }

std::vector<std::string> SshConnection::base_argv() const {
  std::vector<std::string> a = {"ssh"};
  // The user's options first: for ssh the first value of an option wins.
  for (const auto &o : options_) a.insert(a.end(), {"-o", o});
  a.insert(a.end(), {"-o", "BatchMode=yes", "-o", "ConnectTimeout=10", "-o",
                     "ServerAliveInterval=15", "-o", "ServerAliveCountMax=4", "-S", control_path_});
  if (target_.port) a.insert(a.end(), {"-p", std::to_string(target_.port)});
  if (!target_.user.empty()) a.insert(a.end(), {"-l", target_.user});
  return a;
}

bool SshConnection::open(std::string *error) {
  // -f: back to us once authenticated, the master (a daemon, out of the
  // terminal's reach) keeps the connection for every later command.
  std::vector<std::string> a = base_argv();
  a.insert(a.end(), {"-M", "-N", "-f", "-o", "ControlPersist=60", "--", target_.host});
  process::SpawnSpec s;
  s.argv = a;
  s.stderr_path = control_path_ + ".err";
  std::string err;
  int rc = process::run_to_end(s, &err);
  std::string ssh_err = read_file(s.stderr_path);
  fs::remove(s.stderr_path);
  if (rc != 0) {
    *error = rc < 0 && !err.empty()
                 ? target_.label + ": cannot run ssh: " + err +
                       "\n  hint: install the OpenSSH client (Debian: openssh-client)"
                 : explain_ssh_failure(target_, ssh_err);
    return false;
  }
  open_ = true;
  return true;
}

std::vector<std::string> SshConnection::argv_for(const std::string &command,
                                                 const std::vector<std::string> &extra) const {
  std::vector<std::string> a = base_argv();
  a.insert(a.end(), extra.begin(), extra.end());
  a.insert(a.end(), {"-o", "ControlMaster=no", "--", target_.host, command});
  return a;
}

int SshConnection::run(const std::string &command, std::string *out, std::string *err,
                       const std::string &stdin_path) const {
  process::SpawnSpec s;
  s.argv = argv_for(command);
  s.stdin_path = stdin_path;
  s.stdout_path = control_path_ + ".out";
  s.stderr_path = control_path_ + ".err";
  std::string why;
  int rc = process::run_to_end(s, &why);
  if (out) *out = read_file(s.stdout_path);
  if (err) *err = rc < 0 ? why : read_file(s.stderr_path);
  fs::remove(s.stdout_path);
  fs::remove(s.stderr_path);
  return rc < 0 ? 255 : rc;
}

void SshConnection::close() {
  if (!open_) return;
  open_ = false;
  std::vector<std::string> a = base_argv();
  a.insert(a.end(), {"-O", "exit", "--", target_.host});
  process::SpawnSpec s;
  s.argv = a;
  std::string err;
  process::run_to_end(s, &err);
}

std::string explain_ssh_failure(const RemoteTarget &t, const std::string &ssh_stderr) {
  // ssh's own last line names the failure ("ssh: connect to host ... port
  // 22: Connection refused", "Permission denied (publickey).").
  std::string last;
  std::istringstream lines(ssh_stderr);
  for (std::string line; std::getline(lines, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) last = line;
  }
  auto has = [&](const char *s) { return ssh_stderr.find(s) != std::string::npos; };
  // The command that tries the same connection by hand.
  std::string by_hand = "ssh " + (t.port ? "-p " + std::to_string(t.port) + " " : "") +
                        (t.user.empty() ? "" : t.user + "@") + t.host + " true";
  std::string what = last.empty() ? "ssh failed without saying why" : last;
  std::string reason, hint;
  if (has("Permission denied") || has("Too many authentication failures")) {
    reason = "ssh authentication failed (" + what + ")";
    hint =
        "xtap runs ssh without prompts (BatchMode): install your public key on the host "
        "(ssh-copy-id " +
        t.label + "), or name one with --ssh-option IdentityFile=KEY";
  } else if (has("Host key verification failed") || has("REMOTE HOST IDENTIFICATION HAS CHANGED")) {
    reason = "the host's ssh key is not known or has changed (" + what + ")";
    hint =
        "connect once with ssh to check and record its key, or see --ssh-option "
        "StrictHostKeyChecking=...";
  } else if (has("Could not resolve hostname") || has("Name or service not known")) {
    reason = "unknown host name (" + what + ")";
    hint = "check the name, or give an address: --remote ssh://USER@ADDRESS[:PORT]";
  } else if (has("Connection refused") || has("timed out") || has("No route to host") ||
             has("Network is unreachable") || has("Connection reset") || has("Connection closed") ||
             has("kex_exchange_identification")) {
    reason = "cannot reach the host (" + what + ")";
    hint = "check the address and port and that an ssh server runs there; `" + by_hand +
           "` should work without a prompt";
  } else {
    reason = "ssh failed (" + what + ")";
    hint = "`" + by_hand + "` should work without a prompt; pass ssh options with --ssh-option";
  }
  return t.label + ": " + reason + "\n  hint: " + hint;
}

pid_t spawn_piped(const std::vector<std::string> &argv, int *in_fd, int *out_fd, int *err_fd,
                  std::string *error) {
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + strerror(errno);
    return -1;
  }
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + strerror(errno);
    return -1;
  }
  std::vector<char *> args = process::exec_argv(argv);
  pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("fork: ") + strerror(errno);
    return -1;
  }
  if (pid == 0) {
    // xtap blocks the stop signals for its signalfd; ssh must get them.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    setsid();
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    execvp(args[0], args.data());
    dprintf(2, "cannot run %s: %s\n", args[0], strerror(errno));
    _exit(255);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  *in_fd = in[1];
  *out_fd = out[0];
  *err_fd = err[0];
  return pid;
}

}  // namespace xtap::cli
