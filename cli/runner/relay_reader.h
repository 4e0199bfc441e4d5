// Reads the per-CPU trace<N> relay files and prints records in sequence order.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
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
  void start(int out_fd);
  // Output through `files` (-o FILE -S): switch_file() marks and -S SIZE
  // move it to the next file between records.
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
  // Drains every file completely, prints all pending records, joins.
  void finish();
  void close();
  ~RelayReader();

  uint64_t records() const { return records_; }
  uint64_t corrupt() const { return corrupt_; }
  // Binary printf records that named an unknown format or were cut short.
  uint64_t bad_items() const { return bad_items_; }
  bool write_failed() const { return write_failed_; }
  const std::string& switch_error() const { return switch_error_; }

 private:
  struct Cpu {
    int fd = -1;
    int bulk_fd = -1;   // -b: this CPU's output file
    std::string carry;  // bytes of a record cut by the end of a read
  };
  void run();
  bool read_all();          // true if anything was read
  // Parses the whole records in b; returns the bytes they took.
  size_t parse(Cpu& cpu, const char* b, size_t size);
  bool emit_direct(const xtap_rec_hdr& h, const char* body, const char* end);
  void append_text(uint16_t type, const char* body, const char* end, std::string* out);
  void emit(bool final);
  void flush_out();

  bool format_items(const char* p, const char* end, std::string* out);
  std::vector<Format> formats_;  // id N is formats_[N - 1]
  uint64_t bad_items_ = 0;
  std::vector<Cpu> cpus_;
  struct Rec {
    uint16_t type = 0;
    std::string text;
  };
  void append(const Rec& r);
  std::map<uint64_t, Rec> pending_;
  uint64_t next_seq_ = 1;
  uint64_t max_record_ = 0;
  int64_t gap_since_ms_ = 0;
  std::string out_;
  int out_fd_ = 1;
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
