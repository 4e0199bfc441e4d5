// Reads the per-CPU trace<N> relay files and writes records in sequence order.
//
// The collector streams: it reads each CPU's file a bounded slice at a time,
// merges the slices by sequence number, formats and writes what it merged,
// and only then reads again. Its memory is bounded by kCpuBufferBytes per
// CPU plus one output slice, whatever the load; when it cannot keep up, the
// relay buffers fill and the kernel drops and counts (transport/relay.c).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <xtap/abi.h>

#include "common/printf_format.h"

namespace xtap::runner {

class OutputFiles;

class RelayReader {
 public:
  // Opens dir/trace0..trace<ncpus-1> (CPUs that are offline have no file).
  bool open(const std::string& dir, unsigned ncpus, uint64_t max_record, std::string* err);
  // Output through `files` (stdout, -o FILE, -S series): switch_file() marks
  // and -S SIZE move it to the next file between records.
  void start(OutputFiles* files);
  // --format json: each text record as {"type":"output","text":"..."} a line.
  void set_json(bool on) { json_ = on; }
  // -b (bulk mode, as stap's): each CPU's records go, in that CPU's order
  // and unmerged, to PREFIX_cpuN (stap's stpd_cpuN without -o); call
  // before open(). switch_file() marks are ignored.
  void set_bulk(const std::string& prefix) { bulk_prefix_ = prefix; }
  // The module's printf format table (abi.h, XTAP_REC_FORMATTED). False
  // with *err empty if the module has none, with *err set if it is malformed.
  bool load_formats(const std::string& path, std::string* err);
  // Drains every file completely, writes every record read, joins.
  void finish();
  void close();
  ~RelayReader();

  uint64_t records() const { return records_; }
  uint64_t corrupt() const { return corrupt_; }
  // Binary printf records that named an unknown format or were cut short.
  uint64_t bad_items() const { return bad_items_; }
  bool write_failed() const { return write_failed_; }
  const std::string& switch_error() const { return switch_error_; }

  // A CPU's unread bytes, at most kCpuBufferBytes (or two records of the
  // largest size); output is written once kOutputSliceBytes are formatted.
  static constexpr size_t kCpuBufferBytes = 1 << 20;
  static constexpr size_t kOutputSliceBytes = 256 << 10;

 private:
  struct Cpu {
    int fd = -1;
    int bulk_fd = -1;             // -b: this CPU's output file
    std::unique_ptr<char[]> buf;  // bytes read and not yet consumed: [head, used)
    size_t head = 0, used = 0;
    bool drained = false;  // the last read found nothing more
  };
  void run();
  // One slice: a read of each CPU that has room, then the merge and the
  // write. True if anything was read (*got: how much).
  bool pump(bool final, size_t* got = nullptr);
  size_t fill(Cpu& cpu);
  // The header of the CPU's next whole record. A malformed header discards
  // what the CPU holds (the stream cannot be resynchronised).
  bool peek(Cpu& cpu, xtap_rec_hdr* h);
  void merge(bool final);
  void take(Cpu& cpu, const xtap_rec_hdr& h);
  void drain_bulk(Cpu& cpu);
  void emit(const xtap_rec_hdr& h, const char* body, const char* end);
  void next_file();
  void append_text(uint16_t type, const char* body, const char* end, std::string* out);
  void flush_out();

  bool format_items(const char* p, const char* end, std::string* out);
  std::vector<Format> formats_;  // id N is formats_[N - 1]
  uint64_t bad_items_ = 0;
  std::vector<Cpu> cpus_;
  size_t cpu_buffer_ = kCpuBufferBytes;
  uint64_t next_seq_ = 1;
  uint64_t max_record_ = 0;
  int64_t gap_since_ms_ = 0;
  std::string out_;
  std::string scratch_;  // --format json: one record's text before quoting
  OutputFiles* files_ = nullptr;
  bool json_ = false;
  std::string bulk_prefix_;  // -b: "" when off
  std::thread thread_;
  std::atomic<bool> stop_{false};
  uint64_t records_ = 0;
  uint64_t corrupt_ = 0;
  bool write_failed_ = false;
  std::string switch_error_;
};

}  // namespace xtap::runner
