// xtap --vm output as it comes (see vm_output.h).
#include "xtap/vm_output.h"

#include <cerrno>
#include <cstring>
#include <iostream>

#include "flamegraph/session.h"

namespace xtap::cli {

VmOutput::VmOutput(std::string file, flamegraph::StackCollector *stacks,
                   std::function<void()> before_first)
    : file_(std::move(file)), stacks_(stacks), before_first_(std::move(before_first)) {}

bool VmOutput::open() {
  if (out_) return true;
  if (before_first_) before_first_();
  if (file_.empty()) {
    out_ = &std::cout;
    return true;
  }
  file_out_.open(file_, std::ios::binary | std::ios::trunc);
  out_ = &file_out_;
  if (!file_out_) error_ = "cannot write '" + file_ + "': " + std::strerror(errno);
  return error_.empty();
}

bool VmOutput::check() {
  out_->flush();  // a tail -f of the file, or a pipe, sees each piece at once
  if (!*out_ && error_.empty())
    error_ = std::string("writing the script output failed: ") + std::strerror(errno);
  return error_.empty();
}

void VmOutput::pass_on(const std::string &text) {
  if (stacks_) flamegraph::collect_stacks(text, stacks_, out_);
  else out_->write(text.data(), std::streamsize(text.size()));
}

bool VmOutput::write(const std::string &piece) {
  if (!error_.empty() || !open()) return false;
  if (!stacks_) {
    pass_on(piece);
    return check();
  }
  // Stacks are recognised line by line, and a piece may end inside a line.
  partial_line_ += piece;
  size_t end = partial_line_.rfind('\n');
  if (end == std::string::npos) return true;
  pass_on(partial_line_.substr(0, end + 1));
  partial_line_.erase(0, end + 1);
  return check();
}

bool VmOutput::finish() {
  if (!error_.empty() || !open()) return false;
  if (!partial_line_.empty()) pass_on(partial_line_);
  partial_line_.clear();
  return check();
}

}  // namespace xtap::cli
