// Relay reader thread: poll, read whole records, merge CPUs by sequence number.
#include "runner/relay_reader.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <xtap/abi.h>

#include "common/file_io.h"
#include "common/json.h"
#include "common/process.h"
#include "runner/output_files.h"

namespace xtap::runner {

namespace {

// A missing sequence number is waited for this long before it is taken as
// dropped (its CPU's buffer was full) and skipped.
constexpr int64_t kGapWaitMs = 500;
constexpr int kPollMs = 20;  // relay wakes readers only on sub-buffer switches

bool write_fully(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += size_t(n);
  }
  return true;
}

}  // namespace

RelayReader::~RelayReader() {
  if (thread_.joinable()) {
    stop_ = true;
    thread_.join();
  }
  close();
}

bool RelayReader::open(const std::string& dir, unsigned ncpus, uint64_t max_record,
                       std::string* err) {
  max_record_ = max_record;
  for (unsigned i = 0; i < ncpus; i++) {
    std::string path = dir + "/trace" + std::to_string(i);
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) continue;  // CPU not online
      *err = "cannot open " + path + ": " + std::strerror(errno);
      return false;
    }
    Cpu c;
    c.fd = fd;
    if (!bulk_prefix_.empty()) {
      std::string out = bulk_prefix_ + "_cpu" + std::to_string(i);
      c.bulk_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (c.bulk_fd < 0) {
        *err = "cannot create " + out + ": " + std::strerror(errno);
        ::close(fd);
        return false;
      }
    }
    cpus_.push_back(std::move(c));
  }
  if (cpus_.empty()) {
    *err = "no relay files in " + dir;
    return false;
  }
  return true;
}

void RelayReader::close() {
  for (auto& c : cpus_) {
    if (c.fd >= 0) ::close(c.fd), c.fd = -1;
    if (c.bulk_fd >= 0) ::close(c.bulk_fd), c.bulk_fd = -1;
  }
}

void RelayReader::start(int out_fd) {
  out_fd_ = out_fd;
  thread_ = std::thread([this] { run(); });
}

void RelayReader::start(OutputFiles* files) {
  files_ = files;
  thread_ = std::thread([this] { run(); });
}

void RelayReader::finish() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  while (read_all()) {
  }
  emit(true);
  flush_out();
}

void RelayReader::run() {
  std::vector<pollfd> pfds;
  for (auto& c : cpus_) pfds.push_back({c.fd, POLLIN, 0});
  while (!stop_) {
    poll(pfds.data(), pfds.size(), kPollMs);
    while (read_all() && !stop_) {
    }
    emit(false);
    flush_out();
  }
}

bool RelayReader::read_all() {
  static thread_local std::vector<char> buf(1 << 20);
  bool any = false;
  for (auto& c : cpus_) {
    for (;;) {
      ssize_t n = ::read(c.fd, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      any = true;
      // Records are parsed where they were read; only a record cut by the
      // end of the read is kept for the next one.
      if (c.carry.empty()) {
        size_t used = parse(c, buf.data(), size_t(n));
        c.carry.assign(buf.data() + used, size_t(n) - used);
      } else {
        c.carry.append(buf.data(), n);
        c.carry.erase(0, parse(c, c.carry.data(), c.carry.size()));
      }
      if (size_t(n) < buf.size()) break;
    }
  }
  return any;
}

size_t RelayReader::parse(Cpu& cpu, const char* b, size_t size) {
  std::string bulk_out;
  size_t off = 0;
  while (size - off >= sizeof(xtap_rec_hdr)) {
    xtap_rec_hdr h;
    std::memcpy(&h, b + off, sizeof(h));
    if (h.size < sizeof(h) || h.size > max_record_) {
      corrupt_++;  // cannot resynchronise inside this CPU's stream
      off = size;
      break;
    }
    if (size - off < h.size) break;
    const char *body = b + off + sizeof(h), *end = b + off + h.size;
    off += h.size;
    if (cpu.bulk_fd >= 0) {
      // -b: no merge; the record goes to its CPU's file as it comes.
      append_text(h.type, body, end, &bulk_out);
      records_++;
      continue;
    }
    if (emit_direct(h, body, end)) continue;
    // A record type this runner does not know (a newer module's) prints
    // nothing but keeps its place, so that it is not waited for as a gap.
    // A formatted one is formatted as it arrives, then merged, switched and
    // written as text.
    Rec r;
    r.type = h.type == XTAP_REC_FORMATTED ? uint16_t(XTAP_REC_TEXT) : h.type;
    append_text(h.type, body, end, &r.text);
    pending_.emplace(h.seq, std::move(r));
  }
  if (!bulk_out.empty() && !write_fully(cpu.bulk_fd, bulk_out)) write_failed_ = true;
  return off;
}

// The record next in sequence, with none waiting: its text goes straight
// into the output buffer (formatted there), with no copy of its own. Most
// records take this way: one CPU writes at a time, or the CPUs take turns.
bool RelayReader::emit_direct(const xtap_rec_hdr& h, const char* body, const char* end) {
  if (h.seq != next_seq_ || !pending_.empty() || json_ ||
      (h.type != XTAP_REC_TEXT && h.type != XTAP_REC_FORMATTED))
    return false;
  size_t before = out_.size();
  append_text(h.type, body, end, &out_);
  if (files_ && files_->full_before(before, out_.size() - before)) {
    // -S SIZE: this record starts the next file (as append() does).
    std::string text = out_.substr(before);
    out_.resize(before);
    flush_out();
    std::string err;
    if (!files_->next(&err) && switch_error_.empty()) switch_error_ = err;
    out_ = std::move(text);
  }
  gap_since_ms_ = 0;
  records_++;
  next_seq_++;
  return true;
}

// The text a record prints, appended to out: a TEXT record's bytes, or a
// FORMATTED record's items formatted; other types print nothing.
void RelayReader::append_text(uint16_t type, const char* body, const char* end, std::string* out) {
  if (type == XTAP_REC_TEXT) out->append(body, end);
  if (type == XTAP_REC_FORMATTED && !format_items(body, end, out)) bad_items_++;
}

bool RelayReader::load_formats(const std::string& path, std::string* err) {
  err->clear();
  bool ok = false;
  std::string t = read_file(path, &ok);
  if (!ok) return false;
  const std::string magic = XTAP_FORMATS_MAGIC;
  if (t.compare(0, magic.size(), magic) != 0) {
    *err = path + ": not a format table this xtap-run knows";
    return false;
  }
  formats_.clear();
  for (size_t off = magic.size(); off < t.size();) {
    uint32_t n;
    if (t.size() - off < 4 || (std::memcpy(&n, t.data() + off, 4), t.size() - off - 4 < n)) {
      *err = path + ": truncated format table";
      return false;
    }
    formats_.push_back(parse_format(t.substr(off + 4, n)));
    off += 4 + n;
  }
  return true;
}

// The items of one XTAP_REC_FORMATTED record, appended to out as text. False
// if an item names no format or is cut short (the rest of the record is lost).
bool RelayReader::format_items(const char* p, const char* end, std::string* text) {
  FormatSink out(text);
  while (end - p >= 4) {
    uint32_t id;
    std::memcpy(&id, p, 4);
    p += 4;
    if (id == 0) {  // text staged behind items
      uint32_t n;
      if (end - p < 4) return false;
      std::memcpy(&n, p, 4);
      p += 4;
      if (uint64_t(end - p) < n) return false;
      char* w = out.room(n);
      std::memcpy(w, p, n);
      out.commit(w + n);
      p += n;
      continue;
    }
    if (id > formats_.size()) return false;
    if (!format_item(formats_[id - 1], &p, end, &out)) return false;
  }
  return p == end;
}

void RelayReader::emit(bool final) {
  while (!pending_.empty()) {
    auto it = pending_.begin();
    if (it->first != next_seq_) {
      if (it->first < next_seq_) {  // late record whose gap was skipped
        append(it->second);
        records_++;
        pending_.erase(it);
        continue;
      }
      if (!final) {
        int64_t now = process::now_ms();
        if (!gap_since_ms_) gap_since_ms_ = now;
        if (now - gap_since_ms_ < kGapWaitMs) break;
      }
      next_seq_ = it->first;  // the missing ones were dropped
    }
    gap_since_ms_ = 0;
    append(it->second);
    records_++;
    next_seq_++;
    pending_.erase(it);
  }
}

// One record into the output: a switch_file() mark, or -S SIZE reached,
// moves on to the next file first (between records, never inside one).
void RelayReader::append(const Rec& r) {
  if (json_ && !r.text.empty()) {
    Rec line{r.type, "{\"type\":\"output\",\"text\":" + json::quote(r.text) + "}\n"};
    json_ = false;
    append(line);
    json_ = true;
    return;
  }
  if (!files_) {
    out_ += r.text;
    return;
  }
  bool next = r.type == XTAP_REC_SWITCH_FILE || files_->full_before(out_.size(), r.text.size());
  if (next) {
    flush_out();
    std::string err;
    if (!files_->next(&err) && switch_error_.empty()) switch_error_ = err;
  }
  out_ += r.text;
}

void RelayReader::flush_out() {
  if (files_) {
    if (!out_.empty() && !files_->write(out_.data(), out_.size())) write_failed_ = true;
    out_.clear();
    return;
  }
  size_t off = 0;
  while (off < out_.size()) {
    ssize_t n = ::write(out_fd_, out_.data() + off, out_.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      write_failed_ = true;
      break;
    }
    off += n;
  }
  out_.clear();
}

}  // namespace xtap::runner
