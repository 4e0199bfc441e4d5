// What every process probe shares about the process and the file it
// probes: stap's process(PID) form (the executable of a process running on
// this machine, and a filter to that process at run time), and the
// build-id each uprobe's file had when it was read, which the module
// checks before planting its int3s (runtime-kmod/probes/uprobes.c): a
// rebuilt program has other offsets, and an int3 in the middle of an
// instruction corrupts it.
#include <filesystem>
#include <map>

#include "probes/process_probe.h"
#include "symbols/elf_symbols.h"

namespace xtap {

namespace fs = std::filesystem;

bool process_pid_point(const ProbePoint &pp, const ProbeEnv &env, ProbePoint *by_path,
                       ProbeEnv *env_out, Diagnostics &diags) {
  const ProbePointComponent &c = pp.components[0];
  std::string proc = "/proc/" + std::to_string(c.num_arg);
  std::error_code ec;
  fs::path exe = c.num_arg > 0 ? fs::read_symlink(proc + "/exe", ec) : fs::path();
  std::string why;
  if (c.num_arg <= 0) why = "a process id is a positive number";
  else if (ec && !fs::exists(proc))
    why = "no process " + std::to_string(c.num_arg) + " runs on this machine";
  else if (ec) why = "cannot read " + proc + "/exe: " + ec.message();
  else if (exe.string().size() > 10 &&
           exe.string().compare(exe.string().size() - 10, 10, " (deleted)") == 0)
    why = "the executable of process " + std::to_string(c.num_arg) + " was deleted (" +
          exe.string() + ")";
  if (!why.empty()) {
    if (pp.optional) return false;
    diags.error("XTP2178", c.loc, "cannot probe process " + std::to_string(c.num_arg) + ": " + why)
        .hint =
        "process(PID) reads the process's executable on the machine that translates the script; "
        "give the program's path, process(\"PATH\"), for a process elsewhere";
    return false;
  }
  *by_path = pp;
  *env_out = env;
  std::string path = exe.string();
  const std::string &root = env.sysroot;
  if (!root.empty() && path.compare(0, root.size() + 1, root + "/") == 0)
    path = path.substr(root.size());
  else env_out->sysroot.clear();
  by_path->components[0].arg_is_string = true;
  by_path->components[0].str_arg = path;
  return true;
}

void note_build_ids(DerivedProbes &out, size_t from, const std::string &sysroot) {
  std::map<std::string, std::pair<std::string, uint64_t>> seen;
  for (size_t i = from; i < out.size(); ++i) {
    auto *p = dynamic_cast<ProcessFunctionProbe *>(out[i].get());
    if (!p || p->build_id_read) continue;
    p->build_id_read = true;
    auto it = seen.find(p->path);
    if (it == seen.end()) {
      std::string why, raw;
      uint64_t off = 0;
      auto elf = ElfSymbols::open(sysroot + p->path, &why);
      std::string hex = elf ? elf->build_id() : "";
      if (!hex.empty()) {
        off = elf->build_id_offset();
        for (size_t j = 0; off && j + 1 < hex.size(); j += 2)
          raw += static_cast<char>(std::stoi(hex.substr(j, 2), nullptr, 16));
      }
      it = seen.emplace(p->path, std::make_pair(raw, off)).first;
    }
    p->build_id = it->second.first;
    p->build_id_offset = it->second.second;
  }
}

std::string process_spec_fields(const ProcessFunctionProbe &p) {
  std::string s;
  if (p.pid) s += ", .pid = " + std::to_string(p.pid);
  if (p.build_id.empty()) return s;
  static const char digits[] = "0123456789abcdef";
  std::string bytes;
  for (unsigned char ch : p.build_id) {
    bytes += "\\x";
    bytes += digits[ch >> 4];
    bytes += digits[ch & 15];
  }
  return s + ", .build_id = (const u8 *)\"" + bytes +
         "\", .build_id_len = " + std::to_string(p.build_id.size()) +
         ", .build_id_offset = " + std::to_string(p.build_id_offset) + "ULL";
}

}  // namespace xtap
