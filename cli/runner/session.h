// One run of a loaded module: start, relay output, stop on the right event, report.
#pragma once

#include <string>

namespace xtap::runner {

struct Options {
  std::string module;       // path of the .ko
  std::string output;       // -o FILE, empty: stdout
  std::string switch_spec;  // -S SIZE[,N] with -o: FILE.0, FILE.1 ... (output_files.h)
  std::string command;      // -c CMD
  long target_pid = 0;      // -x PID
  double timeout_s = 0;     // -T SECONDS, 0: none
  bool verbose = false;
  bool json = false;  // --format json: output, warnings, errors, summary as JSON lines
  bool bulk = false;  // -b: a file per CPU, OUTPUT_cpuN (stpd_cpuN without -o)
  // -F: flight-recorder mode. Without -o, the module is started, told to
  // keep the newest output in its buffers, and left running detached (the
  // runner exits); with -o, the collector itself goes to the background.
  bool flight = false;
  std::string attach;  // -A NAME: attach to the detached module NAME
  // --prometheus ADDR:PORT: serve /metrics from the module's snapshots
  // while it runs (runner/prometheus.h).
  std::string prometheus;
  // --monitor[=SECONDS]: a live view of the session on the terminal,
  // refreshed every monitor_s seconds (0: off; monitor/view.h).
  double monitor_s = 0;
  // --monitor-feed ADDR:PORT: serve the snapshots to a --monitor view
  // elsewhere (xtap --vm --monitor) and take its q as a stop.
  std::string monitor_feed;
  // --aggregates FILE: after the end probes, the final snapshot of the
  // globals, for xtap --merge (runner/aggregates_file.h).
  std::string aggregates;
  // Set by approve_module() (privilege.h) for a member of group xtapusr:
  // the approved module's bytes, read once, and for one from the trusted
  // directory its open file, loaded with finit_module (else init_module
  // loads these bytes): what was checked is what is loaded.
  int module_fd = -1;
  std::string module_bytes;
};

// Loads, runs and unloads the module. Returns the process exit status.
int run_session(const Options& opt);

}  // namespace xtap::runner
