// Pass 4 without make: a script module compiled and linked by replaying the
// commands Kbuild ran for a template module of the same layout, recorded
// once per cached runtime (docs/architecture.md, "Pass 4").
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kbuild/kbuild.h"

namespace xtap::kbuild {

// What Kbuild did to build the template module, with its directory and
// name replaced by {{XTAP_DIR}} and {{XTAP_NAME}}.
struct Recipe {
  std::vector<std::pair<std::string, std::string>> env;    // exported by Kbuild's make
  std::vector<std::pair<std::string, std::string>> steps;  // name, shell command
  std::string modules_order;                               // modules.order's contents
  // NAME.mod.o without the kernel headers (mod_object.h): the C with
  // placeholders, the template's NAME.mod.c it stands for, and the
  // compile command for it ("fast_mod" step). `mod_skeleton` is empty, and
  // `no_fast_mod` says why, when the template's object could not be
  // described or the description did not compile to the same object.
  std::string mod_skeleton, template_modc, no_fast_mod;
  // Why the script is not compiled with precompiled headers ("compile_pch"
  // step, script_pch.h), if it is not.
  std::string no_pch;
};

// The recipe of the runtime in `rt`: read from <cache>/recipes/<runtime>/,
// or recorded there by building the template module through Kbuild with V=1. False
// with *why when Kbuild's commands cannot be recorded (remembered, so that
// later builds do not retry).
bool ensure_recipe(const Target &t, const Env &env, const std::string &rt, Recipe *r,
                   std::string *why);

// Builds module `name` in `dir` (which holds xtap_script.c) with the recipe
// of the runtime `rt`. False with *why when the recipe is unavailable or a
// command fails (the caller falls back to Kbuild).
bool build_direct(const Target &t, const Env &env, const std::string &rt, const std::string &dir,
                  const std::string &name, const std::string &c_source, std::string *why);

// The placeholders of a recipe's commands for the module's directory and
// name, and the commands of module `name` in `dir` made from them.
inline constexpr const char *kRecipeDirToken = "{{XTAP_DIR}}";
inline constexpr const char *kRecipeNameToken = "{{XTAP_NAME}}";
std::string recipe_command(const std::string &cmd, const std::string &dir, const std::string &name);

// Runs a recorded command `cmd` from the kernel build directory with
// Kbuild's environment `env`, its output in `log`; the exit status.
int run_recorded(const Target &t, const std::vector<std::pair<std::string, std::string>> &env,
                 const std::string &cmd, const std::string &log);

// Text substitution of every occurrence of `from` in `s`.
std::string replace_all(std::string s, const std::string &from, const std::string &to);

}  // namespace xtap::kbuild
