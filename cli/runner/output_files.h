// Where the script's output goes: stdout, -o FILE, or with -S SIZE[,N] a
// series FILE.0, FILE.1 ... that moves on at SIZE megabytes or at a
// switch_file() mark, keeping at most N files (stap's -S).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

namespace xtap::runner {

// -S SIZE[,N]: false (with *err) on a malformed value.
bool parse_switch_spec(const std::string &spec, uint64_t *size_mb, unsigned *keep,
                       std::string *err);

class OutputFiles {
 public:
  ~OutputFiles();
  // path "": standard output (no switching). size_mb 0: switch only at
  // switch_file() marks; rotate false (no -S): one file, marks ignored.
  bool open(const std::string &path, bool rotate, uint64_t size_mb, unsigned keep,
            std::string *err);
  // Writes all of it; false on a write error (errno set). Safe from the
  // relay thread and the control thread at once (--format json lines).
  bool write(const char *p, size_t n);
  bool write(const std::string &s) { return write(s.data(), s.size()); }
  // True when a record of n more bytes, after `pending` bytes not yet
  // written, belongs in the next file (-S SIZE).
  bool full_before(size_t pending, size_t n) const;
  // The next file (a switch_file() mark, or full); false with *err on failure.
  bool next(std::string *err);
  void close();
  // The current file's name (tests, messages).
  std::string current() const;

 private:
  bool open_current(std::string *err);
  std::string path_;
  bool rotate_ = false;
  uint64_t limit_ = 0;  // bytes, 0: none
  unsigned keep_ = 0;   // files kept, 0: all
  unsigned index_ = 0;
  uint64_t written_ = 0;
  int fd_ = 1;
  std::mutex mu_;
};

}  // namespace xtap::runner
