// An exclusive lock on one cache entry while it is built: concurrent xtap
// runs wait for the builder instead of building the same thing again.
// Readers need no lock: entries appear by rename, whole. Shared by kbuild/
// (runtime, catalog, BTF) and translator/ (the DWARF inline index).
#pragma once

#include <string>

namespace xtap {

class CacheLock {
 public:
  explicit CacheLock(const std::string &entry);  // locks entry + ".lock"; released when destroyed
  ~CacheLock();
  CacheLock(const CacheLock &) = delete;
  CacheLock &operator=(const CacheLock &) = delete;

 private:
  int fd_ = -1;
};

}  // namespace xtap
