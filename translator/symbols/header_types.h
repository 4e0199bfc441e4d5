// @cast(p, "T", "<sys/time.h>"): types of user-space C headers, as stap
// finds them by compiling the headers. The headers are compiled once per
// set (per xtap run) into an object with DWARF for every type they define,
// whose types KernelDwarf reads.
#pragma once

#include <string>

namespace xtap {

class KernelDwarf;

// True for a @cast module naming only headers: "<sys/time.h>",
// "<a.h><b.h>" (not "kernel<linux/sched.h>", a kernel header).
bool is_user_header_module(const std::string &module);

// The DWARF of the headers of `module` (is_user_header_module); null with
// *error when a name is not a header name or the compiler refuses them.
const KernelDwarf *user_header_types(const std::string &module, std::string *error);

}  // namespace xtap
