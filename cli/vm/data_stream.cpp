// Parsing of the framed data port stream.
#include "vm/data_stream.h"

#include <sstream>

namespace xtap::vm {

ParsedStream parse_data_stream(const std::string& bytes) {
  static const std::string kMagic = "@XTAP ";
  ParsedStream out;
  size_t pos = 0;
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
      out.error = "malformed frame header at byte " + std::to_string(pos) + ": '" +
                  header.substr(0, 80) + "'";
      break;
    }
    size_t len = std::stoull(len_text);
    size_t start = eol + 1;
    if (bytes.size() < start + len + 1) {
      out.truncated = true;
      break;
    }
    if (bytes[start + len] != '\n') {
      out.error = "frame " + f.kind + " " + f.name + " at byte " + std::to_string(pos) +
                  " does not end where its length says";
      break;
    }
    f.payload = bytes.substr(start, len);
    out.frames.push_back(std::move(f));
    pos = start + len + 1;
  }
  return out;
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

} // namespace xtap::vm
