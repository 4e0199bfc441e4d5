// The setuid-root path of xtap-run (privilege.h). Kept small on purpose:
// every check opens what it checks and keeps the descriptor, so nothing can
// be swapped between the check and the use.
#include "runner/privilege.h"

#include <fcntl.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "runner/module_verify.h"

extern char** environ;

namespace xtap::runner {

namespace {

uid_t g_uid = 0;  // the real user (setuid mode only)
gid_t g_gid = 0;
char** g_user_env = nullptr;  // for the user's own commands, after the drop

// A module is at most this big (a user must not make root read /dev/zero).
constexpr size_t kMaxModuleBytes = size_t(256) << 20;

// Root's, and writable by root alone: what an administrator put there.
std::string untrusted_why(const struct stat& st, const std::string& what) {
  if (st.st_uid != 0) return what + " is not owned by root";
  if (st.st_mode & (S_IWGRP | S_IWOTH)) return what + " is writable by group or others";
  return "";
}

// Opens the directory `dir`, made canonical first (Debian's /lib is a
// symlink), walking from / with O_NOFOLLOW, each component root's and not
// group/other writable: a symlink on the way can only lead to a directory
// that passes the same checks. -1 with *why on failure.
int open_trusted_dir(const std::string& dir, std::string* why) {
  char real[PATH_MAX];
  if (!realpath(dir.c_str(), real)) {
    *why = dir + ": " + std::strerror(errno);
    return -1;
  }
  int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  std::string at = "/";
  std::stringstream parts(real);
  std::string part;
  while (fd >= 0) {
    struct stat st;
    if (fstat(fd, &st) != 0) break;
    if (std::string bad = untrusted_why(st, at); !bad.empty()) {
      *why = bad;
      close(fd);
      return -1;
    }
    do {
      if (!std::getline(parts, part, '/')) return fd;
    } while (part.empty());
    int next = openat(fd, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int e = errno;
    close(fd);
    errno = e;
    fd = next;
    at += (at == "/" ? "" : "/") + part;
  }
  *why = at + ": " + std::strerror(errno);
  return -1;
}

bool read_fd(int fd, std::string* out) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || size_t(st.st_size) > kMaxModuleBytes)
    return false;
  char buf[65536];
  for (;;) {
    if (out->size() > kMaxModuleBytes) return false;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    out->append(buf, size_t(n));
  }
}

std::string dir_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool same_dir(const std::string& a, const std::string& b) {
  char ra[PATH_MAX], rb[PATH_MAX];
  return realpath(a.c_str(), ra) && realpath(b.c_str(), rb) && !std::strcmp(ra, rb);
}

// Rule (a): the module lies in /lib/modules/RELEASE/xtap, a trusted
// directory, and is itself root's, a regular file, not a symlink.
std::string approve_by_directory(Options* opt, const std::string& trusted) {
  std::string why;
  int dir = open_trusted_dir(trusted, &why);
  if (dir < 0) return "the trusted directory is not usable: " + why;
  std::string base = opt->module.substr(opt->module.find_last_of('/') + 1);
  int fd = openat(dir, base.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  int e = errno;
  close(dir);
  if (fd < 0)
    return e == ELOOP ? opt->module + " is a symlink" : opt->module + ": " + std::strerror(e);
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) why = opt->module + " is not a regular file";
  else why = untrusted_why(st, opt->module);
  if (why.empty() && !read_fd(fd, &opt->module_bytes)) why = opt->module + ": cannot read it";
  if (!why.empty()) {
    close(fd);
    return why;
  }
  opt->module_fd = fd;  // finit_module() loads this very file
  return "";
}

// Rule (b): the module, read once as the user, carries a signature by a
// certificate in /etc/xtap/trusted-certs (a trusted directory too).
std::string approve_by_signature(Options* opt) {
  std::string why;
  int dir = open_trusted_dir(kTrustedCertDir, &why);
  if (dir < 0) return "no trusted certificates: " + why;
  std::vector<std::string> certs;
  why = read_trusted_certs(dir, &certs);
  close(dir);
  if (!why.empty()) return why;
  int fd;
  {
    AsCaller user;  // only a file the user may read
    fd = open(opt->module.c_str(), O_RDONLY | O_CLOEXEC);
  }
  if (fd < 0) return opt->module + ": " + std::strerror(errno);
  bool ok = read_fd(fd, &opt->module_bytes);
  close(fd);
  if (!ok) return opt->module + ": cannot read it (not a regular file, or over 256 MB)";
  return verify_module_signature(opt->module_bytes, certs);
}

bool in_group(gid_t gid) {
  if (getgid() == gid) return true;
  gid_t groups[NGROUPS_MAX];
  int n = getgroups(NGROUPS_MAX, groups);
  for (int i = 0; i < n; i++)
    if (groups[i] == gid) return true;
  return false;
}

// The group's id from /etc/group (root's file; no NSS in a static binary).
bool group_id(const char* name, gid_t* gid) {
  std::ifstream in("/etc/group");
  std::string line;
  std::string prefix = std::string(name) + ":";
  while (std::getline(in, line)) {
    if (line.compare(0, prefix.size(), prefix) != 0) continue;
    size_t colon = line.find(':', prefix.size());
    if (colon == std::string::npos) return false;
    *gid = gid_t(std::strtoul(line.c_str() + colon + 1, nullptr, 10));
    return true;
  }
  return false;
}

}  // namespace

bool setuid_mode() { return geteuid() == 0 && getuid() != 0; }

std::string enter_setuid_mode() {
  g_uid = getuid();
  g_gid = getgid();
  gid_t gid;
  if (!group_id(kPrivilegeGroup, &gid) || !in_group(gid))
    return std::string("you are not root and not in group ") + kPrivilegeGroup +
           " (an administrator can add you: usermod -aG " + kPrivilegeGroup + " USER)";
  // Nothing from the caller's environment steers a root process.
  const char* term = getenv("TERM");
  std::string keep_term = term && std::strlen(term) < 64 ? term : "";
  static char* empty[] = {nullptr};
  g_user_env = environ;
  environ = empty;
  setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", 1);
  if (!keep_term.empty() && keep_term.find('/') == std::string::npos)
    setenv("TERM", keep_term.c_str(), 1);
  umask(022);
  return "";
}

std::string refused_option(const Options& opt) {
  // Each of these reaches beyond the caller's own session or rights.
  if (!opt.attach.empty()) return "-A attaches to a module someone else may have started";
  if (opt.flight) return "-F leaves a module running with nobody to answer for it";
  if (!opt.prometheus.empty()) return "--prometheus opens a network port as root";
  if (!opt.monitor_feed.empty()) return "--monitor-feed opens a network port as root";
  return "";
}

std::string approve_module(Options* opt, const std::string& release) {
  const std::string trusted = "/lib/modules/" + release + "/xtap";
  std::string why_a, why_b;
  bool in_trusted;
  {
    AsCaller user;  // resolving the user's path tells nothing the user could not find out
    in_trusted = same_dir(dir_of(opt->module), trusted);
  }
  if (in_trusted) {
    why_a = approve_by_directory(opt, trusted);
    if (why_a.empty()) return "";
  } else {
    why_a = opt->module + " is not in " + trusted;
  }
  opt->module_bytes.clear();
  why_b = approve_by_signature(opt);
  if (why_b.empty()) return "";
  opt->module_bytes.clear();
  return "as a member of group " + std::string(kPrivilegeGroup) + " you may run only a module " +
         "an administrator approved, and " + opt->module + " is not one:\n  rule 1 (installed in " +
         trusted + "): " + why_a + "\n  rule 2 (signed by a certificate in " + kTrustedCertDir +
         "): " + why_b + "\n  hint: an administrator can install it: install -o root -m 0644 " +
         "MODULE.ko " + trusted + "/, or trust its signer: install -o root -m 0644 CERT.pem " +
         kTrustedCertDir + "/";
}

AsCaller::AsCaller() {
  if (!setuid_mode()) return;
  gid_ = setfsgid(g_gid);  // returns the previous one
  uid_ = setfsuid(g_uid);
}

AsCaller::~AsCaller() {
  if (uid_ < 0) return;
  setfsuid(uid_t(uid_));
  setfsgid(gid_t(gid_));
}

bool drop_to_caller() {
  if (!setuid_mode()) return true;
  if (setresgid(g_gid, g_gid, g_gid) != 0 || setresuid(g_uid, g_uid, g_uid) != 0 ||
      geteuid() != g_uid || getegid() != g_gid)
    return false;
  if (g_user_env) environ = g_user_env;
  return true;
}

}  // namespace xtap::runner
