// Pass 5 (run_module.h).
#include "xtap/run_module.h"

#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>

#include "common/process.h"
#include "xtap/progress.h"
#include "xtap/vm_monitor.h"
#include "xtap/vm_output.h"

namespace fs = std::filesystem;

namespace xtap::cli {

bool wants_flame_output(const Options &o) {
  return !o.folded_file.empty() || !o.flamegraph_file.empty();
}

// --folded, --flamegraph, --flame-title, -o, --from-stacks, -q.
flamegraph::OutputFiles flame_files(const Options &o) {
  flamegraph::OutputFiles f;
  f.folded = o.folded_file;
  f.svg = o.flamegraph_file;
  f.rest = o.output_file;
  f.from_stacks = o.from_stacks;
  f.quiet = o.quiet;
  std::string from = !o.from_stacks.empty() ? o.from_stacks : o.script_file;
  f.title = !o.flame_title.empty()        ? o.flame_title
            : from.empty() || from == "-" ? "Flame Graph"
                                          : "Flame Graph: " + fs::path(from).filename().string();
  return f;
}

// "127.0.0.1:9100" -> "9100"
std::string prometheus_port(const std::string &addr_port) {
  size_t colon = addr_port.rfind(':');
  return colon == std::string::npos ? addr_port : addr_port.substr(colon + 1);
}

std::vector<std::string> runner_args(const Options &o) {
  std::vector<std::string> a;
  if (!o.command.empty() && !o.vm) a.insert(a.end(), {"-c", o.command});
  if (o.target_pid) a.insert(a.end(), {"-x", std::to_string(o.target_pid)});
  if (o.timeout_s) a.insert(a.end(), {"-T", std::to_string(o.timeout_s)});
  // With --folded/--flamegraph or --remote the driver reads the output and writes -o itself.
  if (!o.output_file.empty() && !o.vm && !wants_flame_output(o) && o.remotes.empty())
    a.insert(a.end(), {"-o", o.output_file});
  if (!o.switch_spec.empty()) a.insert(a.end(), {"-S", o.switch_spec});
  if (o.bulk) a.push_back("-b");
  if (o.flight) a.push_back("-F");
  if (o.verbose) a.push_back("-v");
  if (o.json) a.insert(a.end(), {"--format", "json"});
  // In a VM the guest listens on every address of its own NIC; the host
  // side of the forward is 127.0.0.1 (run_in_vm).
  if (!o.prometheus.empty())
    a.insert(a.end(),
             {"--prometheus", o.vm ? "0.0.0.0:" + prometheus_port(o.prometheus) : o.prometheus});
  // --vm draws the view here (vm_monitor.h); run_in_vm adds --monitor-feed.
  if (o.monitor_s > 0 && !o.vm) {
    char every[32];
    std::snprintf(every, sizeof(every), "%g", o.monitor_s);
    a.push_back(std::string("--monitor=") + every);
  }
  return a;
}

int run_local(const Options &o, const std::string &ko) {
  if (!fs::exists("/proc/modules")) {
    std::cerr << "xtap: this kernel cannot load modules (built without module support)\n"
                 "  hint: run the script in a throwaway VM with --vm\n";
    return 1;
  }
  std::string runner = vm::sibling_program("xtap-run");
  if (runner.empty()) runner = "xtap-run";
  std::vector<std::string> args = {runner};
  for (auto &a : runner_args(o)) args.push_back(a);
  args.push_back(ko);
  if (wants_flame_output(o)) return flamegraph::run_collecting_stacks(flame_files(o), args);
  std::vector<char *> argv = process::exec_argv(args);
  std::cout.flush();  // --format json diagnostics go before the run's records
  execvp(argv[0], argv.data());
  std::cerr << "xtap: cannot run " << runner << ": " << strerror(errno) << "\n";
  return 1;
}

int run_in_vm(const Options &o, const vm::Kernel &k, const std::string &ko, const VmFiles &files) {
  vm::Job job;
  job.name = "script";
  job.module = ko;
  job.runner_args = runner_args(o);
  job.command = files.command;
  job.cwd = files.cwd;
  job.timeout_s = o.timeout_s ? o.timeout_s + 30 : 600;
  vm::BatchOptions bo;
  bo.xtap_run = vm::sibling_program("xtap-run");
  bo.cpus = o.vm_cpus;
  bo.memory_mb = o.vm_memory_mb;
  bo.verbose = o.verbose > 0;
  bo.extra_files = files.plan.files;
  bo.extra_symlinks = files.plan.symlinks;
  if (run_progress() && !bo.verbose) bo.progress = run_progress()->callback();
  if (bo.xtap_run.empty()) {
    std::cerr << "xtap: xtap-run not found next to xtap\n";
    return 1;
  }
  // --prometheus: QEMU forwards 127.0.0.1:PORT here to the guest's PORT.
  if (!o.prometheus.empty()) {
    std::string port = prometheus_port(o.prometheus);
    int p = port.find_first_not_of("0123456789") == std::string::npos && !port.empty() &&
                    port.size() < 6
                ? std::stoi(port)
                : 0;
    if (p < 1 || p > 65535) {
      std::cerr << "xtap: --prometheus " << o.prometheus << ": PORT is 1 to 65535\n";
      return 1;
    }
    bo.tcp_forwards.emplace_back(p, p);
  }
  // --monitor: the guest serves its snapshots on a free port forwarded here.
  VmMonitor monitor;
  int feed_port = o.monitor_s > 0 && isatty(STDOUT_FILENO) ? free_local_port() : 0;
  if (feed_port) {
    bo.tcp_forwards.emplace_back(feed_port, feed_port);
    job.runner_args.insert(job.runner_args.end(),
                           {"--monitor-feed", "0.0.0.0:" + std::to_string(feed_port)});
    bo.progress = nullptr;  // the view is the progress
  }
  std::string net_dir;
  if (!bo.tcp_forwards.empty()) {
    std::string err;
    char tmpl[] = "/tmp/xtap-vmnet-XXXXXX";
    if (!mkdtemp(tmpl)) {
      std::cerr << "xtap: cannot make a temporary directory: " << strerror(errno) << "\n";
      return 1;
    }
    net_dir = tmpl;
    if (!vm::add_guest_network(k, net_dir, &bo, &job, &err)) {
      std::cerr << "xtap: " << err << "\n";
      fs::remove_all(net_dir);
      return 1;
    }
  }
  // The job's stdout reaches -o FILE or standard output as the guest sends
  // it; its stderr comes whole at its end and follows it, as before.
  flamegraph::StackCollector stacks;
  std::function<void()> clear_progress;
  if (o.output_file.empty() && run_progress()) clear_progress = [] { run_progress()->step(""); };
  VmOutput out(o.output_file, wants_flame_output(o) ? &stacks : nullptr, clear_progress);
  if (!o.output_file.empty() && !out.open()) {
    std::cerr << "xtap: " << out.error() << "\n";
    return 1;
  }
  bo.keep_output = false;
  if (feed_port) {
    std::string title = o.script_file.empty() || o.script_file == "-"
                            ? "-e script"
                            : fs::path(o.script_file).filename().string();
    monitor.start(feed_port, title + " in the " + k.release + " VM", o.monitor_s, o.output_file);
  }
  // -o FILE takes the output as without the view; the pane says so.
  const bool to_pane = o.output_file.empty();
  bo.on_output = [&out, &monitor, to_pane](const std::string &, const std::string &kind,
                                           const std::string &bytes) {
    if (kind != "out") return true;
    if (to_pane && monitor.add_output(bytes)) return true;
    return out.write(bytes);
  };
  // A reader that has gone (xtap --vm ... | head) ends the run, through
  // on_output, instead of the signal.
  signal(SIGPIPE, SIG_IGN);
  vm::BatchResult r = vm::run_batch(k, {job}, bo);
  if (std::string rest = monitor.stop(); !rest.empty()) out.write(rest);
  if (!net_dir.empty()) fs::remove_all(net_dir);
  bool output_failed = !r.jobs.empty() && !out.finish();
  if (output_failed)
    std::cerr << "xtap: " << out.error() << (r.finished ? "" : "; the VM was stopped") << "\n";
  bool flame_failed = false;
  if (!r.jobs.empty()) {
    const auto &j = r.jobs[0];
    std::cerr << j.err;
    if (wants_flame_output(o) && !flamegraph::write_flame_files(flame_files(o), stacks) &&
        j.exit_status == 0)
      flame_failed = true;
    if (j.timed_out) std::cerr << "xtap: the session timed out in the VM\n";
  }
  for (const auto &p : r.kernel_problems)
    std::cerr << "xtap: kernel problem in the VM: " << p << "\n";
  if (output_failed) return 1;
  if (!r.finished) {
    std::cerr << "xtap: VM run did not finish: " << r.error << "\n";
    return 1;
  }
  if (!r.kernel_problems.empty()) return 1;
  return r.jobs.empty() || flame_failed ? 1 : r.jobs[0].exit_status;
}

}  // namespace xtap::cli
