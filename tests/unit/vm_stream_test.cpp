// The VM's data port (cli/vm): frames, the host's follower, the guest's
// streamer of a job's stdout (run here under busybox sh), and run_batch
// handing out a job's output while the guest runs (with a stand-in for
// QEMU that writes a data port file).
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <fstream>

#include "common/elf_file.h"
#include "common/file_io.h"
#include "common/process.h"
#include "temp_dir.h"
#include "vm/data_stream.h"
#include "vm/guest_init.h"
#include "vm/vm.h"

namespace xtap::vm {
namespace {

std::string frame(const std::string &kind, const std::string &name, const std::string &payload) {
  return "@XTAP " + kind + " " + name + " " + std::to_string(payload.size()) + "\n" + payload +
         "\n";
}

void append(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary | std::ios::app) << bytes;
}

const char *kBusybox = "/bin/busybox";

bool have_static_busybox() {
  return access(kBusybox, X_OK) == 0 && !is_dynamically_linked(kBusybox);
}

TEST(VmDataStream, AJobsStdoutComesInPiecesThatJoinUp) {
  std::string s = frame("hello", "-", "6.1.0-test") + frame("begin", "j", "") +
                  frame("out", "j", "one\ntw") + frame("out", "j", "o\n") +
                  frame("err", "j", "warning\n") +
                  frame("status", "j", "exit=0 timed_out=0 elapsed_ms=10 module_left_loaded=0\n");
  ParsedStream p = parse_data_stream(s);
  ASSERT_EQ(p.error, "");
  ASSERT_EQ(p.frames.size(), 6u);
  EXPECT_FALSE(p.truncated);
  EXPECT_EQ(p.consumed, s.size());
  std::string out;
  for (const auto &f : p.frames)
    if (f.kind == "out") out += f.payload;
  EXPECT_EQ(out, "one\ntwo\n");
  EXPECT_EQ(p.frames[4].payload, "warning\n");
}

TEST(VmDataStream, APayloadIsRawBytes) {
  std::string bin("a\0b\n@XTAP out j 3\nxyz\n", 23);
  ParsedStream p = parse_data_stream(frame("out", "j", bin) + frame("done", "-", ""));
  ASSERT_EQ(p.frames.size(), 2u);
  EXPECT_EQ(p.frames[0].payload, bin);
  EXPECT_EQ(p.frames[1].kind, "done");
}

TEST(VmDataStream, AFrameStillComingSaysHowManyBytesItNeeds) {
  std::string whole = frame("begin", "j", "");
  std::string next = frame("out", "j", "0123456789");
  ParsedStream p = parse_data_stream(whole + next.substr(0, 20));
  EXPECT_TRUE(p.truncated);
  EXPECT_EQ(p.frames.size(), 1u);
  EXPECT_EQ(p.consumed, whole.size());
  EXPECT_EQ(p.needed, whole.size() + next.size());
}

TEST(VmDataStream, ErrorsGiveTheirPlaceInTheWholeStream) {
  ParsedStream p = parse_data_stream(frame("out", "j", "ab") + "garbage\n", 0, 1000);
  ASSERT_EQ(p.frames.size(), 1u);
  EXPECT_EQ(p.error, "malformed frame header at byte 1017: 'garbage'");
  p = parse_data_stream("@XTAP out j 2\nabc\n");
  EXPECT_EQ(p.error, "frame out j at byte 0 does not end where its length says");
}

TEST(VmStreamFollower, HandsOutEachFrameOnceItIsWhole) {
  test::TempDir dir;
  std::string path = dir.str("data.bin");
  StreamFollower follower(path);
  EXPECT_TRUE(follower.poll().empty());  // no file yet
  std::string big(200000, 'x');
  std::string s = frame("begin", "j", "") + frame("out", "j", "first\n") + frame("out", "j", big);
  size_t cut1 = frame("begin", "j", "").size() + 9, cut2 = s.size() - 1000;
  append(path, s.substr(0, cut1));
  auto f = follower.poll();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, "begin");
  EXPECT_TRUE(follower.grew());
  EXPECT_TRUE(follower.poll().empty());
  EXPECT_FALSE(follower.grew());
  append(path, s.substr(cut1, cut2 - cut1));
  f = follower.poll();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].payload, "first\n");
  append(path, s.substr(cut2));
  f = follower.poll();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].payload, big);
  EXPECT_EQ(follower.error(), "");
}

TEST(VmStreamFollower, StopsAtAMalformedFrame) {
  test::TempDir dir;
  std::string path = dir.str("data.bin");
  StreamFollower follower(path);
  append(path, frame("out", "j", "ok\n") + "noise\n" + frame("out", "j", "lost\n"));
  auto f = follower.poll();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].payload, "ok\n");
  EXPECT_EQ(follower.error(), "malformed frame header at byte 18: 'noise'");
  append(path, frame("out", "j", "later\n"));
  EXPECT_TRUE(follower.poll().empty());
}

// The guest's streamer, run by busybox sh on this host: its input comes
// back as out frames of at most 64 KiB that join up to it, byte for byte,
// each piece sent as soon as it was written.
class VmGuestStreamer : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_static_busybox()) GTEST_SKIP() << "no busybox-static at " << kBusybox;
    script_ = dir_.write("xtap-stream", guest_stream_script());
    port_ = dir_.str("port");
  }
  // Runs `xtap-stream out job DIR PORT FIFO` with `producer` writing to
  // FIFO, as /init does; the frames on PORT.
  ParsedStream run(const std::string &producer) {
    std::string fifo = dir_.str("stdout");
    process::SpawnSpec s;
    s.argv = {"timeout", "60", "sh", "-c",
              "mkfifo " + fifo + " || exit 1; { " + producer + "; } > " + fifo + " & " + kBusybox +
                  " sh " + script_ + " out job " + dir_.str() + " " + port_ + " " + fifo +
                  "; wait"};
    std::string err;
    EXPECT_EQ(process::run_to_end(s, &err), 0) << err;
    return parse_data_stream(read_file(port_));
  }
  test::TempDir dir_;
  std::string script_, port_;
};

TEST_F(VmGuestStreamer, SendsItsInputInBoundedPiecesThatJoinUp) {
  // 300 KiB of every byte value, newlines and NULs included.
  std::string input;
  for (int i = 0; i < 300 * 1024; i++) input += char((i * 7 + i / 256) & 0xff);
  std::string in = dir_.write("input", input);
  ParsedStream p = run("cat " + in);
  ASSERT_EQ(p.error, "");
  EXPECT_FALSE(p.truncated);
  ASSERT_GE(p.frames.size(), 5u);
  std::string joined;
  for (const auto &f : p.frames) {
    EXPECT_EQ(f.kind, "out");
    EXPECT_EQ(f.name, "job");
    EXPECT_GT(f.payload.size(), 0u);
    EXPECT_LE(f.payload.size(), 65536u);
    joined += f.payload;
  }
  EXPECT_TRUE(joined == input) << "the pieces do not join up to the input";
}

TEST_F(VmGuestStreamer, APieceLeavesAsSoonAsItIsWritten) {
  // Nothing in the pipe for a second between the lines: two frames.
  ParsedStream p = run("{ echo first; sleep 1; echo second; }");
  ASSERT_EQ(p.frames.size(), 2u);
  EXPECT_EQ(p.frames[0].payload, "first\n");
  EXPECT_EQ(p.frames[1].payload, "second\n");
}

TEST_F(VmGuestStreamer, OutputTricklingInIsGatheredIntoFewFrames) {
  // 20 lines 20 ms apart: after a piece that did not fill the pipe the
  // streamer waits 0.2 s for more, so a few frames, not one a line.
  ParsedStream p = run("for i in $(seq 20); do echo line $i; sleep 0.02; done");
  std::string joined, expected;
  for (const auto &f : p.frames) joined += f.payload;
  for (int i = 1; i <= 20; i++) expected += "line " + std::to_string(i) + "\n";
  EXPECT_EQ(joined, expected);
  EXPECT_GE(p.frames.size(), 2u);
  EXPECT_LE(p.frames.size(), 8u);
}

TEST_F(VmGuestStreamer, NoInputNoFrame) {
  ParsedStream p = run("true");
  EXPECT_TRUE(p.frames.empty());
}

// /init's frame functions, run by busybox sh here with a file as the port.
TEST(VmGuestInit, FramesOfFilesAndTextsParseBack) {
  if (!have_static_busybox()) GTEST_SKIP() << "no busybox-static at " << kBusybox;
  test::TempDir dir;
  std::string bin("bytes\0with a NUL\n@XTAP out j 1\n", 30);
  dir.write("payload", bin);
  dir.write("empty", "");
  std::string script = dir.write("frames.sh", "DATA=" + dir.str("port") + " F=" + dir.str("frame") +
                                                  "\n" + guest_frame_functions() +
                                                  "add_text begin j ''\nsend\n"
                                                  "add_file err j " +
                                                  dir.str("empty") +
                                                  "\n"
                                                  "add_text status j 'exit=3 timed_out=0\n'\n"
                                                  "add_file dmesg - " +
                                                  dir.str("payload") + "\nsend\n");
  process::SpawnSpec s;
  s.argv = {kBusybox, "sh", script};
  std::string err;
  ASSERT_EQ(process::run_to_end(s, &err), 0) << err;
  ParsedStream p = parse_data_stream(read_file(dir.str("port")));
  ASSERT_EQ(p.error, "");
  EXPECT_FALSE(p.truncated);
  ASSERT_EQ(p.frames.size(), 4u);
  EXPECT_EQ(p.frames[0].kind, "begin");
  EXPECT_EQ(p.frames[0].payload, "");
  EXPECT_EQ(p.frames[1].kind, "err");
  EXPECT_EQ(p.frames[1].payload, "");
  EXPECT_EQ(p.frames[2].payload, "exit=3 timed_out=0\n");
  EXPECT_EQ(status_field(p.frames[2].payload, "exit"), 3);
  EXPECT_EQ(p.frames[3].payload, bin);
}

TEST(VmGuestInit, TheScriptIsValidBusyboxSh) {
  if (!have_static_busybox()) GTEST_SKIP() << "no busybox-static at " << kBusybox;
  test::TempDir dir;
  GuestJob j;
  j.name = "j1";
  j.argv = {"sh", "-c", "echo 'it''s' \"$x\""};
  j.after = "echo after";
  std::string init = dir.write("init", guest_init_script({j}));
  process::SpawnSpec s;
  s.argv = {kBusybox, "sh", "-n", init};
  s.stderr_path = dir.str("err");
  std::string err;
  EXPECT_EQ(process::run_to_end(s, &err), 0) << read_file(dir.str("err"));
  std::string text = read_file(init);
  // The streamer goes in whole, before the jobs.
  size_t at = text.find(guest_stream_script());
  ASSERT_NE(at, std::string::npos);
  EXPECT_LT(at, text.find("run_job 'j1'"));
}

// run_batch with a stand-in for QEMU that writes the data port file
// itself, as a guest would, a second apart.
class VmRunBatch : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_static_busybox()) GTEST_SKIP() << "no busybox-static at " << kBusybox;
    kernel_ = {"6.1.0-test", "/dev/null", ""};
    job_.name = "script";
    job_.command = "true";
  }
  // A QEMU that writes `frames_sh` (sh lines calling f KIND NAME PAYLOAD)
  // to its second serial port's file.
  std::string fake_qemu(const std::string &frames_sh) {
    return dir_.write(
        "qemu",
        "#!/bin/sh\n"
        "n=0\n"
        "while [ $# -gt 0 ]; do\n"
        "  if [ \"$1\" = -serial ]; then n=$((n + 1)); [ $n = 2 ] && data=${2#file:}; fi\n"
        "  shift\n"
        "done\n"
        "f() { printf '@XTAP %s %s %s\\n%s\\n' \"$1\" \"$2\" \"${#3}\" \"$3\" >> \"$data\"; }\n" +
            frames_sh);
  }
  BatchOptions options(const std::string &qemu) {
    chmod(qemu.c_str(), 0755);
    BatchOptions o;
    o.qemu = qemu;
    o.busybox = kBusybox;
    o.boot_timeout_s = 20;
    return o;
  }
  struct Piece {
    std::string kind, bytes;
    double at_s;
  };
  test::TempDir dir_;
  Kernel kernel_;
  Job job_;
};

const char *kJobFrames =
    "f hello - 6.1.0-test\n"
    "f begin script ''\n"
    "f out script 'first line\n'\n"
    "sleep 2\n"
    "f out script 'second line\n'\n"
    "f err script 'a warning\n'\n"
    "f status script 'exit=3 timed_out=0 elapsed_ms=2000 module_left_loaded=0\n'\n"
    "f dmesg - 'kernel log'\n"
    "f done - ''\n";

TEST_F(VmRunBatch, HandsOutTheOutputWhileTheGuestRuns) {
  BatchOptions o = options(fake_qemu(kJobFrames));
  std::vector<Piece> pieces;
  auto t0 = std::chrono::steady_clock::now();
  o.on_output = [&](const std::string &job, const std::string &kind, const std::string &bytes) {
    EXPECT_EQ(job, "script");
    pieces.push_back(
        {kind, bytes,
         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()});
    return true;
  };
  BatchResult r = run_batch(kernel_, {job_}, o);
  EXPECT_EQ(r.error, "");
  EXPECT_TRUE(r.finished);
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].out, "first line\nsecond line\n");
  EXPECT_EQ(r.jobs[0].err, "a warning\n");
  EXPECT_EQ(r.jobs[0].exit_status, 3);
  EXPECT_EQ(r.kernel_log, "kernel log");
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[0].kind, "out");
  EXPECT_EQ(pieces[0].bytes, "first line\n");
  EXPECT_EQ(pieces[1].bytes, "second line\n");
  EXPECT_EQ(pieces[2].kind, "err");
  // The first line was handed out while the guest slept, not at its end.
  EXPECT_GT(pieces[1].at_s - pieces[0].at_s, 1.0);
}

TEST_F(VmRunBatch, WithoutKeepOutputTheResultHoldsNoStdout) {
  BatchOptions o = options(fake_qemu(kJobFrames));
  std::string seen;
  o.keep_output = false;
  o.on_output = [&](const std::string &, const std::string &kind, const std::string &bytes) {
    if (kind == "out") seen += bytes;
    return true;
  };
  BatchResult r = run_batch(kernel_, {job_}, o);
  EXPECT_TRUE(r.finished);
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].out, "");
  EXPECT_EQ(r.jobs[0].err, "a warning\n");
  EXPECT_EQ(seen, "first line\nsecond line\n");
}

TEST_F(VmRunBatch, OnOutputCanStopTheBatch) {
  BatchOptions o = options(
      fake_qemu("f hello - 6.1.0-test\nf begin script ''\nf out script 'x\n'\nexec sleep 60\n"));
  int calls = 0;
  o.on_output = [&](const std::string &, const std::string &, const std::string &) {
    calls++;
    return false;
  };
  auto t0 = std::chrono::steady_clock::now();
  BatchResult r = run_batch(kernel_, {job_}, o);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0);
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(r.finished);
  EXPECT_NE(r.error.find("stopped by the caller"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("job 'script' was running"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace xtap::vm
