// The module's ctl file under debugfs: commands out, messages in.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xtap::runner {

// The debugfs mount point, mounting debugfs at /sys/kernel/debug if needed.
std::string debugfs_dir(std::string* err);

struct Message {
  uint16_t type = 0;
  uint16_t abi = 0;
  std::string payload;       // raw payload bytes
  std::string text() const;  // payload as NUL-terminated text
};

class Control {
 public:
  ~Control();
  bool open(const std::string& path, std::string* err);
  void close();
  int fd() const { return fd_; }
  // Reads whatever whole messages are queued (blocking until at least one).
  // Returns false on EOF or error (errno-style code in *err_code).
  bool read(std::vector<Message>* out, int* err_code);
  bool send(uint16_t type, int64_t arg, std::string* err);

 private:
  int fd_ = -1;
};

}  // namespace xtap::runner
