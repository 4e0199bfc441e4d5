// The kernel catalog (docs/catalog.md), built once per target kernel build by
// xtap-kcatalog and cached like the runtime: keyed by the release, the build
// directory's identity, the xtap version and a hash of the tool itself.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "common/install_paths.h"
#include "common/process.h"
#include "kbuild/cache_lock.h"
#include "kbuild/kbuild.h"

namespace fs = std::filesystem;

namespace xtap::kbuild {
namespace {

std::string slurp(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool is_executable(const std::string &p) {
  return access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p);
}

// XTAP_KCATALOG, else next to the running program (xtap and xtap-kcatalog
// are built into the same directory) or in its ../libexec/xtap (installed).
bool find_tool(std::string *tool, std::string *error) {
  if (const char *env = getenv("XTAP_KCATALOG"); env && *env) {
    if (!is_executable(env)) {
      *error = "XTAP_KCATALOG=" + std::string(env) + " is not an executable";
      return false;
    }
    *tool = env;
    return true;
  }
  *tool = install::helper_program("xtap-kcatalog");
  if (tool->empty()) {
    std::string dir = install::program_dir();
    *error = "xtap-kcatalog not found in " +
             (dir.empty() ? std::string("this program's directory") : dir) +
             " or its ../libexec/xtap (set XTAP_KCATALOG to its path)";
    return false;
  }
  return true;
}

// The tool's content hash: reading and hashing it costs a good part of a
// second, so it is remembered under the tool's identity (path, size,
// modification time, inode). A relinked but identical tool keeps its hash
// and with it the cached catalogs.
std::string tool_hash(const std::string &tool, const fs::path &cache) {
  struct stat st {};
  if (stat(tool.c_str(), &st) != 0) return "unknown";
  std::string identity = tool + "\n" + std::to_string(st.st_size) + "\n" +
                         std::to_string(st.st_mtim.tv_sec) + "." +
                         std::to_string(st.st_mtim.tv_nsec) + "\n" + std::to_string(st.st_ino);
  fs::path memo = cache / "tool-hash" / hash_hex(identity);
  std::string known = slurp(memo);
  if (known.size() == 32) return known;
  std::string hash = hash_hex(slurp(tool));
  std::error_code ec;
  fs::create_directories(memo.parent_path(), ec);
  fs::path tmp = memo.string() + ".tmp" + std::to_string(getpid());
  std::ofstream(tmp, std::ios::binary) << hash;
  fs::rename(tmp, memo, ec);
  return hash;
}

// What makes a cached catalog stale: the kernel build, xtap, the tool.
std::string catalog_key(const Target &t, const Env &env, const std::string &tool_hash) {
  std::string k = env.version + "\n" + t.release + "\n" + t.build_dir + "\n" + tool_hash + "\n";
  for (const char *f : {"/.config", "/Module.symvers", "/include/generated/utsrelease.h",
                        "/include/generated/autoconf.h"}) {
    std::error_code ec;
    auto time = fs::last_write_time(t.build_dir + f, ec);
    k += std::string(f) + ":" + std::to_string(ec ? 0 : time.time_since_epoch().count()) + "\n";
  }
  return hash_hex(k).substr(0, 16);
}

}  // namespace

bool ensure_catalog(const Target &t, const Env &env, std::string *path, std::string *error) {
  std::string tool;
  if (!find_tool(&tool, error)) return false;
  fs::path cache = fs::path(env.cache_dir) / "catalog";
  std::error_code ec;
  fs::create_directories(cache, ec);
  if (ec) {
    *error = "cannot create " + cache.string() + ": " + ec.message();
    return false;
  }
  fs::path final_path =
      cache / (t.release + "-" + catalog_key(t, env, tool_hash(tool, cache)) + ".txt");
  *path = final_path.string();
  if (fs::exists(final_path)) return true;

  CacheLock lock(final_path.string());
  if (fs::exists(final_path)) return true;
  ProgressStep step(env, "reading the kernel catalog of " + t.release + " (once per kernel)");

  std::string pid = std::to_string(getpid());
  fs::path tmp = final_path.string() + ".tmp" + pid;
  fs::path log = final_path.string() + ".log" + pid;
  std::vector<std::string> argv = {tool,      "--build-dir", t.build_dir, "--release",
                                   t.release, "-o",          tmp.string()};
  if (env.verbose) argv.push_back("-v");
  process::SpawnSpec spec;
  spec.argv = argv;
  spec.stdout_path = spec.stderr_path = log.string();
  std::string spawn_error;
  int rc = process::run_to_end(spec, &spawn_error);
  if (env.verbose) std::cerr << slurp(log);
  if (rc != 0 || !fs::exists(tmp)) {
    *error = "building the kernel catalog of " + t.release + " failed (" + tool + "):\n" +
             (rc < 0 ? spawn_error + "\n" : "") + slurp(log);
    fs::remove(tmp, ec);
    fs::remove(log, ec);
    return false;
  }
  fs::rename(tmp, final_path, ec);
  if (ec) {
    *error = "cannot move the kernel catalog into " + final_path.string() + ": " + ec.message();
    fs::remove(tmp, ec);
    return false;
  }
  fs::rename(log, final_path.string() + ".log", ec);  // what it skipped, for the curious
  return true;
}

}  // namespace xtap::kbuild
