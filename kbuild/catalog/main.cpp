// xtap-kcatalog: writes the kernel catalog (docs/catalog.md) of a kernel
// build: its tracepoints, its system calls and the C types they reach, all
// read from the build's own headers through Clang.
//
//   xtap-kcatalog --build-dir /lib/modules/KVER/build [--release KVER] -o catalog.txt
//                 [--flags-from FILE] [--keep-work] [-v]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "kbuild/catalog/kernel_flags.h"
#include "kbuild/catalog/kernel_parse.h"
#include "kbuild/catalog/syscall_table.h"

namespace fs = std::filesystem;
using namespace xtap;
using namespace xtap::kcatalog;

namespace {

struct Options {
  std::string build_dir, release, output, flags_from;
  bool keep_work = false, verbose = false;
};

const char kUsage[] =
    "usage: xtap-kcatalog --build-dir DIR [--release KVER] -o FILE [--flags-from FILE]\n"
    "                     [--keep-work] [-v]\n"
    "  --build-dir DIR     the kernel build directory (/lib/modules/KVER/build)\n"
    "  --release KVER      the release it must be (default: the one it was configured for)\n"
    "  -o FILE             where to write the catalog\n"
    "  --flags-from FILE   the kernel's compile command (a Kbuild .cmd file or a command\n"
    "                      line) instead of compiling a test module to learn it\n"
    "  --keep-work         keep the work directory (the generated unit, the Kbuild log)\n"
    "  -v                  say what is done and list the headers' errors\n";

bool parse_options(int argc, char **argv, Options *o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string *to) {
      if (i + 1 >= argc) return false;
      *to = argv[++i];
      return true;
    };
    bool ok = true;
    if (a == "--build-dir") ok = value(&o->build_dir);
    else if (a == "--release") ok = value(&o->release);
    else if (a == "-o") ok = value(&o->output);
    else if (a == "--flags-from") ok = value(&o->flags_from);
    else if (a == "--keep-work") o->keep_work = true;
    else if (a == "-v") o->verbose = true;
    else ok = false;
    if (!ok) {
      std::cerr << "xtap-kcatalog: bad option '" << a << "'\n" << kUsage;
      return false;
    }
  }
  if (o->build_dir.empty() || o->output.empty()) {
    std::cerr << kUsage;
    return false;
  }
  return true;
}

std::string read_file(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What `uname -r` says on that kernel (UTS_RELEASE), then Kbuild's own
// kernel.release, which Debian sets to the upstream version ("6.1.192").
std::vector<std::string> configured_releases(const std::string &build_dir) {
  std::vector<std::string> out;
  std::string uts = read_file(build_dir + "/include/generated/utsrelease.h");
  size_t open = uts.find("UTS_RELEASE \"");
  if (open != std::string::npos) {
    open += 13;
    size_t close = uts.find('"', open);
    if (close != std::string::npos) out.push_back(uts.substr(open, close - open));
  }
  std::string release = read_file(build_dir + "/include/config/kernel.release");
  while (!release.empty() && isspace(static_cast<unsigned char>(release.back())))
    release.pop_back();
  if (!release.empty()) out.push_back(release);
  return out;
}

// The layouts come from Clang; with structure layout randomisation (a gcc
// plugin, seeded per build) the kernel's real layouts are different ones.
bool check_layouts_are_reproducible(const std::string &build_dir, std::string *error) {
  std::string autoconf = read_file(build_dir + "/include/generated/autoconf.h");
  for (const char *opt :
       {"CONFIG_RANDSTRUCT_FULL", "CONFIG_RANDSTRUCT_PERFORMANCE", "CONFIG_GCC_PLUGIN_RANDSTRUCT"})
    if (autoconf.find(std::string("#define ") + opt + " 1") != std::string::npos) {
      *error = build_dir + " is configured with " + opt +
               ": its structure layouts are randomised per build and cannot be computed from "
               "the headers";
      return false;
    }
  return true;
}

bool learn_flags(const Options &o, const std::string &work_dir, KernelFlags *flags,
                 std::string *error) {
  std::string command;
  if (!o.flags_from.empty()) {
    if (!fs::exists(o.flags_from)) {
      *error = "cannot read " + o.flags_from;
      return false;
    }
    command = command_from_cmd_file(read_file(o.flags_from));
  } else if (!kbuild_compile_command(o.build_dir, work_dir, o.verbose, &command, error)) {
    return false;
  }
  return clang_flags_from_command(command, o.build_dir, flags, error);
}

bool write_atomically(const std::string &path, const std::string &data, std::string *error) {
  std::string tmp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << data;
    if (!out.flush()) {
      *error = "cannot write " + tmp;
      return false;
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    *error = "cannot write " + path + ": " + ec.message();
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

// Every numbered syscall, with the prototype of its entry point when the
// headers declare one.
std::vector<KSyscall> numbered_syscalls(const std::vector<SyscallEntry> &table,
                                        const Declarations &decls, std::vector<std::string> *notes,
                                        int *without_prototype) {
  std::vector<KSyscall> syscalls;
  for (const SyscallEntry &e : table) {
    KSyscall sc;
    sc.name = e.name;
    sc.nr = e.nr;
    auto it = decls.prototypes.find(e.entry);
    if (it != decls.prototypes.end()) {
      sc.args = it->second;
    } else {
      sc.prototype_known = false;
      ++*without_prototype;
      notes->push_back("no prototype for " + e.entry + " (" + e.name + ", " + std::to_string(e.nr) +
                       ")");
    }
    syscalls.push_back(std::move(sc));
  }
  return syscalls;
}

int fail(const std::string &message) {
  std::cerr << "xtap-kcatalog: error: " << message << "\n";
  return 1;
}

}  // namespace

int main(int argc, char **argv) {
  auto start = std::chrono::steady_clock::now();
  Options o;
  if (!parse_options(argc, argv, &o)) return 2;
  if (!fs::exists(o.build_dir + "/Makefile"))
    return fail(o.build_dir + " is not a kernel build directory (no Makefile)");
  o.build_dir = fs::canonical(o.build_dir).string();
  std::vector<std::string> configured = configured_releases(o.build_dir);
  if (o.release.empty() && !configured.empty()) o.release = configured.front();
  if (o.release.empty())
    return fail("cannot tell the release of " + o.build_dir + "; pass --release");
  if (!configured.empty() &&
      std::find(configured.begin(), configured.end(), o.release) == configured.end())
    return fail(o.build_dir + " is configured for " + configured.front() + ", not " + o.release);
  std::string error;
  if (!check_layouts_are_reproducible(o.build_dir, &error)) return fail(error);

  const char *tmp_root = getenv("TMPDIR");
  std::string pattern =
      std::string(tmp_root && *tmp_root ? tmp_root : "/tmp") + "/xtap-kcatalog.XXXXXX";
  if (!mkdtemp(pattern.data())) return fail("cannot create a work directory like " + pattern);
  std::string work_dir = pattern;
  struct Cleanup {
    std::string dir;
    bool keep;
    ~Cleanup() {
      std::error_code ec;
      if (keep) std::cerr << "xtap-kcatalog: work directory kept: " << dir << "\n";
      else fs::remove_all(dir, ec);
    }
  } cleanup{work_dir, o.keep_work};

  ParseRequest request;
  request.work_dir = work_dir;
  request.verbose = o.verbose;
  auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  if (!learn_flags(o, work_dir, &request.flags, &error)) return fail(error);
  double flags_seconds = since(start);
  if (request.flags.arch.empty())
    return fail("cannot tell the architecture from the kernel's include paths");

  std::vector<SyscallEntry> table;
  if (!read_syscall_table(o.build_dir, request.flags.arch, &table, &error)) return fail(error);
  for (const SyscallEntry &e : table) request.syscall_functions.insert(e.entry);
  request.trace_headers = find_trace_headers(request.flags);
  if (request.trace_headers.empty())
    return fail("no trace headers (trace/events/*.h) under the include directories of " +
                o.build_dir);

  Declarations decls;
  ParseReport report;
  auto parse_start = std::chrono::steady_clock::now();
  if (!parse_kernel_headers(request, &decls, &report, &error)) return fail(error);
  double parse_seconds = since(parse_start);

  std::vector<std::string> notes = {"from " + o.build_dir};
  int without_prototype = 0;
  std::vector<KSyscall> syscalls = numbered_syscalls(table, decls, &notes, &without_prototype);
  for (const std::string &d : report.dropped) notes.push_back("skipped " + d);
  for (const std::string &m : report.missing_includes) notes.push_back(m);
  for (const std::string &i : decls.invalid) notes.push_back("skipped (invalid declaration): " + i);
  size_t ntracepoints = decls.tracepoints.size(), ntypes = decls.types.size();
  KernelCatalog catalog(o.release, std::move(decls.types), std::move(decls.tracepoints),
                        std::move(syscalls));
  std::string text = catalog.to_text(notes);
  if (!write_atomically(o.output, text, &error)) return fail(error);

  if (o.verbose) {
    std::cerr << "xtap-kcatalog: errors in the headers (their declarations are skipped):\n";
    for (const std::string &e : report.errors) std::cerr << "  " << e << "\n";
  }

  fprintf(stderr,
          "xtap-kcatalog: %s: %zu tracepoints from %zu trace headers (%zu skipped, %zu invalid "
          "declarations), %zu syscalls (%d without a prototype), %zu types; %zu bytes in %.1f s "
          "(compile flags from Kbuild %.1f s, parsing %.1f s)\n",
          o.release.c_str(), ntracepoints, request.trace_headers.size() - report.dropped.size(),
          report.dropped.size(), decls.invalid.size(), table.size(), without_prototype, ntypes,
          text.size(), since(start), flags_seconds, parse_seconds);
  for (const std::string &d : report.dropped) std::cerr << "xtap-kcatalog: skipped " << d << "\n";
  return 0;
}
