// The module cache's upkeep: built script modules
// (<cache>/modules/<key>/<name>.ko) are kept under a size cap, the least
// recently used leaving first, and the build directories
// (<cache>/build/<key>.<pid>) of runs that failed or died are removed.
//
// Concurrent xtap runs share the cache (docs/architecture.md, "The module
// cache"): an entry leaves by a rename to a private name before it is
// removed, so a run that has the module open keeps reading it; entries used
// in the last minutes are never evicted, so a run that was just given a
// module's path can still load it; entries that vanish under a scan (another
// run evicted them) are skipped.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace xtap::kbuild {

struct ModuleCachePolicy {
  // XTAP_CACHE_MAX_MB. 0 keeps no module beyond the in-use grace.
  std::uint64_t max_bytes = std::uint64_t(1024) << 20;
  // An entry used this recently stays, even over the cap.
  std::chrono::seconds in_use_grace{5 * 60};
  // A build directory of a run that is no longer alive stays this long (the
  // error message of a failed build names it), and any build directory is
  // stale after build_dir_max_age (its pid may have been reused).
  std::chrono::seconds dead_build_grace{10 * 60};
  std::chrono::seconds build_dir_max_age{24 * 60 * 60};
};

// The default policy with the cap from `max_mb` (XTAP_CACHE_MAX_MB's value,
// MiB; null or empty: the default). A value that is not a number keeps the
// default cap and *warning says so.
ModuleCachePolicy module_cache_policy(const char *max_mb, std::string *warning);

struct ModuleCacheEntry {
  std::filesystem::path dir;                  // <cache>/modules/<key>
  std::filesystem::file_time_type last_used;  // the directory's mtime
  std::uint64_t bytes = 0;                    // its files' sizes
};

// The entries of <cache>/modules, least recently used first.
std::vector<ModuleCacheEntry> scan_module_cache(const std::string &cache_dir);

// A cache hit: marks the entry as just used. False when it is gone (evicted
// since it was found): the module must be built again.
bool mark_module_used(const std::filesystem::path &entry_dir);

// What an upkeep removed, and what the module cache holds after it.
struct CacheUpkeep {
  int modules_evicted = 0;
  std::uint64_t module_bytes_freed = 0;
  std::uint64_t module_bytes_kept = 0;
  int build_dirs_removed = 0;
  std::uint64_t build_bytes_freed = 0;
};

// Evicts from `entries` (a scan, least recently used first) until what is
// left is at most policy.max_bytes, never `just_stored` nor an entry used
// within the grace. Entries already gone are skipped.
CacheUpkeep evict_least_recently_used(const std::vector<ModuleCacheEntry> &entries,
                                      const ModuleCachePolicy &policy,
                                      const std::filesystem::path &just_stored);

// After a build stored the entry `just_stored`: scans and evicts as above,
// and removes stale build directories and the leftovers of evictions that a
// killed run left half done.
CacheUpkeep trim_module_cache(const std::string &cache_dir, const ModuleCachePolicy &policy,
                              const std::filesystem::path &just_stored);

// "7.5 MiB", "1.0 GiB", "312 bytes": sizes as the upkeep reports them.
std::string size_text(std::uint64_t bytes);

// "removed 3 cached modules (22.0 MiB) and 1 stale build directory (7 bytes)".
std::string describe_upkeep(const CacheUpkeep &upkeep);

// xtap --clean-cache: every module entry, and the build directories of runs
// no longer alive (whatever their age). The rest of the cache stays.
CacheUpkeep clean_module_cache(const std::string &cache_dir);

}  // namespace xtap::kbuild
