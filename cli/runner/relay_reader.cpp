// Relay reader thread: read bounded slices of each CPU's relay file, merge
// them by sequence number, format and write, and only then read again.
#include "runner/relay_reader.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <xtap/abi.h>

#include "common/file_io.h"
#include "common/json.h"
#include "common/process.h"
#include "runner/output_files.h"
#include "runner/privilege.h"

namespace xtap::runner {

namespace {

// A missing sequence number that may still be in flight on an idle CPU is
// waited for this long before it is taken as dropped. The kernel takes no
// number for a record it drops (transport/relay.c), so a gap is rare.
constexpr int64_t kGapWaitMs = 500;
// Relay wakes readers only on sub-buffer switches, so the reader polls.
constexpr int kPollMs = 20;
// A slice that read less than this waits for the next poll before reading
// again: a trickle is written in batches rather than a read per record.
constexpr size_t kBusySliceBytes = 64 << 10;

bool write_fully(int fd, const char* p, size_t n) {
  while (n) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= size_t(w);
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
  cpu_buffer_ = std::max<size_t>(kCpuBufferBytes, 2 * max_record);
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
      AsCaller user;  // a setuid xtap-run writes only where the user may
      c.bulk_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (c.bulk_fd < 0) {
        *err = "cannot create " + out + ": " + std::strerror(errno);
        ::close(fd);
        return false;
      }
    }
    // Left uninitialised: only the pages a CPU's slices reach are touched.
    c.buf.reset(new char[cpu_buffer_]);
    cpus_.push_back(std::move(c));
  }
  if (cpus_.empty()) {
    *err = "no relay files in " + dir;
    return false;
  }
  out_.reserve(kOutputSliceBytes + kOutputSliceBytes / 4);
  return true;
}

void RelayReader::close() {
  for (auto& c : cpus_) {
    if (c.fd >= 0) ::close(c.fd), c.fd = -1;
    if (c.bulk_fd >= 0) ::close(c.bulk_fd), c.bulk_fd = -1;
  }
}

void RelayReader::start(OutputFiles* files) {
  files_ = files;
  thread_ = std::thread([this] { run(); });
}

void RelayReader::finish() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  // The session is over: every record still in the files is read, and a
  // missing sequence number is no longer waited for.
  while (pump(true)) {
  }
  pump(true);
}

void RelayReader::run() {
  std::vector<pollfd> pfds;
  while (!stop_) {
    size_t got = 0;
    if (pump(false, &got) && got >= kBusySliceBytes) continue;
    // Wait for more on the CPUs that have room; with none, just sleep (a
    // gap is being waited for while every buffer is full).
    pfds.clear();
    for (auto& c : cpus_)
      if (c.used - c.head < cpu_buffer_) pfds.push_back({c.fd, POLLIN, 0});
    poll(pfds.data(), pfds.size(), kPollMs);
  }
}

bool RelayReader::pump(bool final, size_t* got) {
  size_t total = 0;
  for (auto& c : cpus_) total += fill(c);
  if (got) *got = total;
  if (bulk_prefix_.empty()) {
    merge(final);
  } else {
    for (auto& c : cpus_) drain_bulk(c);
  }
  flush_out();
  return total > 0;
}

// One read into the CPU's buffer, as much as it has room for; returns the
// bytes read.
size_t RelayReader::fill(Cpu& c) {
  if (c.head == c.used) {
    c.head = c.used = 0;
  } else if (c.head > cpu_buffer_ / 2) {
    std::memmove(c.buf.get(), c.buf.get() + c.head, c.used - c.head);
    c.used -= c.head;
    c.head = 0;
  }
  size_t room = cpu_buffer_ - c.used;
  if (!room || c.fd < 0) return 0;
  ssize_t n;
  do {
    n = ::read(c.fd, c.buf.get() + c.used, room);
  } while (n < 0 && errno == EINTR);
  c.drained = n <= 0;
  if (n <= 0) return 0;
  c.used += size_t(n);
  return size_t(n);
}

bool RelayReader::peek(Cpu& c, xtap_rec_hdr* h) {
  size_t avail = c.used - c.head;
  if (avail < sizeof(*h)) return false;
  std::memcpy(h, c.buf.get() + c.head, sizeof(*h));
  if (h->size < sizeof(*h) || h->size > max_record_) {
    corrupt_++;  // cannot resynchronise inside this CPU's stream
    c.head = c.used;
    return false;
  }
  return avail >= h->size;
}

// Writes records in sequence order. The next record is the smallest
// sequence number at the head of a CPU's slice; each CPU's records are in
// sequence order, so a number missing between can only be on a CPU whose
// next record is not known yet: that CPU is read first, and if it has
// nothing (idle, or its record is still being written) the number is waited
// for kGapWaitMs, or not at all once the session is over (final). When every
// CPU has a later record, the missing numbers were dropped and are skipped
// at once.
void RelayReader::merge(bool final) {
  xtap_rec_hdr h, best_h;
  for (;;) {
    Cpu* best = nullptr;
    bool unread = false, idle = false;  // CPUs whose next record is not known
    for (auto& c : cpus_) {
      if (!peek(c, &h)) {
        (c.drained ? idle : unread) = true;
        continue;
      }
      if (!best || h.seq < best_h.seq) best = &c, best_h = h;
    }
    if (!best) return;
    if (best_h.seq > next_seq_) {
      if (unread) return;
      if (idle && !final) {
        int64_t now = process::now_ms();
        if (!gap_since_ms_) gap_since_ms_ = now;
        if (now - gap_since_ms_ < kGapWaitMs) return;
      }
    }
    gap_since_ms_ = 0;
    // Then that CPU's records for as long as they come next: one CPU
    // writing, or the CPUs taking turns a run of records at a time.
    do {
      take(*best, best_h);
    } while (peek(*best, &best_h) && best_h.seq == next_seq_);
  }
}

void RelayReader::take(Cpu& c, const xtap_rec_hdr& h) {
  const char* body = c.buf.get() + c.head + sizeof(h);
  const char* end = c.buf.get() + c.head + h.size;
  c.head += h.size;
  // A record older than next_seq_ came after its gap was given up on: it is
  // written late rather than lost.
  if (h.seq >= next_seq_) next_seq_ = h.seq + 1;
  records_++;
  emit(h, body, end);
}

// -b: no merge; each record goes to its CPU's file as it comes.
void RelayReader::drain_bulk(Cpu& c) {
  xtap_rec_hdr h;
  scratch_.clear();
  while (peek(c, &h)) {
    const char* body = c.buf.get() + c.head + sizeof(h);
    append_text(h.type, body, body + h.size - sizeof(h), &scratch_);
    c.head += h.size;
    records_++;
  }
  if (!scratch_.empty() && !write_fully(c.bulk_fd, scratch_.data(), scratch_.size()))
    write_failed_ = true;
}

// One record into the output. A switch_file() mark, or -S SIZE reached,
// moves on to the next file first (between records, never inside one). A
// record type this runner does not know prints nothing.
void RelayReader::emit(const xtap_rec_hdr& h, const char* body, const char* end) {
  if (h.type == XTAP_REC_SWITCH_FILE) {
    next_file();
    return;
  }
  size_t before = out_.size();
  if (json_) {
    scratch_.clear();
    append_text(h.type, body, end, &scratch_);
    if (!scratch_.empty()) out_ += "{\"type\":\"output\",\"text\":" + json::quote(scratch_) + "}\n";
  } else {
    append_text(h.type, body, end, &out_);
  }
  if (files_ && out_.size() > before && files_->full_before(before, out_.size() - before)) {
    scratch_.assign(out_, before);
    out_.resize(before);
    next_file();
    out_ += scratch_;
  }
  if (out_.size() >= kOutputSliceBytes) flush_out();
}

void RelayReader::next_file() {
  if (!files_) return;
  flush_out();
  std::string err;
  if (!files_->next(&err) && switch_error_.empty()) switch_error_ = err;
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

void RelayReader::flush_out() {
  if (out_.empty()) return;
  bool ok =
      files_ ? files_->write(out_.data(), out_.size()) : write_fully(1, out_.data(), out_.size());
  if (!ok) write_failed_ = true;
  out_.clear();
}

}  // namespace xtap::runner
