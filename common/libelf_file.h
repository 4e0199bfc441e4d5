// An ELF file opened through libelf, closed with it: the one owner of the
// file descriptor and the Elf handle for the readers that use libelf
// (kbuild/rel_object.cpp, translator/symbols/elf_plt.cpp). Header-only, so
// that common/ itself does not link libelf: xtap-run reads ELF with the
// minimal reader of elf_file.h instead.
#pragma once

#include <fcntl.h>
#include <libelf.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace xtap {

class LibelfFile {
 public:
  // Opens `path` read-only and starts libelf on it with `cmd` (ELF_C_READ,
  // ELF_C_READ_MMAP). Check ok(): false when the file cannot be opened, with
  // open_error() the reason ("No such file or directory"); elf() is null
  // when libelf does not take the file. The callers word both, since they
  // know what they expected the file to be.
  LibelfFile(const std::string &path, Elf_Cmd cmd) {
    elf_version(EV_CURRENT);
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      open_error_ = std::strerror(errno);
      return;
    }
    elf_ = elf_begin(fd_, cmd, nullptr);
  }
  ~LibelfFile() {
    if (elf_) elf_end(elf_);
    if (fd_ >= 0) ::close(fd_);
  }
  LibelfFile(const LibelfFile &) = delete;
  LibelfFile &operator=(const LibelfFile &) = delete;

  bool ok() const { return fd_ >= 0; }
  const std::string &open_error() const { return open_error_; }
  Elf *elf() const { return elf_; }

 private:
  int fd_ = -1;
  Elf *elf_ = nullptr;
  std::string open_error_;
};

}  // namespace xtap
