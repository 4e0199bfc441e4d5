// Pass 4's direct path (kbuild/direct_build.cpp) against Kbuild itself: the
// same generated C built both ways for every installed kernel must give the
// same kind of module: the same sections, .modinfo, __versions CRCs and
// symbols (addresses aside). Needs the kernel headers; the runtime comes
// from xtap's default cache (built on the first run).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "common/elf_file.h"
#include "common/file_io.h"
#include "common/process.h"
#include "kbuild/kbuild.h"
#include "temp_dir.h"

namespace fs = std::filesystem;

namespace xtap::kbuild {
namespace {

std::vector<std::string> kernels_with_headers() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator("/lib/modules", ec))
    if (fs::exists(e.path() / "build/Makefile")) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string command_output(const std::string &cmd) {
  std::string out;
  FILE *p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

std::vector<std::string> words(const std::string &line) {
  std::istringstream in(line);
  std::vector<std::string> w;
  for (std::string s; in >> s;) w.push_back(s);
  return w;
}

// Section names in order, with their type and, for the sections the module
// loader reads (not DWARF or BTF, which name the build directory), size.
std::vector<std::string> sections(const std::string &ko) {
  std::vector<std::string> out;
  std::istringstream in(command_output("readelf -SW " + ko));
  for (std::string line; std::getline(in, line);) {
    auto b = line.find(']');
    if (line.find("  [") != 0 || b == std::string::npos || line.find("Nr]") != std::string::npos)
      continue;
    auto w = words(line.substr(b + 1));
    if (w.size() < 5 || w[0] == "NULL") continue;
    bool debug = w[0].starts_with(".debug") || w[0].starts_with(".rela.debug") || w[0] == ".BTF";
    out.push_back(w[0] + " " + w[1] + (debug ? "" : " size=" + w[4]));
  }
  return out;
}

// Symbols as "name type bind section size", sorted.
std::multiset<std::string> symbols(const std::string &ko) {
  std::multiset<std::string> out;
  std::istringstream in(command_output("readelf -sW " + ko));
  for (std::string line; std::getline(in, line);) {
    auto w = words(line);
    if (w.size() < 8 || w[0].back() != ':') continue;
    out.insert(w[7] + " " + w[3] + " " + w[4] + " " + w[6] + " " + w[2]);
  }
  return out;
}

std::multiset<std::string> modinfo(const ElfFile &elf) {
  std::multiset<std::string> out;
  auto s = elf.section(".modinfo");
  if (!s) return out;
  std::string data(*s);
  for (size_t p = 0; p < data.size();) {
    size_t e = data.find('\0', p);
    if (e == std::string::npos) e = data.size();
    if (e > p) out.insert(data.substr(p, e - p));
    p = e + 1;
  }
  return out;
}

// struct modversion_info: a 64-bit CRC and a 56-byte name.
std::set<std::string> versions(const ElfFile &elf) {
  std::set<std::string> out;
  auto s = elf.section("__versions");
  if (!s) return out;
  for (size_t p = 0; p + 64 <= s->size(); p += 64) {
    uint64_t crc;
    memcpy(&crc, s->data() + p, 8);
    out.insert(std::string(s->data() + p + 8, strnlen(s->data() + p + 8, 56)) + " " +
               std::to_string(crc));
  }
  return out;
}

std::string generated_c(const std::string &release, const std::string &script, std::string *err) {
  test::TempDir scratch;
  process::SpawnSpec s;
  s.argv = {XTAP_BINARY_DIR "/cli/xtap", "-p3", "-r", release, "-e", script};
  s.stdout_path = scratch.str() + "/out.c";
  s.stderr_path = scratch.str() + "/err";
  if (process::run_to_end(s, err) != 0) {
    *err += read_file(s.stderr_path);
    return "";
  }
  return read_file(s.stdout_path);
}

TEST(DirectBuild, MakesTheModuleKbuildMakesOnEveryInstalledKernel) {
  auto kernels = kernels_with_headers();
  if (kernels.empty()) GTEST_SKIP() << "no kernel headers under /lib/modules";
  const std::string script =
      "global c probe kprobe.function(\"vfs_read\") { c[execname()]++ }"
      " probe timer.ms(100) { printf(\"%d\\n\", c[\"x\"]) exit() }";
  for (const auto &release : kernels) {
    SCOPED_TRACE(release);
    Target t;
    std::string err;
    ASSERT_TRUE(resolve_target(release, &t, &err)) << err;
    std::string c = generated_c(release, script, &err);
    ASSERT_FALSE(c.empty()) << err;

    Env env;
    env.datadir = XTAP_SOURCE_DIR;
    env.cache_dir = default_cache_dir();
    env.version = XTAP_VERSION;
    test::TempDir dir;
    std::map<std::string, std::string> ko;
    // Same-length directories: paths compiled into strings keep their sizes.
    for (const char *method : {"make", "direct"}) {
      env.method = method;
      ModuleBuild mb;
      mb.name = "t_direct_cmp";
      mb.c_source = c;
      mb.keep_dir = dir.str() + "/" + (std::string(method) == "make" ? "kbuild" : "direct");
      std::string cached;
      ASSERT_TRUE(build_module(t, env, mb, &cached, &err)) << method << ": " << err;
      ko[method] = mb.keep_dir + "/t_direct_cmp.ko";
      ASSERT_TRUE(fs::exists(ko[method])) << ko[method];
    }
    EXPECT_TRUE(fs::exists(dir.path() / "direct/build.sh")) << "not built by the direct path";
    // NAME.mod.o from xtap's C without kernel headers (kbuild/mod_object.h)
    EXPECT_TRUE(fs::exists(dir.path() / "direct/headerless/t_direct_cmp.mod.c"))
        << "NAME.mod.c was compiled with the kernel headers";
    // xtap_script.c compiled with the precompiled headers (kbuild/script_pch.h)
    EXPECT_TRUE(fs::exists(dir.path() / "direct/xtap_modname.h")) << "no precompiled headers";

    auto secs = sections(ko["direct"]);
    EXPECT_EQ(sections(ko["make"]), secs);
    std::string names;
    for (const auto &sec : secs) names += " " + sec.substr(0, sec.find(' ')) + " ";
    for (const char *want : {" __versions ", " .modinfo ", " .gnu.linkonce.this_module ",
                             " .orc_unwind ", " .orc_unwind_ip ", " __mcount_loc "})
      EXPECT_NE(names.find(want), std::string::npos) << want << " missing from" << names;
    // Kbuild makes module BTF when the headers ship a vmlinux (6.12's do).
    EXPECT_EQ(names.find(" .BTF ") != std::string::npos, fs::exists(t.build_dir + "/vmlinux"))
        << names;
    auto a = ElfFile::open(ko["make"], &err), b = ElfFile::open(ko["direct"], &err);
    ASSERT_TRUE(a && b) << err;
    auto info = modinfo(*b);
    EXPECT_EQ(modinfo(*a), info);
    EXPECT_EQ(info.count("name=t_direct_cmp"), 1u);
    bool vermagic = false;
    for (const auto &e : info) vermagic |= e.starts_with("vermagic=" + release + " ");
    EXPECT_TRUE(vermagic);
    for (const char *raw : {".gnu.linkonce.this_module", ".modinfo", "__versions"})
      EXPECT_EQ(a->section(raw), b->section(raw)) << raw;
    auto crcs = versions(*b);
    EXPECT_EQ(versions(*a), crcs);
    EXPECT_GT(crcs.size(), 10u);
    auto syms = symbols(ko["direct"]);
    EXPECT_GT(syms.size(), 100u);
    EXPECT_EQ(symbols(ko["make"]), syms);
  }
}

}  // namespace
}  // namespace xtap::kbuild
