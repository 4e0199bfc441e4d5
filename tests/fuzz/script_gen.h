// A generator of well-formed SystemTap scripts for the generative fuzzer
// (fuzz_gen.cpp): typed from the grammar and from the probe points and
// context variables that both the unit tests' small kernel catalog
// (tests/unit/test_catalog.h) and the real 6.1 and 6.12 kernels have, so
// that most scripts pass pass 2 and reach code generation; a few are
// deliberate near-misses (a wrong type, an unknown name) that must come
// back as diagnostics. Deterministic: the same seed, the same script.
#pragma once

#include <cstdint>
#include <string>

namespace xtap::fuzz {

struct GenOptions {
  // Prefix of every global and function name, so that several scripts
  // can be joined into one module (the pass 4 batches).
  std::string prefix = "";
  // One script in this many is a deliberate near-miss (0: none).
  unsigned near_miss_one_in = 16;
  // Probe points and functions of the tapsets (syscall.*, strlen,
  // execname ...): off for the fast in-process runs, which parse none.
  bool tapsets = false;
  // kernel.function points: need the kernel's BTF or DWARF.
  bool kernel_functions = false;
};

// One script from `seed`.
std::string generate_script(uint64_t seed, const GenOptions &opts = {});

}  // namespace xtap::fuzz
