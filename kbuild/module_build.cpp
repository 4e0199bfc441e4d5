// A script module: generated C linked with the cached runtime object.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "common/file_io.h"
#include "kbuild/kbuild.h"
#include "kbuild/run_make.h"

namespace fs = std::filesystem;

namespace xtap::kbuild {
namespace {

// probes/kprobes.o -> probes_kprobes.o
std::string flat_name(std::string rel) {
  std::replace(rel.begin(), rel.end(), '/', '_');
  return rel;
}

}  // namespace

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
  const bool in_cache = fs::exists(cached);
  if (cache_hit) *cache_hit = in_cache;
  if (in_cache && mb.keep_dir.empty()) return true;

  // Link the runtime's objects one by one, not its linked xtap_runtime.o:
  // kernels that run objtool on whole modules (IBT, 6.12's call padding)
  // would otherwise process the runtime twice.
  std::vector<std::string> rt_objs;
  std::error_code ec;
  for (auto &e : fs::recursive_directory_iterator(rt, ec)) {
    fs::path rel = fs::relative(e.path(), rt);
    std::string r = rel.string();
    if (e.path().extension() != ".o" || r == "xtap_runtime.o" || r.starts_with("features/") ||
        r.ends_with(".mod.o"))
      continue;
    rt_objs.push_back(r);
  }
  std::sort(rt_objs.begin(), rt_objs.end());
  if (rt_objs.empty()) {
    *error = "the cached runtime in " + rt + " has no objects; remove it and retry";
    return false;
  }

  fs::path dir = mb.keep_dir.empty()
                     ? fs::path(env.cache_dir) / "build" / (key + "." + std::to_string(getpid()))
                     : fs::path(mb.keep_dir);
  fs::create_directories(dir, ec);
  std::ostringstream kb;
  kb << "obj-m := " << mb.name << ".o\n" << mb.name << "-y := xtap_script.o";
  for (const auto &o : rt_objs) kb << " xtap_rt_" << flat_name(o);
  kb << "\nccflags-y := -I" << rt << "/include -I" << rt << "\n"
     << "# The runtime is compiled once per kernel: link copies of its cached\n"
     << "# objects (modpost reads every object's .cmd file, so give each one).\n";
  for (const auto &o : rt_objs) {
    std::string flat = "xtap_rt_" + flat_name(o);
    kb << "$(obj)/" << flat << ": " << rt << "/" << o << "\n"
       << "\t@cp $< $@\n"
       << "\t@echo 'cmd_$@ := cp $< $@' > $(obj)/." << flat << ".cmd\n";
  }
  if (!write_file((dir / "xtap_script.c").string(), mb.c_source) ||
      !write_file((dir / "Kbuild").string(), kb.str())) {
    *error = "cannot write the module's build directory " + dir.string() +
             (ec ? ": " + ec.message() : "");
    return false;
  }
  std::string log = (dir / "build.log").string();
  std::string make_error;
  int rc = run_make({"-C" + t.build_dir, "M=" + dir.string(), "-j" + std::to_string(env.jobs),
                     "modules"},
                    log, env.verbose, &make_error);
  fs::path ko = dir / (mb.name + ".ko");
  if (rc != 0 || !fs::exists(ko)) {
    *error = "building module " + mb.name + " for " + t.release + " failed (build dir " +
             dir.string() + "):\n" + (rc < 0 ? make_error : read_file(log));
    return false;
  }
  // Copy, then rename: another xtap may be reading the cached module.
  fs::create_directories(cached.parent_path(), ec);
  fs::path partial = cached.string() + ".tmp" + std::to_string(getpid());
  fs::copy_file(ko, partial, fs::copy_options::overwrite_existing, ec);
  if (!ec) fs::rename(partial, cached, ec);
  if (ec) {
    *error = "cannot store the module in the cache: " + ec.message();
    return false;
  }
  if (mb.keep_dir.empty()) fs::remove_all(dir, ec);
  return true;
}

}  // namespace xtap::kbuild
