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
  std::vector<Frame> frames; // whole frames, in order
  bool truncated = false;    // the stream ends inside a frame
  std::string error;         // the stream is malformed at some point (parsing stopped there)
};

ParsedStream parse_data_stream(const std::string& bytes);

// Fields of a status payload ("exit=0 timed_out=0 ..."); missing ones are -1.
long status_field(const std::string& status, const std::string& key);

} // namespace xtap::vm

#endif
