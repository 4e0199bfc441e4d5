// The target kernel's BTF (docs/probes.md): /sys/kernel/btf/vmlinux for the
// running kernel; for another release, the .BTF section of its debug
// vmlinux (linux-image-KVER-dbg) or of /boot/vmlinuz-KVER decompressed.
// The latter two are extracted once into raw BTF and cached under
// <cache>/btf/, keyed by the release, the source file's identity and xtap's
// version, like the catalog.
//
// A bzImage is a boot stub followed by the compressed vmlinux; as the
// kernel's scripts/extract-vmlinux does, the payload is found by its
// compressor's magic and decompressed with the compressor's own command
// (Debian's 6.1 cloud kernels use LZ4, 6.12 ZSTD).
#include <bpf/btf.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "common/process.h"
#include "kbuild/cache_lock.h"
#include "kbuild/kbuild.h"

namespace fs = std::filesystem;

namespace xtap::kbuild {
namespace {

struct Compressor {
  std::string_view magic;
  const char *command;  // decompresses stdin to stdout
};

const Compressor kCompressors[] = {
    {std::string_view("\x02\x21\x4c\x18", 4), "lz4"},
    {std::string_view("\x28\xb5\x2f\xfd", 4), "zstd"},
    {std::string_view("\x1f\x8b\x08", 3), "gzip"},
    {std::string_view("\xfd\x37\x7a\x58\x5a\x00", 6), "xz"},
};

std::string slurp(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Writes `btf`'s raw bytes to `out`.
bool write_raw(const struct btf *btf, const fs::path &out, std::string *error) {
  uint32_t size = 0;
  const void *data = btf__raw_data(btf, &size);
  std::ofstream f(out, std::ios::binary);
  f.write(static_cast<const char *>(data), size);
  if (!data || !f) {
    *error = "cannot write " + out.string();
    return false;
  }
  return true;
}

// The .BTF section of the ELF file `elf` as raw BTF in `out`.
bool extract_from_elf(const std::string &elf, const fs::path &out, std::string *error) {
  struct btf *btf = btf__parse_elf(elf.c_str(), nullptr);
  if (!btf) {
    *error = elf + " has no readable .BTF section (" + strerror(errno) + ")";
    return false;
  }
  bool ok = write_raw(btf, out, error);
  btf__free(btf);
  return ok;
}

}  // namespace

bool with_vmlinux_from_image(const std::string &image, const std::string &work_dir,
                             const std::function<bool(const std::string &, std::string *)> &use,
                             std::string *error) {
  std::string bytes = slurp(image);
  if (bytes.empty()) {
    *error = "cannot read " + image + (access(image.c_str(), R_OK) ? " (permission denied)" : "");
    return false;
  }
  fs::path work = work_dir;
  fs::path payload = work / "payload", elf = work / "vmlinux", log = work / "log";
  std::string tried;
  for (const auto &c : kCompressors) {
    int attempts = 0;
    for (size_t at = bytes.find(c.magic); at != std::string::npos && attempts < 4;
         at = bytes.find(c.magic, at + 1), ++attempts) {
      {
        std::ofstream p(payload, std::ios::binary);
        p.write(bytes.data() + at, static_cast<std::streamsize>(bytes.size() - at));
      }
      process::SpawnSpec spec;
      spec.argv = {c.command, "-dc"};
      spec.stdin_path = payload.string();
      spec.stdout_path = elf.string();
      spec.stderr_path = log.string();
      std::string spawn_error;
      // Trailing data after the payload makes the tools complain after
      // they wrote the whole vmlinux: their exit code is not the verdict.
      if (process::run_to_end(spec, &spawn_error) < 0 && !spawn_error.empty()) {
        tried += std::string(tried.empty() ? "" : "; ") + c.command + ": " + spawn_error;
        break;
      }
      std::ifstream head(elf, std::ios::binary);
      char magic[4] = {};
      head.read(magic, 4);
      if (std::memcmp(magic,
                      "\x7f"
                      "ELF",
                      4) != 0)
        continue;
      std::string use_error;
      if (use(elf.string(), &use_error)) return true;
      tried += std::string(tried.empty() ? "" : "; ") + use_error;
    }
  }
  *error =
      "found no usable compressed vmlinux in " + image + (tried.empty() ? "" : " (" + tried + ")");
  return false;
}

bool extract_btf_from_image(const std::string &image, const std::string &out, std::string *error) {
  fs::path work = out + ".work" + std::to_string(getpid());
  std::error_code ec;
  fs::create_directories(work, ec);
  if (ec) {
    *error = "cannot create " + work.string() + ": " + ec.message();
    return false;
  }
  bool ok = with_vmlinux_from_image(
      image, work.string(),
      [&](const std::string &elf, std::string *why) { return extract_from_elf(elf, out, why); },
      error);
  fs::remove_all(work, ec);
  return ok;
}

bool ensure_btf(const Target &t, const Env &env, std::string *path, std::string *origin,
                std::string *error) {
  const std::string sysfs = "/sys/kernel/btf/vmlinux";
  if (is_running_kernel(t.release) && access(sysfs.c_str(), R_OK) == 0) {
    *path = *origin = sysfs;
    return true;
  }
  std::string debug_vmlinux = "/usr/lib/debug/boot/vmlinux-" + t.release;
  std::string image = "/boot/vmlinuz-" + t.release;
  bool from_debug = fs::exists(debug_vmlinux);
  std::string source = from_debug ? debug_vmlinux : image;
  if (!from_debug && !fs::exists(image)) {
    *error = "no BTF for kernel " + t.release + ": neither " + debug_vmlinux + " nor " + image +
             " exists";
    return false;
  }
  *origin = source;
  fs::path cache = fs::path(env.cache_dir) / "btf";
  std::error_code ec;
  fs::create_directories(cache, ec);
  if (ec) {
    *error = "cannot create " + cache.string() + ": " + ec.message();
    return false;
  }
  fs::path final_path =
      cache / (t.release + "-" +
               hash_hex(env.version + "\n" + file_identity(source)).substr(0, 16) + ".btf");
  *path = final_path.string();
  if (fs::exists(final_path)) return true;

  CacheLock lock(final_path.string());
  if (fs::exists(final_path)) return true;
  std::string tmp = final_path.string() + ".tmp" + std::to_string(getpid());
  bool ok = from_debug ? extract_from_elf(source, tmp, error)
                       : extract_btf_from_image(source, tmp, error);
  if (ok) {
    fs::rename(tmp, final_path, ec);
    if (ec) {
      *error = "cannot move the extracted BTF into " + final_path.string() + ": " + ec.message();
      ok = false;
    }
  }
  fs::remove(tmp, ec);
  return ok;
}

}  // namespace xtap::kbuild
