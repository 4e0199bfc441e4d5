// process("PATH").function("SYM"), .function("SYM").call and
// .function("SYM").return, with globs over SYM ("add*"): a uprobe on a
// user-space function's entry, or a uretprobe on its return. The program
// (or shared library) is read here, at translation time: SYM is looked up
// in its ELF symbol table (symbols/elf_symbols.h) and turned into the file
// offset the kernel's uprobes take; the runtime registers the uprobe on the
// file's inode (runtime-kmod/probes/uprobes.c), so every process that maps
// the file hits it, wherever the file is mapped.
//
// --sysroot DIR: PATH is read as DIR/PATH on this machine and probed as
// PATH on the target (stap's option of that name).
//
// The same uprobes serve .library("LIB").function(...) (the function in
// the library's file), .statement(ADDR) (a link-time address) and
// [.provider("P")].mark("NAME") (USDT sites of .note.stapsdt, $argN from
// their operand specs, the semaphore raised by the kernel while armed), and
// .plt("NAME") (PLT entries, process_plt.cpp).
//
// process without a path (process.plt, process.function("f")) is the
// program of -c CMD or -x PID (ProbeEnv::target_program), as in stap.
//
// Context: the argument registers through uint_arg(n) and the other
// *_arg() functions, $return (and returnval()) in .return probes; with
// the program's DWARF, $param, $$parms, locals and a typed $return
// (process_vars.cpp), dereferenced in user memory.
#include <fnmatch.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>

#include "common/shared_libs.h"
#include "probes/process_probe.h"
#include "symbols/catalog.h"
#include "symbols/dwarf.h"
#include "symbols/elf_symbols.h"

namespace xtap {

bool is_glob(const std::string &s) { return s.find_first_of("*?[") != std::string::npos; }

TypeTable long_type_table(const char *spelling) {
  TypeTable t;
  KType l;
  l.kind = KTypeKind::Int;
  l.name = spelling;
  l.size = 8;
  l.is_signed = true;
  t.add(l);
  return t;
}

namespace {

// The types of the context variables these probes have without DWARF:
// $return is a long, as the return register holds it.
const TypeTable &register_types() {
  static const TypeTable table = long_type_table("long int");
  return table;
}

}  // namespace

std::string ProcessFunctionProbe::name() const {
  std::string suffix = is_return ? ".return" : is_call ? ".call" : "";
  if (plt)
    return "process(\"" + (library.empty() ? path : program) + "\")" +
           (library.empty() ? "" : ".library(\"" + path + "\")") + ".plt(\"" + function + "\")" +
           suffix;
  if (!mark.empty())
    return "process(\"" + path + "\")" +
           (provider.empty() ? "" : ".provider(\"" + provider + "\")") + ".mark(\"" + mark + "\")";
  if (!source_line.empty()) return "process(\"" + path + "\").statement(\"" + source_line + "\")";
  if (statement) return "process(\"" + path + "\").statement(" + hex_address(statement) + ")";
  if (!library.empty())
    return "process(\"" + program + "\").library(\"" + library + "\").function(\"" + function +
           "\")" + suffix;
  return "process(\"" + path + "\").function(\"" + function + "\")" + suffix;
}

const TypeTable *ProcessFunctionProbe::types() const {
  load_dwarf_vars();
  return dwarf_ ? &dwarf_->types() : &register_types();
}

bool ProcessFunctionProbe::string_constant(const std::string &var, std::string *value) const {
  if (!plt || var != "$$name") return false;
  *value = function;
  return true;
}

void ProcessFunctionProbe::add_return_var() {
  ContextVar r;
  r.name = "return";
  r.type = 0;
  r.parameter = false;
  r.c_value = "xtap_kfunc_return(c)";
  vars.push_back(r);
}

const std::vector<std::string> &library_dirs() {
  static const std::vector<std::string> dirs = {"/lib/x86_64-linux-gnu",
                                                "/usr/lib/x86_64-linux-gnu",
                                                "/lib64",
                                                "/usr/lib64",
                                                "/lib",
                                                "/usr/lib",
                                                "/usr/local/lib"};
  return dirs;
}

std::string host_path(const std::string &written, const std::string &sysroot, std::string *target) {
  auto exists = [](const std::string &p) {
    struct stat st;
    return stat(p.c_str(), &st) == 0;
  };
  if (written.find('/') != std::string::npos) {
    // As stap does: a relative path is the current directory's, at
    // translation; the module probes it by its absolute path.
    *target = written[0] == '/' ? written
                                : std::filesystem::absolute(written).lexically_normal().string();
    return exists(sysroot + *target) ? sysroot + *target : "";
  }
  const char *env = std::getenv("PATH");
  std::string dirs = env ? env : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    if (!dir.empty()) {
      std::string p = dir + "/" + written;
      if (exists(sysroot + p) && access((sysroot + p).c_str(), X_OK) == 0) {
        *target = p;
        return sysroot + p;
      }
    }
    start = end + 1;
  }
  *target = written;
  return "";
}

std::unique_ptr<ElfSymbols> open_program(const ProbePoint &pp, const ProbeEnv &env,
                                         std::string *file, std::string *target,
                                         Diagnostics &diags) {
  const auto &c = pp.components[0];
  *file = host_path(c.str_arg, env.sysroot, target);
  std::string why = "no such file";
  auto elf = file->empty() ? nullptr : ElfSymbols::open(*file, &why);
  if (!elf && !pp.optional)
    diags.error(file->empty() ? "XTP2171" : "XTP2172", c.loc,
                "cannot probe '" + c.str_arg + "': " + why);
  return elf;
}

namespace {

class ProcessProvider : public ProbeProvider {
 public:
  std::vector<std::string> spellings() const override {
    return {"process(\"path\").function(\"name\")",
            "process(\"path\").function(\"name\").call",
            "process(\"path\").function(\"name\").return",
            "process(\"path\").library(\"lib\").function(\"name\")[.call|.return]",
            "process(\"path\").statement(ADDR)",
            "process(\"path\").statement(\"func@file:line\")",
            "process(\"path\").mark(\"name\")",
            "process(\"path\").provider(\"p\").mark(\"name\")",
            "process(\"path\").plt(\"name\")[.return]",
            "process(\"path\").library(\"lib\").plt(\"name\")[.return]",
            "process.plt(\"name\")[.return] (the -c/-x program)"};
  }

  bool matches(const ProbePoint &pp) const override {
    return pp.components.front().name == "process";
  }

  void derive(const ProbePoint &pp, ProbeDecl &decl, const ProbeEnv &env, DerivedProbes &out,
              Diagnostics &diags) const override {
    size_t before = out.size();
    if (pp.components[0].has_arg && !pp.components[0].arg_is_string) {
      // process(PID): its executable, then only that process (process_target.cpp).
      ProbePoint by_path;
      ProbeEnv pid_env;
      if (!process_pid_point(pp, env, &by_path, &pid_env, diags)) return;
      derive(by_path, decl, pid_env, out, diags);
      for (size_t i = before; i < out.size(); ++i)
        if (auto *p = dynamic_cast<ProcessFunctionProbe *>(out[i].get()))
          p->pid = static_cast<int>(pp.components[0].num_arg);
      return;
    }
    derive_point(pp, decl, env, out, diags);
    note_build_ids(out, before, env.sysroot);
  }

  void derive_point(const ProbePoint &pp, ProbeDecl &decl, const ProbeEnv &env, DerivedProbes &out,
                    Diagnostics &diags) const {
    if (derive_other_kind(pp, decl, env, out, diags)) return;
    if (!check_function_point(pp, diags)) return;
    const std::string &path = pp.components[0].str_arg;
    if (is_glob(path) && path.find('/') != std::string::npos) {
      derive_path_glob(pp, decl, env, out, diags);
      return;
    }
    derive_functions(pp, env, out, diags);
  }

  // The points that are not process("PATH").function(...): the -c/-x
  // program, .plt, .library, .mark, .statement; false for none of them.
  bool derive_other_kind(const ProbePoint &pp, ProbeDecl &decl, const ProbeEnv &env,
                         DerivedProbes &out, Diagnostics &diags) const {
    if (!pp.components[0].has_arg && !env.target_program.empty()) {
      ProbePoint target = pp;
      target.components[0].has_arg = target.components[0].arg_is_string = true;
      target.components[0].str_arg = env.target_program;
      derive(target, decl, env, out, diags);
      return true;
    }
    for (const auto &c : pp.components)
      if (c.name == "plt") {
        derive_process_plt(pp, env, out, diags);
        return true;
      }
    if (pp.components.size() >= 3 && pp.components[1].name == "library") {
      derive_library(pp, decl, env, out, diags);
      return true;
    }
    const auto &cs = pp.components;
    if ((cs.size() == 2 && cs[1].name == "mark") ||
        (cs.size() == 3 && cs[1].name == "provider" && cs[2].name == "mark")) {
      derive_mark(pp, env, out, diags);
      return true;
    }
    if (cs.size() == 2 && cs[1].name == "statement" && cs[1].has_arg && !cs[1].arg_is_string) {
      derive_statement(pp, env, out, diags);
      return true;
    }
    if (cs.size() == 2 && cs[1].name == "statement" && cs[1].has_arg) {
      derive_process_source_statement(pp, env, out, diags);
      return true;
    }
    return false;
  }

  // process("PATH").function("NAME")[.call|.return] with both names in
  // quotes; false (reported unless the point is optional) otherwise.
  static bool check_function_point(const ProbePoint &pp, Diagnostics &diags) {
    const auto &cs = pp.components;
    bool shape =
        cs.size() >= 2 && cs.size() <= 3 && cs[1].name == "function" &&
        (cs.size() == 2 || (!cs[2].has_arg && (cs[2].name == "return" || cs[2].name == "call")));
    if (!shape) {
      // stap drops an optional point it cannot resolve; xtap also one it
      // cannot yet (ucalls.stp's process("php").mark(...)?).
      if (pp.optional) return false;
      diags
          .error("XTP2170", pp.loc, "unknown or unsupported process probe point '" + pp.str() + "'")
          .hint = "use process(\"PATH\").function(\"NAME\") with .call or .return";
      return false;
    }
    if (!cs[0].has_arg || !cs[0].arg_is_string || cs[0].str_arg.empty()) {
      diags.error("XTP2170", cs[0].loc, "process(...) needs the program's path in quotes here")
          .hint = "as in process(\"/usr/bin/ls\").function(\"main\")";
      return false;
    }
    if (!cs[1].has_arg || !cs[1].arg_is_string || cs[1].str_arg.empty()) {
      diags.error("XTP2170", cs[1].loc, "process(...).function needs a function name in quotes")
          .hint = "as in process(\"/usr/bin/ls\").function(\"main\") or .function(\"str*\")";
      return false;
    }
    return true;
  }

  // A glob over paths ("/usr/lib*/libc.so.*"): each file it matches;
  // files that are no x86-64 programs are left out.
  void derive_path_glob(const ProbePoint &pp, ProbeDecl &decl, const ProbeEnv &env,
                        DerivedProbes &out, Diagnostics &diags) const {
    const auto &cs = pp.components;
    glob_t g{};
    std::vector<std::string> files;
    if (glob((env.sysroot + cs[0].str_arg).c_str(), 0, nullptr, &g) == 0)
      for (size_t i = 0; i < g.gl_pathc; ++i) files.push_back(g.gl_pathv[i]);
    globfree(&g);
    size_t before = out.size();
    std::string skipped;  // the files that are no x86-64 programs, and why
    for (const auto &f : files) {
      std::string why;
      if (!ElfSymbols::open(f, &why)) {
        if (skipped.empty()) skipped = f + ": " + why;
        else skipped += ", " + f;
        continue;
      }
      ProbePoint one = pp;
      one.components[0].str_arg = f.substr(env.sysroot.size());
      one.optional = true;
      derive(one, decl, env, out, diags);
    }
    if (out.size() == before && !pp.optional) {
      diags
          .error("XTP2171", cs[0].loc,
                 "no program matching '" + cs[0].str_arg + "' has a function '" + cs[1].str_arg +
                     "'" + (env.sysroot.empty() ? "" : " under " + env.sysroot))
          .hint =
          files.empty() ? "no file matches the pattern"
          : !skipped.empty()
              ? "files left out (xtap probes x86-64 programs only): " + skipped
              : "the files matching it: " + files.front() + (files.size() > 1 ? " ..." : "");
    }
  }

  // The program's ELF file for process("PATH").function(...); null when
  // there is none (reported unless the point is optional).
  static std::unique_ptr<ElfSymbols> open_function_program(const ProbePoint &pp,
                                                           const ProbeEnv &env, std::string *file,
                                                           std::string *target,
                                                           Diagnostics &diags) {
    const auto &cs = pp.components;
    *file = host_path(cs[0].str_arg, env.sysroot, target);
    if (file->empty()) {
      if (pp.optional) return nullptr;
      auto &d = diags.error("XTP2171", cs[0].loc,
                            "no program '" + cs[0].str_arg + "' to probe" +
                                (env.sysroot.empty() ? "" : " under " + env.sysroot));
      d.hint = cs[0].str_arg.find('/') == std::string::npos
                   ? "give its full path, or put it in $PATH"
                   : "the program is read at translation time; --sysroot DIR reads it from DIR";
      return nullptr;
    }
    std::string why;
    auto elf = ElfSymbols::open(*file, &why);
    if (!elf && !pp.optional)
      diags.error("XTP2172", cs[0].loc, "cannot probe '" + *file + "': " + why).hint =
          "process(...) takes an x86-64 ELF program or shared library";
    return elf;
  }

  // The functions of `elf` the pattern names; none is reported (unless the
  // point is optional) with a guess or where the names come from.
  static std::vector<const ElfFunction *> match_functions(const ProbePoint &pp,
                                                          const ElfSymbols &elf,
                                                          const std::string &file,
                                                          Diagnostics &diags) {
    const auto &cs = pp.components;
    const std::string &pattern = cs[1].str_arg;
    std::vector<const ElfFunction *> found;
    if (!is_glob(pattern)) {
      if (const ElfFunction *f = elf.find(pattern)) found.push_back(f);
    } else {
      for (const auto &f : elf.functions())
        if (fnmatch(pattern.c_str(), f.name.c_str(), 0) == 0) found.push_back(&f);
    }
    if (!found.empty() || pp.optional) return found;
    auto &d =
        diags.error("XTP2173", cs[1].loc, "no function of " + file + " matches '" + pattern + "'");
    std::vector<std::string> names;
    for (const auto &f : elf.functions()) names.push_back(f.name);
    std::string guess = is_glob(pattern) ? "" : closest_match(pattern, names);
    d.hint = elf.table().empty() ? "the file has no symbol table (.symtab or .dynsym)"
             : !guess.empty()    ? "did you mean '" + guess + "'?"
                                 : "its functions come from its " + elf.table() +
                                    "; list them with: xtap -l 'process(\"" + cs[0].str_arg +
                                    "\").function(\"*\")'";
    return found;
  }

  // process("PATH").function("NAME")[.call|.return]: a uprobe or
  // uretprobe at each matching function's entry.
  void derive_functions(const ProbePoint &pp, const ProbeEnv &env, DerivedProbes &out,
                        Diagnostics &diags) const {
    const auto &cs = pp.components;
    std::string target, file;
    auto elf = open_function_program(pp, env, &file, &target, diags);
    if (!elf) return;
    std::vector<const ElfFunction *> found = match_functions(pp, *elf, file, diags);
    bool is_return = cs.size() == 3 && cs[2].name == "return";
    bool is_call = cs.size() == 3 && cs[2].name == "call";
    for (const ElfFunction *f : found) {
      auto off = elf->file_offset(f->address);
      if (!off) {
        if (found.size() > 1 || pp.optional) continue;
        diags
            .error(
                "XTP2174", cs[1].loc,
                "function '" + f->name + "' of " + file + " is in no loadable segment of the file")
            .hint = "the file may be corrupt";
        return;
      }
      auto dp = std::make_unique<ProcessFunctionProbe>();
      dp->path = target;
      dp->function = f->name;
      dp->offset = *off;
      dp->is_return = is_return;
      dp->is_call = is_call;
      dp->host_file = file;
      dp->function_address = dp->address = f->address;
      if (is_return) dp->add_return_var();
      out.push_back(std::move(dp));
    }
  }

  // process("PATH")[.provider("P")].mark("NAME"): the USDT sites of
  // .note.stapsdt whose name (and provider) match, NAME a glob; $arg1..$argN
  // from each site's operand specs; its semaphore is raised while armed.
  void derive_mark(const ProbePoint &pp, const ProbeEnv &env, DerivedProbes &out,
                   Diagnostics &diags) const {
    const auto &cs = pp.components;
    const ProbePointComponent &mark = cs.back();
    const ProbePointComponent *prov = cs.size() == 3 ? &cs[1] : nullptr;
    if (!mark.has_arg || !mark.arg_is_string ||
        (prov && (!prov->has_arg || !prov->arg_is_string))) {
      if (pp.optional) return;
      diags.error("XTP2170", mark.loc, ".mark and .provider need a name in quotes").hint =
          "as in process(\"/usr/bin/prog\").mark(\"request__start\")";
      return;
    }
    std::string target, file;
    auto elf = open_program(pp, env, &file, &target, diags);
    if (!elf) return;
    std::vector<std::string> names;
    size_t before = out.size();
    for (const SdtNote &n : elf->sdt_notes()) {
      names.push_back(n.name);
      if (fnmatch(mark.str_arg.c_str(), n.name.c_str(), 0) != 0) continue;
      if (prov && fnmatch(prov->str_arg.c_str(), n.provider.c_str(), 0) != 0) continue;
      auto off = elf->file_offset(n.pc);
      if (!off) continue;
      auto dp = std::make_unique<ProcessFunctionProbe>();
      dp->path = target;
      dp->offset = *off;
      dp->mark = n.name;
      dp->provider = prov ? n.provider : "";
      if (n.semaphore) {
        auto sem = elf->file_offset(n.semaphore);
        if (sem) dp->ref_ctr_offset = *sem;
      }
      for (const auto &f : elf->functions())
        if (n.pc >= f.address && n.pc < f.address + f.size) dp->function = f.name;
      std::istringstream specs(n.args);
      std::string spec;
      int i = 0;
      while (specs >> spec) {
        ContextVar v;
        v.name = "arg" + std::to_string(++i);
        v.type = 0;
        v.c_value = sdt_arg_value(spec);
        if (v.c_value.empty())
          v.unavailable = "its operand '" + spec + "' is of a form xtap cannot read yet";
        dp->vars.push_back(v);
      }
      out.push_back(std::move(dp));
    }
    if (out.size() == before && !pp.optional) {
      auto &d = diags.error("XTP2176", mark.loc,
                            "no USDT probe of " + file + " matches '" + mark.str_arg + "'" +
                                (prov ? " of provider '" + prov->str_arg + "'" : ""));
      std::string guess = closest_match(mark.str_arg, names);
      d.hint = names.empty() ? "the file has no .note.stapsdt section (no sys/sdt.h probes)"
               : !guess.empty()
                   ? "did you mean '" + guess + "'?"
                   : "list them with: xtap -l 'process(\"" + cs[0].str_arg + "\").mark(\"*\")'";
    }
  }

  // One sys/sdt.h operand spec ("-4@%edi", "8@$5", "-2@14(%rsp)") as a C
  // u64 expression of the handler, widened from its size and sign; "" for
  // forms not read yet (indexed or symbol-relative memory operands).
  static std::string sdt_arg_value(const std::string &spec) {
    std::string op = spec;
    int size = 8;
    bool is_signed = false;
    size_t at = spec.find('@');
    if (at != std::string::npos) {
      std::string sz = spec.substr(0, at);
      if (!sz.empty() && sz[0] == '-') {
        is_signed = true;
        sz = sz.substr(1);
      }
      size = std::atoi(sz.c_str());
      op = spec.substr(at + 1);
    }
    if (size != 1 && size != 2 && size != 4 && size != 8) return "";
    auto reg_ok = [](const std::string &r) {
      if (r.empty()) return false;
      for (char ch : r)
        if (!std::isalnum(static_cast<unsigned char>(ch))) return false;
      return true;
    };
    std::string raw;
    if (op.size() > 1 && op[0] == '%' && reg_ok(op.substr(1))) {
      raw = "(u64)xtap_register(c, \"" + op.substr(1) + "\", 0)";
    } else if (op.size() > 1 && op[0] == '$') {
      char *end = nullptr;
      long long v = std::strtoll(op.c_str() + 1, &end, 0);
      if (!end || *end) return "";
      raw = "(u64)" + std::to_string(v) + "LL";
    } else {
      size_t lp = op.find('('), rp = op.find(')');
      if (lp == std::string::npos || rp != op.size() - 1 || op.size() < lp + 3 || op[lp + 1] != '%')
        return "";
      std::string reg = op.substr(lp + 2, rp - lp - 2);
      std::string disp = op.substr(0, lp);
      char *end = nullptr;
      long long d = disp.empty() ? 0 : std::strtoll(disp.c_str(), &end, 0);
      if (!reg_ok(reg) || (!disp.empty() && (!end || *end))) return "";
      raw = "({ u64 xtap_v = 0; xtap_uread(c, (unsigned long)(xtap_register(c, \"" + reg +
            "\", 0) + (" + std::to_string(d) + "LL)), &xtap_v, " + std::to_string(size) +
            "); xtap_v; })";
    }
    if (size == 8) return raw;
    std::string bits = std::to_string(size * 8);
    return is_signed ? "(u64)(s64)(s" + bits + ")" + raw : "(u64)(u" + bits + ")" + raw;
  }

  // process("PATH").statement(ADDR): a uprobe at the instruction at
  // link-time address ADDR (as `objdump -d` and `nm` show it).
  void derive_statement(const ProbePoint &pp, const ProbeEnv &env, DerivedProbes &out,
                        Diagnostics &diags) const {
    const auto &cs = pp.components;
    std::string target, file;
    auto elf = open_program(pp, env, &file, &target, diags);
    if (!elf) return;
    auto addr = static_cast<uint64_t>(cs[1].num_arg);
    auto off = elf->file_offset(addr);
    if (!off) {
      if (pp.optional) return;
      diags
          .error("XTP2174", cs[1].loc,
                 "address " + hex_address(addr) + " is in no loadable segment of " + file)
          .hint = "give a link-time address of an instruction, as objdump -d shows it";
      return;
    }
    auto dp = std::make_unique<ProcessFunctionProbe>();
    dp->path = target;
    dp->offset = *off;
    dp->statement = addr;
    for (const auto &f : elf->functions())
      if (addr >= f.address && addr < f.address + f.size) {
        dp->function = f.name;
        dp->host_file = file;  // the variables in scope there, from DWARF
        dp->function_address = f.address;
        dp->address = addr;
      }
    out.push_back(std::move(dp));
  }

  // LIB (a name or glob) among the libraries process("PATH") loads, found
  // as ld.so finds them (its RUNPATH, $ORIGIN ...), as stap matches the
  // libraries a program needs: the path on this machine, or "".
  static std::string needed_library(const ProbePoint &pp, const ProbeEnv &env) {
    const auto &prog = pp.components[0];
    const std::string &lib = pp.components[1].str_arg;
    std::string target;
    if (!prog.has_arg || !prog.arg_is_string ||
        host_path(prog.str_arg, env.sysroot, &target).empty())
      return "";
    std::string pattern = lib + (is_glob(lib) ? "" : "*");
    for (const auto &f : load_closure({target}, env.sysroot).files)
      if (fnmatch(pattern.c_str(), f.substr(f.rfind('/') + 1).c_str(), 0) == 0)
        return env.sysroot + f;
    return "";
  }

  // process("PATH").library("LIB").function(...): the function in the
  // shared library LIB (a path, or a name or glob matched among the
  // libraries PATH loads, else in the usual library directories), probed
  // in the library's file; -c/-x filter by
  // process as for every process probe. pp() keeps the point as written.
  void derive_library(const ProbePoint &pp, ProbeDecl &decl, const ProbeEnv &env,
                      DerivedProbes &out, Diagnostics &diags) const {
    const auto &lib = pp.components[1];
    if (!lib.has_arg || !lib.arg_is_string || lib.str_arg.empty()) {
      if (pp.optional) return;
      diags.error("XTP2170", lib.loc, ".library needs the library's name or path in quotes").hint =
          "as in process(\"/bin/ls\").library(\"libc.so.6\").function(\"malloc\")";
      return;
    }
    std::string path = lib.str_arg;
    if (path.find('/') == std::string::npos) {
      std::string found = needed_library(pp, env);
      for (const std::string &dir : library_dirs()) {
        if (!found.empty()) break;
        glob_t g{};
        std::string pattern =
            env.sysroot + dir + "/" + lib.str_arg + (is_glob(lib.str_arg) ? "" : "*");
        if (glob(pattern.c_str(), 0, nullptr, &g) == 0 && g.gl_pathc > 0) found = g.gl_pathv[0];
        globfree(&g);
        if (!found.empty()) break;
      }
      if (found.empty()) {
        if (pp.optional) return;
        diags
            .error("XTP2171", lib.loc,
                   "no shared library '" + lib.str_arg + "' in the library directories" +
                       (env.sysroot.empty() ? "" : " under " + env.sysroot))
            .hint = "give the library's full path";
        return;
      }
      path = found.substr(env.sysroot.size());
    }
    ProbePoint in_lib = pp;
    in_lib.components.erase(in_lib.components.begin() + 1);
    in_lib.components[0].str_arg = path;
    size_t before = out.size();
    derive(in_lib, decl, env, out, diags);
    for (size_t i = before; i < out.size(); ++i) {
      auto &dp = static_cast<ProcessFunctionProbe &>(*out[i]);
      dp.program = pp.components[0].has_arg ? pp.components[0].str_arg : "";
      if (!dp.program.empty()) host_path(dp.program, env.sysroot, &dp.program_path);
      dp.library = lib.str_arg;
    }
  }

  void emit(CWriter &w, const std::vector<const DerivedProbe *> &mine,
            ScriptTables &out) const override {
    if (mine.empty()) return;
    emit_probe_array(w, "xtap_uprobe_probes", mine);
    // An @entry half is no probe of its own: its uretprobe's entry hook runs it.
    std::vector<int> entry_half = pair_entry_halves(mine, [](const DerivedProbe &dp) {
      auto &up = static_cast<const ProcessFunctionProbe &>(dp);
      return up.path + "+" + std::to_string(up.offset);
    });
    size_t nspecs = 0;
    w.open("static const struct xtap_uprobe_spec xtap_uprobes[] = {");
    for (size_t i = 0; i < mine.size(); ++i) {
      auto *up = static_cast<const ProcessFunctionProbe *>(mine[i]);
      if (up->decl->entry_half) continue;
      ++nspecs;
      w.line(
          "{ .probe = &xtap_uprobe_probes[" + std::to_string(i) +
          "], .path = " + c_string_literal(up->path) + ", .offset = " + std::to_string(up->offset) +
          "ULL, .is_return = " + (up->is_return ? "1" : "0") +
          ", .optional = " + (up->optional ? "1" : "0") +
          (up->ref_ctr_offset ? ", .ref_ctr_offset = " + std::to_string(up->ref_ctr_offset) + "ULL"
                              : "") +
          (up->reads_entry_args() ? ", .save_args = 1" : "") +
          (entry_half[i] >= 0
               ? ", .entry_probe = &xtap_uprobe_probes[" + std::to_string(entry_half[i]) + "]"
               : "") +
          process_spec_fields(*up) + " },");
    }
    w.close("};");
    out.groups.push_back(probe_group("xtap_uprobe_ops", "xtap_uprobes", nspecs));
  }
};

}  // namespace

const ProbeProvider *process_provider() {
  static ProcessProvider p;
  return &p;
}

}  // namespace xtap
