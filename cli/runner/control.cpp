// ctl channel: debugfs discovery, size-prefixed command and message framing.
#include "runner/control.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <xtap/abi.h>

namespace xtap::runner {

std::string debugfs_dir(std::string* err) {
  std::ifstream mounts("/proc/mounts");
  std::string line;
  while (std::getline(mounts, line)) {
    std::istringstream ls(line);
    std::string dev, dir, type;
    ls >> dev >> dir >> type;
    if (type == "debugfs") return dir;
  }
  const char* dir = "/sys/kernel/debug";
  mkdir(dir, 0700);
  if (mount("debugfs", dir, "debugfs", 0, nullptr) != 0) {
    *err = std::string("debugfs is not mounted and mounting it at ") + dir +
           " failed: " + std::strerror(errno);
    return "";
  }
  return dir;
}

std::string Message::text() const {
  return std::string(payload.c_str(), strnlen(payload.data(), payload.size()));
}

Control::~Control() { close(); }

bool Control::open(const std::string& path, std::string* err) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd_ < 0) {
    *err = "cannot open " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

void Control::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool Control::read(std::vector<Message>* out, int* err_code) {
  std::vector<char> buf(size_t(64) * 1024);
  ssize_t n;
  do {
    n = ::read(fd_, buf.data(), buf.size());
  } while (n < 0 && errno == EINTR);
  if (n <= 0) {
    *err_code = n < 0 ? errno : 0;
    return false;
  }
  size_t off = 0;
  while (off + sizeof(xtap_msg_hdr) <= size_t(n)) {
    xtap_msg_hdr h;
    std::memcpy(&h, buf.data() + off, sizeof(h));
    if (h.size < sizeof(h) || off + h.size > size_t(n)) break;
    Message m;
    m.type = h.type;
    m.abi = h.abi;
    m.payload.assign(buf.data() + off + sizeof(h), h.size - sizeof(h));
    out->push_back(std::move(m));
    off += h.size;
  }
  return true;
}

bool Control::send(uint16_t type, int64_t arg, std::string* err) {
  xtap_cmd cmd{};
  cmd.size = sizeof(cmd);
  cmd.type = type;
  cmd.abi = XTAP_ABI_VERSION;
  cmd.arg = arg;
  ssize_t n;
  do {
    n = ::write(fd_, &cmd, sizeof(cmd));
  } while (n < 0 && errno == EINTR);
  if (n != ssize_t(sizeof(cmd))) {
    *err = std::string("command to the module failed: ") + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace xtap::runner
