// Reading the kernel's compile flags from Kbuild (see kernel_flags.h).
#include "kbuild/catalog/kernel_flags.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "kbuild/kbuild.h"
#include "kbuild/run_make.h"

namespace fs = std::filesystem;

namespace xtap::kcatalog {
namespace {

constexpr char kProbeName[] = "xtap_kcatalog_flags";

std::string read_file(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// POSIX shell word splitting, enough for Kbuild's commands: quotes,
// backslashes, and the operators that end the compiler's command.
std::vector<std::string> shell_words(const std::string &s) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(cur);
      cur.clear();
      in_word = false;
    } else if (c == '\'') {
      size_t end = s.find('\'', i + 1);
      if (end == std::string::npos) end = s.size();
      cur += s.substr(i + 1, end - i - 1);
      i = end;
      in_word = true;
    } else if (c == '"') {
      for (++i; i < s.size() && s[i] != '"'; ++i) {
        if (s[i] == '\\' && i + 1 < s.size() &&
            std::string("\"\\$`").find(s[i + 1]) != std::string::npos)
          ++i;
        cur += s[i];
      }
      in_word = true;
    } else if (c == '\\' && i + 1 < s.size()) {
      cur += s[++i];
      in_word = true;
    } else if (!in_word && (c == ';' || c == '|' || c == '&')) {
      break;  // the compiler's command ends here (objtool and friends follow)
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(cur);
  return words;
}

bool starts_with(const std::string &s, const char *prefix) { return s.rfind(prefix, 0) == 0; }

// Machine options that change predefined macros (__SSE__, __MMX__ ...),
// which headers test; the rest only change code generation.
bool is_macro_changing_machine_option(const std::string &a) {
  return a == "-m64" || a == "-m32" || starts_with(a, "-mno-sse") || a == "-mno-mmx" ||
         a == "-mno-3dnow" || starts_with(a, "-mno-avx") || a == "-mno-80387";
}

// -f options that change types or what parses: char signedness, wchar_t,
// anonymous members of tagged types.
bool is_language_option(const std::string &a) {
  return a == "-funsigned-char" || a == "-fsigned-char" || a == "-fshort-wchar" ||
         a == "-fms-extensions";
}

}  // namespace

bool kbuild_compile_command(const std::string &build_dir, const std::string &work_dir, bool verbose,
                            std::string *command, std::string *error) {
  fs::path dir = fs::path(work_dir) / "flags";
  std::error_code ec;
  fs::create_directories(dir, ec);
  {
    // The flags do not depend on the source; an empty one compiles at once.
    std::ofstream(dir / (std::string(kProbeName) + ".c"))
        << "/* xtap-kcatalog: the kernel's compile flags */\n";
    std::ofstream(dir / "Kbuild") << "obj-m := " << kProbeName << ".o\n";
  }
  std::string log = (dir / "make.log").string();
  std::string make_error;
  int rc = kbuild::run_make({"-C", build_dir, "M=" + dir.string(), std::string(kProbeName) + ".o"},
                            log, verbose, &make_error);
  fs::path cmd_file = dir / ("." + std::string(kProbeName) + ".o.cmd");
  if (rc != 0 || !fs::exists(cmd_file)) {
    *error = "cannot compile a test module against " + build_dir +
             " to learn the kernel's compile flags (make exited with " + std::to_string(rc) +
             "):\n" + make_error + read_file(log);
    return false;
  }
  *command = command_from_cmd_file(read_file(cmd_file));
  return true;
}

std::string command_from_cmd_file(const std::string &text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t assign = line.find(" := ");
    if ((starts_with(line, "cmd_") || starts_with(line, "savedcmd_")) &&
        assign != std::string::npos)
      return line.substr(assign + 4);
  }
  return text;
}

bool clang_flags_from_command(const std::string &command, const std::string &build_dir,
                              KernelFlags *flags, std::string *error) {
  std::vector<std::string> words = shell_words(command);
  auto absolute = [&](const std::string &p) {
    fs::path path = p;
    return (path.is_absolute() ? path : fs::path(build_dir) / path).lexically_normal().string();
  };
  // Options whose value is a path, attached ("-Ifoo") or the next word.
  const char *path_options[] = {"-I", "-isystem", "-iquote", "-idirafter", "-include"};
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string &w = words[i];
    bool handled = false;
    for (const char *opt : path_options) {
      if (!starts_with(w, opt)) continue;
      size_t n = std::string(opt).size();
      std::string value = w.size() > n ? w.substr(n) : i + 1 < words.size() ? words[++i] : "";
      if (value.empty()) break;
      std::string path = absolute(value);
      if (std::string(opt) == "-I") {
        flags->args.push_back("-I" + path);
        flags->include_dirs.push_back(path);
        // arch/<ARCH>/include: the architecture the kernel was built for.
        fs::path p = path;
        if (flags->arch.empty() && p.filename() == "include" &&
            p.parent_path().parent_path().filename() == "arch")
          flags->arch = p.parent_path().filename().string();
      } else {
        flags->args.push_back(opt);
        flags->args.push_back(path);
      }
      handled = true;
      break;
    }
    if (handled) continue;
    if ((w == "-D" || w == "-U") && i + 1 < words.size()) {
      flags->args.push_back(w + words[++i]);
    } else if (starts_with(w, "-D") || starts_with(w, "-U") || starts_with(w, "-std=") ||
               w == "-nostdinc" || is_macro_changing_machine_option(w) || is_language_option(w)) {
      flags->args.push_back(w);
    }
  }
  if (flags->include_dirs.empty()) {
    *error = "the kernel's compile command has no -I options: " + command;
    return false;
  }
  return true;
}

}  // namespace xtap::kcatalog
