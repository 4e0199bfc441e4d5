// The files --vm carries (vm_files.h).
#include "xtap/vm_files.h"

#include <sys/stat.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "codegen/user_symbols.h"
#include "xtap/json_records.h"

namespace fs = std::filesystem;

namespace xtap::cli {
namespace {

// The guest keeps the carried files in RAM beside its own (busybox, the
// runner, the module) and what the session needs: at most this share of
// its memory.
constexpr uint64_t kGuestMemoryShare = 4;

bool is_file(const std::string &p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Characters a path can have and still be one plain word for xtap-run,
// which runs such a command without a shell.
bool plain_word(const std::string &w) {
  return w.find_first_not_of(
             "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._+-,"
             ":@") == std::string::npos;
}

// CMD with its program word replaced by `program`: a name the host found
// through $PATH must run the same file in the guest, whose shell would
// otherwise prefer its busybox applet of that name (ls, sleep ...).
std::string command_for_guest(const std::string &cmd, const std::string &program) {
  size_t start = cmd.find_first_not_of(" \t");
  if (start == std::string::npos || program.empty()) return cmd;
  size_t end = cmd.find_first_of(" \t", start);
  std::string word = cmd.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (word.find('/') != std::string::npos || !plain_word(program)) return cmd;
  return cmd.substr(0, start) + program + (end == std::string::npos ? "" : cmd.substr(end));
}

void report(const Options &o, const vm::CarryError &e, const Location *at) {
  Diagnostic d;
  d.code = "XTP2261";
  d.message = "--vm cannot carry '" + e.path + "' into the guest: " + e.why;
  if (!e.named_by.empty() && !at) d.message += " (" + e.named_by + ")";
  d.hint = e.hint;
  if (at) d.loc = *at;
  if (o.json) {
    print_diagnostic_json(std::cout, d);
    return;
  }
  if (at && at->valid()) {
    Diagnostics::print_one(std::cerr, d);
    return;
  }
  std::cerr << "xtap: error[" << d.code << "]: " << d.message << "\n";
  if (!d.hint.empty()) std::cerr << "  hint: " << d.hint << "\n";
}

}  // namespace

bool plan_vm_files(const Options &o, const Elaborated &e, const std::string &sysroot,
                   VmFiles *out) {
  std::vector<vm::CarryRoot> roots;
  std::map<std::string, Location> where;  // named_by -> the probe point
  std::set<std::string> named;            // each file once (ltrace.stp: a probe per PLT entry)
  for (const auto &dp : e.probes) {
    for (const std::string &f : {dp->user_program(), dp->user_file()}) {
      if (f.empty() || !named.insert(f).second) continue;
      std::string by = dp->point ? dp->point->str() : dp->name();
      if (dp->point) where.emplace(by, dp->point->loc);
      roots.push_back({f, by, false});
    }
  }
  out->command = o.command;
  if (!o.command.empty()) {
    // A name not found in $PATH may be a shell builtin or one of the
    // guest's busybox applets: nothing to carry. A path must exist (the
    // carrying says so when it does not).
    if (std::string prog = command_program(o.command, sysroot); !prog.empty()) {
      roots.push_back({prog, "the -c command's program", true});
      out->command = command_for_guest(o.command, prog);
    }
  }
  for (const auto &m : o.symbol_modules) {
    // -d NAME without a '/' that is no file here is a kernel module name.
    if (m.find('/') == std::string::npos && !is_file(sysroot + m)) continue;
    roots.push_back(
        {m[0] == '/' ? m : fs::absolute(m).lexically_normal().string(), "-d " + m, false});
  }
  out->cwd = fs::current_path().string();
  vm::CarryError err;
  uint64_t max = (static_cast<uint64_t>(o.vm_memory_mb) << 20) / kGuestMemoryShare;
  if (plan_carry(roots, sysroot, max, &out->plan, &err)) return true;
  auto it = where.find(err.named_by);
  report(o, err, it == where.end() ? nullptr : &it->second);
  return false;
}

}  // namespace xtap::cli
