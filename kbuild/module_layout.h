// The layout of a script module's build directory, shared by the Kbuild
// path (module_build.cpp) and the template module whose Kbuild commands the
// direct path replays (direct_build.cpp): the same objects in the same order.
#pragma once

#include <string>
#include <vector>

namespace xtap::kbuild {

// The cached runtime's objects, relative to `rt` and sorted (probes/kprobes.o),
// without the linked xtap_runtime.o, the feature tests and .mod.o files.
std::vector<std::string> runtime_objects(const std::string &rt);

// The name of a runtime object's copy in a module directory:
// probes/kprobes.o -> xtap_rt_probes_kprobes.o
std::string runtime_copy_name(const std::string &rel);

// The Kbuild file of module `name` made of xtap_script.o and copies of the
// runtime objects `rt_objs` (relative to `rt`).
std::string module_kbuild_file(const std::string &name, const std::string &rt,
                               const std::vector<std::string> &rt_objs);

// Builds `name` in `dir` (xtap_script.c already written) through the
// kernel's make; with `extra_args` appended (V=1). Returns false with *error
// (make's output) on failure.
bool kbuild_module_in(const std::string &build_dir, const std::string &dir, const std::string &name,
                      int jobs, bool echo, const std::vector<std::string> &extra_args,
                      std::string *error);

}  // namespace xtap::kbuild
