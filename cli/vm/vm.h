// Throwaway VMs: run prebuilt xtap modules in a QEMU guest of an installed
// Debian kernel.
//
// One run_batch() call builds an initramfs (busybox-static, xtap-run, the
// modules, extra files and a generated /init), boots it under TCG, runs the
// jobs one after the other in the guest and returns their output, exit
// status and the guest's kernel log. The guest streams results over a
// dedicated serial port (ttyS1) in a framed format (see guest_init.h): a
// job's stdout while it runs, the rest of its results when it ends, so that
// a caller can show output as it comes and a guest that dies midway still
// reports what it finished.
//
// Used by `xtap --vm` (one job) and by `xtap-vmbatch` (the runtime test
// engine's batch).
#ifndef XTAP_VM_VM_H
#define XTAP_VM_VM_H

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace xtap::vm {

struct Kernel {
  std::string release;    // "6.1.0-56-cloud-amd64"
  std::string image;      // /boot/vmlinuz-RELEASE
  std::string build_dir;  // /lib/modules/RELEASE/build
};

// An installed kernel usable for a VM: vmlinuz readable and a build dir
// present. An empty release picks the newest installed Debian cloud kernel
// (/boot/vmlinuz-*-cloud-amd64); otherwise exactly that release. On failure
// returns nullopt and says why (with the fix) in *why_not.
std::optional<Kernel> find_vm_kernel(const std::string& release, std::string* why_not);

// Every release find_vm_kernel("") could pick from, newest first.
std::vector<Kernel> list_vm_kernels();

struct Job {
  std::string name;                      // unique, [A-Za-z0-9_.-]
  std::string module;                    // host path of a .ko, or empty: run `command` alone
  std::vector<std::string> runner_args;  // extra xtap-run args (-T 5, -o ...)
  std::string command;                   // -c CMD for xtap-run (the whole job when module is empty)
  int timeout_s = 60;                    // guest-side limit: SIGKILL after it
  int interrupt_after_ms = -1;           // >= 0: SIGINT to xtap-run after this delay
  std::string interrupt_signal =
      "INT";           // the signal interrupt-after-ms sends (KILL: a dying collector)
  std::string after;   // sh command run once xtap-run has ended, before clean-up
  std::string before;  // sh command run before xtap-run starts (insmod a helper)
  std::string cwd;     // the guest directory it runs in (made if missing); "": /
};

struct JobResult {
  std::string name;
  std::string out, err;             // whole stdout (empty without keep_output) and stderr
  int exit_status = -1;             // as the guest shell saw it (128+N: killed by signal N)
  bool timed_out = false;           // killed by the guest-side limit
  bool completed = false;           // the guest reported this job's results
  bool module_left_loaded = false;  // the module was still loaded after xtap-run ended
  long elapsed_ms = -1;             // guest time, 10 ms resolution
};

struct BatchOptions {
  std::string xtap_run;  // host path of the static xtap-run (required when a job has a module)
  std::vector<std::pair<std::string, std::string>> extra_files;  // host path -> guest path
  // guest path -> the guest path it links to (another name of an extra file)
  std::vector<std::pair<std::string, std::string>> extra_symlinks;
  int memory_mb = 1024;
  int cpus = 2;
  int boot_timeout_s = 60;  // until the guest's /init reports in
  bool keep_dir = false;    // keep the work dir (initramfs, console.log, data.bin)
  bool verbose = false;     // progress on stderr
  // Told "booting ..." and "running ..." as the batch gets there, "" at its
  // end (xtap --vm draws it on a terminal). Empty: no one listens.
  std::function<void(const std::string&)> progress;
  // Told each piece of a job's output as the guest sends it: kind "out", a
  // piece of its stdout while it runs (in order; together they are
  // JobResult::out), and "err", its stderr, once it has ended. Returning
  // false stops the batch (the output's reader has gone): the VM is killed
  // and BatchResult::error says so. Empty: no one listens.
  std::function<bool(const std::string& job, const std::string& kind, const std::string& bytes)>
      on_output;
  // false: JobResult::out stays empty (on_output has had it), so that a long
  // session's output is not held in memory.
  bool keep_output = true;
  std::string busybox = "/bin/busybox";  // must be statically linked
  std::string qemu = "qemu-system-x86_64";
  std::string extra_append;  // appended to the kernel command line
  // Host TCP ports on 127.0.0.1 forwarded to guest ports (QEMU user
  // networking with a virtio-net NIC; the guest configures it as 10.0.2.15,
  // see docs/testing.md). Empty: the guest has no network.
  std::vector<std::pair<int, int>> tcp_forwards;  // host port -> guest port
};

// Gives the guest a network card for tcp_forwards: the kernel's virtio
// drivers (unpacked into work_dir, which must outlive the batch) go into
// the initramfs, and job->before loads them and configures eth0.
bool add_guest_network(const Kernel& k, const std::string& work_dir, BatchOptions* bo, Job* job,
                       std::string* error);

struct BatchResult {
  bool booted = false;                       // the guest's /init started and reported
  bool finished = false;                     // every job ran and the guest powered off cleanly
  std::string error;                         // why the batch did not finish, empty if it did
  std::vector<JobResult> jobs;               // one per Job, in order
  std::string kernel_log;                    // guest dmesg (console log if dmesg never arrived)
  std::string console_log;                   // the guest's serial console
  std::vector<std::string> kernel_problems;  // BUG:|Oops|WARNING:|soft lockup|...
  std::vector<std::string>
      kernel_problem_jobs;  // job running when each problem was logged ("" if none)
  std::string work_dir;     // set when kept
  double boot_s = -1;       // host seconds from qemu start to /init reporting
  double total_s = -1;      // host seconds for the whole batch
};

BatchResult run_batch(const Kernel& kernel, const std::vector<Job>& jobs, const BatchOptions& opts);

// Lines of a kernel log that signal a kernel problem (oops, warning, lockup,
// RCU stall, ...).
std::vector<std::string> scan_kernel_problems(const std::string& log);

// Path of a program next to the running executable (e.g. the static
// xtap-run next to xtap) or in its ../libexec/xtap, or empty if there is none.
std::string sibling_program(const std::string& name);

}  // namespace xtap::vm

#endif
