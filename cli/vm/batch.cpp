// run_batch: one VM boot for a batch of jobs.
#include "common/elf_file.h"
#include "common/file_io.h"
#include "common/modinfo.h"
#include "common/module_signature.h"
#include "common/process.h"
#include "vm/data_stream.h"
#include "vm/guest_init.h"
#include "vm/initramfs.h"
#include "vm/vm.h"

#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace xtap::vm {
namespace {

constexpr int kPerJobMarginS = 10;   // framing, module load/unload, output transfer
constexpr int kBatchMarginS = 30;    // power-off, kernel log transfer
constexpr int kDoneGraceMs = 10000;  // wait for power-off after the last frame
constexpr int kSilenceMs = 15000;    // a job past its limit may still be sending output

bool valid_job_name(const std::string& n) {
  if (n.empty() || n == "." || n == ".." || n == "-") return false;
  for (char c : n)
    if (!(std::isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-')) return false;
  return true;
}

// The name the guest kernel will give the module: its name= entry, as
// xtap-run reads it, or the file name's for a file it cannot read (the
// job then fails in the guest with xtap-run's message).
std::string kernel_name_of(const std::string& path) {
  std::string err;
  auto mi = read_modinfo(path, &err);
  return mi ? mi->name : module_name_from_path(path);
}

std::string validate(const std::vector<Job>& jobs, const BatchOptions& opts) {
  std::set<std::string> names;
  bool any_module = false;
  for (const auto& j : jobs) {
    if (!valid_job_name(j.name)) return "invalid job name '" + j.name + "' (use [A-Za-z0-9_.-])";
    if (!names.insert(j.name).second) return "duplicate job name '" + j.name + "'";
    if (j.timeout_s <= 0) return "job " + j.name + ": timeout must be positive";
    if (j.module.empty()) {
      if (j.command.empty()) return "job " + j.name + ": neither a module nor a command";
      continue;
    }
    any_module = true;
    if (access(j.module.c_str(), R_OK) != 0) return "job " + j.name + ": cannot read " + j.module;
  }
  if (any_module) {
    if (opts.xtap_run.empty() || access(opts.xtap_run.c_str(), X_OK) != 0)
      return "xtap-run not found" + (opts.xtap_run.empty() ? "" : " at " + opts.xtap_run);
    if (is_dynamically_linked(opts.xtap_run))
      return opts.xtap_run + " is dynamically linked; the guest needs a static xtap-run";
  }
  // A dynamically linked program is fine only if its loader comes along
  // (the caller then ships its libraries too, as the stap benchmark does).
  bool loader = false;
  for (const auto& [from, to] : opts.extra_files)
    loader |= to.find("/ld-linux") != std::string::npos;
  for (const auto& [from, to] : opts.extra_files) {
    if (access(from.c_str(), R_OK) != 0) return "cannot read " + from;
    if (!loader && is_dynamically_linked(from))
      return from + " is dynamically linked; the guest has no libraries (build it -static)";
  }
  return "";
}

std::string make_work_dir(std::string* error) {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/xtap-vm-XXXXXX";
  if (!mkdtemp(templ.data())) {
    *error = "cannot create a work directory under " + templ;
    return "";
  }
  return templ;
}

// The copy of a module that goes into the guest, without its DWARF: Kbuild
// compiles with the kernel's -g, which makes an xtap module about 5 MB, and
// a batch of a hundred would not fit in the guest's RAM-backed root file
// system. Loading needs none of it. The original when strip cannot run,
// and for a signed module (stripping would break its signature).
std::string guest_copy_of_module(const std::string& ko, const std::string& dir,
                                 const std::string& job) {
  if (has_module_signature(read_file(ko))) return ko;
  process::SpawnSpec s;
  std::string out = dir + "/" + job + ".ko";
  s.argv = {"strip", "--strip-debug", "-o", out, ko};
  std::string err;
  return process::run_to_end(s, &err) == 0 ? out : ko;
}

std::vector<GuestJob> guest_jobs(const std::vector<Job>& jobs, const std::string& dir,
                                 std::vector<std::pair<std::string, std::string>>* files) {
  std::vector<GuestJob> out;
  for (const auto& j : jobs) {
    GuestJob g;
    g.name = j.name;
    g.timeout_s = j.timeout_s;
    g.interrupt_after_ms = j.interrupt_after_ms;
    g.interrupt_signal = j.interrupt_signal;
    g.after = j.after;
    g.before = j.before;
    if (j.module.empty()) {
      g.argv = {"sh", "-c", j.command};
    } else {
      // Keep the module's file name: the kernel and xtap-run know it by it.
      std::string guest = "/jobs/" + j.name + "/" + fs::path(j.module).filename().string();
      files->emplace_back(guest_copy_of_module(j.module, dir, j.name), guest);
      g.module_name = kernel_name_of(j.module);
      g.module_path = guest;
      g.argv = {"xtap-run"};
      g.argv.insert(g.argv.end(), j.runner_args.begin(), j.runner_args.end());
      if (!j.command.empty()) g.argv.insert(g.argv.end(), {"-c", j.command});
      g.argv.push_back(guest);
    }
    // The pid file keeps the job's pid: sh execs what it runs.
    if (!j.cwd.empty())
      g.argv.insert(g.argv.begin(),
                    {"/bin/sh", "-c", "mkdir -p \"$0\" && cd \"$0\" && exec \"$@\"", j.cwd});
    out.push_back(std::move(g));
  }
  return out;
}

// The batch's results, filled in frame by frame as the guest sends them,
// and handed to the caller's on_output as they come.
class Results {
 public:
  Results(BatchResult* r, const std::vector<Job>& jobs, const BatchOptions& opts)
      : r_(r), opts_(opts) {
    for (const auto& j : jobs) {
      r_->jobs.push_back(JobResult{});
      r_->jobs.back().name = j.name;
    }
    for (auto& jr : r_->jobs) by_name_[jr.name] = &jr;
  }

  void add(const Frame& f) {
    if (f.kind == "hello") {
      r_->booted = true;
      return;
    }
    if (f.kind == "dmesg") dmesg = f.payload;
    if (f.kind == "done") done = true;
    auto it = by_name_.find(f.name);
    if (it == by_name_.end()) return;
    JobResult* jr = it->second;
    if (f.kind == "begin") running = f.name;
    if (f.kind == "status") {
      jr->completed = true;
      jr->exit_status = int(status_field(f.payload, "exit"));
      jr->timed_out = status_field(f.payload, "timed_out") == 1;
      jr->elapsed_ms = status_field(f.payload, "elapsed_ms");
      jr->module_left_loaded = status_field(f.payload, "module_left_loaded") > 0;
      running.clear();
    }
    if (f.kind != "out" && f.kind != "err") return;
    if (f.kind == "err") jr->err += f.payload;
    if (f.kind == "out" && opts_.keep_output) jr->out += f.payload;
    if (opts_.on_output && !stopped && !opts_.on_output(f.name, f.kind, f.payload)) stopped = true;
  }

  std::string running;  // the job begun and not ended
  std::string dmesg;
  bool done = false;
  bool stopped = false;  // on_output asked to stop

 private:
  BatchResult* r_;
  const BatchOptions& opts_;
  std::map<std::string, JobResult*> by_name_;
};

// Watches the guest until it powers off, and kills it when it stops making
// progress: no /init report within the boot timeout, a job running past its
// limit plus a margin while the data port is silent, no power-off after the
// last frame, or the whole batch past its overall limit; or when the
// caller's on_output asks to stop. Each frame goes to 'results' as it comes.
struct Watch {
  std::string stop_reason;   // empty: the guest ended by itself
  std::string stream_error;  // the data port's stream is malformed
  double boot_s = -1;
};

Watch watch_guest(pid_t pid, const std::string& data_path, const std::vector<Job>& jobs,
                  const BatchOptions& opts, const std::function<void(const std::string&)>& note,
                  Results* results) {
  Watch w;
  std::map<std::string, const Job*> by_name;
  for (const auto& j : jobs) by_name[j.name] = &j;
  long long start = process::now_ms();
  long long jobs_s = 0;
  for (const auto& j : jobs)
    jobs_s += j.timeout_s + kPerJobMarginS + std::max(0, j.interrupt_after_ms) / 1000;
  const long long boot_deadline = start + opts.boot_timeout_s * 1000LL;
  const long long overall_deadline = boot_deadline + (jobs_s + kBatchMarginS) * 1000LL;
  long long step_deadline = boot_deadline;  // for the current step: boot, a job, between jobs
  long long last_growth = start;
  long long done_at = -1;
  bool hello = false;
  StreamFollower follower(data_path);
  // What the guest wrote before it ended (or was killed) still counts.
  auto last_frames = [&] {
    for (const auto& f : follower.poll()) results->add(f);
    w.stream_error = follower.error();
  };
  int wstatus = 0;
  for (;;) {
    if (process::wait_until(pid, process::now_ms() + 100, &wstatus)) {
      last_frames();
      return w;
    }
    long long now = process::now_ms();
    for (const auto& f : follower.poll()) {
      results->add(f);
      if (f.kind == "hello") {
        hello = true;
        w.boot_s = (now - start) / 1000.0;
        note("guest up after " + std::to_string(w.boot_s).substr(0, 5) + " s");
        if (opts.progress) opts.progress("running in the VM");
      } else if (f.kind == "begin" && by_name.count(f.name)) {
        const Job* j = by_name[f.name];
        step_deadline =
            now +
            (j->timeout_s + std::max(0, j->interrupt_after_ms) / 1000 + kPerJobMarginS) * 1000LL;
        if (opts.verbose) note("job " + f.name);
      } else if (f.kind == "status") {
        step_deadline = now + kPerJobMarginS * 1000LL;
      } else if (f.kind == "done") {
        done_at = now;
      }
    }
    if (follower.grew()) last_growth = now;
    if (results->stopped) w.stop_reason = "stopped by the caller (the output's reader has gone)";
    else if (!hello && now > boot_deadline)
      w.stop_reason = "the VM did not boot within " + std::to_string(opts.boot_timeout_s) + " s";
    else if (now > overall_deadline)
      w.stop_reason = "the batch did not finish within its overall time limit";
    else if (done_at < 0 && now > step_deadline && now - last_growth > kSilenceMs)
      w.stop_reason = "the guest stopped making progress (hung?)";
    else if (done_at >= 0 && now - done_at > kDoneGraceMs)
      w.stop_reason = "the guest did not power off";  // results are complete anyway
    if (!w.stop_reason.empty()) {
      process::kill_and_reap(pid);
      last_frames();
      return w;
    }
  }
}

// Problems from the guest's dmesg and its console (which alone has what
// happened after dmesg was taken, or in a guest that died), each with the
// job that was running when it was logged.
void collect_problems(BatchResult* r, const std::string& dmesg) {
  std::set<std::string> seen;
  for (const std::string* log : {&dmesg, static_cast<const std::string*>(&r->console_log)}) {
    auto problems = scan_kernel_problems(*log);
    std::set<std::string> wanted;
    for (const auto& p : problems)
      if (!seen.count(p)) wanted.insert(p);
    if (wanted.empty()) continue;
    std::istringstream ss(*log);
    std::string line, job;
    static const std::string kMarker = "xtap-vm: job ";
    while (std::getline(ss, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      size_t m = line.find(kMarker);
      if (m != std::string::npos) {
        std::istringstream ls(line.substr(m + kMarker.size()));
        ls >> job;
        continue;
      }
      if (wanted.count(line) && seen.insert(line).second) {
        r->kernel_problems.push_back(line);
        r->kernel_problem_jobs.push_back(job);
      }
    }
  }
}

std::string tail_lines(const std::string& text, int n) {
  size_t pos = text.size();
  for (int i = 0; i <= n && pos != std::string::npos && pos > 0; i++)
    pos = text.rfind('\n', pos - 1);
  return pos == std::string::npos ? text : text.substr(pos + 1);
}

}  // namespace

BatchResult run_batch(const Kernel& kernel, const std::vector<Job>& jobs,
                      const BatchOptions& opts) {
  BatchResult r;
  long long t_start = process::now_ms();
  auto note = [&](const std::string& msg) {
    if (opts.verbose)
      std::fprintf(stderr, "xtap-vm: [%6.1fs] %s\n", (process::now_ms() - t_start) / 1000.0,
                   msg.c_str());
  };
  r.error = validate(jobs, opts);
  if (!r.error.empty()) return r;
  std::string dir = make_work_dir(&r.error);
  if (dir.empty()) return r;

  InitramfsSpec spec;
  spec.busybox = opts.busybox;
  if (!opts.xtap_run.empty()) spec.files.emplace_back(opts.xtap_run, "/bin/xtap-run");
  spec.files.insert(spec.files.end(), opts.extra_files.begin(), opts.extra_files.end());
  spec.symlinks = opts.extra_symlinks;
  spec.init_script = guest_init_script(guest_jobs(jobs, dir, &spec.files));
  std::string initrd = build_initramfs(dir, spec, &r.error);
  if (initrd.empty()) {
    if (!opts.keep_dir) fs::remove_all(dir);
    return r;
  }
  note("initramfs " + initrd + " (" + std::to_string(fs::file_size(initrd) / 1024) + " KiB)");

  std::string console = dir + "/console.log", data = dir + "/data.bin";
  // no_timer_check: on a loaded host the emulated timer can miss the boot's
  // IO-APIC timer test, which then panics ("IO-APIC + timer doesn't work").
  std::string append = "console=ttyS0 loglevel=5 panic=-1 oops=panic edd=off no_timer_check";
  if (!opts.extra_append.empty()) append += " " + opts.extra_append;
  process::SpawnSpec q;
  // TCG only: a KVM boot was seen to hang on these machines. One host
  // thread for all vCPUs: multi-threaded TCG (QEMU 7.2) mis-executes code
  // that another vCPU patches (text_poke_bp while a kprobe or ftrace site is
  // armed or disarmed under load), which oopses the guest with RIP 0; the
  // same runs are clean single-threaded. A guest PAUSE also yields the host
  // thread there, so bounded try-locks still make progress.
  q.argv = {opts.qemu,
            "-accel",
            "tcg,thread=single",
            "-m",
            std::to_string(opts.memory_mb),
            "-smp",
            std::to_string(opts.cpus),
            "-nographic",
            "-no-reboot"};
  if (opts.tcp_forwards.empty()) {
    q.argv.insert(q.argv.end(), {"-net", "none"});
  } else {
    // Only 127.0.0.1 on the host: nothing outside this machine reaches the guest.
    std::string netdev = "user,id=net0";
    for (const auto& [host, guest] : opts.tcp_forwards)
      netdev += ",hostfwd=tcp:127.0.0.1:" + std::to_string(host) + "-:" + std::to_string(guest);
    q.argv.insert(q.argv.end(), {"-netdev", netdev, "-device", "virtio-net-pci,netdev=net0"});
  }
  q.argv.insert(q.argv.end(),
                {"-monitor", "none", "-kernel", kernel.image, "-initrd", initrd, "-append", append,
                 "-serial", "file:" + console, "-serial", "file:" + data});
  q.stdout_path = q.stderr_path = dir + "/qemu.log";
  note("booting " + kernel.release + " under TCG, " + std::to_string(jobs.size()) + " job(s)");
  if (opts.progress) opts.progress("booting a VM of " + kernel.release);
  struct EndStep {
    const BatchOptions& opts;
    ~EndStep() {
      if (opts.progress) opts.progress("");
    }
  } end_step{opts};
  long long t_qemu = process::now_ms();
  pid_t pid = process::spawn(q, &r.error);
  if (pid < 0) {
    if (!opts.keep_dir) fs::remove_all(dir);
    return r;
  }
  Results results(&r, jobs, opts);
  Watch w = watch_guest(pid, data, jobs, opts, note, &results);
  std::string stop_reason = w.stop_reason;
  r.boot_s = w.boot_s;

  r.console_log = read_file(console);
  const std::string& running = results.running;
  const std::string& dmesg = results.dmesg;
  bool done = results.done;
  r.kernel_log = dmesg.empty() ? r.console_log : dmesg;
  collect_problems(&r, dmesg);
  r.finished = done;
  note(std::string(done ? "batch complete" : "batch incomplete") + " after " +
       std::to_string((process::now_ms() - t_qemu) / 1000.0).substr(0, 5) + " s");

  if (!done) {
    std::string why = stop_reason;
    if (why.empty()) {
      why = "the VM stopped before the batch was complete";
      for (const auto& p : r.kernel_problems)
        if (p.find("Kernel panic") != std::string::npos) why += " (" + p + ")";
      std::string qlog = read_file(dir + "/qemu.log");
      if (!qlog.empty()) why += "; qemu: " + tail_lines(qlog, 5);
    }
    if (!running.empty()) why += "; job '" + running + "' was running";
    if (!w.stream_error.empty()) why += "; data port: " + w.stream_error;
    if (!r.booted) why += "; console tail:\n" + tail_lines(r.console_log, 20);
    r.error = why;
  } else if (!w.stream_error.empty()) {
    r.error = "data port: " + w.stream_error;
  }
  if (opts.keep_dir) r.work_dir = dir;
  else fs::remove_all(dir);
  r.total_s = (process::now_ms() - t_start) / 1000.0;
  return r;
}

}  // namespace xtap::vm
