// Progress of xtap's long steps (the first runtime or catalog build for a
// kernel, booting a --vm guest) as one line redrawn in place on a terminal,
// with the seconds spent; nothing at all when stderr is a pipe or a file,
// with -q, or with --format json.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace xtap::cli {

class TerminalProgress {
 public:
  // On only when `wanted` and stderr is a terminal.
  explicit TerminalProgress(bool wanted);
  ~TerminalProgress();
  TerminalProgress(const TerminalProgress &) = delete;
  TerminalProgress &operator=(const TerminalProgress &) = delete;

  bool on() const { return on_; }
  // Shows `what` from now on; "" clears the line (the step is over).
  void step(const std::string &what);
  // step() as a callback for kbuild::Env and vm::BatchOptions; empty when off.
  std::function<void(const std::string &)> callback();

 private:
  void draw();  // with mu_ held
  void tick();
  bool on_ = false;
  bool stop_ = false;
  bool shown_ = false;  // a line is drawn and not yet cleared
  std::string what_;
  std::chrono::steady_clock::time_point since_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread ticker_;
};

// The progress line of a single-kernel run, once main() has made one (null
// before, and in bundle and remote runs, which draw their own or none).
TerminalProgress *run_progress();
void set_run_progress(TerminalProgress *p);

}  // namespace xtap::cli
