#include "xtap/progress.h"

#include <unistd.h>

#include <cstdio>

namespace xtap::cli {

TerminalProgress::TerminalProgress(bool wanted) : on_(wanted && isatty(STDERR_FILENO)) {
  if (on_) ticker_ = std::thread([this] { tick(); });
}

TerminalProgress::~TerminalProgress() {
  if (!on_) return;
  {
    std::lock_guard<std::mutex> hold(mu_);
    stop_ = true;
    what_.clear();
    draw();
  }
  cv_.notify_all();
  ticker_.join();
}

void TerminalProgress::draw() {
  if (what_.empty()) {
    if (!shown_) return;  // nothing on the line to clear
    std::fputs("\r\033[K", stderr);
    shown_ = false;
  } else {
    long s =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - since_)
            .count();
    std::fprintf(stderr, "\r\033[Kxtap: %s ... %lds", what_.c_str(), s);
    shown_ = true;
  }
  std::fflush(stderr);
}

void TerminalProgress::step(const std::string &what) {
  if (!on_) return;
  std::lock_guard<std::mutex> hold(mu_);
  if (what != what_) since_ = std::chrono::steady_clock::now();
  what_ = what;
  draw();
}

std::function<void(const std::string &)> TerminalProgress::callback() {
  if (!on_) return {};
  return [this](const std::string &what) { step(what); };
}

void TerminalProgress::tick() {
  std::unique_lock<std::mutex> hold(mu_);
  while (!stop_) {
    cv_.wait_for(hold, std::chrono::seconds(1));
    if (!stop_ && !what_.empty()) draw();
  }
}

namespace {
TerminalProgress *g_run_progress = nullptr;
}  // namespace

TerminalProgress *run_progress() { return g_run_progress; }
void set_run_progress(TerminalProgress *p) { g_run_progress = p; }

}  // namespace xtap::cli
