// Pass 4: building script modules through the target kernel's Kbuild.
//
// The runtime (runtime-kmod/) is compiled once per target kernel into
// xtap_runtime.o, together with the kernel feature tests (kbuild/features/)
// that produce its xtap_features.h; both are cached, keyed by the kernel
// release, the build directory's identity, the xtap version and the runtime
// sources. A script module is its generated C linked with the runtime's
// objects, compiled and linked by replaying the commands Kbuild ran for a
// template module of the same layout (recorded once per runtime), or by
// Kbuild itself; whole modules are cached by a hash of their generated C
// and the runtime.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace xtap::kbuild {

struct Target {
  std::string release;    // e.g. 6.1.0-56-cloud-amd64
  std::string build_dir;  // /lib/modules/<release>/build or a -r directory
};

struct Env {
  std::string datadir;    // holds runtime-kmod/ and kbuild/features/
  std::string cache_dir;  // ~/.cache/xtap unless XTAP_CACHE_DIR is set
  std::string version;    // xtap version, part of every cache key
  bool verbose = false;   // echo build commands and output (-vv)
  bool explain = false;   // say when a module is built through Kbuild, and why (-v)
  // How script modules are built (docs/architecture.md, pass 4): "direct"
  // (the kernel's recorded Kbuild commands, no fallback), "make" (Kbuild),
  // or "" for direct with a fallback to Kbuild; "" reads XTAP_KBUILD.
  std::string method;
  int jobs = 2;
  // Told of a long step as it starts ("building the runtime for KVER") and
  // with "" when it ends; only cache misses are long. Empty: no one listens.
  std::function<void(const std::string &)> progress;
};

// Shows a long step's line through env.progress while it lives, and clears
// the line when the step ends, however it ends.
class ProgressStep {
 public:
  ProgressStep(const Env &env, const std::string &what) : env_(env) {
    if (env_.progress) env_.progress(what);
  }
  ~ProgressStep() {
    if (env_.progress) env_.progress("");
  }
  ProgressStep(const ProgressStep &) = delete;
  ProgressStep &operator=(const ProgressStep &) = delete;

 private:
  const Env &env_;
};

// -r VALUE: a release (looked up under /lib/modules) or a build directory;
// empty: the running kernel. Returns false with *error on failure.
bool resolve_target(const std::string &r, Target *t, std::string *error);

// The default cache directory.
std::string default_cache_dir();

// Builds (or finds cached) the runtime for `t`; *rt_dir receives the
// directory holding xtap_runtime.o and the include/ tree for modules.
bool ensure_runtime(const Target &t, const Env &env, std::string *rt_dir, std::string *error);

// Builds (or finds cached) the kernel catalog of `t` (docs/catalog.md): its
// tracepoints, syscalls and C types, written by xtap-kcatalog (found next to
// the running program, or through XTAP_KCATALOG). *path receives the cached
// file, for KernelCatalog::load(). Cached under <cache>/catalog/, keyed by
// the release, the build directory's identity, the xtap version and a hash
// of the tool; concurrent runs never see a partial file.
bool ensure_catalog(const Target &t, const Env &env, std::string *path, std::string *error);

// The BTF of `t` (docs/probes.md): /sys/kernel/btf/vmlinux when `t` is the
// running kernel, else raw BTF extracted from /usr/lib/debug/boot/vmlinux-KVER
// or /boot/vmlinuz-KVER and cached under <cache>/btf/. *path receives a file
// KernelBtf::load() reads, *origin the file the BTF came from.
bool ensure_btf(const Target &t, const Env &env, std::string *path, std::string *origin,
                std::string *error);
// The step of ensure_btf for a kernel image: the compressed vmlinux inside
// the bzImage `image` decompressed and its .BTF written to `out` as raw BTF.
bool extract_btf_from_image(const std::string &image, const std::string &out, std::string *error);

// Decompresses the vmlinux inside the bzImage `image` into `work_dir` and
// calls `use` with its path, for each candidate payload until `use`
// accepts one (true); false with the reasons in *error if none is accepted.
bool with_vmlinux_from_image(const std::string &image, const std::string &work_dir,
                             const std::function<bool(const std::string &, std::string *)> &use,
                             std::string *error);

// The GNU build-id of kernel `t` (hex): the running kernel's from
// /sys/kernel/notes, else from its debug vmlinux or its decompressed
// /boot/vmlinuz, cached under <cache>/build-id/ like the BTF.
bool kernel_build_id(const Target &t, const Env &env, std::string *id, std::string *error);

struct ModuleBuild {
  std::string name;      // module name, a C identifier
  std::string c_source;  // generated C
  std::string keep_dir;  // non-empty: build here and keep it (-k)
};

// Builds `mb` for `t`; *ko_path receives the cached .ko, and *cache_hit
// (when given) whether it came from the cache. On a compiler error, *error
// holds Kbuild's output.
bool build_module(const Target &t, const Env &env, const ModuleBuild &mb, std::string *ko_path,
                  std::string *error, bool *cache_hit = nullptr);

std::string hash_hex(const std::string &data);

// A file's identity for cache keys: its path, size and modification time
// ("missing" if it does not exist).
std::string file_identity(const std::string &path);

// True if `release` is the kernel this program runs on.
bool is_running_kernel(const std::string &release);

}  // namespace xtap::kbuild
