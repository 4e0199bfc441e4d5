// Stacks for flame graphs, collected from a session's output: folded lines
// ("outer;...;inner COUNT", Brendan Gregg's format) and stap-style stack
// blocks (print_backtrace()/print_stack()/print_ustack() lines
// " 0xADDR : name+0x4/0x20 [module]", innermost first, then an optional
// count line), the two ways stap users print stacks for flamegraph.pl.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace xtap::flamegraph {

// "root;...;leaf" -> samples. Ordered, so that every output is deterministic.
using FoldedStacks = std::map<std::string, uint64_t>;

class StackCollector {
 public:
  // One line of output, without its newline. True when the line was taken
  // as (part of) a stack; false when it is other output, to be shown as is.
  bool add_line(const std::string &line);
  // The end of the output: a stack block still open counts once.
  void finish();

  const FoldedStacks &stacks() const { return stacks_; }
  uint64_t total_samples() const { return total_; }

 private:
  void add(const std::string &folded, uint64_t count);
  void close_block(uint64_t count);

  FoldedStacks stacks_;
  uint64_t total_ = 0;
  std::vector<std::string> block_;  // frames of an open stap block, innermost first
};

// The frame name of a stap stack line (" 0xffffffff8123 : vfs_read+0x4/0x1a0
// [kernel]" -> "vfs_read"; an address without a symbol stays the address),
// or false when the line is not one.
bool parse_stack_line(const std::string &line, std::string *frame);
// "frames COUNT" with at least one ';' in frames; false otherwise.
bool parse_folded_line(const std::string &line, std::string *frames, uint64_t *count);

// The folded text, a stack a line, in byte order of the stacks.
std::string folded_text(const FoldedStacks &stacks);

}  // namespace xtap::flamegraph
