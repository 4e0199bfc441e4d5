// Wildcard probe points expanded against symbol listings: the real ones of
// this machine and of the VM kernel (System.map from its -dbg package)
// where they are installed, and small listings for the rules.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "real_module.h"
#include "runner/symbols.h"
#include "temp_dir.h"

namespace xtap::runner {
namespace {

ModInfo wildcards(std::vector<std::pair<int, std::string>> w) {
  ModInfo mi;
  mi.wildcards = std::move(w);
  return mi;
}

// Every System.map of an installed -dbg package, and /proc/kallsyms when it
// shows names (a kernel without kallsyms has none).
std::vector<std::string> real_symbol_listings() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto &e : std::filesystem::directory_iterator("/usr/lib/debug/boot", ec))
    if (e.path().filename().string().starts_with("System.map-")) out.push_back(e.path().string());
  std::ifstream k("/proc/kallsyms");
  std::string line;
  if (std::getline(k, line) && line.find(" T ") != std::string::npos)
    out.push_back("/proc/kallsyms");
  return out;
}

TEST(Symbols, KeepsWholeFunctionsOfVmlinuxOnly) {
  std::istringstream in(
      "ffffffff81000000 T _stext\n"
      "ffffffff816d5370 T vfs_read\n"
      "ffffffff816d3a50 t vfs_readv\n"
      "ffffffff816d3a40 t __pfx_vfs_readv\n"
      "ffffffff816d3b00 t vfs_read.cold\n"
      "ffffffff816d3c00 t do_one.isra.0\n"
      "ffffffff82000000 D vfs_data\n"
      "ffffffff82000100 r __kstrtab_vfs_read\n"
      "ffffffffc0000000 t ext4_read\t[ext4]\n"
      "ffffffff816d5370 T vfs_read\n");
  EXPECT_EQ(probeable_functions(in), (std::vector<std::string>{"_stext", "vfs_read", "vfs_readv"}));
}

TEST(Symbols, MatchesGlobsLeavingOutTheBlacklist) {
  std::vector<std::string> functions = {"vfs_read", "vfs_readv", "vfs_write", "do_sys_open"};
  std::istringstream bl("0xffffffff81000000-0xffffffff81000010\tvfs_readv\n");
  std::string params, err;
  ASSERT_TRUE(match_wildcards(wildcards({{0, "vfs_*"}, {3, "do_sys_[o]pen"}}), functions,
                              kprobe_blacklist(bl), &params, &err))
      << err;
  EXPECT_EQ(params, "xtap_symbols=0:vfs_read,0:vfs_write,3:do_sys_open");
}

TEST(Symbols, NoMatchIsTheModulesToReport) {
  std::string params = "stale", err;
  ASSERT_TRUE(match_wildcards(wildcards({{0, "no_such_*"}}), {"vfs_read"}, {}, &params, &err));
  EXPECT_EQ(params, "");
}

TEST(Symbols, RefusesAPatternThatMatchesTooMuch) {
  std::vector<std::string> functions;
  for (int i = 0; i < 6000; i++) functions.push_back("f" + std::to_string(i));
  std::string params, err;
  EXPECT_FALSE(match_wildcards(wildcards({{0, "f*"}}), functions, {}, &params, &err));
  EXPECT_EQ(err,
            "kprobe.function(\"f*\") matches too many functions (6000; at most 5000 in all): "
            "narrow the pattern");
}

TEST(Symbols, ExpandsAgainstRealListings) {
  auto listings = real_symbol_listings();
  if (listings.empty()) GTEST_SKIP() << "no System.map or readable /proc/kallsyms";
  for (const auto &path : listings) {
    SCOPED_TRACE(path);
    SymbolSources src;
    src.kallsyms = path;
    src.blacklist = "/no/such/blacklist";
    std::string params, err;
    ASSERT_TRUE(
        wildcard_params(wildcards({{0, "vfs_rea?"}, {1, "ksys_*read"}}), src, &params, &err))
        << err;
    EXPECT_NE(params.find("0:vfs_read"), std::string::npos) << params;
    EXPECT_NE(params.find("1:ksys_read"), std::string::npos) << params;
    EXPECT_EQ(params.find("__pfx_"), std::string::npos) << params;
    // Every kernel has far more than 5000 functions.
    EXPECT_FALSE(wildcard_params(wildcards({{0, "*"}}), src, &params, &err));
  }
}

TEST(Symbols, ARealModulesPatternsAndAMissingListing) {
  XTAP_NEED_REAL_MODULE(m);
  std::string err;
  auto mi = read_modinfo(m.path, &err);
  ASSERT_TRUE(mi) << err;
  SymbolSources src;
  src.kallsyms = "/no/such/kallsyms";
  std::string params;
  EXPECT_FALSE(wildcard_params(*mi, src, &params, &err));
  EXPECT_EQ(err, "cannot read /no/such/kallsyms to expand wildcard probe points");
  test::TempDir dir;
  src.kallsyms =
      dir.write("kallsyms", "ffffffff816d5370 T vfs_read\nffffffff816d5470 T vfs_write\n");
  ASSERT_TRUE(wildcard_params(*mi, src, &params, &err)) << err;
  EXPECT_EQ(params, "xtap_symbols=0:vfs_read");
}

}  // namespace
}  // namespace xtap::runner
