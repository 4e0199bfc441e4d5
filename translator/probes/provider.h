// Probe providers: one per probe family. A provider recognises its probe
// points in pass 2 and emits the family's registration tables in pass 3;
// the runtime has the matching registration code (runtime-kmod/probes/).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/writer.h"
#include "diag/diagnostics.h"
#include "parse/ast.h"

namespace xtap {

class ProbeProvider;

struct ResolvedProbe {
  const ProbeDecl *decl = nullptr;
  const ProbePoint *point = nullptr;
  const ProbeProvider *provider = nullptr;
  std::string symbol;        // kprobe families
  uint64_t period_ns = 0;    // timer family
  bool is_end = false;       // begin/end family: an end probe
  long long sequence = 0;    // begin/end family: begin(N) runs in order of N
  bool is_return = false;    // kprobe family: a kretprobe
  bool optional = false;     // pp?: a registration failure is not an error
  bool wildcard = false;     // kprobe family: symbol is a glob
  std::string handler;       // C name of the handler function (pass 3)
  std::string probe_init;    // C initializer of its struct xtap_probe (pass 3)
};

class ProbeProvider {
 public:
  virtual ~ProbeProvider() = default;
  // The spellings this family accepts, for -p2 listings and suggestions.
  virtual std::vector<std::string> spellings() const = 0;
  // True if `pp` belongs to this family. Then `out` is filled in, or an
  // error is reported to `diags` when the point is malformed.
  virtual bool resolve(const ProbePoint &pp, ResolvedProbe &out, Diagnostics &diags) const = 0;
  // Emits the family's tables for its probes (in script order) and appends
  // the struct xtap_script field initializers that point at them.
  virtual void emit(CWriter &w, const std::vector<const ResolvedProbe *> &mine,
                    std::vector<std::string> &script_fields) const = 0;
};

// Every provider, in the order their tables are emitted.
const std::vector<const ProbeProvider *> &probe_providers();

// Helpers shared by providers.
std::string component_names(const ProbePoint &pp);  // "kprobe.function.return"
void emit_probe_array(CWriter &w, const std::string &name,
                      const std::vector<const ResolvedProbe *> &probes);

}  // namespace xtap
