// xtap --vm --monitor: the view drawn here from the guest's snapshots (vm_monitor.h).
#include "xtap/vm_monitor.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runner/snapshot.h"

namespace xtap::cli {

int free_local_port() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  int port = 0;
  if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof(a)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  if (fd >= 0) ::close(fd);
  return port;
}

namespace {

constexpr int kTimeoutMs = 3000;
constexpr size_t kMaxAnswer = 64 << 20;  // a snapshot is at most a few MB

bool send_all(int fd, const std::string &s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::send(fd, s.data() + done, s.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

// Everything the server sends until it closes (Connection: close).
bool read_all(int fd, std::string *out) {
  char buf[65536];
  while (out->size() < kMaxAnswer) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, kTimeoutMs) <= 0) return false;
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    out->append(buf, size_t(n));
  }
  return false;
}

}  // namespace

std::optional<std::string> http_local(int port, const std::string &method, const std::string &path,
                                      std::string *error) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  bool ok = fd >= 0 && connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof(a)) == 0 &&
            send_all(fd, method + " " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n") &&
            read_all(fd, &answer);
  if (fd >= 0) ::close(fd);
  size_t body = answer.find("\r\n\r\n");
  if (!ok || body == std::string::npos) {
    *error = "waiting for the session";  // the guest is booting, or has gone
    return std::nullopt;
  }
  if (answer.compare(0, 13, "HTTP/1.1 200 ") != 0) {
    *error = answer.substr(0, answer.find("\r\n"));
    return std::nullopt;
  }
  return answer.substr(body + 4);
}

bool VmMonitor::start(int port, const std::string &title, double interval_s,
                      const std::string &output_file) {
  if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) return false;
  monitor::ViewOptions vo;
  vo.title = title;
  vo.interval_s = interval_s;
  if (!output_file.empty()) vo.output_note = "the script's output goes to " + output_file;
  monitor::Source src;
  src.names = [port](std::string *err) -> std::optional<runner::SnapNames> {
    auto bytes = http_local(port, "GET", "/snapshot_names", err);
    if (!bytes) return std::nullopt;
    return runner::parse_snapshot_names(*bytes, err);
  };
  src.snapshot = [port](const runner::SnapNames &n,
                        std::string *err) -> std::optional<runner::Snapshot> {
    auto bytes = http_local(port, "GET", "/snapshot", err);
    if (!bytes) return std::nullopt;
    return runner::parse_snapshot(*bytes, n, err);
  };
  // The guest's xtap-run stops as on Ctrl-C: the end probes run, and
  // their output comes here after the view has gone.
  src.quit = [port] {
    std::string err;
    (void)http_local(port, "POST", "/stop", &err);
  };
  std::string err;
  active_ = view_.start(STDIN_FILENO, STDOUT_FILENO, vo, src, &err);
  return active_;
}

std::string VmMonitor::stop() {
  if (!active_) return "";
  active_ = false;
  return view_.stop();
}

}  // namespace xtap::cli
