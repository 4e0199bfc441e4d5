// netfilter.hook("NF_INET_PRE_ROUTING").pf("NFPROTO_IPV4")[.priority(N)]
// (or .pf(...).hook(...), as stap also takes it):
// a netfilter hook function registered in the initial network namespace
// (nf_register_net_hook), run for every packet that passes the hook, as
// stap's netfilter probes. Context variables: $hooknum, $skb, $in, $out,
// $okfn, and $verdict (NF_ACCEPT; a guru-mode script may set NF_DROP). Their C types come
// from the kernel's BTF (struct sk_buff *, struct net_device *), so member
// chains ($skb->len) work without debuginfo. The runtime side is
// runtime-kmod/probes/netfilter.c; tapsets/netfilter.stp builds stap's
// netfilter.ip.* ... aliases on it.
#include <cstdlib>

#include "probes/provider.h"
#include "symbols/btf.h"

namespace xtap {
namespace {

struct NamedNumber {
  const char *name;
  int value;
};

// The hooks by the names of the kernel's uapi headers (linux/netfilter.h,
// netfilter_ipv4.h, netfilter_ipv6.h, netfilter_arp.h, netfilter_bridge.h).
constexpr NamedNumber kHooks[] = {
    {"NF_INET_PRE_ROUTING", 0}, {"NF_INET_LOCAL_IN", 1},     {"NF_INET_FORWARD", 2},
    {"NF_INET_LOCAL_OUT", 3},   {"NF_INET_POST_ROUTING", 4}, {"NF_IP_PRE_ROUTING", 0},
    {"NF_IP_LOCAL_IN", 1},      {"NF_IP_FORWARD", 2},        {"NF_IP_LOCAL_OUT", 3},
    {"NF_IP_POST_ROUTING", 4},  {"NF_IP6_PRE_ROUTING", 0},   {"NF_IP6_LOCAL_IN", 1},
    {"NF_IP6_FORWARD", 2},      {"NF_IP6_LOCAL_OUT", 3},     {"NF_IP6_POST_ROUTING", 4},
    {"NF_ARP_IN", 0},           {"NF_ARP_OUT", 1},           {"NF_ARP_FORWARD", 2},
    {"NF_BR_PRE_ROUTING", 0},   {"NF_BR_LOCAL_IN", 1},       {"NF_BR_FORWARD", 2},
    {"NF_BR_LOCAL_OUT", 3},     {"NF_BR_POST_ROUTING", 4},
};
constexpr NamedNumber kFamilies[] = {
    {"NFPROTO_IPV4", 2}, {"NFPROTO_ARP", 3}, {"NFPROTO_BRIDGE", 7}, {"NFPROTO_IPV6", 10},
    {"PF_INET", 2},      {"PF_INET6", 10},   {"PF_BRIDGE", 7},
};

class NetfilterProbe : public DerivedProbe {
 public:
  int hook = 0, pf = 0;
  long priority = 0;
  std::vector<ContextVar> vars;
  const TypeTable *table = nullptr;
  const std::vector<ContextVar> &context_vars() const override { return vars; }
  const TypeTable *types() const override { return table; }
};

// A pointer type to record `tag` in the BTF's table, or -1.
int pointer_to(const TypeTable &types, const std::string &tag) {
  int rec = types.find_record(tag);
  if (rec < 0) return -1;
  for (size_t i = 0; i < types.size(); ++i) {
    const KType &t = types.at(static_cast<int>(i));
    if (t.kind == KTypeKind::Pointer && t.target >= 0 && types.strip_typedefs(t.target) == rec)
      return static_cast<int>(i);
  }
  return -1;
}

int int_type(const TypeTable &types, const std::string &name) {
  for (size_t i = 0; i < types.size(); ++i) {
    const KType &t = types.at(static_cast<int>(i));
    if (t.kind == KTypeKind::Int && t.name == name) return static_cast<int>(i);
  }
  return -1;
}

// $verdict is a place in memory, so that a guru-mode script can set it
// ($verdict = nf_drop); the hook returns what it holds after the handler.
constexpr const char *kVerdictAddress = "(u64)(unsigned long)&c->args[5]";

class NetfilterProvider : public ProbeProvider {
 public:
  std::vector<std::string> spellings() const override {
    return {"netfilter.hook(\"NF_INET_PRE_ROUTING\").pf(\"NFPROTO_IPV4\")",
            "netfilter.hook(\"...\").pf(\"...\").priority(N)",
            "netfilter.pf(\"NFPROTO_IPV4\").hook(\"NF_INET_PRE_ROUTING\")",
            "netfilter.pf(\"...\").hook(\"...\").priority(N)"};
  }

  bool matches(const ProbePoint &pp) const override {
    return pp.components[0].name == "netfilter" && pp.components.size() >= 2 &&
           (pp.components[1].name == "hook" || pp.components[1].name == "pf");
  }

  void derive(const ProbePoint &pp, ProbeDecl &, const ProbeEnv &env, DerivedProbes &out,
              Diagnostics &diags) const override {
    const auto &cs = pp.components;
    auto dp = std::make_unique<NetfilterProbe>();
    // .hook and .pf in either order, as stap takes them.
    bool have_pf = false, have_hook = false;
    for (size_t i = 1; i < cs.size(); ++i) {
      const auto &c = cs[i];
      if (c.name == "hook" && !have_hook && (i == 1 || have_pf)) {
        if (!number_of(c, kHooks, "hook", diags, &dp->hook)) return;
        have_hook = true;
      } else if (c.name == "pf" && !have_pf && (i == 1 || have_hook)) {
        if (!number_of(c, kFamilies, "pf", diags, &dp->pf)) return;
        have_pf = true;
      } else if (c.name == "priority" && c.has_arg) {
        char *end = nullptr;
        dp->priority = c.arg_is_string ? std::strtol(c.str_arg.c_str(), &end, 0)
                                       : static_cast<long>(c.num_arg);
        if (c.arg_is_string && (end == c.str_arg.c_str() || *end)) {
          diags.error("XTP2180", c.loc, "netfilter priority '" + c.str_arg + "' is not a number");
          return;
        }
      } else {
        diags
            .error("XTP2181", c.loc,
                   "unexpected '." + c.name + "' in netfilter probe point '" + pp.str() + "'")
            .hint =
            "write netfilter.hook(\"NF_INET_LOCAL_IN\").pf(\"NFPROTO_IPV4\"), optionally followed "
            "by .priority(N)";
        return;
      }
    }
    if (!have_hook) {
      diags.error("XTP2181", pp.loc, "netfilter probe point '" + pp.str() + "' needs a hook").hint =
          "add .hook(\"NF_INET_PRE_ROUTING\") (or another of the kernel's hooks)";
      return;
    }
    if (!have_pf) {
      diags
          .error("XTP2181", pp.loc,
                 "netfilter probe point '" + pp.str() + "' needs a protocol family")
          .hint =
          "add .pf(\"NFPROTO_IPV4\"), .pf(\"NFPROTO_IPV6\"), .pf(\"NFPROTO_ARP\") or "
          ".pf(\"NFPROTO_BRIDGE\")";
      return;
    }
    std::string error;
    const KernelBtf *btf = env.btf ? env.btf(&error) : nullptr;
    if (!btf) {
      diags.error("XTP2182", pp.loc,
                  "netfilter probes need the kernel's BTF for their variables: " + error);
      return;
    }
    const TypeTable &types = btf->types();
    int skb = pointer_to(types, "sk_buff"), dev = pointer_to(types, "net_device");
    int uint = int_type(types, "unsigned int"), ulong = int_type(types, "long unsigned int");
    if (ulong < 0) ulong = int_type(types, "unsigned long");
    if (skb < 0 || dev < 0 || uint < 0 || ulong < 0) {
      diags.error("XTP2182", pp.loc,
                  "the kernel's BTF (" + btf->origin() +
                      ") lacks struct sk_buff, struct net_device or unsigned int");
      return;
    }
    dp->table = &types;
    dp->vars = {
        {.name = "hooknum", .type = uint, .c_value = "c->args[0]"},
        {.name = "skb", .type = skb, .c_value = "c->args[1]"},
        {.name = "in", .type = dev, .c_value = "c->args[2]"},
        {.name = "out", .type = dev, .c_value = "c->args[3]"},
        {.name = "okfn", .type = ulong, .c_value = "c->args[4]"},
        {.name = "verdict", .type = uint, .c_value = "c->args[5]", .address_c = kVerdictAddress}};
    out.push_back(std::move(dp));
  }

  void emit(CWriter &w, const std::vector<const DerivedProbe *> &mine,
            ScriptTables &out) const override {
    if (mine.empty()) return;
    emit_probe_array(w, "xtap_netfilter_probes", mine);
    w.open("static const struct xtap_netfilter_spec xtap_netfilter_hooks[] = {");
    for (size_t i = 0; i < mine.size(); ++i) {
      const auto &n = *static_cast<const NetfilterProbe *>(mine[i]);
      w.line("{ .probe = &xtap_netfilter_probes[" + std::to_string(i) +
             "], .hook = " + std::to_string(n.hook) + ", .pf = " + std::to_string(n.pf) +
             ", .priority = " + std::to_string(n.priority) + " },");
    }
    w.close("};");
    out.groups.push_back(probe_group("xtap_netfilter_ops", "xtap_netfilter_hooks", mine.size()));
  }

 private:
  // A hook or family given by name ("NF_INET_LOCAL_IN") or number.
  template <size_t N>
  static bool number_of(const ProbePointComponent &c, const NamedNumber (&table)[N],
                        const std::string &what, Diagnostics &diags, int *value) {
    if (!c.has_arg) {
      diags.error("XTP2181", c.loc,
                  "netfilter ." + what + " needs a name or a number, as in ." + what + "(\"" +
                      table[0].name + "\")");
      return false;
    }
    if (!c.arg_is_string) {
      *value = static_cast<int>(c.num_arg);
      return true;
    }
    std::vector<std::string> names;
    for (const auto &e : table) {
      if (c.str_arg == e.name) {
        *value = e.value;
        return true;
      }
      names.push_back(e.name);
    }
    auto &d = diags.error("XTP2183", c.loc, "unknown netfilter " + what + " '" + c.str_arg + "'");
    std::string guess = closest_match(c.str_arg, names);
    d.hint = guess.empty() ? "use one of the kernel's names, such as " + names[0]
                           : "did you mean '" + guess + "'?";
    return false;
  }
};

}  // namespace

const ProbeProvider *netfilter_provider() {
  static NetfilterProvider p;
  return &p;
}

}  // namespace xtap
