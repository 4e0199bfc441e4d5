// xtap-run: load a prebuilt xtap module, relay its output, unload it.
#include <getopt.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/build_id.h"
#include "monitor/view.h"
#include "runner/bundle.h"
#include "runner/cleanup.h"
#include "runner/kmod.h"
#include "runner/privilege.h"
#include "runner/session.h"

namespace {

void usage(FILE* f) {
  std::fprintf(
      f,
      "Usage: xtap-run [-b] [-F] [-o FILE [-S SIZE[,N]]] [-c CMD] [-x PID] [-T SECONDS] [-v] "
      "[--prometheus ADDR:PORT] [--monitor[=SECONDS]] [--aggregates FILE] "
      "MODULE.ko|BUNDLE_DIR\n"
      "       xtap-run -A NAME [-b] [-o FILE] [-T SECONDS] [-v]\n"
      "       xtap-run --cleanup [-v]\n"
      "  -o FILE     write script output to FILE instead of stdout\n"
      "  -b          bulk mode: each CPU's output to its own file, FILE_cpuN (stpd_cpuN without "
      "-o)\n"
      "  -F          flight-recorder mode: without -o, leave the module running detached, keeping\n"
      "              its newest output in memory (xtap-run -A prints it); with -o, collect in the\n"
      "              background\n"
      "  -A NAME     attach to the detached module NAME: print what it kept, go on until stopped,\n"
      "              then remove it\n"
      "  -S SIZE[,N] with -o: write FILE.0, FILE.1 ..., the next one every SIZE MB (0: only at\n"
      "              switch_file()) and at each switch_file(); keep the last N\n"
      "  -c CMD      run CMD (words run directly, shell syntax through /bin/sh -c) once probes are "
      "armed; stop when it exits\n"
      "  -x PID      set target() to PID\n"
      "  -T SECONDS  stop after SECONDS\n"
      "  -v          report progress on stderr\n"
      "  --format json  output, warnings, errors and the end summary as one JSON object a line\n"
      "  --prometheus ADDR:PORT  serve the script's globals and the probe counters as\n"
      "              Prometheus metrics on http://ADDR:PORT/metrics while it runs\n"
      "  --monitor[=SECONDS]  a live view on the terminal, refreshed every SECONDS (1):\n"
      "              probe hits and times (-t), globals, the output; keys s sort, p pause,\n"
      "              r reset, q quit (end probes run); plain output when not a terminal\n"
      "  --monitor-feed ADDR:PORT  serve the snapshots to a --monitor view elsewhere\n"
      "              (xtap --vm --monitor)\n"
      "  --aggregates FILE  after the end probes, write the script's globals (counts,\n"
      "              histograms, percentile sketches, arrays) to FILE for xtap --merge\n"
      "  --cleanup   stop and remove xtap modules left behind by a collector that died\n");
}

}  // namespace

int main(int argc, char** argv) {
  // Setuid root for a member of group xtapusr (docs/safety.md, "Privilege
  // model"): the caller and the environment are checked before anything else.
  const bool as_member = xtap::runner::setuid_mode();
  if (as_member) {
    if (std::string why = xtap::runner::enter_setuid_mode(); !why.empty()) {
      std::fprintf(stderr, "xtap-run: %s\n", why.c_str());
      return 1;
    }
  }
  xtap::runner::Options opt;
  int c;
  bool cleanup = false;
  static const option long_options[] = {{"aggregates", required_argument, nullptr, 'G'},
                                        {"cleanup", no_argument, nullptr, 'C'},
                                        {"format", required_argument, nullptr, 'J'},
                                        {"help", no_argument, nullptr, 'h'},
                                        {"prometheus", required_argument, nullptr, 'P'},
                                        {"monitor", optional_argument, nullptr, 'M'},
                                        {"monitor-feed", required_argument, nullptr, 'N'},
                                        {nullptr, 0, nullptr, 0}};
  while ((c = getopt_long(argc, argv, "+o:S:c:x:T:vhbFA:", long_options, nullptr)) != -1) {
    char* end = nullptr;
    switch (c) {
      case 'o': opt.output = optarg; break;
      case 'S': opt.switch_spec = optarg; break;
      case 'c': opt.command = optarg; break;
      case 'x':
        opt.target_pid = std::strtol(optarg, &end, 10);
        if (*end || opt.target_pid <= 0) {
          std::fprintf(stderr, "xtap-run: invalid pid '%s'\n", optarg);
          return 1;
        }
        break;
      case 'T':
        opt.timeout_s = std::strtod(optarg, &end);
        if (*end || opt.timeout_s <= 0) {
          std::fprintf(stderr, "xtap-run: invalid timeout '%s'\n", optarg);
          return 1;
        }
        break;
      case 'v': opt.verbose = true; break;
      case 'b': opt.bulk = true; break;
      case 'F': opt.flight = true; break;
      case 'A': opt.attach = optarg; break;
      case 'C': cleanup = true; break;
      case 'P': opt.prometheus = optarg; break;
      case 'M': {
        auto every = xtap::monitor::parse_interval(optarg ? optarg : "");
        if (!every) {
          std::fprintf(stderr, "xtap-run: --monitor=%s: SECONDS from 0.1 to 3600\n", optarg);
          return 1;
        }
        opt.monitor_s = *every;
        break;
      }
      case 'N': opt.monitor_feed = optarg; break;
      case 'G': opt.aggregates = optarg; break;
      case 'J':
        if (std::strcmp(optarg, "json") != 0 && std::strcmp(optarg, "text") != 0) {
          std::fprintf(stderr, "xtap-run: --format %s: use text or json\n", optarg);
          return 1;
        }
        opt.json = !std::strcmp(optarg, "json");
        break;
      case 'h': usage(stdout); return 0;
      default: usage(stderr); return 1;
    }
  }
  if (as_member) {
    std::string why = cleanup ? "--cleanup removes modules others started" : "";
    if (why.empty()) why = xtap::runner::refused_option(opt);
    if (!why.empty()) {
      std::fprintf(stderr, "xtap-run: as a member of group %s: %s; only root may\n",
                   xtap::runner::kPrivilegeGroup, why.c_str());
      return 1;
    }
  }
  if (cleanup) {
    if (optind != argc) {
      usage(stderr);
      return 1;
    }
    return xtap::runner::cleanup_orphans(opt.verbose);
  }
  if (!opt.attach.empty()) {
    if (optind != argc || opt.flight || !opt.command.empty() || opt.target_pid) {
      std::fprintf(stderr,
                   "xtap-run: -A NAME attaches to a running module: no MODULE, -F, -c or -x\n");
      return 1;
    }
    return xtap::runner::run_session(opt);
  }
  if (optind != argc - 1) {
    usage(stderr);
    return 1;
  }
  if (!opt.command.empty() && opt.target_pid) {
    std::fprintf(stderr, "xtap-run: -c and -x are mutually exclusive\n");
    return 1;
  }
  if (!opt.aggregates.empty() && opt.flight && opt.output.empty()) {
    std::fprintf(stderr,
                 "xtap-run: --aggregates needs a session that ends here: -F without -o leaves "
                 "the module running detached\n");
    return 1;
  }
  opt.module = argv[optind];
  if (xtap::runner::is_bundle(opt.module)) {
    std::string module, error;
    std::string release = xtap::runner::kernel_release();
    xtap::runner::AsCaller user;  // a bundle is read as its user may
    if (!xtap::runner::pick_from_bundle(opt.module, release, xtap::running_kernel_build_id(),
                                        &module, &error)) {
      std::fprintf(stderr, "xtap-run: %s\n", error.c_str());
      return 1;
    }
    if (opt.verbose)
      std::fprintf(stderr, "xtap-run: %s: the module for %s\n", module.c_str(), release.c_str());
    opt.module = module;
  }
  if (as_member) {
    std::string why = xtap::runner::approve_module(&opt, xtap::runner::kernel_release());
    if (!why.empty()) {
      std::fprintf(stderr, "xtap-run: %s\n", why.c_str());
      return 1;
    }
  }
  return xtap::runner::run_session(opt);
}
