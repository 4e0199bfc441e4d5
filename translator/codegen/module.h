// Pass 3: the whole generated C file of a script module.
#pragma once

#include <xtap/limits.h>

#include <map>
#include <string>
#include <vector>

#include "passes/passes.h"

namespace xtap {

constexpr unsigned long long kNsPerSecond = 1000000000ull;

// Session limits, with stap's -D names and defaults.
struct Limits {
  unsigned long long maxstringlen = 512;
  unsigned long long maxaction = 1000;
  unsigned long long maxnesting = 10;
  unsigned long long maxmapentries = 2048;
  unsigned long long maxskipped = 100;
  unsigned long long maxerrors = 0;
  unsigned long long maxtrylock = 1000;
  unsigned long long subbuf_size = XTAP_RELAY_DEFAULT_SUBBUF_SIZE;
  unsigned long long n_subbufs = XTAP_RELAY_DEFAULT_SUBBUFS;  // cut to fit free memory at run time
  unsigned long long printbuf_size = 8192;
  // begin/end/error handlers (stap's "interruptible" probes); 0: ten times maxaction.
  unsigned long long maxaction_interruptible = 0;
  // The overload guard (stap's values, in CPU cycles); no_overload: off.
  unsigned long long overload_interval = 1000000000;
  unsigned long long overload_threshold = 500000000;
  unsigned long long no_overload = 0;
  // The percentile sketch's sub-bucket bits k: relative error 2^-(k+1).
  unsigned long long percentile_bits = XTAP_PCT_DEFAULT_BITS;
  // XTAP_OVERLOAD: 1 skip, 0 abort (stap's guard), -1 not given: skip,
  // unless the script's command line tunes stap's guard (stap_overload_set).
  int overload_mode = -1;
  bool stap_overload_set = false;
  // XTAP_PROBE_BUDGET: every probe's budget, handler ns per second per
  // CPU (0: none); a probe point's .budget(NS) sets its own.
  unsigned long long probe_budget_ns = 0;

  bool overload_skip() const {
    return overload_mode >= 0 ? overload_mode == 1 : !stap_overload_set;
  }
  // A budget in ns per second as handler cycles per overload window: a
  // share of the CPU is the same share of its cycles.
  unsigned long long budget_cycles(unsigned long long ns) const;

  // Applies NAME=VALUE (-D); returns an error text or "".
  std::string set(const std::string &name, const std::string &value);
  // --suppress-time-limits: MAXACTION and MAXTRYLOCK at the largest values set() takes.
  void lift_time_limits();
};

struct ModuleOptions {
  std::string script_name;  // for messages
  std::string version;      // xtap version, recorded in a comment
  Limits limits;
  // -t: wrap each handler to count its runs and cycles per probe, and
  // print stap's "probe hit report" at the end. Off: no code at all.
  bool timing = false;
  // --compatible=MAJOR.MINOR: the stap version STAP_COMPAT_VERSION names.
  int compat_major = 4, compat_minor = 8;
  // The user-space files whose symbol tables the module carries, when the
  // script symbolizes user addresses (user_symbol_files()); read under
  // sysroot. Files left out are told in *notes.
  std::vector<std::string> user_files;
  std::string sysroot;
  std::vector<std::string> *notes = nullptr;
};

std::string emit_module(const Script &script, const Elaborated &elab, const ModuleOptions &opts);

}  // namespace xtap
