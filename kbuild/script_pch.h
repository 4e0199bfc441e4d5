// The script's compile with a precompiled header.
//
// Most of compiling xtap_script.c is parsing the kernel headers that
// <xtap/runtime.h> includes (<linux/module.h> and what it pulls in), the
// same for every script. Once per recorded runtime they are precompiled
// (GCC's .gch) with the compile command Kbuild ran for the template. GCC
// uses a precompiled header only when every macro the headers saw is
// defined as it was, and Kbuild passes the module's name as
// -DKBUILD_MODNAME: so a script is compiled with the template's name on the
// command line, and a second forced include puts its own name back before
// the first line of the script. The result is compared, at recording time,
// with the object Kbuild compiled for the template (rel_object.h); the
// DirectBuild test compares whole modules against Kbuild's.
#pragma once

#include <filesystem>
#include <string>

#include "kbuild/direct_build.h"

namespace xtap::kbuild {

// Precompiles the headers into `pch_dir` for the template (in `tdir`, named
// `name`, its objects still there) and adds the "compile_pch" step to `r`,
// whose steps are already in {{XTAP_DIR}}/{{XTAP_NAME}} form; or says in
// r->no_pch why not.
void record_script_pch(const Target &t, const std::filesystem::path &tdir, const std::string &name,
                       const std::filesystem::path &pch_dir, Recipe *r);

// The header a script module `name` is compiled with after the precompiled
// one (its KBUILD_MODNAME); "compile_pch" forces it in from the module's
// directory.
std::string script_name_header(const std::string &name);
constexpr const char *kScriptNameHeader = "xtap_modname.h";

}  // namespace xtap::kbuild
