// A script module: generated C linked with the cached runtime objects,
// compiled with the kernel's recorded Kbuild commands (direct_build.cpp)
// or, when those are unavailable or fail, through Kbuild itself; stored in
// the module cache, which is then trimmed (module_cache.cpp).
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "common/file_io.h"
#include "kbuild/direct_build.h"
#include "kbuild/kbuild.h"
#include "kbuild/module_cache.h"
#include "kbuild/module_layout.h"

namespace fs = std::filesystem;

namespace xtap::kbuild {
namespace {

// "make" (always Kbuild), "direct" (never Kbuild) or "" (direct, falling
// back to Kbuild): Env::method, else XTAP_KBUILD.
std::string build_method(const Env &env) {
  if (!env.method.empty()) return env.method;
  const char *m = getenv("XTAP_KBUILD");
  return m ? m : "";
}

bool write_sources(const fs::path &dir, const ModuleBuild &mb, std::string *error) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  if (!write_file((dir / "xtap_script.c").string(), mb.c_source)) {
    *error = "cannot write the module's build directory " + dir.string() +
             (ec ? ": " + ec.message() : "");
    return false;
  }
  return true;
}

bool build_with_kbuild(const Target &t, const Env &env, const std::string &rt, const fs::path &dir,
                       const ModuleBuild &mb, std::string *error) {
  std::vector<std::string> rt_objs = runtime_objects(rt);
  if (rt_objs.empty()) {
    *error = "the cached runtime in " + rt + " has no objects; remove it and retry";
    return false;
  }
  if (!write_sources(dir, mb, error)) return false;
  if (!write_file((dir / "Kbuild").string(), module_kbuild_file(mb.name, rt, rt_objs))) {
    *error = "cannot write " + (dir / "Kbuild").string();
    return false;
  }
  std::string out;
  if (!kbuild_module_in(t.build_dir, dir.string(), mb.name, env.jobs, env.verbose, {}, &out)) {
    *error = "building module " + mb.name + " for " + t.release + " failed (build dir " +
             dir.string() + "):\n" + out;
    return false;
  }
  return true;
}

// Copy, then rename: another xtap may be reading the cached module. A
// second try covers an old entry that another run evicted in between.
bool store_in_cache(const fs::path &ko, const fs::path &cached, std::string *error) {
  std::error_code ec;
  for (int attempt = 0; attempt < 2; ++attempt) {
    ec.clear();
    fs::create_directories(cached.parent_path(), ec);
    fs::path partial = cached.string() + ".tmp" + std::to_string(getpid());
    fs::copy_file(ko, partial, fs::copy_options::overwrite_existing, ec);
    if (!ec) fs::rename(partial, cached, ec);
    if (!ec) return true;
  }
  *error = "cannot store the module in the cache: " + ec.message();
  return false;
}

// Keeps the module cache under its cap (XTAP_CACHE_MAX_MB) now that
// `stored` is in it; -v says what left.
void trim_after_store(const Env &env, const fs::path &stored) {
  std::string warning;
  ModuleCachePolicy policy = module_cache_policy(getenv("XTAP_CACHE_MAX_MB"), &warning);
  if (!warning.empty()) std::cerr << "xtap: " << warning << "\n";
  CacheUpkeep upkeep = trim_module_cache(env.cache_dir, policy, stored);
  if (env.explain && (upkeep.modules_evicted || upkeep.build_dirs_removed))
    std::cerr << "xtap: pass 4: module cache capped at " << size_text(policy.max_bytes)
              << " (XTAP_CACHE_MAX_MB), least recently used out first: " << describe_upkeep(upkeep)
              << "\n";
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
  fs::path entry = fs::path(env.cache_dir) / "modules" / key;
  fs::path cached = entry / (mb.name + ".ko");
  *ko_path = cached.string();
  // Marked first: an entry evicted since is built again.
  const bool in_cache = mark_module_used(entry) && fs::exists(cached);
  if (cache_hit) *cache_hit = in_cache;
  if (in_cache && mb.keep_dir.empty()) return true;

  fs::path dir = mb.keep_dir.empty()
                     ? fs::path(env.cache_dir) / "build" / (key + "." + std::to_string(getpid()))
                     : fs::path(mb.keep_dir);
  const std::string method = build_method(env);
  bool built = false;
  if (method != "make") {
    std::string why;
    if (!write_sources(dir, mb, error)) return false;
    built = build_direct(t, env, rt, dir.string(), mb.name, mb.c_source, &why);
    if (!built && method == "direct") {
      *error = "building module " + mb.name + " for " + t.release +
               " with the recorded Kbuild commands failed (XTAP_KBUILD=direct): " + why;
      return false;
    }
    if (!built && env.explain)
      std::cerr << "xtap: pass 4: " << why << "; building through Kbuild instead\n";
  } else if (env.explain) {
    std::cerr << "xtap: pass 4: XTAP_KBUILD=make: building through Kbuild\n";
  }
  if (!built && !build_with_kbuild(t, env, rt, dir, mb, error)) return false;

  if (!store_in_cache(dir / (mb.name + ".ko"), cached, error)) return false;
  std::error_code ec;
  if (mb.keep_dir.empty()) fs::remove_all(dir, ec);
  trim_after_store(env, entry);
  return true;
}

}  // namespace xtap::kbuild
