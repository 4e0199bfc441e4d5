// The begin/end family, visible to the module emitter, which adds the
// display of unread globals as the last end probe.
#pragma once

#include <climits>

#include "probes/provider.h"

namespace xtap {

class BeginEndProbe : public DerivedProbe {
 public:
  bool is_end = false;
  long long sequence = 0;  // begin(N)/end(N) run in order of N
};

// An end probe of the runtime's own (no probe declaration behind it).
std::unique_ptr<DerivedProbe> make_end_probe(long long sequence = LLONG_MAX);

}  // namespace xtap
