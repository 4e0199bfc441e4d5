// never: a probe that never fires. Its body is still checked (stap scripts
// use it to keep functions and globals referenced), but nothing is
// registered, and no C is written for a body that cannot run (runs()).
#include "probes/provider.h"

namespace xtap {
namespace {

class NeverProvider : public ProbeProvider {
 public:
  std::vector<std::string> spellings() const override { return {"never"}; }

  bool matches(const ProbePoint &pp) const override {
    return pp.components.front().name == "never";
  }

  void derive(const ProbePoint &pp, ProbeDecl &, const ProbeEnv &, DerivedProbes &out,
              Diagnostics &diags) const override {
    if (pp.components.size() > 1 || pp.components[0].has_arg) {
      diags.error("XTP2107", pp.loc, "'never' takes no arguments or components").hint =
          "write 'probe never { ... }'";
      return;
    }
    out.push_back(std::make_unique<DerivedProbe>());
  }

  void emit(CWriter &, const std::vector<const DerivedProbe *> &, ScriptTables &) const override {}
  bool runs() const override { return false; }
};

}  // namespace

const ProbeProvider *never_provider() {
  static NeverProvider p;
  return &p;
}

}  // namespace xtap
