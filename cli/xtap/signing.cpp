#include "xtap/signing.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/file_io.h"
#include "common/module_signature.h"
#include "common/process.h"

namespace xtap::cli {
namespace {

// CONFIG_MODULE_SIG_HASH of the kernel's .config; sha256 (Debian's) if unset.
std::string signature_hash(const kbuild::Target &t) {
  std::ifstream in(t.build_dir + "/.config");
  std::string line;
  const std::string key = "CONFIG_MODULE_SIG_HASH=\"";
  while (std::getline(in, line))
    if (line.compare(0, key.size(), key) == 0 && line.size() > key.size() + 1)
      return line.substr(key.size(), line.size() - key.size() - 1);
  return "sha256";
}

}  // namespace

bool check_signing_files(const std::string &key, const std::string &cert, std::string *error) {
  for (const auto &[what, path] : {std::pair{"--sign-key", key}, std::pair{"--sign-cert", cert}}) {
    if (access(path.c_str(), R_OK) != 0) {
      *error = std::string(what) + " " + path + ": cannot read it";
      return false;
    }
  }
  return true;
}

bool sign_module(const kbuild::Target &t, const std::string &key, const std::string &cert,
                 const std::string &ko, std::string *error) {
  bool ok = false;
  if (has_module_signature(read_file(ko, &ok)))
    return true;  // signed already (a rebuild of a bundle)
  std::string sign_file = t.build_dir + "/scripts/sign-file";
  if (access(sign_file.c_str(), X_OK) != 0) {
    *error = "cannot sign for kernel " + t.release + ": " + sign_file +
             " is missing (it comes with the kernel's headers package)";
    return false;
  }
  std::string log = ko + ".sign-log";
  process::SpawnSpec spec;
  spec.argv = {sign_file, signature_hash(t), key, cert, ko};
  spec.stdout_path = spec.stderr_path = log;
  std::string spawn_error;
  int rc = process::run_to_end(spec, &spawn_error);
  std::string out = read_file(log);
  unlink(log.c_str());
  if (rc != 0) {
    while (!out.empty() && out.back() == '\n') out.pop_back();
    *error = "signing " + ko + " failed: " + (spawn_error.empty() ? out : spawn_error) +
             "\n  hint: --sign-key takes the PEM private key and --sign-cert its X.509 certificate "
             "(PEM or DER)";
    return false;
  }
  if (!has_module_signature(read_file(ko))) {
    *error = sign_file + " did not append a signature to " + ko;
    return false;
  }
  return true;
}

bool prepare_module_copy(const kbuild::Target &t, const std::string &ko, const std::string &out,
                         bool strip, const std::string &key, const std::string &cert,
                         std::string *error) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(out).parent_path(), ec);
  std::filesystem::copy_file(ko, out, std::filesystem::copy_options::overwrite_existing, ec);
  if (ec) {
    *error = "cannot write " + out + ": " + ec.message();
    return false;
  }
  if (strip) {
    process::SpawnSpec spec;
    spec.argv = {"strip", "--strip-debug", out};
    std::string spawn_error;
    if (process::run_to_end(spec, &spawn_error) != 0) {
      *error = "strip --strip-debug " + out + " failed" +
               (spawn_error.empty() ? "" : ": " + spawn_error);
      std::filesystem::remove(out, ec);
      return false;
    }
  }
  if (key.empty() || sign_module(t, key, cert, out, error)) return true;
  std::filesystem::remove(out, ec);  // no unsigned copy where a signed one was asked for
  return false;
}

}  // namespace xtap::cli
