// xtap-vmbatch: run a batch of prebuilt xtap modules (or plain commands) in
// one throwaway VM boot and write the results into a directory.
//
// Usage: xtap-vmbatch [options] MANIFEST OUTDIR
//   --kernel REL      kernel release (default: newest installed cloud kernel)
//   --xtap-run PATH   static xtap-run (default: the one next to this program)
//   --keep            keep the VM work directory (initramfs, console, data port)
//   -v                progress on stderr
//
// Manifest: one directive a line, "KEY VALUE" (VALUE is the rest of the line,
// verbatim); blank lines and lines starting with '#' are ignored. Global
// directives come before the first job:
//
//   xtap-run PATH           as --xtap-run
//   memory-mb N             guest memory (1024)
//   cpus N                  guest CPUs (2)
//   boot-timeout N          seconds until the guest's /init must report (60)
//   append ARGS             add ARGS to the guest kernel's command line
//                           (e.g. module.sig_enforce=1)
//   forward HOST_PORT GUEST_PORT   give the guest a virtio-net NIC on QEMU's
//                           user network and forward 127.0.0.1:HOST_PORT to
//                           its GUEST_PORT (repeat for more; the guest's
//                           driver and address are the jobs' business)
//   file GUEST_PATH HOST_PATH   copy HOST_PATH into the guest (e.g. a static
//                           workload at /usr/bin/NAME); GUEST_PATH has no spaces
//
// A job starts with "job NAME" ([A-Za-z0-9_.-], unique); its directives follow:
//
//   module PATH             the .ko to run with xtap-run (none: run command alone)
//   arg ARG                 one extra xtap-run argument (repeat for more)
//   command CMD             xtap-run -c CMD (or the whole job without a module)
//   timeout N               guest-side limit in seconds (60), SIGKILL after it
//   interrupt-after-ms N    send SIGINT to xtap-run after N ms
//   interrupt-signal SIG    send SIG (INT, TERM or KILL) instead
//   after CMD               sh -c CMD once xtap-run has ended (its output
//                           is appended to the job's), before the clean-up
//
// Results in OUTDIR: per job NAME.out, NAME.err and NAME.status (one
// "key=value" a line: exit, timed_out, completed, module_left_loaded,
// elapsed_ms); kernel.log (guest dmesg), console.log, problems.txt (one
// "JOB<TAB>LINE" per kernel problem, JOB "-" when none was running) and
// batch.txt (booted, finished, error, boot_s, total_s).
//
// Exit status: 0 all jobs ran and the kernel log is clean, 1 kernel problems
// were found, 2 the VM did not boot or the batch did not finish, 3 usage or
// manifest error. A job's own exit status is in its .status file.
#include "vm/vm.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
using xtap::vm::BatchOptions;
using xtap::vm::Job;

namespace {

int usage(const std::string& msg) {
  if (!msg.empty()) std::cerr << "xtap-vmbatch: " << msg << "\n";
  std::cerr
      << "usage: xtap-vmbatch [--kernel REL] [--xtap-run PATH] [--keep] [-v] MANIFEST OUTDIR\n";
  return 3;
}

bool parse_int(const std::string& s, int* out) {
  try {
    size_t n = 0;
    *out = std::stoi(s, &n);
    return n == s.size();
  } catch (...) {
    return false;
  }
}

bool parse_manifest(const std::string& path, std::vector<Job>* jobs, BatchOptions* opts,
                    std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read " + path;
    return false;
  }
  std::string line;
  int lineno = 0;
  auto fail = [&](const std::string& msg) {
    *error = path + ":" + std::to_string(lineno) + ": " + msg;
    return false;
  };
  while (std::getline(in, line)) {
    lineno++;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    line = line.substr(start);
    size_t sp = line.find_first_of(" \t");
    std::string key = line.substr(0, sp);
    std::string value = sp == std::string::npos ? "" : line.substr(sp + 1);
    int n = 0;
    Job* job = jobs->empty() ? nullptr : &jobs->back();
    if (key == "job") {
      jobs->push_back(Job{});
      jobs->back().name = value;
    } else if (key == "xtap-run" && !job) {
      opts->xtap_run = value;
    } else if (key == "memory-mb" && !job) {
      if (!parse_int(value, &opts->memory_mb)) return fail("bad number '" + value + "'");
    } else if (key == "cpus" && !job) {
      if (!parse_int(value, &opts->cpus)) return fail("bad number '" + value + "'");
    } else if (key == "boot-timeout" && !job) {
      if (!parse_int(value, &opts->boot_timeout_s)) return fail("bad number '" + value + "'");
    } else if (key == "append" && !job) {
      opts->extra_append += (opts->extra_append.empty() ? "" : " ") + value;
    } else if (key == "forward" && !job) {
      std::istringstream ports(value);
      int host = 0, guest = 0;
      std::string rest;
      if (!(ports >> host >> guest) || (ports >> rest) || host <= 0 || host > 65535 || guest <= 0 ||
          guest > 65535)
        return fail("forward needs HOST_PORT GUEST_PORT, not '" + value + "'");
      opts->tcp_forwards.emplace_back(host, guest);
    } else if (key == "file" && !job) {
      size_t s = value.find(' ');
      if (s == std::string::npos) return fail("file needs GUEST_PATH HOST_PATH");
      opts->extra_files.emplace_back(value.substr(s + 1), value.substr(0, s));
    } else if (key == "module" && job) {
      job->module = value;
    } else if (key == "arg" && job) {
      job->runner_args.push_back(value);
    } else if (key == "command" && job) {
      job->command = value;
    } else if (key == "timeout" && job) {
      if (!parse_int(value, &n)) return fail("bad number '" + value + "'");
      job->timeout_s = n;
    } else if (key == "interrupt-after-ms" && job) {
      if (!parse_int(value, &n)) return fail("bad number '" + value + "'");
      job->interrupt_after_ms = n;
    } else if (key == "interrupt-signal" && job) {
      if (value != "INT" && value != "TERM" && value != "KILL")
        return fail("interrupt-signal takes INT, TERM or KILL, not '" + value + "'");
      job->interrupt_signal = value;
    } else if (key == "after" && job) {
      job->after = value;
    } else if (key == "before" && job) {
      job->before = value;
    } else {
      return fail("unknown directive '" + key + "'" +
                  (job ? " in a job" : " before the first job"));
    }
  }
  return true;
}

bool write(const fs::path& p, const std::string& data) {
  std::ofstream f(p, std::ios::binary);
  f << data;
  return bool(f);
}

}  // namespace

int main(int argc, char** argv) {
  std::string release, xtap_run, manifest, outdir;
  bool keep = false, verbose = false;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if ((a == "--kernel" || a == "--xtap-run") && i + 1 < argc) {
      (a == "--kernel" ? release : xtap_run) = argv[++i];
    } else if (a == "--keep") {
      keep = true;
    } else if (a == "-v") {
      verbose = true;
    } else if (a == "-h" || a == "--help") {
      return usage(""), 0;
    } else if (!a.empty() && a[0] == '-') {
      return usage("unknown option " + a);
    } else {
      positional.push_back(a);
    }
  }
  if (positional.size() != 2) return usage("need MANIFEST and OUTDIR");
  manifest = positional[0];
  outdir = positional[1];

  std::vector<Job> jobs;
  BatchOptions opts;
  std::string error;
  if (!parse_manifest(manifest, &jobs, &opts, &error)) return usage(error);
  if (!xtap_run.empty()) opts.xtap_run = xtap_run;
  if (opts.xtap_run.empty()) opts.xtap_run = xtap::vm::sibling_program("xtap-run");
  opts.keep_dir = keep;
  opts.verbose = verbose;

  auto kernel = xtap::vm::find_vm_kernel(release, &error);
  if (!kernel) {
    std::cerr << "xtap-vmbatch: " << error << "\n";
    return 2;
  }
  std::error_code ec;
  fs::create_directories(outdir, ec);
  if (ec) {
    std::cerr << "xtap-vmbatch: cannot create " << outdir << ": " << ec.message() << "\n";
    return 3;
  }

  auto r = xtap::vm::run_batch(*kernel, jobs, opts);
  fs::path out(outdir);
  for (const auto& j : r.jobs) {
    write(out / (j.name + ".out"), j.out);
    write(out / (j.name + ".err"), j.err);
    std::ostringstream st;
    st << "exit=" << j.exit_status << "\ntimed_out=" << j.timed_out << "\ncompleted=" << j.completed
       << "\nmodule_left_loaded=" << j.module_left_loaded << "\nelapsed_ms=" << j.elapsed_ms
       << "\n";
    write(out / (j.name + ".status"), st.str());
  }
  write(out / "kernel.log", r.kernel_log);
  write(out / "console.log", r.console_log);
  std::string problems;
  for (size_t i = 0; i < r.kernel_problems.size(); i++) {
    const std::string& job = r.kernel_problem_jobs[i];
    problems += (job.empty() ? "-" : job) + "\t" + r.kernel_problems[i] + "\n";
  }
  write(out / "problems.txt", problems);
  std::ostringstream b;
  b << "kernel=" << kernel->release << "\nbooted=" << r.booted << "\nfinished=" << r.finished
    << "\nerror=" << r.error << "\nboot_s=" << r.boot_s << "\ntotal_s=" << r.total_s << "\n";
  if (!r.work_dir.empty()) b << "work_dir=" << r.work_dir << "\n";
  write(out / "batch.txt", b.str());

  if (!r.work_dir.empty()) std::cerr << "xtap-vmbatch: work directory kept: " << r.work_dir << "\n";
  if (!r.error.empty()) std::cerr << "xtap-vmbatch: " << r.error << "\n";
  if (!r.kernel_problems.empty()) {
    std::cerr << "xtap-vmbatch: kernel problems in the guest's log:\n" << problems;
    if (r.finished) return 1;
  }
  if (!r.booted || !r.finished) return 2;
  if (verbose)
    std::cerr << "xtap-vmbatch: " << r.jobs.size() << " job(s) in " << r.total_s << " s (boot "
              << r.boot_s << " s)\n";
  return 0;
}
