// Parsing the kernel's headers in one translation unit: <linux/module.h>, the
// syscall prototypes, and every trace header. Some trace headers are private
// to their subsystem: they include files the headers package lacks, or use
// types they do not include. Neither may lose the other headers: a missing
// include is made a plain error, and errors only invalidate the declarations
// concerned, which are skipped. A header whose parse still ends in a fatal
// error is dropped and the unit parsed again.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "kbuild/catalog/declarations.h"
#include "kbuild/catalog/kernel_flags.h"

namespace xtap::kcatalog {

struct ParseRequest {
  KernelFlags flags;
  std::vector<std::string> trace_headers;   // include spellings: "trace/events/sched.h"
  std::set<std::string> syscall_functions;  // "sys_openat"
  std::string work_dir;                     // the unit is written here
  bool verbose = false;
};

struct ParseReport {
  std::vector<std::string> dropped;           // "trace/events/x.h: <the fatal error>"
  std::vector<std::string> missing_includes;  // "<file>:<line>:<col>: error: 'x.h' file not found"
  std::vector<std::string> errors;            // every error of the final parse (the first 200)
  int parses = 0;
};

// The trace headers under the kernel's include directories: trace/events/*.h
// and the architecture's asm/trace/*.h that define a TRACE_SYSTEM.
std::vector<std::string> find_trace_headers(const KernelFlags &flags);

bool parse_kernel_headers(const ParseRequest &request, Declarations *out, ParseReport *report,
                          std::string *error);

}  // namespace xtap::kcatalog
