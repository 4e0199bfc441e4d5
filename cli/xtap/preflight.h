// --check: a preflight of one script over several kernels (docs/cli.md).
// Passes 1 and 2 run against each kernel; every probe point of the script
// is also elaborated on its own, so that one point that fails does not hide
// the others. The table says which points resolve where (and to how many
// sites), which optional or sufficient alternatives would be taken, which
// target variables are missing or changed type; the exit status is 1 when
// a required point, or the script as a whole, fails on any kernel.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "xtap/options.h"

namespace xtap::cli {

// A diagnostic, kept as text: the sources it points into do not outlive
// the run that reported it.
struct Problem {
  std::string code, where, message;
};

// One probe point of the script on one kernel.
struct PointResult {
  enum class State { Resolved, Failed, NotRun } state = State::NotRun;
  bool taken = false;               // resolved, and no earlier `!` point of its probe was
  bool shadowed = false;            // an earlier `!` point of its probe resolved: not used
  int sites = 0;                    // the probe locations it resolved to
  std::vector<std::string> probes;  // their names (the alternative an alias took)
  // The script's own target expressions in the probe body, with the C types
  // they resolved to here (one per type, when sites differ).
  std::map<std::string, std::vector<std::string>> targets;
  std::vector<Problem> problems;  // why it failed
};

struct PointRow {
  std::string where;     // file:line:column of the point, the row's key
  std::string spelling;  // as written, with ? or !
  bool optional = false, sufficient = false;
  std::map<std::string, PointResult> on;  // by kernel release
};

struct KernelColumn {
  std::string release;
  bool found = false;
  std::vector<Problem> problems;  // the kernel missing, or the script failing as a whole
  double seconds = 0;
};

struct Preflight {
  std::string script;
  std::vector<KernelColumn> kernels;
  std::vector<PointRow> points;  // in script order
  // Required points that fail, and kernels where the script fails as a whole.
  int failures() const;
};

// Runs the preflight of o's script over o.kernels (or o.kernel, or the
// running kernel).
Preflight run_preflight_checks(const Options &o);
void print_preflight(std::ostream &os, const Preflight &p, bool verbose);
void print_preflight_json(std::ostream &os, const Preflight &p);
// --check: the exit status (0: every required point resolves everywhere).
int run_preflight(const Options &o);

}  // namespace xtap::cli
