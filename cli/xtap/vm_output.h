// xtap --vm: the guest job's standard output written here as the guest
// sends it, piece by piece (vm::BatchOptions::on_output), to -o FILE or
// standard output; with --folded/--flamegraph the stacks are collected and
// the other lines passed on, as in a local run.
#pragma once

#include <fstream>
#include <functional>
#include <string>

#include "flamegraph/stacks.h"

namespace xtap::cli {

class VmOutput {
 public:
  // `file`: -o FILE, "" for standard output. `stacks`: where stacks go, or
  // null to pass everything on. `before_first` runs once, before the first
  // bytes are written (the progress line is cleared then).
  VmOutput(std::string file, flamegraph::StackCollector *stacks,
           std::function<void()> before_first);

  // Opens the destination now (-o FILE: created before the VM boots, so
  // that a tail -f can follow it from the start); false when it cannot.
  bool open();

  // False once writing has failed (the reader of a pipe has gone, a full
  // disk): the session has no one to show its output to.
  bool write(const std::string &piece);
  // The end of the output: a last line without its newline, and an empty
  // -o FILE when nothing came. False when writing failed.
  bool finish();
  // Why writing failed, "" while it has not.
  const std::string &error() const { return error_; }

 private:
  void pass_on(const std::string &text);
  bool check();

  std::string file_;
  flamegraph::StackCollector *stacks_;
  std::function<void()> before_first_;
  std::ofstream file_out_;
  std::ostream *out_ = nullptr;
  std::string partial_line_;  // with stacks: the start of a line still coming
  std::string error_;
};

}  // namespace xtap::cli
