// kprobe.function("sym") and kprobe.function("sym").return: a kprobe on a
// kernel function's entry, or a kretprobe on its return, by symbol name;
// kprobe.module("m").function("sym") the same on a module's function
// ("m:sym"), which need not be loaded: as in stap, a module that is not
// loaded when the probes are armed leaves its probe out with a warning.
// Symbols are checked by the kernel at registration time (run time); a
// pattern ("vfs_*") is expanded by xtap-run from the target's kallsyms.
#include <cctype>

#include "probes/provider.h"

namespace xtap {
namespace {

// A kernel symbol name, or a glob over them (* ? [...]).
bool valid_symbol(const std::string &s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '*' &&
        c != '?' && c != '[' && c != ']' && c != '-' && c != '!')
      return false;
  return true;
}

// A module name as the kernel knows it (ext4, nf_conntrack, snd-hda-intel).
bool valid_module(const std::string &s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  return true;
}

bool is_glob(const std::string &s) { return s.find_first_of("*?[") != std::string::npos; }

class KprobeProbe : public DerivedProbe {
 public:
  std::string symbol;      // a function name, or a glob over them
  bool is_return = false;  // a kretprobe
  bool wildcard = false;   // symbol is a glob, expanded by xtap-run
  std::string module;      // kprobe.module("m"): the symbol is "m:name"
  std::string name() const override {
    if (module.empty()) return point->str();
    return "kprobe.module(\"" + module + "\").function(\"" + symbol.substr(module.size() + 1) +
           "\")" + (is_return ? ".return" : "");
  }
};

class KprobeProvider : public ProbeProvider {
 public:
  std::vector<std::string> spellings() const override {
    return {"kprobe.function(\"name\")", "kprobe.function(\"name\").return",
            "kprobe.module(\"name\").function(\"name\")",
            "kprobe.module(\"name\").function(\"name\").return"};
  }

  bool matches(const ProbePoint &pp) const override {
    return pp.components.front().name == "kprobe";
  }

  void derive(const ProbePoint &pp, ProbeDecl &, const ProbeEnv &, DerivedProbes &out,
              Diagnostics &diags) const override {
    // kprobe.module("m").function("f"): the module's function, found when
    // the probes are armed (the module need not be loaded to translate).
    ProbePoint point = pp;
    auto &cs = point.components;
    std::string module;
    if (cs.size() >= 2 && cs[1].name == "module") {
      if (!cs[1].has_arg || !cs[1].arg_is_string || !valid_module(cs[1].str_arg)) {
        diags.error("XTP2111", cs[1].loc, "kprobe.module needs a module name in quotes").hint =
            "as in kprobe.module(\"ext4\").function(\"ext4_file_open\")";
        return;
      }
      module = cs[1].str_arg;
      cs.erase(cs.begin() + 1);
    }
    bool shape = cs.size() >= 2 && cs.size() <= 3 && cs[1].name == "function" &&
                 (cs.size() == 2 || (cs[2].name == "return" && !cs[2].has_arg));
    if (!shape) {
      auto &d = diags.error("XTP2110", pp.loc, "unknown kprobe probe point '" + pp.str() + "'");
      d.hint =
          "use kprobe.function(\"name\"), kprobe.module(\"module\").function(\"name\"), with "
          "or without .return";
      return;
    }
    if (!cs[1].has_arg || !cs[1].arg_is_string) {
      diags.error("XTP2111", cs[1].loc, "kprobe.function needs a symbol name in quotes").hint =
          "as in kprobe.function(\"vfs_read\")";
      return;
    }
    if (!valid_symbol(cs[1].str_arg)) {
      diags
          .error("XTP2112", cs[1].loc,
                 "'" + cs[1].str_arg + "' is not a kernel symbol name or a pattern of them")
          .hint = "use letters, digits, '_', and * ? [...] to match several functions";
      return;
    }
    if (!module.empty() && is_glob(cs[1].str_arg)) {
      diags
          .error("XTP2112", cs[1].loc,
                 "kprobe.module takes one function name, not a pattern ('" + cs[1].str_arg + "')")
          .hint = "name each function, or use module(\"" + module + "\").function(\"" +
                  cs[1].str_arg + "\") with the module's debuginfo";
      return;
    }
    auto dp = std::make_unique<KprobeProbe>();
    // The kernel names a module with '_' where its file has '-' (snd-hda-intel).
    std::string kernel_module = module;
    for (char &c : kernel_module)
      if (c == '-') c = '_';
    dp->symbol = module.empty() ? cs[1].str_arg : kernel_module + ":" + cs[1].str_arg;
    dp->module = module;
    dp->wildcard = is_glob(dp->symbol);
    dp->is_return = cs.size() == 3;
    out.push_back(std::move(dp));
  }

  void emit(CWriter &w, const std::vector<const DerivedProbe *> &mine,
            ScriptTables &out) const override {
    if (mine.empty()) return;
    emit_probe_array(w, "xtap_kprobe_probes", mine);
    // An @entry half is no probe of its own: its return's kretprobe runs it.
    std::vector<int> entry_half = pair_entry_halves(
        mine, [](const DerivedProbe &dp) { return static_cast<const KprobeProbe &>(dp).symbol; });
    // Spec indexes (xtap-run's wildcard entries name them) skip the halves.
    std::vector<size_t> specs;
    w.open("static const struct xtap_kprobe_spec xtap_kprobes[] = {");
    for (size_t i = 0; i < mine.size(); ++i) {
      auto *kp = static_cast<const KprobeProbe *>(mine[i]);
      if (kp->decl->entry_half) continue;
      specs.push_back(i);
      w.line("{ .probe = &xtap_kprobe_probes[" + std::to_string(i) + "], .symbol = " +
             c_string_literal(kp->symbol) + ", .is_return = " + (kp->is_return ? "1" : "0") +
             ", .optional = " + (kp->optional ? "1" : "0") +
             ", .wildcard = " + (kp->wildcard ? "1" : "0") +
             (kp->module.empty() ? std::string() : ", .in_module = 1") +
             (entry_half[i] >= 0
                  ? ", .entry_probe = &xtap_kprobe_probes[" + std::to_string(entry_half[i]) + "]"
                  : std::string()) +
             " },");
    }
    w.close("};");
    // xtap-run reads these from .modinfo and passes the matching functions.
    for (size_t n = 0; n < specs.size(); ++n) {
      auto *kp = static_cast<const KprobeProbe *>(mine[specs[n]]);
      if (kp->wildcard)
        w.line("MODULE_INFO(xtap_wildcard, " +
               c_string_literal(std::to_string(n) + ":" + kp->symbol) + ");");
    }
    out.groups.push_back(probe_group("xtap_kprobe_ops", "xtap_kprobes", specs.size()));
  }
};

}  // namespace

const ProbeProvider *kprobe_provider() {
  static KprobeProvider p;
  return &p;
}

}  // namespace xtap
