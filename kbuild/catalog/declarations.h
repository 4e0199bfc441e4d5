// What xtap-kcatalog takes from the parsed kernel headers: tracepoints, the
// prototypes of the syscall entry points, and the types they reach.
//
// Every DECLARE_TRACE/TRACE_EVENT/DEFINE_EVENT expands (without
// CREATE_TRACE_POINTS) to `extern int __traceiter_NAME(void *__data, PROTO)`;
// its parameters after __data are the tracepoint's TP_PROTO. Its system is the
// TRACE_SYSTEM defined last before it in the same header (the header's file
// name is not always the system: trace/events/syscalls.h is raw_syscalls).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "clang/Frontend/FrontendAction.h"
#include "symbols/catalog.h"

namespace xtap::kcatalog {

struct Declarations {
  TypeTable types;
  std::vector<KTracepoint> tracepoints;                             // sorted by system, then name
  std::unordered_map<std::string, std::vector<KParam>> prototypes;  // by function: "sys_openat"
  std::vector<std::string> invalid;  // Clang rejected them: "tracepoint ext4_trim_extent"
  bool parsed = false;               // the AST was seen without a fatal error
};

// A frontend action that fills `out` once the translation unit is parsed;
// `syscall_functions` names the entry points whose prototypes are wanted.
std::unique_ptr<clang::FrontendAction> make_collect_action(
    const std::set<std::string> &syscall_functions, Declarations *out);

}  // namespace xtap::kcatalog
