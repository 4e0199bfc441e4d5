// The module cache's upkeep (kbuild/module_cache.cpp) on real directories
// in a scratch cache: LRU order, the cap, the in-use grace, entries that
// vanish under a scan or are evicted by concurrent runs, stale build
// directories and --clean-cache.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <thread>

#include "kbuild/module_cache.h"
#include "temp_dir.h"

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace xtap::kbuild {
namespace {

// A pid that no process has: a child that has exited and been reaped.
pid_t dead_pid() {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  return pid;
}

class ModuleCache : public testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(dir_.path().empty()); }

  // modules/<key>/m.ko of `bytes` bytes, last used `age` ago.
  fs::path entry(const std::string &key, size_t bytes, fs::file_time_type::duration age) {
    dir_.write("modules/" + key + "/m.ko", std::string(bytes, 'x'));
    return aged(dir_.path() / "modules" / key, age);
  }
  // build/<key>.<pid> with a file in it, last written `age` ago.
  fs::path build_dir(const std::string &key, pid_t pid, fs::file_time_type::duration age) {
    std::string name = key + "." + std::to_string(pid);
    dir_.write("build/" + name + "/xtap_script.c", "int x;\n");
    return aged(dir_.path() / "build" / name, age);
  }
  fs::path aged(const fs::path &p, fs::file_time_type::duration age) {
    fs::last_write_time(p, fs::file_time_type::clock::now() - age);
    return p;
  }
  std::set<std::string> keys_left() {
    std::set<std::string> keys;
    for (const auto &e : fs::directory_iterator(dir_.path() / "modules"))
      keys.insert(e.path().filename());
    return keys;
  }
  ModuleCachePolicy cap(std::uint64_t bytes) {
    ModuleCachePolicy policy;
    policy.max_bytes = bytes;
    return policy;
  }

  test::TempDir dir_;
};

TEST(ModuleCachePolicy, CapComesFromXtapCacheMaxMbInMiB) {
  std::string warning;
  EXPECT_EQ(module_cache_policy(nullptr, &warning).max_bytes, 1024ull << 20);
  EXPECT_EQ(module_cache_policy("", &warning).max_bytes, 1024ull << 20);
  EXPECT_EQ(module_cache_policy("300", &warning).max_bytes, 300ull << 20);
  EXPECT_EQ(module_cache_policy("0", &warning).max_bytes, 0u);
  EXPECT_EQ(warning, "");
  for (const char *bad : {"1G", "-5", "lots", "99999999999999999999"}) {
    warning.clear();
    EXPECT_EQ(module_cache_policy(bad, &warning).max_bytes, 1024ull << 20) << bad;
    EXPECT_EQ(warning,
              "XTAP_CACHE_MAX_MB=" + std::string(bad) +
                  " is not a size in MiB; the module cache keeps its default cap of 1024 MiB");
  }
}

TEST(ModuleCacheReport, SizesAndCountsReadAsWords) {
  EXPECT_EQ(size_text(312), "312 bytes");
  EXPECT_EQ(size_text(1536), "1.5 KiB");
  EXPECT_EQ(size_text(7864320), "7.5 MiB");
  EXPECT_EQ(size_text(23ull << 30), "23.0 GiB");
  CacheUpkeep upkeep;
  upkeep.modules_evicted = 3;
  upkeep.module_bytes_freed = 23068672;
  upkeep.build_dirs_removed = 1;
  upkeep.build_bytes_freed = 7;
  EXPECT_EQ(describe_upkeep(upkeep),
            "removed 3 cached modules (22.0 MiB) and 1 stale build directory (7 bytes)");
}

TEST_F(ModuleCache, ScanListsEntriesLeastRecentlyUsedFirst) {
  entry("b", 200, 1h);
  entry("a", 100, 3h);
  entry("c", 300, 2h);
  dir_.write("modules/stray-file", "not an entry");
  fs::create_directories(dir_.path() / "modules/.evicting-1-0-d");
  std::vector<ModuleCacheEntry> entries = scan_module_cache(dir_.str());
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].dir.filename(), "a");
  EXPECT_EQ(entries[1].dir.filename(), "c");
  EXPECT_EQ(entries[2].dir.filename(), "b");
  EXPECT_EQ(entries[0].bytes, 100u);
  EXPECT_EQ(entries[1].bytes, 300u);
  EXPECT_TRUE(scan_module_cache(dir_.str("no-such-cache")).empty());
}

TEST_F(ModuleCache, EvictsLeastRecentlyUsedUntilUnderTheCap) {
  entry("oldest", 100, 4h);
  entry("old", 100, 3h);
  entry("recent", 100, 2h);
  fs::path stored = entry("stored", 100, 0s);
  CacheUpkeep upkeep = trim_module_cache(dir_.str(), cap(250), stored);
  EXPECT_EQ(keys_left(), (std::set<std::string>{"recent", "stored"}));
  EXPECT_EQ(upkeep.modules_evicted, 2);
  EXPECT_EQ(upkeep.module_bytes_freed, 200u);
  EXPECT_EQ(upkeep.module_bytes_kept, 200u);

  upkeep = trim_module_cache(dir_.str(), cap(250), stored);  // under the cap: nothing to do
  EXPECT_EQ(upkeep.modules_evicted, 0);
  EXPECT_EQ(keys_left().size(), 2u);
}

TEST_F(ModuleCache, ACacheHitMakesTheEntryTheLastToGo) {
  fs::path oldest = entry("oldest", 100, 4h);
  entry("old", 100, 3h);
  fs::path stored = entry("stored", 100, 0s);
  EXPECT_TRUE(mark_module_used(oldest));
  EXPECT_EQ(scan_module_cache(dir_.str()).back().dir.filename(), "oldest");
  trim_module_cache(dir_.str(), cap(250), stored);
  EXPECT_EQ(keys_left(), (std::set<std::string>{"oldest", "stored"}));
  EXPECT_FALSE(mark_module_used(dir_.path() / "modules/never-built"));
}

TEST_F(ModuleCache, NeverEvictsTheEntryJustStoredNorOneInUse) {
  fs::path stored = entry("stored", 500, 6h);  // the scan sees it as the oldest
  entry("in-use", 100, 1min);                  // another run was just given it
  entry("idle", 100, 10min);
  CacheUpkeep upkeep = trim_module_cache(dir_.str(), cap(0), stored);
  EXPECT_EQ(keys_left(), (std::set<std::string>{"in-use", "stored"}));
  EXPECT_EQ(upkeep.modules_evicted, 1);
  EXPECT_EQ(upkeep.module_bytes_kept, 600u);  // over the cap: what stays must stay
}

TEST_F(ModuleCache, EntryEvictedByAnotherRunAfterTheScanCountsAsGone) {
  entry("a", 100, 3h);
  entry("b", 100, 2h);
  entry("c", 100, 1h);
  std::vector<ModuleCacheEntry> entries = scan_module_cache(dir_.str());
  fs::remove_all(dir_.path() / "modules/a");  // another run took it meanwhile
  CacheUpkeep upkeep = evict_least_recently_used(entries, cap(200), {});
  EXPECT_EQ(upkeep.modules_evicted, 0);  // "a" was not ours to count, and it freed enough
  EXPECT_EQ(upkeep.module_bytes_kept, 200u);
  EXPECT_EQ(keys_left(), (std::set<std::string>{"b", "c"}));
}

TEST_F(ModuleCache, EntryUsedAfterTheScanIsKept) {
  entry("a", 100, 3h);
  entry("b", 100, 2h);
  std::vector<ModuleCacheEntry> entries = scan_module_cache(dir_.str());
  mark_module_used(dir_.path() / "modules/a");  // another run's cache hit
  evict_least_recently_used(entries, cap(100), {});
  EXPECT_EQ(keys_left(), (std::set<std::string>{"a"}));
}

// Runs storing modules at once, each trimming the same cache: every old
// entry is evicted exactly once, what each run stored stays, and no
// half-done eviction is left behind.
TEST_F(ModuleCache, ConcurrentTrimsEvictEachEntryOnce) {
  const int kOld = 300, kRuns = 4;
  for (int i = 0; i < kOld; ++i)
    entry("old" + std::to_string(i), 1000, std::chrono::hours(1) + i * 1s);
  std::vector<fs::path> stored;
  for (int r = 0; r < kRuns; ++r) stored.push_back(entry("stored" + std::to_string(r), 1000, 0s));
  std::vector<CacheUpkeep> upkeeps(kRuns);
  std::vector<std::thread> runs;
  for (int r = 0; r < kRuns; ++r)
    runs.emplace_back(
        [&, r] { upkeeps[r] = trim_module_cache(dir_.str(), cap(50 * 1000), stored[r]); });
  for (auto &t : runs) t.join();

  int evicted = 0;
  for (const auto &u : upkeeps) evicted += u.modules_evicted;
  std::set<std::string> left = keys_left();
  EXPECT_EQ(evicted + static_cast<int>(left.size()), kOld + kRuns);
  EXPECT_EQ(left.size(), 50u);
  for (const auto &s : stored) EXPECT_TRUE(left.count(s.filename())) << s;
  for (const auto &k : left) EXPECT_EQ(k.find(".evicting-"), std::string::npos) << k;
  // The newest old entries are the ones left.
  EXPECT_TRUE(left.count("old0"));
  EXPECT_FALSE(left.count("old" + std::to_string(kOld - 1)));
}

TEST_F(ModuleCache, RemovesEvictionsThatADeadRunLeftHalfDone) {
  dir_.write("modules/.evicting-" + std::to_string(dead_pid()) + "-0-abc/m.ko",
             std::string(100, 'x'));
  std::string ours = ".evicting-" + std::to_string(getpid()) + "-7-def";
  dir_.write("modules/" + ours + "/m.ko", "x");
  CacheUpkeep upkeep = trim_module_cache(dir_.str(), cap(1000), {});
  EXPECT_EQ(keys_left(), (std::set<std::string>{ours}));
  EXPECT_EQ(upkeep.module_bytes_freed, 100u);
}

TEST_F(ModuleCache, RemovesBuildDirectoriesOfRunsThatEnded) {
  fs::create_directories(dir_.path() / "modules");
  pid_t dead = dead_pid();
  build_dir("failed", dead, 20min);
  build_dir("just-failed", dead, 1min);  // its error message names it: kept a while
  build_dir("building", getpid(), 2min);
  build_dir("pid-reused", getpid(), 25h);
  dir_.write("build/notes/readme", "not a build directory of xtap's");
  CacheUpkeep upkeep = trim_module_cache(dir_.str(), cap(1000), {});
  std::set<std::string> left;
  for (const auto &e : fs::directory_iterator(dir_.path() / "build"))
    left.insert(e.path().filename());
  EXPECT_EQ(left, (std::set<std::string>{"just-failed." + std::to_string(dead),
                                         "building." + std::to_string(getpid()), "notes"}));
  EXPECT_EQ(upkeep.build_dirs_removed, 2);
  EXPECT_EQ(upkeep.build_bytes_freed, 14u);  // two "int x;\n"
}

TEST_F(ModuleCache, CleanCacheRemovesModulesAndEndedBuildsOnly) {
  entry("a", 100, 3h);
  entry("just-built", 200, 0s);
  pid_t dead = dead_pid();
  build_dir("failed", dead, 0s);
  build_dir("building", getpid(), 0s);
  dir_.write("runtime/6.1.0-test-key/xtap_runtime.o", "runtime");
  dir_.write("catalog/6.1.0-test.cat", "catalog");
  CacheUpkeep freed = clean_module_cache(dir_.str());
  EXPECT_TRUE(keys_left().empty());
  EXPECT_EQ(freed.modules_evicted, 2);
  EXPECT_EQ(freed.module_bytes_freed, 300u);
  EXPECT_EQ(freed.module_bytes_kept, 0u);
  EXPECT_EQ(freed.build_dirs_removed, 1);
  EXPECT_FALSE(fs::exists(dir_.path() / "build" / ("failed." + std::to_string(dead))));
  EXPECT_TRUE(fs::exists(dir_.path() / "build" / ("building." + std::to_string(getpid()))));
  EXPECT_TRUE(fs::exists(dir_.path() / "runtime/6.1.0-test-key/xtap_runtime.o"));
  EXPECT_TRUE(fs::exists(dir_.path() / "catalog/6.1.0-test.cat"));
}

}  // namespace
}  // namespace xtap::kbuild
