// The runner's relay reader on real files in the layout of the module's
// debugfs directory (trace0, trace1, ...): records of several CPUs merged by
// sequence number, gaps, records cut between reads, corrupt streams. A FIFO
// stands in for a relay file that grows while the reader runs.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <xtap/abi.h>

#include "common/file_io.h"
#include "runner/relay_reader.h"
#include "temp_dir.h"

namespace xtap::runner {
namespace {

std::string record(uint64_t seq, const std::string &text, uint16_t type = XTAP_REC_TEXT) {
  xtap_rec_hdr h{};
  h.size = sizeof h + text.size();
  h.type = type;
  h.seq = seq;
  return std::string(reinterpret_cast<const char *>(&h), sizeof h) + text;
}

class Relay : public testing::Test {
 protected:
  void SetUp() override {
    out_ = ::open(dir_.str("out").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ASSERT_GE(out_, 0);
  }
  void TearDown() override { ::close(out_); }
  // Opens the trace files, reads them to their end and returns the output.
  std::string run(unsigned ncpus, uint64_t max_record = 4096) {
    std::string err;
    EXPECT_TRUE(reader_.open(dir_.str(), ncpus, max_record, &err)) << err;
    reader_.start(out_);
    reader_.finish();
    return output();
  }
  std::string output() const { return read_file(dir_.str("out")); }

  test::TempDir dir_;
  RelayReader reader_;
  int out_ = -1;
};

TEST_F(Relay, MergesCpusBySequenceNumber) {
  dir_.write("trace0", record(1, "a\n") + record(3, "c\n") + record(4, "d\n"));
  dir_.write("trace1", record(2, "b\n") + record(5, "e\n"));
  EXPECT_EQ(run(2), "a\nb\nc\nd\ne\n");
  EXPECT_EQ(reader_.records(), 5u);
  EXPECT_EQ(reader_.corrupt(), 0u);
}

TEST_F(Relay, ADroppedRecordDoesNotHoldBackTheRest) {
  dir_.write("trace0", record(1, "a\n") + record(4, "d\n"));
  dir_.write("trace1", record(3, "c\n"));
  EXPECT_EQ(run(2), "a\nc\nd\n");
}

TEST_F(Relay, OfflineCpusHaveNoFile) {
  dir_.write("trace1", record(1, "a\n"));
  EXPECT_EQ(run(4), "a\n");
}

TEST_F(Relay, NoFileAtAllIsAnError) {
  std::string err;
  EXPECT_FALSE(reader_.open(dir_.str(), 2, 4096, &err));
  EXPECT_EQ(err, "no relay files in " + dir_.str());
}

TEST_F(Relay, ACorruptStreamIsCountedAndTheOtherCpusGoOn) {
  dir_.write("trace0", record(1, "a\n") + record(3, std::string(5000, 'x')) + record(4, "d\n"));
  dir_.write("trace1", record(2, "b\n") + record(5, "e\n"));
  EXPECT_EQ(run(2), "a\nb\ne\n");
  EXPECT_EQ(reader_.corrupt(), 1u);
}

TEST_F(Relay, RecordsOfANewerKindKeepTheirPlace) {
  dir_.write("trace0", record(1, "a\n") + record(2, "binary", 99) + record(3, "c\n"));
  EXPECT_EQ(run(1), "a\nc\n");
}

// The reader thread meets a record cut in two by the writer, and a record
// that arrives after the reader gave its sequence number up for lost.
TEST_F(Relay, GrowingFilesCutRecordsAndLateRecords) {
  dir_.write("trace0", record(1, "one\n") + record(3, "three\n"));
  ASSERT_EQ(mkfifo(dir_.str("trace1").c_str(), 0600), 0);
  std::string err;
  ASSERT_TRUE(reader_.open(dir_.str(), 2, 4096, &err)) << err;
  int fifo = ::open(dir_.str("trace1").c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(fifo, 0);
  reader_.start(out_);
  // Record 2 is missing until the reader has waited for it and moved on.
  for (int i = 0; i < 500 && output() != "one\nthree\n"; i++)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(output(), "one\nthree\n");
  std::string late = record(2, "two\n"), next = record(4, "four\n");
  ASSERT_EQ(write(fifo, late.data(), 10), 10);  // cut inside the header
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::string rest = late.substr(10) + next.substr(0, next.size() - 2);  // and inside the text
  ASSERT_EQ(write(fifo, rest.data(), rest.size()), ssize_t(rest.size()));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_EQ(write(fifo, next.data() + next.size() - 2, 2), 2);
  ::close(fifo);
  reader_.finish();
  EXPECT_EQ(output(), "one\nthree\ntwo\nfour\n");
}

}  // namespace
}  // namespace xtap::runner
