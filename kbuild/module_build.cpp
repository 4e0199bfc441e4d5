// A script module: generated C linked with the cached runtime object.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "kbuild/kbuild.h"

namespace fs = std::filesystem;

namespace xtap::kbuild {

bool build_module(const Target &t, const Env &env, const ModuleBuild &mb, std::string *ko_path,
                  std::string *error, bool *cache_hit) {
  if (mb.name == "xtap_script" || mb.name == "xtap_runtime") {
    *error = "module name '" + mb.name + "' is reserved";
    return false;
  }
  std::string rt;
  if (!ensure_runtime(t, env, &rt, error)) return false;

  std::string key = hash_hex(mb.name + "\n" + rt + "\n" + mb.c_source);
  fs::path cached = fs::path(env.cache_dir) / "modules" / key / (mb.name + ".ko");
  *ko_path = cached.string();
  if (cache_hit) *cache_hit = fs::exists(cached);
  if (*cache_hit && mb.keep_dir.empty()) return true;

  fs::path dir = mb.keep_dir.empty()
                     ? fs::path(env.cache_dir) / "build" / (key + "." + std::to_string(getpid()))
                     : fs::path(mb.keep_dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  {
    std::ofstream(dir / "xtap_script.c") << mb.c_source;
    std::ofstream kb(dir / "Kbuild");
    kb << "obj-m := " << mb.name << ".o\n"
       << mb.name << "-y := xtap_script.o xtap_runtime.o\n"
       << "ccflags-y := -I" << rt << "/include -I" << rt << "\n"
       << "# The runtime is compiled once per kernel: link the cached object (modpost\n"
       << "# reads every object's .cmd file, so give it one).\n"
       << "$(obj)/xtap_runtime.o: " << rt << "/xtap_runtime.o\n"
       << "\t@cp $< $@\n"
       << "\t@echo 'cmd_$@ := cp $< $@' > $(dir $@).xtap_runtime.o.cmd\n";
  }
  std::string log = (dir / "build.log").string();
  int rc = run_logged({"make", "-C" + t.build_dir, "M=" + dir.string(),
                       "-j" + std::to_string(env.jobs), "modules"},
                      "", log, env.verbose);
  fs::path ko = dir / (mb.name + ".ko");
  if (rc != 0 || !fs::exists(ko)) {
    std::ifstream in(log);
    std::ostringstream ss;
    ss << in.rdbuf();
    *error = "building module " + mb.name + " for " + t.release + " failed (build dir " +
             dir.string() + "):\n" + ss.str();
    return false;
  }
  fs::create_directories(cached.parent_path(), ec);
  fs::copy_file(ko, cached, fs::copy_options::overwrite_existing, ec);
  if (ec) {
    *error = "cannot store the module in the cache: " + ec.message();
    return false;
  }
  if (mb.keep_dir.empty()) fs::remove_all(dir, ec);
  return true;
}

}  // namespace xtap::kbuild
