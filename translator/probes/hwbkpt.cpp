// Hardware watchpoints on kernel data:
//   kernel.data(ADDRESS).write        kernel.data("SYMBOL").write
//   kernel.data(ADDRESS).rw           kernel.data("SYMBOL").rw
//   kernel.data(...).length(N).write|rw
// The handler runs just after an access to the N bytes (1 by default) at
// ADDRESS, or at SYMBOL's address as the running kernel has it (looked up
// when the module loads, like @var's symbols). It sees the registers of the
// code that made the access, so print_backtrace() shows who did it. x86
// watches reads only together with writes (.rw); it has four debug
// registers, so four such probes at most.
#include <cctype>

#include "probes/provider.h"

namespace xtap {
namespace {

// include/uapi/linux/hw_breakpoint.h
constexpr int kBreakpointW = 2, kBreakpointRW = 3;
// x86's debug registers (DR0-DR3); stap refuses more probes the same way.
constexpr size_t kMaxWatchpoints = 4;

class HwbkptProbe : public DerivedProbe {
 public:
  unsigned long long address = 0;  // kernel.data(ADDRESS)
  std::string symbol;              // kernel.data("SYMBOL")
  int len = 1;
  int type = kBreakpointRW;
  std::string shown;  // pp(): the address in hex, as /proc/kallsyms has it

  std::string name() const override { return shown.empty() ? point->str() : shown; }
};

class HwbkptProvider : public ProbeProvider {
 public:
  std::vector<std::string> spellings() const override {
    return {"kernel.data(ADDRESS).write",           "kernel.data(ADDRESS).rw",
            "kernel.data(\"SYMBOL\").write",        "kernel.data(\"SYMBOL\").rw",
            "kernel.data(ADDRESS).length(N).write", "kernel.data(\"SYMBOL\").length(N).rw"};
  }

  bool matches(const ProbePoint &pp) const override {
    const auto &cs = pp.components;
    return cs.size() >= 2 && cs[0].name == "kernel" && cs[1].name == "data";
  }

  void derive(const ProbePoint &pp, ProbeDecl &, const ProbeEnv &, DerivedProbes &out,
              Diagnostics &diags) const override {
    const auto &cs = pp.components;
    auto dp = std::make_unique<HwbkptProbe>();
    const auto &where = cs[1];
    if (cs[0].has_arg || !where.has_arg) return bad_shape(pp, diags);
    if (where.arg_is_string) {
      if (!valid_symbol(where.str_arg)) {
        diags.error("XTP2194", where.loc, "'" + where.str_arg + "' is not a kernel symbol name")
            .hint =
            "name a kernel variable, as in kernel.data(\"jiffies\").write, or give its address as "
            "a number";
        return;
      }
      dp->symbol = where.str_arg;
    } else {
      dp->address = static_cast<unsigned long long>(where.num_arg);
      if (dp->address == 0) {
        diags.error("XTP2194", where.loc, "kernel.data(0) watches nothing").hint =
            "give a kernel address, e.g. from /proc/kallsyms, or a symbol name in quotes";
        return;
      }
    }
    size_t next = 2;
    if (next < cs.size() && cs[next].name == "length") {
      const auto &c = cs[next];
      long long n = c.has_arg && !c.arg_is_string ? c.num_arg : 0;
      if (n != 1 && n != 2 && n != 4 && n != 8) {
        diags.error("XTP2195", c.loc, "a watchpoint is 1, 2, 4 or 8 bytes long").hint =
            "the debug registers watch an aligned 1, 2, 4 or 8 bytes; use .length(8) for a pointer "
            "or a long";
        return;
      }
      dp->len = static_cast<int>(n);
      ++next;
    }
    if (next + 1 != cs.size() || cs[next].has_arg ||
        (cs[next].name != "write" && cs[next].name != "rw"))
      return bad_shape(pp, diags);
    dp->type = cs[next].name == "write" ? kBreakpointW : kBreakpointRW;
    if (dp->symbol.empty()) {
      dp->shown = "kernel.data(" + hex_address(dp->address) + ")";
      for (size_t i = 2; i < cs.size(); ++i)
        dp->shown +=
            "." + cs[i].name + (cs[i].has_arg ? "(" + std::to_string(cs[i].num_arg) + ")" : "");
    }
    if (dp->symbol.empty() && dp->address % static_cast<unsigned>(dp->len) != 0) {
      diags
          .error("XTP2195", where.loc,
                 "address " + hex_address(dp->address) + " is not aligned to the watchpoint's " +
                     std::to_string(dp->len) + " bytes")
          .hint = "watch from an address that is a multiple of the length, or a shorter length";
      return;
    }
    out.push_back(std::move(dp));
  }

  // More watchpoints than the CPU has debug registers could never all be
  // armed: refused at the first one too many.
  void check_family(const std::vector<const DerivedProbe *> &mine,
                    Diagnostics &diags) const override {
    if (mine.size() <= kMaxWatchpoints) return;
    diags
        .error("XTP2196", mine[kMaxWatchpoints]->point->loc,
               "more than " + std::to_string(kMaxWatchpoints) +
                   " kernel.data watchpoints in one script")
        .hint = "the CPU has " + std::to_string(kMaxWatchpoints) +
                " debug registers; watch fewer addresses, or one wider range with .length(8)";
  }

  void emit(CWriter &w, const std::vector<const DerivedProbe *> &mine,
            ScriptTables &out) const override {
    if (mine.empty()) return;
    emit_probe_array(w, "xtap_hwbkpt_probes", mine);
    w.open("static const struct xtap_hwbkpt_spec xtap_hwbkpt_specs[] = {");
    for (size_t i = 0; i < mine.size(); ++i) {
      const auto &p = *static_cast<const HwbkptProbe *>(mine[i]);
      // xtap_data_symbol("sym") becomes the symbol's slot in the table that
      // module_init fills (codegen/data_symbols.h).
      std::string where = p.symbol.empty() ? ".address = " + hex_address(p.address) + "UL"
                                           : ".symbol_address = &xtap_data_symbol(" +
                                                 c_string_literal(p.symbol) + ")";
      w.line("{ .probe = &xtap_hwbkpt_probes[" + std::to_string(i) + "], " + where +
             ", .len = " + std::to_string(p.len) + ", .type = " + std::to_string(p.type) +
             ", .optional = " + (p.optional ? "1" : "0") + " },");
    }
    w.close("};");
    out.groups.push_back(probe_group("xtap_hwbkpt_ops", "xtap_hwbkpt_specs", mine.size()));
  }

 private:
  static void bad_shape(const ProbePoint &pp, Diagnostics &diags) {
    diags.error("XTP2194", pp.loc, "unknown watchpoint probe point '" + pp.str() + "'").hint =
        "use kernel.data(ADDRESS).write or .rw, or kernel.data(\"SYMBOL\").length(N).write or .rw";
  }

  static bool valid_symbol(const std::string &s) {
    if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
    for (char ch : s)
      if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.')) return false;
    return true;
  }
};

}  // namespace

const ProbeProvider *hwbkpt_provider() {
  static HwbkptProvider p;
  return &p;
}

}  // namespace xtap
