// The runner's relay reader on real files in the layout of the module's
// debugfs directory (trace0, trace1, ...): records of several CPUs merged by
// sequence number, gaps, records cut between reads, corrupt streams. A FIFO
// stands in for a relay file that grows while the reader runs.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <xtap/abi.h>

#include "common/file_io.h"
#include "runner/output_files.h"
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
    std::string err;
    ASSERT_TRUE(files_.open(dir_.str("out"), false, 0, 0, &err)) << err;
  }
  // Opens the trace files, reads them to their end and returns the output.
  std::string run(unsigned ncpus, uint64_t max_record = 4096) {
    std::string err;
    EXPECT_TRUE(reader_.open(dir_.str(), ncpus, max_record, &err)) << err;
    reader_.start(&files_);
    reader_.finish();
    return output();
  }
  std::string output() const { return read_file(dir_.str("out")); }

  // Polls the output until it equals want or ms pass; true if it did.
  bool output_becomes(const std::string &want, int ms) {
    for (int i = 0; i < ms / 10 && output() != want; i++)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return output() == want;
  }

  test::TempDir dir_;
  OutputFiles files_;
  RelayReader reader_;
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

// Every CPU holds a record after the missing one, so none can still bring
// it: the gap is skipped at once, not after the reader's wait for a record
// in flight.
TEST_F(Relay, AGapNoCpuCanFillIsSkippedAtOnce) {
  dir_.write("trace0", record(1, "a\n") + record(4, "d\n"));
  dir_.write("trace1", record(3, "c\n"));
  std::string err;
  ASSERT_TRUE(reader_.open(dir_.str(), 2, 4096, &err)) << err;
  reader_.start(&files_);
  EXPECT_TRUE(output_becomes("a\nc\nd\n", 300)) << output();
  reader_.finish();
}

// Far more than a CPU's slice buffer, in records that alternate between
// the CPUs in runs of varied length: merged whole and in order.
TEST_F(Relay, StreamsLongerThanTheSliceBuffersMergeInOrder) {
  std::string cpu[2], want;
  uint64_t seq = 1;
  for (int run = 0; seq < 100000; run++) {
    for (int k = 0; k < 1 + run % 7 && seq < 100000; k++, seq++) {
      std::string line = std::to_string(seq) + std::string(seq % 90, '.') + "\n";
      cpu[run % 2] += record(seq, line);
      want += line;
    }
  }
  ASSERT_GT(cpu[0].size(), 2 * RelayReader::kCpuBufferBytes);
  dir_.write("trace0", cpu[0]);
  dir_.write("trace1", cpu[1]);
  std::string got = run(2);
  size_t at = std::mismatch(got.begin(), got.end(), want.begin(), want.end()).first - got.begin();
  EXPECT_EQ(at, want.size()) << "differs at byte " << at << " of " << want.size() << ": "
                             << got.substr(at > 40 ? at - 40 : 0, 80);
  EXPECT_EQ(reader_.records(), seq - 1);
}

// A writer that goes on and on: the reader writes while it reads, so the
// output is there before the writer stops.
TEST_F(Relay, OutputIsWrittenWhileRecordsKeepComing) {
  ASSERT_EQ(mkfifo(dir_.str("trace0").c_str(), 0600), 0);
  std::string err;
  ASSERT_TRUE(reader_.open(dir_.str(), 1, 4096, &err)) << err;
  int fifo = ::open(dir_.str("trace0").c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fifo, 0);
  reader_.start(&files_);
  uint64_t seq = 1;
  size_t seen_at = 0;  // the record count when output first appeared
  for (int i = 0; i < 2000 && !seen_at; i++) {
    std::string batch;
    for (int k = 0; k < 500; k++, seq++) batch += record(seq, "line " + std::to_string(seq) + "\n");
    ASSERT_EQ(write(fifo, batch.data(), batch.size()), ssize_t(batch.size()));
    if (!output().empty()) seen_at = seq;
  }
  ::close(fifo);
  reader_.finish();
  EXPECT_GT(seen_at, 0u) << "nothing written while the writer ran";
  EXPECT_EQ(reader_.records(), seq - 1);
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
  reader_.start(&files_);
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
