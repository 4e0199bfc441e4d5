// --check (preflight.h): passes 1 and 2 of one script on each kernel, the
// script as a whole and each of its probe points on its own.
#include "xtap/preflight.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include "common/json.h"
#include "passes/passes.h"
#include "symbols/catalog.h"
#include "symbols/target_access.h"
#include "xtap/compile.h"
#include "xtap/kernel_data.h"

namespace fs = std::filesystem;

namespace xtap::cli {
namespace {

// Names of the alternatives an alias took, per point and kernel: enough to
// see a difference, not a listing (-l does that).
constexpr size_t kMaxProbeNames = 8;

Problem problem_of(const Diagnostic &d) {
  return {d.code, d.loc.valid() ? d.loc.str() : "", d.message};
}

std::vector<Problem> errors_of(const Diagnostics &diags) {
  std::vector<Problem> out;
  for (const auto &d : diags.all())
    if (d.severity == Severity::Error) out.push_back(problem_of(d));
  return out;
}

// The script's own probe declarations, in order (the tapsets' begin and
// end probes are not the script's to check).
std::vector<ProbeDecl *> script_probes(const Script &s) {
  std::vector<ProbeDecl *> out;
  for (const auto &p : s.probes)
    if (!p->from_tapset) out.push_back(p.get());
  return out;
}

std::string written(const ProbePoint &pp) {
  return pp.str() + (pp.sufficient ? "!" : pp.optional ? "?" : "");
}

// The target expressions the script itself wrote ($count, $prev->pid),
// with the C type each resolved to.
using TargetTypes = std::map<std::string, std::vector<std::string>>;

void collect_targets(const Expr &e, const std::string &file, TargetTypes *out) {
  if (e.kind == ExprKind::Target && e.target && e.target->access && e.loc.file &&
      e.loc.file->name == file) {
    const TargetAccess &a = *e.target->access;
    std::string type = a.types && a.type >= 0 ? a.types->spelling(a.type) : "?";
    if (a.address) type += " (address)";
    auto &types = (*out)[e.target->spelling()];
    if (std::find(types.begin(), types.end(), type) == types.end()) types.push_back(type);
  }
  for (const auto &arg : e.args)
    if (arg) collect_targets(*arg, file, out);
}

void collect_targets(const Stmt &s, const std::string &file, TargetTypes *out) {
  for (const auto &sub : s.body)
    if (sub) collect_targets(*sub, file, out);
  for (const Expr *e : {s.expr.get(), s.init.get(), s.step.get()})
    if (e) collect_targets(*e, file, out);
}

// What every run on one kernel shares: the kernel's data, read once.
// KernelData keeps references to the options and the kernel, so this
// object stays where it was made.
struct KernelRun {
  KernelRun(const Options &o, const std::string &release) : opts(o) {
    opts.kernel = release;
    opts.kernels.clear();
    kernel = TargetKernel::resolve(opts);
    env = build_env(opts);
    if (!kernel.found) return;
    data = std::make_unique<KernelData>(opts, kernel, env);
    data->connect(&probe_env);
    set_up_programs(opts, &probe_env);
  }
  KernelRun(const KernelRun &) = delete;
  KernelRun &operator=(const KernelRun &) = delete;

  // Pass 1 for this kernel (its release and configuration decide the
  // preprocessor's conditions); null after a parse error, in *problems.
  std::unique_ptr<Script> parse(SourceFile &file, Diagnostics &diags,
                                std::vector<Problem> *problems) {
    PreprocessContext pctx;
    set_up_preprocessor(opts, kernel, &pctx);
    std::string err;
    std::unique_ptr<Script> s = parse_with_tapsets(opts, file, &pctx, diags, &err);
    if (!err.empty()) problems->push_back({"", "", err});
    if (!s || diags.has_errors()) {
      auto errors = errors_of(diags);
      problems->insert(problems->end(), errors.begin(), errors.end());
      return nullptr;
    }
    return s;
  }

  bool elaborate_script(Script &s, Elaborated *elab, Diagnostics &diags) {
    ElaborateOptions eo;
    eo.keep_unused = opts.keep_unused;
    eo.skip_badvars = opts.skip_badvars;
    return elaborate(s, probe_env, *elab, diags, eo);
  }

  Options opts;
  TargetKernel kernel;
  kbuild::Env env;
  std::unique_ptr<KernelData> data;
  ProbeEnv probe_env;
};

// Point `point` of the script's probe `index`, alone: the other probes
// dropped, the point required (so that a failure says why rather than
// being skipped).
PointResult check_point(KernelRun &k, SourceFile &file, size_t index, size_t point) {
  PointResult r;
  Diagnostics diags;
  std::unique_ptr<Script> s = k.parse(file, diags, &r.problems);
  std::vector<ProbeDecl *> probes = s ? script_probes(*s) : std::vector<ProbeDecl *>{};
  if (!s || index >= probes.size() || point >= probes[index]->points.size()) return r;
  ProbeDecl *keep = probes[index];
  ProbePoint pp = keep->points[point];
  pp.optional = pp.sufficient = false;
  keep->points = {pp};
  std::erase_if(s->probes, [&](const auto &p) { return !p->from_tapset && p.get() != keep; });
  Elaborated elab;
  if (!k.elaborate_script(*s, &elab, diags)) {
    r.state = PointResult::State::Failed;
    r.problems = errors_of(diags);
    return r;
  }
  r.state = PointResult::State::Resolved;
  for (const auto &dp : elab.probes) {
    if (dp->decl->entry_half || dp->decl->from_tapset) continue;
    ++r.sites;
    if (r.probes.size() < kMaxProbeNames) r.probes.push_back(dp->name());
    if (dp->decl->body) collect_targets(*dp->decl->body, file.name, &r.targets);
  }
  return r;
}

PointRow &row_for(Preflight &p, const ProbePoint &pp) {
  std::string where = pp.loc.str();
  for (auto &row : p.points)
    if (row.where == where) return row;
  PointRow &row = p.points.emplace_back();
  row.where = where;
  row.spelling = written(pp);
  row.optional = pp.optional || pp.sufficient;
  row.sufficient = pp.sufficient;
  return row;
}

// The script's errors on this kernel that no failing point explains.
std::vector<Problem> unexplained(const std::vector<Problem> &whole, const Preflight &p,
                                 const std::string &release) {
  std::set<std::pair<std::string, std::string>> known;
  for (const auto &row : p.points) {
    auto it = row.on.find(release);
    if (it == row.on.end()) continue;
    for (const auto &pr : it->second.problems) known.insert({pr.code, pr.where});
  }
  std::vector<Problem> out;
  for (const auto &pr : whole)
    if (!known.count({pr.code, pr.where})) out.push_back(pr);
  return out;
}

void check_kernel(const Options &o, SourceFile &file, const std::string &release, Preflight *p) {
  auto start = std::chrono::steady_clock::now();
  KernelColumn col;
  KernelRun k(o, release);
  col.release = k.kernel.release.empty() ? release : k.kernel.release;
  col.found = k.kernel.found;
  if (!col.found) {
    // The rows still show, so that the table lines up with the others.
    col.problems.push_back({"", "", k.kernel.error});
    Diagnostics diags;
    std::vector<Problem> ignored;
    if (std::unique_ptr<Script> s = k.parse(file, diags, &ignored))
      for (ProbeDecl *probe : script_probes(*s))
        for (const ProbePoint &pp : probe->points) row_for(*p, pp).on[col.release] = {};
  } else {
    Diagnostics diags;
    std::vector<Problem> whole;
    if (std::unique_ptr<Script> s = k.parse(file, diags, &whole)) {
      std::vector<ProbeDecl *> probes = script_probes(*s);
      for (size_t i = 0; i < probes.size(); ++i) {
        bool sufficient_taken = false;  // an earlier `!` point resolved: the rest are not used
        for (size_t j = 0; j < probes[i]->points.size(); ++j) {
          const ProbePoint &pp = probes[i]->points[j];
          PointResult r = check_point(k, file, i, j);
          r.shadowed = sufficient_taken;
          r.taken = r.state == PointResult::State::Resolved && !sufficient_taken;
          if (r.taken && pp.sufficient) sufficient_taken = true;
          row_for(*p, pp).on[col.release] = std::move(r);
        }
      }
      Elaborated elab;
      if (!k.elaborate_script(*s, &elab, diags)) whole = errors_of(diags);
    }
    col.problems = unexplained(whole, *p, col.release);
  }
  col.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  p->kernels.push_back(std::move(col));
}

std::string cell(const PointRow &row, const PointResult *r) {
  if (!r || r->state == PointResult::State::NotRun) return "-";
  if (r->state == PointResult::State::Failed && r->shadowed) return "unused";
  if (r->state == PointResult::State::Failed) {
    std::string code = r->problems.empty() ? "error" : r->problems.front().code;
    return (row.optional ? "skipped " : "FAILS ") + code;
  }
  std::string sites = std::to_string(r->sites) + (r->sites == 1 ? " site" : " sites");
  return r->taken ? "ok, " + sites : "unused (" + sites + ")";
}

const PointResult *result_on(const PointRow &row, const std::string &release) {
  auto it = row.on.find(release);
  return it == row.on.end() ? nullptr : &it->second;
}

std::string letter(size_t i) { return std::string(1, static_cast<char>('A' + i % 26)); }

// Where kernels differ although the point resolves on each: the
// alternatives an alias took, and the types of the script's target
// expressions.
void print_differences(std::ostream &os, const Preflight &p) {
  bool header = false;
  auto say = [&](const std::string &line) {
    if (!header) os << "\nDifferences between kernels:\n";
    header = true;
    os << "  " << line << "\n";
  };
  for (const auto &row : p.points) {
    std::set<std::vector<std::string>> alternatives;
    std::map<std::string, std::set<std::vector<std::string>>> types;
    for (const auto &col : p.kernels) {
      const PointResult *r = result_on(row, col.release);
      if (!r || r->state != PointResult::State::Resolved) continue;
      alternatives.insert(r->probes);
      for (const auto &[target, t] : r->targets) types[target].insert(t);
    }
    if (alternatives.size() > 1) {
      say(row.where + " " + row.spelling + " resolves to different probes:");
      for (size_t i = 0; i < p.kernels.size(); ++i)
        if (const PointResult *r = result_on(row, p.kernels[i].release);
            r && r->state == PointResult::State::Resolved) {
          std::string names;
          for (const auto &n : r->probes) names += (names.empty() ? "" : ", ") + n;
          if (r->sites > static_cast<int>(r->probes.size())) names += ", ...";
          say("  " + letter(i) + ": " + names);
        }
    }
    for (const auto &[target, variants] : types) {
      if (variants.size() < 2) continue;
      say(row.where + " " + target + " changes type:");
      for (size_t i = 0; i < p.kernels.size(); ++i)
        if (const PointResult *r = result_on(row, p.kernels[i].release)) {
          auto it = r->targets.find(target);
          if (it == r->targets.end()) continue;
          std::string ts;
          for (const auto &t : it->second) ts += (ts.empty() ? "" : " | ") + t;
          say("  " + letter(i) + ": " + ts);
        }
    }
  }
}

void json_problems(std::ostream &os, const std::vector<Problem> &problems) {
  os << "[";
  for (size_t i = 0; i < problems.size(); ++i)
    os << (i ? "," : "") << "{\"code\":" << json::quote(problems[i].code)
       << ",\"where\":" << json::quote(problems[i].where)
       << ",\"text\":" << json::quote(problems[i].message) << "}";
  os << "]";
}

void json_strings(std::ostream &os, const std::vector<std::string> &v) {
  os << "[";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << json::quote(v[i]);
  os << "]";
}

}  // namespace

int Preflight::failures() const {
  int n = 0;
  for (const auto &col : kernels) n += !col.problems.empty();
  for (const auto &row : points) {
    if (row.optional) continue;
    for (const auto &[release, r] : row.on)
      n += r.state == PointResult::State::Failed && !r.shadowed;
  }
  return n;
}

namespace {

// --kernels-from: a bundle's manifest (or its directory), or one release a
// line ('#' starts a comment).
bool kernels_from(const std::string &path, std::vector<std::string> *releases, std::string *err) {
  std::string file = path;
  if (fs::is_directory(path)) file = path + "/manifest.json";
  std::ifstream in(file);
  if (!in) {
    *err = "--kernels-from: cannot read " + file + ": " + strerror(errno);
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  size_t first = s.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && s[first] == '{') {
    std::string perr;
    std::optional<json::Value> manifest = json::parse(s, &perr);
    if (!manifest || (*manifest)["modules"].items().empty()) {
      *err = "--kernels-from: " + file + " is not a bundle manifest with modules" +
             (perr.empty() ? "" : ": " + perr);
      return false;
    }
    for (const auto &m : (*manifest)["modules"].items())
      if (!m["release"].as_string().empty()) releases->push_back(m["release"].as_string());
    return true;
  }
  std::istringstream lines(s);
  for (std::string line; std::getline(lines, line);) {
    line.erase(0, line.find_first_not_of(" \t"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (!line.empty() && line[0] != '#') releases->push_back(line);
  }
  if (releases->empty()) *err = "--kernels-from: " + file + " names no kernel";
  return !releases->empty();
}

}  // namespace

Preflight run_preflight_checks(const Options &o) {
  Preflight p;
  SourceFile file;
  std::vector<std::string> releases = o.kernels;
  std::string err;
  if (!o.kernels_from.empty() && !kernels_from(o.kernels_from, &releases, &err)) {
    std::cerr << "xtap: " << err << "\n";
    return p;
  }
  if (!read_script(o, &file)) return p;
  p.script = file.name;
  if (releases.empty()) releases.push_back(o.kernel);  // "": the running kernel
  std::vector<std::string> seen;
  for (const auto &release : releases) {
    if (std::find(seen.begin(), seen.end(), release) != seen.end()) continue;
    seen.push_back(release);
    check_kernel(o, file, release, &p);
  }
  return p;
}

void print_preflight(std::ostream &os, const Preflight &p, bool verbose) {
  os << "Preflight of " << p.script << " on " << p.kernels.size() << " kernel"
     << (p.kernels.size() == 1 ? "" : "s") << ":\n";
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    const KernelColumn &c = p.kernels[i];
    char secs[32];
    snprintf(secs, sizeof secs, "%.1f s", c.seconds);
    os << "  " << letter(i) << ": " << c.release << (c.found ? "" : " (not found)") << "  [" << secs
       << "]\n";
  }
  size_t width = 11;  // "probe point"
  for (const auto &row : p.points) width = std::max(width, row.spelling.size());
  std::vector<size_t> widths;
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    size_t w = 1;
    for (const auto &row : p.points)
      w = std::max(w, cell(row, result_on(row, p.kernels[i].release)).size());
    widths.push_back(w);
  }
  auto pad = [](const std::string &s, size_t w) {
    return s.size() < w ? s + std::string(w - s.size(), ' ') : s;
  };
  os << "\n" << pad("probe point", width);
  for (size_t i = 0; i < p.kernels.size(); ++i) os << "  " << pad(letter(i), widths[i]);
  os << "\n";
  for (const auto &row : p.points) {
    os << pad(row.spelling, width);
    for (size_t i = 0; i < p.kernels.size(); ++i)
      os << "  " << pad(cell(row, result_on(row, p.kernels[i].release)), widths[i]);
    os << "\n";
  }
  bool header = false;
  auto problem = [&](size_t i, const Problem &pr) {
    if (!header) os << "\nProblems:\n";
    header = true;
    os << "  " << letter(i) << ": " << (pr.where.empty() ? "" : pr.where + ": ")
       << (pr.code.empty() ? "" : "[" + pr.code + "] ") << pr.message << "\n";
  };
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    for (const auto &pr : p.kernels[i].problems) problem(i, pr);
    for (const auto &row : p.points) {
      const PointResult *r = result_on(row, p.kernels[i].release);
      if (!r || r->state != PointResult::State::Failed ||
          ((row.optional || r->shadowed) && !verbose))
        continue;
      for (const auto &pr : r->problems) problem(i, pr);
    }
  }
  print_differences(os, p);
  int n = p.failures();
  os << "\n"
     << (n ? std::to_string(n) + " failure" + (n == 1 ? "" : "s") +
                 ": a required probe point or the script fails on a kernel above"
           : "Every required probe point resolves on every kernel")
     << "\n";
}

void print_preflight_json(std::ostream &os, const Preflight &p) {
  os << "{\"type\":\"preflight\",\"script\":" << json::quote(p.script) << ",\"kernels\":[";
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    const KernelColumn &c = p.kernels[i];
    os << (i ? "," : "") << "{\"release\":" << json::quote(c.release)
       << ",\"found\":" << (c.found ? "true" : "false") << ",\"seconds\":" << c.seconds
       << ",\"problems\":";
    json_problems(os, c.problems);
    os << "}";
  }
  os << "],\"points\":[";
  for (size_t i = 0; i < p.points.size(); ++i) {
    const PointRow &row = p.points[i];
    os << (i ? "," : "") << "{\"point\":" << json::quote(row.spelling)
       << ",\"where\":" << json::quote(row.where)
       << ",\"optional\":" << (row.optional ? "true" : "false") << ",\"kernels\":{";
    bool first = true;
    for (const auto &col : p.kernels) {
      const PointResult *r = result_on(row, col.release);
      if (!r) continue;
      os << (first ? "" : ",") << json::quote(col.release) << ":{\"state\":"
         << json::quote(r->state == PointResult::State::Resolved ? "resolved"
                        : r->state == PointResult::State::Failed ? "failed"
                                                                 : "not-run")
         << ",\"taken\":" << (r->taken ? "true" : "false")
         << ",\"shadowed\":" << (r->shadowed ? "true" : "false") << ",\"sites\":" << r->sites
         << ",\"probes\":";
      json_strings(os, r->probes);
      os << ",\"targets\":{";
      bool tfirst = true;
      for (const auto &[target, types] : r->targets) {
        os << (tfirst ? "" : ",") << json::quote(target) << ":";
        json_strings(os, types);
        tfirst = false;
      }
      os << "},\"problems\":";
      json_problems(os, r->problems);
      os << "}";
      first = false;
    }
    os << "}}";
  }
  os << "],\"failures\":" << p.failures() << "}\n";
}

int run_preflight(const Options &o) {
  Preflight p = run_preflight_checks(o);
  if (p.script.empty()) return 1;  // the script could not be read (said why)
  if (o.json) print_preflight_json(std::cout, p);
  else print_preflight(std::cout, p, o.verbose > 0);
  return p.failures() ? 1 : 0;
}

}  // namespace xtap::cli
