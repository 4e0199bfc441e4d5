// The begin/end/error family, visible to the module emitter, which adds the
// display of unread globals as the last end probe.
#pragma once

#include <climits>

#include "probes/provider.h"

namespace xtap {

class BeginEndProbe : public DerivedProbe {
 public:
  bool is_end = false;
  bool is_error = false;   // error(N): runs at a stop caused by an error, instead of end
  long long sequence = 0;  // begin(N)/end(N) run in order of N
};

// An end probe of the runtime's own (no probe declaration behind it).
std::unique_ptr<DerivedProbe> make_end_probe(long long sequence = LLONG_MAX);

}  // namespace xtap
