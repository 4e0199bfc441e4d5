// xtap-run --monitor: the view (monitor/view.h) over this session's own
// terminal. While it is on screen, the runner's standard output and error
// go into a pipe that feeds the view's output pane (the script's output,
// system() commands, run-time warnings); leaving gives the terminal back.
#pragma once

#include <string>

#include "monitor/view.h"

namespace xtap::runner {

class MonitorTerminal {
 public:
  ~MonitorTerminal() { stop(); }
  // Shows the view of the module's debugfs directory `dir`; false (and
  // nothing changed) when standard output is not a terminal or the
  // terminal cannot be driven: the session then prints as without it.
  bool start(const std::string &dir, const std::string &title, double interval_s,
             const std::string &output_file, std::string *why_not);
  // Leaves the view (if shown): standard output and error are the
  // terminal again, and the output the pane held last is printed.
  void stop();
  bool active() const { return active_; }

 private:
  monitor::View view_;
  bool active_ = false;
  int saved_out_ = -1, saved_err_ = -1, keys_fd_ = -1, pipe_rd_ = -1;
};

}  // namespace xtap::runner
