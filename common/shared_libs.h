// The files a program needs to run, found as the dynamic loader (glibc's
// ld.so) finds them on x86-64: its interpreter (PT_INTERP) and the closure
// of its DT_NEEDED libraries, each searched in the DT_RPATH of the object
// and of the objects that loaded it (when the object has no DT_RUNPATH),
// then its DT_RUNPATH, then /etc/ld.so.cache, then the system directories.
// $ORIGIN, $LIB and $PLATFORM expand as ld.so expands them. Not modelled:
// LD_LIBRARY_PATH and LD_PRELOAD (the user's environment, which a VM's
// guest does not have), glibc-hwcaps subdirectories (a library optimised
// for the host's CPU level; the baseline one beside it is taken), dlopen().
// `xtap --vm` carries what this finds into the guest (cli/vm/carry.h).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace xtap {

// /etc/ld.so.cache: library name -> path, for 64-bit x86 libraries.
class LdSoCache {
 public:
  // Reads `path` (glibc's "glibc-ld.so.cache1.1" format, alone or after the
  // old "ld.so-1.7.0" one); an unreadable or unknown file gives an empty
  // cache, as ld.so then searches the directories only.
  static LdSoCache read(const std::string &path);
  // The path the cache gives `name` ("libc.so.6"), "" when it has none.
  std::string find(const std::string &name) const;
  size_t size() const { return paths_.size(); }

 private:
  std::map<std::string, std::string> paths_;
};

struct LoadClosure {
  // Paths on the target, each name once (two names of one file are both
  // here: the loader opens each), in the order the loader meets them:
  // interpreters and libraries (not the roots themselves).
  std::vector<std::string> files;
  // "libfoo.so.1 (needed by /x/prog)" for each library not found.
  std::vector<std::string> missing;
};

// The interpreters and libraries `roots` (paths on the target: programs or
// shared libraries) need. Files are read as sysroot + path; the cache is
// sysroot/etc/ld.so.cache. A root that is no ELF file adds nothing.
LoadClosure load_closure(const std::vector<std::string> &roots, const std::string &sysroot);

}  // namespace xtap
