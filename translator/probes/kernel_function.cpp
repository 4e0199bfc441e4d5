// kernel.function("name"), kernel.function("name").call and
// kernel.function("name").return, with globs over names ("vfs_*"), without
// debuginfo: the functions and their prototypes come from the target
// kernel's BTF (symbols/btf.h). Each function a point matches is one derived
// probe whose context variables are the prototype's parameters ($file,
// $count), read from the argument registers of the x86-64 calling
// convention at entry, and in .return probes also $return; there $param is
// its value at entry, as in stap (the runtime saves the argument registers
// when the function is entered). The runtime registers a kprobe or
// kretprobe by symbol name (runtime-kmod/probes/kprobes.c), so the kernel
// relocates it (KASLR) and refuses functions it cannot probe.
//
// What needs DWARF (source files and lines, statements, modules) goes to
// dwarf_function.cpp, as does everything when the kernel has no BTF.
#include <fnmatch.h>

#include <cctype>
#include <cstdio>
#include <map>

#include "probes/kernel_function.h"

#include "probes/dwarf_location.h"
#include "symbols/btf.h"

namespace xtap {

namespace {
constexpr int kRegisterArgs = 6;  // XTAP_KFUNC_REG_ARGS: rdi rsi rdx rcx r8 r9
}  // namespace

bool kfunc_is_glob(const std::string &s) { return s.find_first_of("*?[") != std::string::npos; }

std::string entry_frame_key(const std::string &symbol, uint64_t offset,
                            const std::string &function) {
  return symbol + "+" + std::to_string(offset) + " " + function;
}

EntryFrameSite entry_frame_site(const std::string &key) {
  EntryFrameSite site;
  size_t space = key.rfind(' ');
  std::string at = key.substr(0, space);
  site.function = space == std::string::npos ? "" : key.substr(space + 1);
  size_t plus = at.rfind('+');
  site.symbol = at.substr(0, plus);
  if (plus != std::string::npos) site.offset = std::stoull(at.substr(plus + 1));
  return site;
}

// A C identifier for each key, different for different keys: letters and
// digits as they are, '_' doubled, anything else as _xHH.
std::string entry_frames_c_name(const std::string &key) {
  EntryFrameSite site = entry_frame_site(key);
  std::string name = "xtap_entry_frames_";
  for (unsigned char ch : site.symbol + "+" + std::to_string(site.offset)) {
    if (std::isalnum(ch)) {
      name += static_cast<char>(ch);
    } else if (ch == '_') {
      name += "__";
    } else {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "_x%02x", ch);
      name += hex;
    }
  }
  return name;
}

// `value` (a u64 register) as the u64 a script sees for C type `type`: the
// upper bits of a register holding a narrower integer are undefined in the
// calling convention, so they are dropped or sign-extended here. Empty when
// the value does not fit one register.
std::string register_value(const TypeTable &types, int type, const std::string &value) {
  const KType &t = types.at(types.strip_typedefs(type));
  switch (t.kind) {
    case KTypeKind::Pointer: return value;
    case KTypeKind::Int:
    case KTypeKind::Enum:
      if (t.size == 8) return value;
      if (t.size != 1 && t.size != 2 && t.size != 4) return "";
      return t.is_signed ? "(u64)(s64)(s" + std::to_string(t.size * 8) + ")" + value
                         : "(u64)(u" + std::to_string(t.size * 8) + ")" + value;
    default: return "";
  }
}

// The parameters of `f` as context variables: each integer or pointer
// parameter takes the next argument register. A struct or union passed by
// value takes one or two registers (or the stack), so it and every later
// parameter are beyond what xtap reads. Integers and pointers after the
// sixth are on the stack at the entry; a .return probe has only the six
// registers its entry saved.
std::vector<ContextVar> parameter_vars(const TypeTable &types, const KFunction &f, bool is_return) {
  std::vector<ContextVar> vars;
  int slot = 0;
  std::string lost;  // why the remaining parameters cannot be read
  for (const auto &p : f.params) {
    ContextVar v;
    v.name = p.name;
    v.type = p.type;
    const KType &t = types.at(types.strip_typedefs(p.type));
    if (lost.empty() && t.kind == KTypeKind::Float) {
      v.unavailable = "it is a floating-point parameter, passed in a vector register";
    } else if (lost.empty()) {
      if (slot >= kRegisterArgs && is_return) {
        lost =
            "it is passed on the stack (after the sixth argument register), which a .return "
            "probe does not keep";
      } else if (slot >= kRegisterArgs) {
        // At the entry, above the return address: the seventh at sp + 8,
        // then one 8-byte slot each (the integers and pointers read here).
        bool scalar =
            t.kind == KTypeKind::Int || t.kind == KTypeKind::Enum || t.kind == KTypeKind::Pointer;
        if (scalar && t.size <= 8) {
          in_memory_at(
              t, "(xtap_dwarf_reg(c, 7) + " + std::to_string(8 * (slot - kRegisterArgs + 1)) + ")",
              &v);
          ++slot;
        } else {
          v.unavailable = "it is a " + types.spelling(p.type) +
                          " passed by value on the stack, which xtap does not read";
          lost = "it comes after '" + p.name + "', a " + types.spelling(p.type) +
                 " passed by value, so its place on the stack is not known";
        }
      } else {
        v.c_value =
            register_value(types, p.type, "xtap_kfunc_arg(c, " + std::to_string(slot) + ")");
        // At entry it is in its argument register (DWARF numbers of rdi,
        // rsi, rdx, rcx, r8, r9), which guru mode may set; in a .return
        // probe it is a copy saved at entry.
        static const int kArgRegs[kRegisterArgs] = {5, 4, 1, 2, 8, 9};
        if (!is_return) v.reg = kArgRegs[slot];
        if (v.c_value.empty()) {
          v.unavailable = "it is a " + types.spelling(p.type) +
                          " passed by value, which xtap cannot read from the argument registers";
          lost = "it comes after '" + p.name + "', a " + types.spelling(p.type) +
                 " passed by value, so its argument register is not known";
        }
        ++slot;
      }
    }
    if (v.c_value.empty() && v.unavailable.empty()) v.unavailable = lost;
    vars.push_back(std::move(v));
  }
  if (is_return) {
    const KType &rt = types.at(types.strip_typedefs(f.return_type));
    if (rt.kind != KTypeKind::Void) {
      ContextVar r;
      r.name = "return";
      r.type = f.return_type;
      r.parameter = false;
      r.c_value = register_value(types, f.return_type, "xtap_kfunc_return(c)");
      r.reg = 0;  // rax
      if (r.c_value.empty())
        r.unavailable =
            "the function returns a " + types.spelling(f.return_type) + ", which xtap cannot read";
      vars.push_back(std::move(r));
    }
  }
  return vars;
}

namespace {

class KernelFunctionProvider : public ProbeProvider {
 public:
  std::vector<std::string> spellings() const override {
    return {"kernel.function(\"name\")", "kernel.function(\"name\").call",
            "kernel.function(\"name\").return", "kernel.function(\"name\").return.maxactive(N)"};
  }

  bool matches(const ProbePoint &pp) const override {
    const auto &cs = pp.components;
    if (cs.size() < 2) return false;
    if (cs[0].name == "kernel") return cs[1].name == "function" || cs[1].name == "statement";
    return cs[0].name == "module" && (cs[1].name == "function" || cs[1].name == "statement");
  }

  void derive(const ProbePoint &written, ProbeDecl &decl, const ProbeEnv &env, DerivedProbes &out,
              Diagnostics &diags) const override {
    derive_point(written, decl, env, out, diags, false);
  }

 private:
  // `exact`: .exact was written (and is gone from `written`): the symbol
  // named only, without its GCC clones.
  void derive_point(const ProbePoint &written, ProbeDecl &decl, const ProbeEnv &env,
                    DerivedProbes &out, Diagnostics &diags, bool exact) const {
    const auto &wcs = written.components;
    if (wcs.size() >= 3 && wcs[1].name == "function" && wcs[2].name == "exact" && !wcs[2].has_arg) {
      ProbePoint pp = written;
      pp.components.erase(pp.components.begin() + 2);
      derive_point(pp, decl, env, out, diags, true);
      return;
    }
    CloneChoice clones = exact ? CloneChoice::Exclude : CloneChoice::Include;
    // .return.maxactive(N): how many calls may be in flight at once (the
    // kretprobe's instances); the rest of the point derives as .return.
    if (wcs.size() == 4 && wcs[2].name == "return" && !wcs[2].has_arg &&
        wcs[3].name == "maxactive") {
      if (!wcs[3].has_arg || wcs[3].arg_is_string || wcs[3].num_arg < 1 ||
          wcs[3].num_arg > 1000000) {
        diags.error("XTP2151", wcs[3].loc, ".maxactive needs a number from 1 to 1000000").hint =
            "as in kernel.function(\"vfs_read\").return.maxactive(100)";
        return;
      }
      ProbePoint pp = written;
      pp.components.pop_back();
      size_t before = out.size();
      derive_point(pp, decl, env, out, diags, exact);
      for (size_t i = before; i < out.size(); ++i)
        static_cast<KernelFunctionProbe &>(*out[i]).maxactive =
            static_cast<uint32_t>(wcs[3].num_arg);
      return;
    }
    const ProbePoint &pp = written;
    const auto &cs = pp.components;
    // An optional point (pp?) that cannot be resolved is dropped silently.
    if (!needs_dwarf(pp).empty()) {
      derive_from_dwarf(pp, env, out, diags, clones);
      return;
    }
    bool shape = cs.size() == 2 || (cs.size() == 3 && !cs[2].has_arg &&
                                    (cs[2].name == "call" || cs[2].name == "return"));
    if (!shape) {
      diags.error("XTP2151", pp.loc, "unknown kernel.function probe point '" + pp.str() + "'")
          .hint =
          "use kernel.function(\"name\"), kernel.function(\"name\").call or "
          "kernel.function(\"name\").return";
      return;
    }
    if (!cs[1].has_arg || !cs[1].arg_is_string || cs[1].str_arg.empty()) {
      diags.error("XTP2151", cs[1].loc, "kernel.function needs a function name in quotes").hint =
          "as in kernel.function(\"vfs_read\") or kernel.function(\"vfs_*\")";
      return;
    }
    std::string error;
    const KernelBtf *btf = env.btf ? env.btf(&error) : nullptr;
    if (!btf && env.dwarf) {
      // No BTF: the kernel's DWARF, when installed, lists its functions too.
      std::string dwarf_error;
      if (!env.dwarf("", &dwarf_error).empty()) {
        derive_from_dwarf(pp, env, out, diags, clones);
        return;
      }
    }
    if (!btf) {
      if (pp.optional) return;
      auto &d = diags.error("XTP2152", pp.loc, "cannot list the kernel's functions: " + error);
      d.hint = "kernel.function needs the kernel's BTF (CONFIG_DEBUG_INFO_BTF) or its debuginfo";
      return;
    }
    const std::string &pattern = cs[1].str_arg;
    bool is_return = cs.size() == 3 && cs[2].name == "return";
    bool is_call = cs.size() == 3 && cs[2].name == "call";
    size_t before = out.size();
    if (!kfunc_is_glob(pattern)) {
      if (const KFunction *f = btf->find_function(pattern))
        add(*btf, *f, is_return, false, pattern, env, out);
    } else {
      for (const auto &f : btf->functions())
        if (fnmatch(pattern.c_str(), f.name.c_str(), 0) == 0)
          add(*btf, f, is_return, true, pattern, env, out);
    }
    for (size_t i = before; i < out.size(); ++i)
      static_cast<KernelFunctionProbe &>(*out[i]).is_call = is_call;
    std::string dwarf_error;
    bool have_dwarf = env.dwarf && !env.dwarf("", &dwarf_error).empty();
    if (out.size() == before && have_dwarf) {
      // Not in BTF (pahole leaves out some static functions and compiler
      // clones): the kernel's DWARF, when installed, may have it.
      derive_from_dwarf(pp, env, out, diags, clones);
      return;
    }
    if (out.size() != before && have_dwarf && !exact) {
      // BTF knows f, not its clones (f.isra.0): DWARF adds them, when
      // installed. Finding none is no error: most functions have none.
      ProbePoint quiet = pp;
      quiet.optional = true;
      Diagnostics ignored;
      derive_from_dwarf(quiet, env, out, ignored, CloneChoice::Only);
    }
    if (out.size() == before && !pp.optional) no_match(*btf, cs[1], diags);
  }

 public:
  void emit(CWriter &w, const std::vector<const DerivedProbe *> &mine,
            ScriptTables &out) const override {
    if (mine.empty()) return;
    emit_probe_array(w, "xtap_kfunc_probes", mine);
    // An @entry half is no probe of its own: its return's kretprobe runs it.
    std::vector<int> entry_half = pair_entry_halves(mine, [](const DerivedProbe &dp) {
      return static_cast<const KernelFunctionProbe &>(dp).function;
    });
    // One id per pattern point: its functions are registered where the
    // kernel allows and checked together (kprobes.c).
    std::map<const ProbePoint *, int> pattern_ids;
    size_t nspecs = 0;
    // Entry values read at statements (DW_OP_entry_value): one kretprobe
    // per function keeps its calls' argument registers
    // (runtime-kmod/probes/entry_frames.c); its spec names the first
    // statement probe that reads them, for messages.
    std::map<std::string, size_t> frames;
    for (size_t i = 0; i < mine.size(); ++i) {
      auto *kf = static_cast<const KernelFunctionProbe *>(mine[i]);
      if (kf->decl->entry_half || kf->lazy_vars) continue;
      for (const ContextVar &v : kf->vars)
        if (v.used && !v.entry_frame.empty()) frames.emplace(v.entry_frame, i);
    }
    for (const auto &[key, probe] : frames)
      w.line("static struct xtap_entry_frames " + entry_frames_c_name(key) +
             " = { .function = " + c_string_literal(entry_frame_site(key).function) + " };");
    w.open("static const struct xtap_kprobe_spec xtap_kfuncs[] = {");
    // First, so that they are armed before the statements that read them.
    for (const auto &[key, probe] : frames) {
      EntryFrameSite site = entry_frame_site(key);
      ++nspecs;
      w.line(
          "{ .probe = &xtap_kfunc_probes[" + std::to_string(probe) +
          "], .symbol = " + c_string_literal(site.symbol) +
          (site.offset ? ", .offset = " + std::to_string(site.offset) : "") +
          ", .is_return = 1, .save_args = 1, .optional = " + (mine[probe]->optional ? "1" : "0") +
          ", .frames = &" + entry_frames_c_name(key) + " },");
    }
    for (size_t i = 0; i < mine.size(); ++i) {
      auto *kf = static_cast<const KernelFunctionProbe *>(mine[i]);
      if (kf->decl->entry_half) continue;
      ++nspecs;
      int pattern = 0;
      if (kf->from_pattern)
        pattern =
            pattern_ids.emplace(kf->point, static_cast<int>(pattern_ids.size()) + 1).first->second;
      std::string spec = "{ .probe = &xtap_kfunc_probes[" + std::to_string(i) + "], .symbol = " +
                         c_string_literal(kf->symbol.empty() ? kf->function : kf->symbol) +
                         (kf->offset ? ", .offset = " + std::to_string(kf->offset) : "") +
                         ", .is_return = " + (kf->is_return ? "1" : "0") +
                         (kf->maxactive ? ", .maxactive = " + std::to_string(kf->maxactive) : "") +
                         ", .save_args = " + (kf->is_return ? "1" : "0") +
                         ", .optional = " + (kf->optional ? "1" : "0");
      if (entry_half[i] >= 0)
        spec += ", .entry_probe = &xtap_kfunc_probes[" + std::to_string(entry_half[i]) + "]";
      if (kf->address) spec += ", .address = " + hex_address(kf->address) + "UL";
      if (!kf->return_symbol.empty())
        spec += ", .return_to = &xtap_data_symbol(" + c_string_literal(kf->return_symbol) +
                "), .return_offset = " + std::to_string(kf->return_offset);
      if (pattern)
        spec += ", .pattern = " + std::to_string(pattern) + ", .pattern_text = " +
                c_string_literal(kf->display.empty() ? "kernel.function(\"" + kf->pattern + "\")" +
                                                           (kf->is_return ? ".return"
                                                            : kf->is_call ? ".call"
                                                                          : "")
                                                     : kf->pattern);
      w.line(spec + " },");
    }
    w.close("};");
    out.groups.push_back(probe_group("xtap_kfunc_ops", "xtap_kfuncs", nspecs));
  }

 private:
  // What in `pp` only DWARF can answer, as users would name it; "" if nothing.
  static std::string needs_dwarf(const ProbePoint &pp) {
    const auto &cs = pp.components;
    if (cs[0].name == "module") return "module(\"" + cs[0].str_arg + "\")." + cs[1].name;
    if (cs[1].name == "statement") return "kernel.statement";
    if (cs[1].arg_is_string && cs[1].str_arg.find('@') != std::string::npos)
      return "a source location (" + cs[1].str_arg.substr(cs[1].str_arg.find('@')) + ")";
    if (cs.size() >= 3 &&
        (cs[2].name == "inline" || cs[2].name == "label" || cs[2].name == "exported" ||
         cs[2].name == "callee" || cs[2].name == "callees"))
      return "kernel.function(...)." + cs[2].name;
    return "";
  }

  static void add(const KernelBtf &btf, const KFunction &f, bool is_return, bool from_pattern,
                  const std::string &pattern, const ProbeEnv &env, DerivedProbes &out) {
    auto dp = std::make_unique<KernelFunctionProbe>();
    dp->function = f.name;
    dp->is_return = is_return;
    dp->from_pattern = from_pattern;
    dp->pattern = pattern;
    dp->table = &btf.types();
    dp->vars = parameter_vars(btf.types(), f, is_return);
    add_dwarf_globals(*dp, env);
    out.push_back(std::move(dp));
  }

  static void no_match(const KernelBtf &btf, const ProbePointComponent &arg, Diagnostics &diags) {
    auto &d =
        diags.error("XTP2153", arg.loc, "no function of this kernel matches '" + arg.str_arg + "'");
    std::vector<std::string> names;
    names.reserve(btf.functions().size());
    for (const auto &f : btf.functions()) names.push_back(f.name);
    std::string guess = kfunc_is_glob(arg.str_arg) ? "" : closest_match(arg.str_arg, names);
    d.hint = guess.empty() ? "functions come from the kernel's BTF (" + btf.origin() +
                                 "); list them with: xtap -l 'kernel.function(\"*\")'"
                           : "did you mean '" + guess + "'?";
  }
};

}  // namespace

const ProbeProvider *kernel_function_provider() {
  static KernelFunctionProvider p;
  return &p;
}

}  // namespace xtap
