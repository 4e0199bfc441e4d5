// --prometheus's HTTP side: a deliberately small server. The Debian
// libraries were weighed (docs/cli.md): libmicrohttpd's static archive
// needs GnuTLS, which Debian ships only as a shared library, and Debian's
// cpp-httplib is a compiled shared library, not the upstream single
// header; xtap-run is static. A scrape is one GET a few seconds apart, so
// one connection at a time, a bounded request and Connection: close are
// all it needs.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>

#include "common/file_io.h"
#include "runner/prometheus.h"

namespace xtap::runner {

namespace {

constexpr size_t kMaxRequest = 8192;
constexpr int kRequestTimeoutMs = 2000;

bool parse_port(const std::string &s, uint16_t *port) {
  if (s.empty() || s.size() > 5 || s.find_first_not_of("0123456789") != std::string::npos)
    return false;
  unsigned long v = std::stoul(s);
  if (v > 65535) return false;
  *port = uint16_t(v);
  return true;
}

// The request's first line, or "" when it did not come in whole in time.
std::string read_request_line(int fd) {
  std::string req;
  char buf[1024];
  while (req.find("\r\n\r\n") == std::string::npos && req.size() < kMaxRequest) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, kRequestTimeoutMs) <= 0) return "";
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n <= 0) return "";
    req.append(buf, size_t(n));
  }
  size_t eol = req.find("\r\n");
  return eol == std::string::npos ? "" : req.substr(0, eol);
}

void write_all(int fd, const std::string &s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::send(fd, s.data() + done, s.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += size_t(n);
  }
}

std::string response(const char *status, const char *type, const std::string &body) {
  return std::string("HTTP/1.1 ") + status + "\r\nContent-Type: " + type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" +
         body;
}

}  // namespace

int prometheus_listen(const std::string &addr_port, std::string *error) {
  size_t colon = addr_port.rfind(':');
  uint16_t port = 0;
  if (colon == std::string::npos || !parse_port(addr_port.substr(colon + 1), &port)) {
    *error = "--prometheus " + addr_port + ": expected ADDR:PORT (127.0.0.1:9100, [::1]:9100)";
    return -1;
  }
  std::string host = addr_port.substr(0, colon);
  sockaddr_storage ss{};
  socklen_t len;
  bool v6 = host.size() >= 2 && host.front() == '[' && host.back() == ']';
  if (v6) {
    auto *a = reinterpret_cast<sockaddr_in6 *>(&ss);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(port);
    len = sizeof(*a);
    v6 = inet_pton(AF_INET6, host.substr(1, host.size() - 2).c_str(), &a->sin6_addr) == 1;
    if (!v6) host.clear();
  } else {
    auto *a = reinterpret_cast<sockaddr_in *>(&ss);
    a->sin_family = AF_INET;
    a->sin_port = htons(port);
    len = sizeof(*a);
    if (inet_pton(AF_INET, host.c_str(), &a->sin_addr) != 1) host.clear();
  }
  if (host.empty()) {
    *error = "--prometheus " + addr_port + ": not a numeric IPv4 or [IPv6] address";
    return -1;
  }
  int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr *>(&ss), len) != 0 || listen(fd, 16) != 0) {
    *error = "--prometheus " + addr_port + ": " + std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return -1;
  }
  return fd;
}

struct PrometheusExporter::Impl {
  int listen_fd = -1;
  int wake[2] = {-1, -1};
  std::string dir;
  std::thread thread;
  std::mutex mu;
  std::optional<SnapNames> names;
  std::string frozen;      // the page after freeze()
  std::string frozen_raw;  // the snapshot after freeze(), for the feed
  bool is_frozen = false;
  bool feed = false;

  std::string raw(const std::string &file) {
    std::lock_guard<std::mutex> lock(mu);
    if (is_frozen && file == "snapshot") return frozen_raw;
    bool ok = false;
    std::string bytes = read_file(dir + "/" + file, &ok);
    return ok ? bytes : "";
  }

  // --monitor-feed: the snapshot files as they are, and POST /stop.
  void serve_feed(int fd, const std::string &line) {
    std::string path = line.substr(line.find(' ') + 1);
    path = path.substr(0, path.find(' '));
    if (line.rfind("POST /stop ", 0) == 0) {
      write_all(fd, response("200 OK", "text/plain", "stopping\n"));
      kill(getpid(), SIGTERM);  // the session's signalfd takes it
      return;
    }
    if (line.rfind("GET ", 0) != 0 || (path != "/snapshot" && path != "/snapshot_names")) {
      write_all(fd, response("404 Not Found", "text/plain", "GET /snapshot, POST /stop\n"));
      return;
    }
    std::string body = raw(path.substr(1));
    if (body.empty())
      write_all(fd, response("503 Service Unavailable", "text/plain", "no snapshot\n"));
    else write_all(fd, response("200 OK", "application/octet-stream", body));
  }

  std::string page() {
    std::lock_guard<std::mutex> lock(mu);
    if (is_frozen) return frozen;
    std::string err;
    if (!names) names = read_snapshot_names(dir, &err);
    std::optional<Snapshot> s;
    if (names) s = read_snapshot(dir, *names, &err);
    if (!s) return "";
    return prometheus_text(*names, *s, names->max_entries);
  }

  void serve(int fd) {
    std::string line = read_request_line(fd);
    if (feed) return serve_feed(fd, line);
    if (line.rfind("GET ", 0) != 0) {
      write_all(fd, response("405 Method Not Allowed", "text/plain", "GET /metrics\n"));
      return;
    }
    std::string path = line.substr(4, line.find(' ', 4) - 4);
    if (path != "/metrics" && path.rfind("/metrics?", 0) != 0) {
      write_all(fd, response("404 Not Found", "text/plain", "xtap-run serves /metrics\n"));
      return;
    }
    std::string body = page();
    if (body.empty()) {
      write_all(fd, response("503 Service Unavailable", "text/plain", "no snapshot\n"));
      return;
    }
    write_all(fd, response("200 OK", "text/plain; version=0.0.4; charset=utf-8", body));
  }

  void run() {
    for (;;) {
      pollfd p[2] = {{listen_fd, POLLIN, 0}, {wake[0], POLLIN, 0}};
      if (poll(p, 2, -1) < 0 && errno != EINTR) return;
      if (p[1].revents) return;
      if (!p[0].revents) continue;
      int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      serve(fd);
      ::close(fd);
    }
  }
};

PrometheusExporter::PrometheusExporter() : impl_(new Impl) {}
PrometheusExporter::~PrometheusExporter() { stop(); }

bool PrometheusExporter::start(const std::string &addr_port, const std::string &module_dir,
                               std::string *error) {
  impl_->dir = module_dir;
  impl_->feed = feed_;
  impl_->names = read_snapshot_names(module_dir, error);
  if (!impl_->names) return false;
  impl_->listen_fd = prometheus_listen(addr_port, error);
  if (impl_->listen_fd < 0) return false;
  if (pipe2(impl_->wake, O_CLOEXEC) != 0) {
    *error = std::string("--prometheus: ") + std::strerror(errno);
    return false;
  }
  impl_->thread = std::thread([this] { impl_->run(); });
  return true;
}

void PrometheusExporter::freeze() {
  std::string page = impl_->feed ? "" : impl_->page();
  std::string raw = impl_->feed ? impl_->raw("snapshot") : "";
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (!raw.empty()) impl_->frozen_raw = raw, impl_->is_frozen = true;
  if (!page.empty()) impl_->frozen = page, impl_->is_frozen = true;
}

void PrometheusExporter::stop() {
  if (impl_->thread.joinable()) {
    (void)!::write(impl_->wake[1], "x", 1);
    impl_->thread.join();
  }
  for (int *fd : {&impl_->listen_fd, &impl_->wake[0], &impl_->wake[1]})
    if (*fd >= 0) ::close(*fd), *fd = -1;
}

}  // namespace xtap::runner
