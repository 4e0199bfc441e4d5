// Pass 4 without make (direct_build.h): the recorded Kbuild commands of the
// runtime's template module, with its directory and name replaced, run as
// one shell script from the kernel build directory, as make would run them.
#include "kbuild/direct_build.h"

#include <filesystem>
#include <iostream>
#include <sstream>

#include "common/file_io.h"
#include "common/process.h"
#include "kbuild/module_layout.h"

namespace fs = std::filesystem;

namespace xtap::kbuild {
namespace {

std::string shell_quote(const std::string &s) {
  return "'" + replace_all(s, "'", "'\\''") + "'";
}

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
  auto subst = [&](const std::string &s) {
    return replace_all(replace_all(s, "{{XTAP_DIR}}", dir), "{{XTAP_NAME}}", name);
  };
  // NAME.mod lists the objects the link reads: the runtime's own objects in
  // the cache (modpost reads each one's .cmd file there), in the order the
  // Kbuild path links their copies.
  std::string objects = dir + "/xtap_script.o\n";
  for (const auto &o : runtime_objects(rt)) objects += rt + "/" + o + "\n";
  std::string compile;
  std::ostringstream sh;
  sh << "# Kbuild's commands for " << t.release << ", recorded by xtap (kbuild/recipe.cpp)\n"
     << "set -e\n";
  for (const auto &[k, v] : r.env) sh << "export " << k << "=" << shell_quote(v) << "\n";
  for (const auto &[step, cmd] : r.steps) {
    sh << "# " << step << "\n" << subst(cmd) << "\n";
    if (step == "compile") compile = subst(cmd);
  }
  if (!write_file(dir + "/" + name + ".mod", objects) ||
      !write_file(dir + "/modules.order", subst(r.modules_order)) ||
      !write_file(dir + "/.xtap_script.o.cmd", "cmd_" + dir + "/xtap_script.o := " + compile + "\n") ||
      !write_file(dir + "/build.sh", sh.str())) {
    *why = "cannot write the module's build directory " + dir;
    return false;
  }
  process::SpawnSpec spec;
  spec.argv = {"sh", dir + "/build.sh"};
  spec.cwd = t.build_dir;
  spec.stdout_path = spec.stderr_path = dir + "/build.log";
  if (env.verbose) std::cerr << "(cd " << t.build_dir << " && sh " << dir << "/build.sh)\n" << sh.str();
  std::string error;
  int rc = process::run_to_end(spec, &error);
  std::string log = read_file(spec.stdout_path);
  if (env.verbose) std::cerr << log;
  if (rc != 0 || !fs::exists(dir + "/" + name + ".ko")) {
    *why = "a recorded Kbuild command failed" + (rc < 0 ? ": " + error : "") +
           (log.empty() ? "" : ":\n" + tail(log, 6));
    return false;
  }
  return true;
}

}  // namespace xtap::kbuild
