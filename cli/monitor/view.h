// --monitor's terminal view: a full-screen ncurses page redrawn every
// interval from the module's snapshots (through a Source: debugfs in
// xtap-run, HTTP from a VM's xtap-run in xtap --vm), with the script's
// output in a scrolling pane. It runs on a thread of its own, which alone
// calls ncurses; other threads hand it output with add_output().
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "runner/snapshot.h"

namespace xtap::monitor {

struct Source {
  std::function<std::optional<runner::SnapNames>(std::string *)> names;
  std::function<std::optional<runner::Snapshot>(const runner::SnapNames &, std::string *)> snapshot;
  // The q key: ask the session to stop (its end probes then run). Called
  // on the view's thread, after the view has left the screen.
  std::function<void()> quit;
};

struct ViewOptions {
  std::string title;        // the script or module
  double interval_s = 1;    // between snapshots
  int output_fd = -1;       // a pipe of the script's output to drain, or -1
  std::string output_note;  // shown in the pane when the output goes elsewhere (-o FILE)
};

class View {
 public:
  View();
  ~View();
  // Takes over the terminal on in_fd/out_fd (both kept open by the
  // caller); false and *error when it cannot be driven ($TERM unknown).
  bool start(int in_fd, int out_fd, const ViewOptions &opt, Source src, std::string *error);
  // Script output for the pane; false once the view has left the screen
  // (the caller then prints it itself). Any thread.
  bool add_output(const std::string &text);
  // Leaves the screen (if q has not: the pane's last screenful is printed
  // on the terminal then) and ends the thread. Returns the output that came
  // after that, for the caller to print.
  std::string stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The refresh interval of --monitor[=SECONDS]: "" is 1 s; nullopt when it
// is not a number from 0.1 to 3600.
std::optional<double> parse_interval(const std::string &s);

}  // namespace xtap::monitor
