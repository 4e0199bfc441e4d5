// process("PATH").plt("PATTERN"), process("PATH").library("LIB").plt(...)
// and process.plt (the -c/-x program), each also .plt alone (every entry)
// and .return: a uprobe at each PLT entry of the file whose symbol matches
// PATTERN (a glob), or a uretprobe there, which fires when the called
// function returns to the caller. The entries come from the file's PLT
// sections and relocations (symbols/elf_plt.h). $$name is the symbol, a
// constant of each derived probe; $return in .return probes is the return
// register. Arguments have no names (no DWARF): uint_arg(N) and the other
// *_arg() functions read their registers.
//
// .library("LIB"): LIB a path, or a name or glob matched against the
// libraries the program needs (DT_NEEDED, and theirs in turn), as stap
// matches the libraries "statically determined to be in use"; a name the
// program does not need is searched in the library directories.
#include <fnmatch.h>
#include <sys/stat.h>

#include <filesystem>
#include <memory>
#include <set>

#include "probes/process_probe.h"
#include "symbols/catalog.h"
#include "symbols/elf_plt.h"

namespace xtap {
namespace {

// More libraries than this in a program's DT_NEEDED closure: a loop or a
// broken file; the rest are left out.
constexpr size_t kMaxLibraries = 256;

bool is_file(const std::string &p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// A library named without a '/' as the target's dynamic loader finds it
// (the usual directories; no RUNPATH or ld.so.cache): its path on the
// target, or "".
std::string find_library(const std::string &name, const std::string &sysroot) {
  for (const std::string &dir : library_dirs())
    if (is_file(sysroot + dir + "/" + name)) return dir + "/" + name;
  return "";
}

// The libraries `program` needs, directly or through another, each once,
// breadth first (as the loader orders them), as paths on the target.
std::vector<std::string> needed_closure(const std::string &program, const std::string &sysroot) {
  std::vector<std::string> libs;
  std::set<std::string> seen;
  std::vector<std::string> queue = {program};
  for (size_t i = 0; i < queue.size() && libs.size() < kMaxLibraries; ++i) {
    std::string why;
    auto linkage = read_elf_linkage(sysroot + queue[i], &why);
    if (!linkage) continue;
    for (const auto &name : linkage->needed) {
      std::string path = name.find('/') != std::string::npos ? name : find_library(name, sysroot);
      if (path.empty()) continue;
      std::error_code ec;
      std::string key = std::filesystem::weakly_canonical(sysroot + path, ec).string();
      if (!seen.insert(ec ? path : key).second) continue;
      libs.push_back(path);
      queue.push_back(path);
    }
  }
  return libs;
}

std::string base_name(const std::string &path) { return path.substr(path.rfind('/') + 1); }

void probe_file(const std::string &target, const std::string &host, const std::string &pattern,
                bool is_return, const std::string &program, DerivedProbes &out,
                std::vector<std::string> *names, std::string *why) {
  auto linkage = read_elf_linkage(host, why);
  if (!linkage) return;
  std::set<std::string> taken;
  for (const PltEntry &e : linkage->plt) {
    names->push_back(e.name);
    if (fnmatch(pattern.c_str(), e.name.c_str(), 0) != 0 || !taken.insert(e.name).second) continue;
    auto dp = std::make_unique<ProcessFunctionProbe>();
    dp->path = target;
    dp->function = e.name;
    dp->offset = e.offset;
    dp->plt = true;
    dp->is_return = is_return;
    dp->program = program;
    dp->library = program.empty() ? "" : target;
    if (is_return) dp->add_return_var();
    out.push_back(std::move(dp));
  }
}

}  // namespace

void derive_process_plt(const ProbePoint &pp, const ProbeEnv &env, DerivedProbes &out,
                        Diagnostics &diags) {
  const auto &cs = pp.components;
  bool in_library = cs.size() >= 2 && cs[1].name == "library";
  size_t at = in_library ? 2 : 1;
  bool shape = cs.size() > at && cs[at].name == "plt" &&
               (!cs[at].has_arg || cs[at].arg_is_string) &&
               (!in_library || (cs[1].has_arg && cs[1].arg_is_string && !cs[1].str_arg.empty())) &&
               (cs.size() == at + 1 ||
                (cs.size() == at + 2 && cs[at + 1].name == "return" && !cs[at + 1].has_arg));
  if (!shape) {
    if (pp.optional) return;
    diags.error("XTP2170", pp.loc, "unknown or unsupported process probe point '" + pp.str() + "'")
        .hint =
        "use process(\"PATH\").plt(\"NAME\") or process(\"PATH\").library(\"LIB\").plt(\"NAME\"), "
        "with .return";
    return;
  }
  if (!cs[0].has_arg || !cs[0].arg_is_string || cs[0].str_arg.empty()) {
    if (pp.optional) return;
    diags
        .error("XTP2170", cs[0].loc,
               "process.plt without a program's path probes the -c or -x program")
        .hint = "run with -c CMD or -x PID, or name the program: process(\"/usr/bin/ls\").plt";
    return;
  }
  const std::string pattern = cs[at].has_arg && !cs[at].str_arg.empty() ? cs[at].str_arg : "*";
  bool is_return = cs.size() == at + 2;
  std::string program;
  std::string program_host = host_path(cs[0].str_arg, env.sysroot, &program);
  if (program_host.empty()) {
    if (pp.optional) return;
    diags
        .error("XTP2171", cs[0].loc,
               "no program '" + cs[0].str_arg + "' to probe" +
                   (env.sysroot.empty() ? "" : " under " + env.sysroot))
        .hint = cs[0].str_arg.find('/') == std::string::npos
                    ? "give its full path, or put it in $PATH"
                    : "the program is read at translation time; --sysroot DIR reads it from DIR";
    return;
  }
  // The files whose PLTs are probed, as the target sees them.
  std::vector<std::string> files;
  if (!in_library) {
    files.push_back(program);
  } else {
    const std::string &lib = cs[1].str_arg;
    std::string needed;
    if (lib.find('/') != std::string::npos) {
      files.push_back(lib);
    } else {
      for (const auto &path : needed_closure(program, env.sysroot)) {
        needed += (needed.empty() ? "" : " ") + base_name(path);
        if (fnmatch(lib.c_str(), base_name(path).c_str(), 0) == 0) files.push_back(path);
      }
      if (files.empty() && !is_glob(lib))
        if (std::string path = find_library(lib, env.sysroot); !path.empty()) files.push_back(path);
    }
    if (files.empty()) {
      if (pp.optional) return;
      diags
          .error("XTP2171", cs[1].loc,
                 "no shared library '" + lib + "' that " + program + " needs" +
                     (env.sysroot.empty() ? "" : " under " + env.sysroot))
          .hint =
          needed.empty()
              ? "it needs none (a static program?); give the full path of a library it loads itself"
              : "it needs " + needed + "; give the full path of a library it loads itself";
      return;
    }
  }
  size_t before = out.size();
  std::vector<std::string> names;
  std::string unreadable;
  for (const auto &file : files) {
    std::string why;
    size_t first = out.size();
    probe_file(file, env.sysroot + file, pattern, is_return, in_library ? cs[0].str_arg : "", out,
               &names, &why);
    if (in_library)
      for (size_t i = first; i < out.size(); ++i)
        static_cast<ProcessFunctionProbe &>(*out[i]).program_path = program;
    if (!why.empty() && unreadable.empty()) unreadable = file + ": " + why;
  }
  if (out.size() > before || pp.optional) return;
  if (!unreadable.empty() && files.size() == 1) {
    diags.error("XTP2172", cs[0].loc, "cannot probe '" + unreadable).hint =
        "process(...) takes an x86-64 ELF program or shared library";
    return;
  }
  std::string where = files.size() == 1 ? files[0] : std::to_string(files.size()) + " libraries";
  auto &d =
      diags.error("XTP2177", cs[at].loc, "no PLT entry of " + where + " matches '" + pattern + "'");
  if (names.empty()) {
    d.hint =
        "the file calls no shared library through a PLT (a static program, or one linked with "
        "-fno-plt)";
    return;
  }
  std::string guess = is_glob(pattern) ? "" : closest_match(pattern, names);
  std::string some;
  for (size_t i = 0; i < names.size() && i < 8; ++i) some += (i ? ", " : "") + names[i];
  d.hint = !guess.empty() ? "did you mean '" + guess + "'?"
                          : "its PLT entries include " + some + (names.size() > 8 ? ", ..." : "") +
                                "; list them with: xtap -l 'process(\"" + cs[0].str_arg + "\")" +
                                (in_library ? ".library(\"" + cs[1].str_arg + "\")" : "") + ".plt'";
}

}  // namespace xtap
