// The guest's /init: a busybox sh script that runs the batch and streams
// results to the host over the data serial port.
//
// Data port format (ttyS1, raw mode, so bytes pass unchanged): a sequence of
// frames, each
//
//     @XTAP <kind> <name> <length>\n<length raw bytes>\n
//
// kind  name  payload
// hello -     `uname -r` of the guest: /init is up
// begin JOB   empty: JOB starts (the host knows which job a crash hit)
// out   JOB   a piece of the job's stdout (then its after command's), at
//             most 64 KiB, sent while the job runs as soon as it is
//             written; zero or more per job, in order: together they are
//             the whole stdout
// err   JOB   the job's stderr, whole, once the job has ended
// status JOB  "exit=N timed_out=0|1 elapsed_ms=N module_left_loaded=0|1|2\n"
// dmesg -     the kernel log after the last job
// done  -     empty: the batch is complete, power-off follows
//
// One writer at a time: /init writes every frame but a job's out frames,
// which its streamer (/bin/xtap-stream, guest_stream_script()) writes between the job's begin and
// its err frame. Every frame is put together in a file and written by dd
// with one open/close of the tty (no shell writes to it: see send()), and
// the last close of a serial tty waits until its output has drained, so
// power-off cannot cut a frame short.
#ifndef XTAP_VM_GUEST_INIT_H
#define XTAP_VM_GUEST_INIT_H

#include <string>
#include <vector>

namespace xtap::vm {

struct GuestJob {
  std::string name;
  std::string module_name;        // kernel module name ("" for command-only jobs)
  std::string module_path;        // its guest path, $XTAP_JOB_KO in the job's environment
  std::vector<std::string> argv;  // what to run, argv[0] a guest path or PATH name
  int timeout_s = 60;
  int interrupt_after_ms = -1;
  std::string interrupt_signal = "INT";
  std::string after;  // sh command after the job's process ends; its output joins the job's
  std::string
      before;  // sh command before the job starts (loading a helper module); output to its stderr
};

std::string guest_init_script(const std::vector<GuestJob>& jobs);

// The guest's /bin/xtap-stream, which /init writes: `xtap-stream KIND NAME
// DIR PORT` sends its standard input to PORT as KIND NAME frames of at most
// 64 KiB as it reads it (DIR: its scratch directory).
std::string guest_stream_script();

// /init's sh functions that write frames to $DATA through the scratch file
// $F: `add_file KIND NAME FILE` and `add_text KIND NAME TEXT` put a frame
// together, `send` writes what was put together.
std::string guest_frame_functions();

// 'text' quoted for sh.
std::string shell_quote(const std::string& text);

}  // namespace xtap::vm

#endif
