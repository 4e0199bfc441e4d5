#include "xtap/bundle.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include "common/file_io.h"
#include "common/json.h"
#include "common/modinfo.h"
#include "common/module_signature.h"
#include "kbuild/kbuild.h"

namespace fs = std::filesystem;

namespace xtap::cli {
namespace {

struct Part {
  std::string release;
  fs::path dir;  // DIR/RELEASE
  pid_t pid = -1;
  int status = -1;  // exit code of the child; -1 until it ended
  std::string log;  // its stderr: diagnostics and build errors
};

std::string script_identity(const Options &o, std::string *error) {
  std::string text = o.script_text;
  if (text.empty()) {
    bool ok = false;
    text = read_file(o.script_file, &ok);
    if (!ok) {
      *error = "cannot read script '" + o.script_file + "': " + std::strerror(errno);
      return "";
    }
  }
  std::string id = text;
  for (const auto &a : o.script_args) id += '\0' + a;
  for (const auto &d : o.defines) id += std::string("\0-D", 3) + d;
  return id;
}

// True if stderr is a terminal: progress lines are drawn in place there
// and left out when the output goes to a file or a pipe.
bool progress_on_terminal() { return isatty(STDERR_FILENO); }

void show_progress(const Options &o, size_t done, size_t total, const std::string &last) {
  if (o.quiet || o.json || !progress_on_terminal()) return;
  std::cerr << "\r\033[K[" << done << "/" << total << "] " << last << std::flush;
  if (done == total) std::cerr << "\r\033[K" << std::flush;
}

pid_t start_part(const Options &o, const std::string &name, Part &p,
                 const std::function<int(const Options &)> &compile) {
  std::cout.flush();
  std::cerr.flush();
  pid_t pid = fork();
  if (pid != 0) return pid;
  // The child: an ordinary `xtap -p4 -m NAME -r RELEASE` run inside
  // DIR/RELEASE, so that pass 4 leaves NAME.ko there.
  Options one = o;
  // Paths the user gave are relative to where xtap started, not to DIR/RELEASE.
  auto absolute = [](std::string &path) {
    if (!path.empty() && path != "-") path = fs::absolute(path).string();
  };
  absolute(one.script_file);
  absolute(one.sign_key);
  absolute(one.sign_cert);
  for (auto &d : one.include_dirs) absolute(d);
  for (auto &d : one.debuginfo) absolute(d);
  int out = open((p.dir / ".stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int err = open((p.dir / ".log").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0 || err < 0 || chdir(p.dir.c_str()) != 0) _exit(1);
  dup2(out, STDOUT_FILENO);
  dup2(err, STDERR_FILENO);
  one.kernels.clear();
  one.kernel = p.release;
  one.last_pass = 4;
  one.module_name = name;
  one.output_file.clear();
  one.probe_list_file = (p.dir / ".probes").string();
  one.strip_debug =
      true;  // kallsyms symbolises at run time; DWARF would only make the bundle 15x bigger
  int rc = compile(one);
  std::cout.flush();
  std::cerr.flush();
  _exit(rc);
}

json::Value module_entry(const Options &o, const Part &p, const std::string &name,
                         std::string *error) {
  fs::path ko = p.dir / (name + ".ko");
  auto mi = read_modinfo(ko.string(), error);
  if (!mi) return {};
  kbuild::Env env;
  env.cache_dir = kbuild::default_cache_dir();
  env.version = XTAP_VERSION;
  std::string build_id, id_error;
  kbuild::Target t{p.release, ""};
  json::Value m = json::Value::object();
  m.set("release", json::Value::string(p.release));
  m.set("file", json::Value::string(p.release + "/" + name + ".ko"));
  m.set("vermagic", json::Value::string(mi->vermagic));
  if (kbuild::kernel_build_id(t, env, &build_id, &id_error))
    m.set("kernel_build_id", json::Value::string(build_id));
  else
    std::cerr << "xtap: warning: " << id_error << "; xtap-run will match " << p.release
              << " by release only\n";
  json::Value probes = json::Value::array();
  std::istringstream lines(read_file((p.dir / ".probes").string()));
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) probes.push(json::Value::string(line));
  m.set("probes", std::move(probes));
  bool read_ok = false;
  std::string bytes = read_file(ko.string(), &read_ok);
  m.set("size", json::Value::number(static_cast<double>(bytes.size())));
  m.set("signed", json::Value::boolean(has_module_signature(bytes)));
  if (!o.sign_cert.empty())
    m.set("signing_certificate", json::Value::string(fs::path(o.sign_cert).filename()));
  return m;
}

std::string utc_now() {
  char buf[32];
  time_t now = time(nullptr);
  struct tm tm {};
  gmtime_r(&now, &tm);
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

std::string fleet_module_name(const Options &o, std::string *error) {
  if (!o.module_name.empty()) return o.module_name;
  std::string identity = script_identity(o, error);
  return error->empty() ? "xtap_" + kbuild::hash_hex(identity).substr(0, 12) : "";
}

int build_bundle(const Options &o, const std::function<int(const Options &)> &compile) {
  std::string error;
  std::string identity = script_identity(o, &error);
  if (!error.empty()) {
    std::cerr << "xtap: " << error << "\n";
    return 1;
  }
  std::string name = fleet_module_name(o, &error);
  fs::path dir = fs::absolute(o.output_file);
  std::error_code ec;
  if (fs::exists(dir) && !fs::is_directory(dir)) {
    std::cerr << "xtap: -o " << o.output_file << ": a bundle is a directory, and this is a file\n";
    return 1;
  }
  if (fs::is_directory(dir) && !fs::is_empty(dir, ec) && !fs::exists(dir / "manifest.json")) {
    std::cerr
        << "xtap: -o " << o.output_file
        << ": the directory is not empty and holds no bundle; name a new or empty directory\n";
    return 1;
  }
  std::vector<Part> parts;
  for (const auto &r : o.kernels) {
    kbuild::Target t;
    if (!kbuild::resolve_target(r, &t, &error)) {
      std::cerr << "xtap: --kernels " << r << ": " << error << "\n";
      return 1;
    }
    Part p;
    p.release = t.release;
    p.dir = dir / t.release;
    fs::create_directories(p.dir, ec);
    if (ec) {
      std::cerr << "xtap: cannot create " << p.dir << ": " << ec.message() << "\n";
      return 1;
    }
    parts.push_back(std::move(p));
  }

  // Each child runs make with two jobs, and much of a module build is
  // make's own single-threaded work: two children at least, else one per
  // two CPUs.
  size_t parallel = std::max(2u, std::thread::hardware_concurrency() / 2);
  size_t next = 0, running = 0, done = 0;
  std::map<pid_t, Part *> by_pid;
  while (done < parts.size()) {
    while (running < parallel && next < parts.size()) {
      Part &p = parts[next++];
      p.pid = start_part(o, name, p, compile);
      if (p.pid < 0) {
        std::cerr << "xtap: cannot fork: " << std::strerror(errno) << "\n";
        return 1;
      }
      by_pid[p.pid] = &p;
      ++running;
      show_progress(o, done, parts.size(), "building for " + p.release);
    }
    int status = 0;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0 && errno == EINTR) continue;
    if (pid < 0) break;
    auto it = by_pid.find(pid);
    if (it == by_pid.end()) continue;
    Part &p = *it->second;
    p.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    p.log = read_file((p.dir / ".log").string());
    --running;
    ++done;
    show_progress(o, done, parts.size(), (p.status ? "failed: " : "built: ") + p.release);
  }

  // Diagnostics are usually the same for every kernel: each distinct log
  // once, naming the kernels it came from.
  std::vector<std::pair<std::string, std::string>> logs;  // log -> releases
  for (const auto &p : parts) {
    if (p.log.empty()) continue;
    auto it = std::find_if(logs.begin(), logs.end(), [&](auto &l) { return l.first == p.log; });
    if (it == logs.end()) logs.emplace_back(p.log, p.release);
    else it->second += ", " + p.release;
  }
  for (const auto &[log, releases] : logs) {
    if (logs.size() > 1 || parts.size() > 1) std::cerr << "xtap: for " << releases << ":\n";
    std::cerr << log;
  }

  json::Value manifest = json::Value::object();
  manifest.set("xtap_bundle", json::Value::number(1));
  manifest.set("xtap_version", json::Value::string(XTAP_VERSION));
  manifest.set("module", json::Value::string(name));
  manifest.set("script", json::Value::string(o.script_text.empty()
                                                 ? fs::path(o.script_file).filename().string()
                                                 : "<input>"));
  manifest.set("script_key", json::Value::string(kbuild::hash_hex(identity)));
  manifest.set("built", json::Value::string(utc_now()));
  json::Value modules = json::Value::array();
  int failed = 0;
  for (const auto &p : parts) {
    if (p.status != 0) {
      ++failed;
      std::cerr << "xtap: no module for " << p.release << " (exit " << p.status << ")\n";
      fs::remove_all(p.dir, ec);
      continue;
    }
    json::Value m = module_entry(o, p, name, &error);
    for (const char *tmp : {".stdout", ".log", ".probes"}) fs::remove(p.dir / tmp, ec);
    if (m.is_object()) {
      modules.push(std::move(m));
    } else {
      ++failed;
      std::cerr << "xtap: " << p.release << ": " << error << "\n";
    }
  }
  manifest.set("modules", std::move(modules));
  std::string tmp = (dir / "manifest.json.tmp").string();
  if (!write_file(tmp, manifest.dump() + "\n") ||
      rename(tmp.c_str(), (dir / "manifest.json").c_str()) != 0) {
    std::cerr << "xtap: cannot write " << (dir / "manifest.json") << "\n";
    return 1;
  }
  std::cout << dir.string() << "\n";
  if (failed)
    std::cerr << "xtap: the bundle has " << parts.size() - failed << " of " << parts.size()
              << " modules\n";
  return failed ? 1 : 0;
}

}  // namespace xtap::cli
