#include "kbuild/module_cache.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iterator>

namespace fs = std::filesystem;

namespace xtap::kbuild {
namespace {

// An entry on its way out: <dir>/.evicting-<pid>-<n>-<key>. Only the run
// that renamed it removes it, or any run once that one is dead.
const std::string kEvictingPrefix = ".evicting-";

std::uint64_t tree_bytes(const fs::path &dir) {
  std::uint64_t total = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code file_ec;
    if (!it->is_regular_file(file_ec)) continue;
    std::uintmax_t n = it->file_size(file_ec);
    if (!file_ec) total += n;
  }
  return total;
}

// EPERM: alive, under another user.
bool pid_alive(pid_t pid) { return pid == getpid() || kill(pid, 0) == 0 || errno == EPERM; }

// A pid written in decimal, or 0.
pid_t parse_pid(const std::string &digits) {
  if (digits.empty() || digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return 0;
  return static_cast<pid_t>(std::atol(digits.c_str()));
}

// A build directory is "<key>.<pid>"; 0 for anything else.
pid_t build_dir_pid(const std::string &name) {
  size_t dot = name.rfind('.');
  return dot == std::string::npos || dot == 0 ? 0 : parse_pid(name.substr(dot + 1));
}

pid_t evicting_pid(const std::string &name) {
  if (name.compare(0, kEvictingPrefix.size(), kEvictingPrefix) != 0) return 0;
  std::string rest = name.substr(kEvictingPrefix.size());
  return parse_pid(rest.substr(0, rest.find('-')));
}

enum class Removal { Removed, AlreadyGone, Failed };

// Renamed first, so that a run reading the module keeps its open file and
// no run finds half an entry; then removed at leisure.
Removal remove_by_rename(const fs::path &dir) {
  static std::atomic<unsigned> evictions{0};
  fs::path away = dir.parent_path() / (kEvictingPrefix + std::to_string(getpid()) + "-" +
                                       std::to_string(evictions++) + "-" + dir.filename().string());
  std::error_code ec;
  fs::rename(dir, away, ec);
  if (ec)
    return ec == std::errc::no_such_file_or_directory ? Removal::AlreadyGone : Removal::Failed;
  fs::remove_all(away, ec);
  return Removal::Removed;
}

// Evictions that a killed run left half done, in `dir`.
void remove_abandoned_evictions(const fs::path &dir, CacheUpkeep *upkeep) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    pid_t pid = evicting_pid(it->path().filename().string());
    if (!pid || pid_alive(pid)) continue;
    std::uint64_t bytes = tree_bytes(it->path());
    std::error_code rm_ec;
    if (fs::remove_all(it->path(), rm_ec) > 0 && !rm_ec) upkeep->module_bytes_freed += bytes;
  }
}

void remove_stale_build_dirs(const fs::path &dir, const ModuleCachePolicy &policy,
                             CacheUpkeep *upkeep) {
  const auto now = fs::file_time_type::clock::now();
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    pid_t pid = build_dir_pid(it->path().filename().string());
    if (!pid) continue;  // not a build directory of xtap's
    std::error_code entry_ec;
    auto age = now - fs::last_write_time(it->path(), entry_ec);
    if (entry_ec) continue;  // gone since it was listed
    bool stale =
        age > policy.build_dir_max_age || (age >= policy.dead_build_grace && !pid_alive(pid));
    if (!stale) continue;
    std::uint64_t bytes = tree_bytes(it->path());
    if (fs::remove_all(it->path(), entry_ec) > 0 && !entry_ec) {
      ++upkeep->build_dirs_removed;
      upkeep->build_bytes_freed += bytes;
    }
  }
}

}  // namespace

ModuleCachePolicy module_cache_policy(const char *max_mb, std::string *warning) {
  ModuleCachePolicy policy;
  if (!max_mb || !*max_mb) return policy;
  char *end = nullptr;
  errno = 0;
  unsigned long long mb = std::strtoull(max_mb, &end, 10);
  if (*end || errno || max_mb[0] == '-' || mb > (std::uint64_t(1) << 43)) {
    *warning = "XTAP_CACHE_MAX_MB=" + std::string(max_mb) +
               " is not a size in MiB; the module cache keeps its default cap of " +
               std::to_string(policy.max_bytes >> 20) + " MiB";
    return policy;
  }
  policy.max_bytes = mb << 20;
  return policy;
}

std::vector<ModuleCacheEntry> scan_module_cache(const std::string &cache_dir) {
  std::vector<ModuleCacheEntry> entries;
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(cache_dir) / "modules", ec), end; !ec && it != end;
       it.increment(ec)) {
    const fs::path &dir = it->path();
    std::error_code entry_ec;
    if (dir.filename().string()[0] == '.' || !it->is_directory(entry_ec)) continue;
    auto last_used = fs::last_write_time(dir, entry_ec);
    if (entry_ec) continue;  // evicted since it was listed
    entries.push_back({dir, last_used, tree_bytes(dir)});
  }
  std::sort(entries.begin(), entries.end(),
            [](const ModuleCacheEntry &a, const ModuleCacheEntry &b) {
              return a.last_used != b.last_used ? a.last_used < b.last_used : a.dir < b.dir;
            });
  return entries;
}

bool mark_module_used(const fs::path &entry_dir) {
  std::error_code ec;
  fs::last_write_time(entry_dir, fs::file_time_type::clock::now(), ec);
  // A cache we may not write (EACCES, EROFS) still serves its modules.
  return ec != std::errc::no_such_file_or_directory;
}

CacheUpkeep evict_least_recently_used(const std::vector<ModuleCacheEntry> &entries,
                                      const ModuleCachePolicy &policy,
                                      const fs::path &just_stored) {
  CacheUpkeep upkeep;
  std::uint64_t total = 0;
  for (const auto &e : entries) total += e.bytes;
  const auto recent = fs::file_time_type::clock::now() - policy.in_use_grace;
  for (const auto &e : entries) {
    // A cap of 0 takes every entry past the grace, empty ones too.
    if (policy.max_bytes > 0 && total <= policy.max_bytes) break;
    std::error_code same_ec, ec;
    if (!just_stored.empty() && fs::equivalent(e.dir, just_stored, same_ec)) continue;
    // Read again: a hit since the scan makes the entry recent.
    auto last_used = fs::last_write_time(e.dir, ec);
    if (!ec && last_used > recent) continue;
    Removal removal = ec ? Removal::AlreadyGone : remove_by_rename(e.dir);
    if (removal == Removal::Failed) continue;
    if (removal == Removal::Removed) {
      ++upkeep.modules_evicted;
      upkeep.module_bytes_freed += e.bytes;
    }
    total -= e.bytes;
  }
  upkeep.module_bytes_kept = total;
  return upkeep;
}

CacheUpkeep trim_module_cache(const std::string &cache_dir, const ModuleCachePolicy &policy,
                              const fs::path &just_stored) {
  CacheUpkeep upkeep = evict_least_recently_used(scan_module_cache(cache_dir), policy, just_stored);
  remove_abandoned_evictions(fs::path(cache_dir) / "modules", &upkeep);
  remove_stale_build_dirs(fs::path(cache_dir) / "build", policy, &upkeep);
  return upkeep;
}

std::string size_text(std::uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = bytes / 1024.0;
  size_t unit = 0;
  for (; value >= 1024 && unit + 1 < std::size(units); ++unit) value /= 1024;
  char text[32];
  snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  return text;
}

std::string describe_upkeep(const CacheUpkeep &upkeep) {
  auto count = [](int n, const char *one, const char *many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  return "removed " + count(upkeep.modules_evicted, "cached module", "cached modules") + " (" +
         size_text(upkeep.module_bytes_freed) + ") and " +
         count(upkeep.build_dirs_removed, "stale build directory", "stale build directories") +
         " (" + size_text(upkeep.build_bytes_freed) + ")";
}

CacheUpkeep clean_module_cache(const std::string &cache_dir) {
  ModuleCachePolicy everything;
  everything.max_bytes = 0;
  everything.in_use_grace = std::chrono::seconds(0);
  everything.dead_build_grace = std::chrono::seconds(0);
  return trim_module_cache(cache_dir, everything, {});
}

}  // namespace xtap::kbuild
