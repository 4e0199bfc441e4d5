// The privilege model of a setuid-root xtap-run (docs/safety.md,
// "Privilege model"): root runs anything; a member of group xtapusr runs
// only a module an administrator approved, and everything else it does runs
// with that user's own rights.
#pragma once

#include <sys/types.h>

#include <string>

#include "runner/session.h"

namespace xtap::runner {

inline constexpr const char* kPrivilegeGroup = "xtapusr";
inline constexpr const char* kTrustedCertDir = "/etc/xtap/trusted-certs";

// True when xtap-run runs setuid root for a user who is not root.
bool setuid_mode();

// First thing in main(): in setuid mode, checks that the caller is in group
// xtapusr and replaces the environment with a fixed, safe one. "" or why not.
std::string enter_setuid_mode();

// In setuid mode, the options a group member may not use; "" when none.
std::string refused_option(const Options& opt);

// In setuid mode: approves opt->module by the rules (a trusted directory,
// or a trusted signature) and fills opt->module_fd / opt->module_bytes with
// what is to be loaded; "" or which rule failed and what to do about it.
std::string approve_module(Options* opt, const std::string& release);

// For the scope of this object, the calling thread opens, creates and
// removes files as the real user (setfsuid), so that -o FILE and the like
// can reach no file the user could not. A no-op outside setuid mode.
class AsCaller {
 public:
  AsCaller();
  ~AsCaller();
  AsCaller(const AsCaller&) = delete;
  AsCaller& operator=(const AsCaller&) = delete;

 private:
  int uid_ = -1, gid_ = -1;  // what to go back to (nested scopes nest)
};

// In a child about to exec (-c CMD, system()): become the real user for
// good, with the environment the user started xtap-run with. Returns false
// if that failed (the child must then not exec).
bool drop_to_caller();

}  // namespace xtap::runner
