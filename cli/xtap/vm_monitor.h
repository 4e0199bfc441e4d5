// xtap --vm --monitor: the guest has no terminal (its output comes here as
// a stream, vm_output.h), so the view is drawn here. The guest's xtap-run
// serves its snapshots (--monitor-feed) on a port QEMU forwards from
// 127.0.0.1 here; this side fetches them over HTTP every interval, feeds
// the guest's output into the pane, and sends q as POST /stop.
#pragma once

#include <optional>
#include <string>

#include "monitor/view.h"

namespace xtap::cli {

// A free TCP port of 127.0.0.1 (for the forward), or 0.
int free_local_port();

class VmMonitor {
 public:
  // Takes over the terminal; false (no view, plain output) when standard
  // output is not a terminal or cannot be driven.
  bool start(int port, const std::string &title, double interval_s, const std::string &output_file);
  bool add_output(const std::string &bytes) { return active_ && view_.add_output(bytes); }
  // Leaves the view; the output that came after it left, to print.
  std::string stop();

 private:
  monitor::View view_;
  bool active_ = false;
};

// One HTTP/1.0 request to 127.0.0.1:port; the body of a 200 answer, or
// nullopt (*error set) for anything else.
std::optional<std::string> http_local(int port, const std::string &method, const std::string &path,
                                      std::string *error);

}  // namespace xtap::cli
