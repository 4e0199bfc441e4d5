// Parsing of the framed data port stream.
#include "vm/data_stream.h"

#include <fcntl.h>
#include <unistd.h>
#include <sstream>

namespace xtap::vm {

ParsedStream parse_data_stream(const std::string& bytes, size_t from, size_t base) {
  static const std::string kMagic = "@XTAP ";
  ParsedStream out;
  size_t pos = from;
  while (pos < bytes.size()) {
    size_t eol = bytes.find('\n', pos);
    if (eol == std::string::npos) {
      out.truncated = true;
      break;
    }
    std::string header = bytes.substr(pos, eol - pos);
    std::istringstream hs(header.substr(header.rfind(kMagic, 0) == 0 ? kMagic.size() : 0));
    Frame f;
    std::string len_text;
    if (header.rfind(kMagic, 0) != 0 || !(hs >> f.kind >> f.name >> len_text) ||
        len_text.find_first_not_of("0123456789") != std::string::npos) {
      out.error = "malformed frame header at byte " + std::to_string(base + pos) + ": '" +
                  header.substr(0, 80) + "'";
      break;
    }
    size_t len = std::stoull(len_text);
    size_t start = eol + 1;
    if (bytes.size() < start + len + 1) {
      out.truncated = true;
      out.needed = start + len + 1;
      break;
    }
    if (bytes[start + len] != '\n') {
      out.error = "frame " + f.kind + " " + f.name + " at byte " + std::to_string(base + pos) +
                  " does not end where its length says";
      break;
    }
    f.payload = bytes.substr(start, len);
    out.frames.push_back(std::move(f));
    pos = start + len + 1;
  }
  out.consumed = pos;
  return out;
}

StreamFollower::~StreamFollower() {
  if (fd_ >= 0) close(fd_);
}

std::vector<Frame> StreamFollower::poll() {
  grew_ = false;
  if (fd_ < 0) fd_ = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return {};
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd_, buf, sizeof buf);
    if (n <= 0) break;
    if (error_.empty()) pending_.append(buf, size_t(n));
    grew_ = true;
  }
  if (!grew_ || !error_.empty() || pending_.size() < needed_) return {};
  // A frame still being written shows up as truncated and is retried once
  // its bytes are in.
  ParsedStream p = parse_data_stream(pending_, 0, base_);
  error_ = p.error;
  pending_.erase(0, p.consumed);
  base_ += p.consumed;
  needed_ = p.needed ? p.needed - p.consumed : 0;
  return p.frames;
}

long status_field(const std::string& status, const std::string& key) {
  std::istringstream ss(status);
  std::string word;
  while (ss >> word) {
    if (word.rfind(key + "=", 0) == 0) {
      try {
        return std::stol(word.substr(key.size() + 1));
      } catch (...) {
        return -1;
      }
    }
  }
  return -1;
}

}  // namespace xtap::vm
