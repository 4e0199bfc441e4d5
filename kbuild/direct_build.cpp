// Pass 4 without make (direct_build.h): the recorded Kbuild commands of the
// runtime's template module, with its directory and name replaced, run as
// one shell script from the kernel build directory, as make would run them.
#include "kbuild/direct_build.h"

#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "common/file_io.h"
#include "common/process.h"
#include "kbuild/mod_object.h"
#include "kbuild/module_layout.h"
#include "kbuild/script_pch.h"

namespace fs = std::filesystem;

namespace xtap::kbuild {
namespace {

std::string shell_quote(const std::string &s) { return "'" + replace_all(s, "'", "'\\''") + "'"; }

// The last lines of a failed build's log, for the -v note.
std::string tail(const std::string &log, size_t lines) {
  size_t p = log.size();
  while (lines-- > 0 && p > 0) {
    p = log.rfind('\n', p - 1);
    if (p == std::string::npos) return log;
  }
  return log.substr(p + 1);
}

}  // namespace

bool build_direct(const Target &t, const Env &env, const std::string &rt, const std::string &dir,
                  const std::string &name, const std::string &c_source, std::string *why) {
  // Kbuild runs genksyms on objects that export symbols and modpost reads
  // their CRCs from the object's .cmd file: not recorded by the template.
  if (c_source.find("EXPORT_SYMBOL") != std::string::npos) {
    *why = "the module exports symbols (EXPORT_SYMBOL), whose CRCs only Kbuild computes";
    return false;
  }
  Recipe r;
  if (!ensure_recipe(t, env, rt, &r, why)) return false;
  auto subst = [&](const std::string &s) { return recipe_command(s, dir, name); };
  // NAME.mod lists the objects the link reads: the runtime's own objects in
  // the cache (modpost reads each one's .cmd file there), in the order the
  // Kbuild path links their copies.
  std::string objects = dir + "/xtap_script.o\n";
  for (const auto &o : runtime_objects(rt)) objects += rt + "/" + o + "\n";
  // build.sh runs the steps in three parts: the objects up to modpost's
  // NAME.mod.c; then NAME.mod.o, from Kbuild's NAME.mod.c or, when xtap
  // could write it without headers (mod_object.h), from headerless/NAME.mod.c;
  // then the module.
  std::string compile;
  std::ostringstream sh;
  sh << "# Kbuild's commands for " << t.release << ", recorded by xtap (kbuild/recipe.cpp)\n"
     << "# sh build.sh objects|mod-object|fast-mod-object|module\n"
     << "set -e\n";
  for (const auto &[k, v] : r.env) sh << "export " << k << "=" << shell_quote(v) << "\n";
  sh << "case \"$1\" in\n";
  // The script compiled with the precompiled headers (script_pch.h) when
  // the recipe has them.
  bool pch = false;
  for (const auto &[step, cmd] : r.steps) pch |= step == "compile_pch";
  const fs::path gch =
      fs::path(env.cache_dir) / "recipes" / fs::path(rt).filename() / "pch/xtap_pch.h.gch";
  pch =
      pch && fs::exists(gch) && write_file(dir + "/" + kScriptNameHeader, script_name_header(name));
  const char *compile_step = pch ? "compile_pch" : "compile";
  const std::pair<const char *, std::vector<std::string>> parts[] = {
      {"objects", {compile_step, "link", "modpost"}},
      {"mod-object", {"compile_mod"}},
      {"fast-mod-object", {"fast_mod"}},
      {"module", {"link_ko", "btf"}},
  };
  for (const auto &[part, steps] : parts) {
    sh << part << ")\n";
    for (const auto &want : steps)
      for (const auto &[step, cmd] : r.steps) {
        if (step != want) continue;
        sh << "# " << step << "\n" << subst(cmd) << "\n";
        if (step == compile_step) compile = subst(cmd);
      }
    sh << ";;\n";
  }
  sh << "*) echo \"usage: sh build.sh objects|mod-object|fast-mod-object|module\" >&2; exit "
        "2;;\nesac\n";
  if (!write_file(dir + "/" + name + ".mod", objects) ||
      !write_file(dir + "/modules.order", subst(r.modules_order)) ||
      !write_file(dir + "/.xtap_script.o.cmd",
                  "cmd_" + dir + "/xtap_script.o := " + compile + "\n") ||
      !write_file(dir + "/build.sh", sh.str())) {
    *why = "cannot write the module's build directory " + dir;
    return false;
  }
  if (env.verbose)
    std::cerr << "(cd " << t.build_dir << " && sh " << dir << "/build.sh PART)\n" << sh.str();

  const std::string log_path = dir + "/build.log";
  std::string all_logs;
  auto run = [&](const char *part) {
    process::SpawnSpec spec;
    spec.argv = {"sh", dir + "/build.sh", part};
    spec.cwd = t.build_dir;
    spec.stdout_path = spec.stderr_path = dir + "/build-" + part + ".log";
    std::string error;
    int rc = process::run_to_end(spec, &error);
    std::string log = read_file(spec.stdout_path);
    all_logs += log;
    write_file(log_path, all_logs);
    if (env.verbose) std::cerr << log;
    if (rc != 0)
      *why = "a recorded Kbuild command failed" + (rc < 0 ? ": " + error : "") +
             (log.empty() ? "" : ":\n" + tail(log, 6));
    return rc == 0;
  };
  if (!run("objects")) return false;
  std::optional<std::string> fast;
  if (!r.mod_skeleton.empty())
    fast = mod_object_source(r.mod_skeleton, r.template_modc,
                             read_file(dir + "/" + name + ".mod.c"), name);
  std::error_code ec;
  fs::create_directories(dir + "/headerless", ec);
  if (fast && !write_file(dir + "/headerless/" + name + ".mod.c", *fast)) fast.reset();
  if (env.explain && !fast)
    std::cerr << "xtap: note: " << name << ".mod.c compiled with the kernel headers: "
              << (r.mod_skeleton.empty() ? r.no_fast_mod
                                         : "it differs from the template's in more than its CRCs")
              << "\n";
  if (!run(fast ? "fast-mod-object" : "mod-object") || !run("module")) return false;
  if (!fs::exists(dir + "/" + name + ".ko")) {
    *why = "the recorded Kbuild commands made no " + name + ".ko";
    return false;
  }
  return true;
}

}  // namespace xtap::kbuild
