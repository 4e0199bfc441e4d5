// ssh plumbing for `xtap --remote` (docs/fleet.md): target parsing, one
// ControlMaster connection per host, commands over it, and plain-language
// reasons for ssh's failures.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace xtap::cli {

struct RemoteTarget {
  std::string spec;  // as given: ssh://root@host:2222, root@host, host
  std::string user;  // empty: ssh's default (~/.ssh/config, the local user)
  std::string host;
  int port = 0;       // 0: ssh's default
  std::string label;  // what prefixes the host's output lines: user@host:port as given
};

// ssh://[USER@]HOST[:PORT][/] (stap's syntax; [IPv6]:PORT too) or
// [USER@]HOST. False with *error for another scheme or a malformed target.
bool parse_remote_target(const std::string &spec, RemoteTarget *t, std::string *error);

// One host's ssh connection: a ControlMaster started by open(), which
// every later command reuses, and closed by close().
class SshConnection {
 public:
  SshConnection(RemoteTarget target, std::vector<std::string> ssh_options,
                std::string control_path);
  ~SshConnection();
  const RemoteTarget &target() const { return target_; }

  // Connects and authenticates (BatchMode: no prompts). False with a
  // one-line reason and a hint (unreachable, authentication, host key).
  bool open(std::string *error);
  // ssh argv for `command` over the connection (after open()), with
  // `extra` ssh options (a -L forward) before the host.
  std::vector<std::string> argv_for(const std::string &command,
                                    const std::vector<std::string> &extra = {}) const;
  // Runs `command`, stdin from stdin_path; the exit status (255: ssh
  // itself failed) with stdout and stderr collected.
  int run(const std::string &command, std::string *out, std::string *err,
          const std::string &stdin_path = "/dev/null") const;
  void close();

 private:
  std::vector<std::string> base_argv() const;
  RemoteTarget target_;
  std::vector<std::string> options_;
  std::string control_path_;
  bool open_ = false;
};

// A plain reason and a hint for ssh's stderr after it exited 255, as
// "LABEL: reason\n  hint: ...".
std::string explain_ssh_failure(const RemoteTarget &t, const std::string &ssh_stderr);

// Starts argv in a session of its own (so that a terminal's Ctrl-C reaches
// only xtap, which then ends the remote sessions itself), with pipes for
// stdin, stdout and stderr. -1 with *error on failure.
pid_t spawn_piped(const std::vector<std::string> &argv, int *in_fd, int *out_fd, int *err_fd,
                  std::string *error);

}  // namespace xtap::cli
