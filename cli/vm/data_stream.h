// Host-side parsing of the guest's data port stream (format in guest_init.h).
#ifndef XTAP_VM_DATA_STREAM_H
#define XTAP_VM_DATA_STREAM_H

#include <string>
#include <vector>

namespace xtap::vm {

struct Frame {
  std::string kind, name, payload;
};

struct ParsedStream {
  std::vector<Frame> frames;  // whole frames, in order
  bool truncated = false;     // the stream ends inside a frame
  size_t consumed = 0;        // bytes of whole frames
  size_t needed = 0;  // when truncated inside a frame whose header is complete: bytes it needs
  std::string error;  // the stream is malformed at some point (parsing stopped there)
};

// Parses bytes from offset 'from'; byte positions in error messages are
// counted from 'base' (where 'bytes' starts in the whole stream).
ParsedStream parse_data_stream(const std::string& bytes, size_t from = 0, size_t base = 0);

// Follows the data port file while the guest runs: poll() reads what was
// appended and returns the frames completed since the last call. It keeps
// only the bytes of a frame still coming in, so its memory is bounded by
// the largest frame, not by the stream.
class StreamFollower {
 public:
  explicit StreamFollower(std::string path) : path_(std::move(path)) {}
  ~StreamFollower();
  std::vector<Frame> poll();
  bool grew() const { return grew_; }  // the last poll() read new bytes
  const std::string& error() const {
    return error_;
  }  // the stream is malformed (following stopped)

 private:
  std::string path_;
  int fd_ = -1;
  std::string pending_;  // bytes after the last whole frame
  size_t base_ = 0;      // where pending_ starts in the stream
  size_t needed_ = 0;    // pending_ must be this long before its frame is whole
  bool grew_ = false;
  std::string error_;
};

// Fields of a status payload ("exit=0 timed_out=0 ..."); missing ones are -1.
long status_field(const std::string& status, const std::string& key);

}  // namespace xtap::vm

#endif
