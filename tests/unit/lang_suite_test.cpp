// The language suites under tests/lang/, grouped as in SystemTap's testsuite
// by the pass that must accept or reject each script:
//   parseok/  pass 1 (lex, preprocess, parse) reports no error
//   parseko/  pass 1 reports the expected error first
//   semok/    passes 1 and 2 (elaborate) report no error
//   semko/    passes 1 and 2 report the expected error first
// Each .stp file is one test case. Header comments configure it:
//   # XTAP-EXPECT: XTP2207 3:14   (ko files) the first error's code and line:col
//   # XTAP-MESSAGE: some text     (ko files, optional) the first error's message contains it
//   # XTAP-ARGS: 5 hello          script arguments for $1/@1, $#
//   # XTAP-GURU                   parse with -g (embedded C allowed)
//   # XTAP-KEEP-UNUSED            elaborate as xtap -u does (no code dropped)
// tests/lang/known-failures.txt lists cases the translator gets wrong today,
// one "path reason" per line; they are reported as skipped, and as failures
// once they pass, so that the list only ever shrinks.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "diag/diagnostics.h"
#include "parse/parser.h"
#include "parse/preprocess.h"
#include "passes/passes.h"
#include "test_catalog.h"
#if __has_include("parse/tapsets.h")
#include "parse/tapsets.h"
#define XTAP_LANG_HAVE_TAPSETS 1
#endif

namespace fs = std::filesystem;

namespace xtap {
namespace {

// The kernel catalog the suites' kernel.trace cases resolve against.
const ProbeEnv &lang_suite_env() {
  static ProbeEnv env = test::test_probe_env();
  return env;
}

fs::path source_dir() {
#ifdef XTAP_SOURCE_DIR
  return XTAP_SOURCE_DIR;
#else
  return fs::path(__FILE__).parent_path().parent_path().parent_path();
#endif
}

fs::path lang_dir() { return source_dir() / "tests" / "lang"; }

std::string read_file(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Case {
  std::string rel;    // path under tests/lang/, as "semko/unknown_function.stp"
  std::string suite;  // parseok, parseko, semok, semko
};

// Shown by gtest for a failing case instead of the struct's bytes.
void PrintTo(const Case &c, std::ostream *os) { *os << c.rel; }

std::vector<Case> discover() {
  std::vector<Case> out;
  for (const char *suite : {"parseok", "parseko", "semok", "semko"}) {
    std::error_code ec;
    fs::path dir = lang_dir() / suite;
    for (auto it = fs::recursive_directory_iterator(dir, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_regular_file() && it->path().extension() == ".stp")
        out.push_back({fs::relative(it->path(), lang_dir()).generic_string(), suite});
  }
  std::sort(out.begin(), out.end(), [](const Case &a, const Case &b) { return a.rel < b.rel; });
  return out;
}

// "path reason..." per line; '#' lines and blank lines are comments.
std::map<std::string, std::string> known_failures() {
  std::map<std::string, std::string> out;
  std::istringstream in(read_file(lang_dir() / "known-failures.txt"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto sp = line.find_first_of(" \t");
    std::string path = line.substr(0, sp);
    std::string reason =
        sp == std::string::npos ? "" : line.substr(line.find_first_not_of(" \t", sp));
    out[path] = reason;
  }
  return out;
}

struct Header {
  std::vector<std::string> args;
  bool guru = false;
  bool keep_unused = false;  // XTAP-KEEP-UNUSED: -u
  bool has_expect = false;
  std::string code;
  int line = 0, column = 0;
  std::string message;  // XTAP-MESSAGE: part of the first error's message
};

// Reads the XTAP-* directives from the comment lines that open the file.
Header read_header(const std::string &text) {
  Header h;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("#", 0) != 0 && line.rfind("//", 0) != 0) break;
    std::istringstream words(line.substr(line[0] == '#' ? 1 : 2));
    std::string key;
    words >> key;
    if (key == "XTAP-ARGS:") {
      for (std::string a; words >> a;) h.args.push_back(a);
    } else if (key == "XTAP-GURU") {
      h.guru = true;
    } else if (key == "XTAP-KEEP-UNUSED") {
      h.keep_unused = true;
    } else if (key == "XTAP-EXPECT:") {
      std::string where;
      words >> h.code >> where;
      h.has_expect = std::sscanf(where.c_str(), "%d:%d", &h.line, &h.column) == 2;
    } else if (key == "XTAP-MESSAGE:") {
      std::getline(words >> std::ws, h.message);
    }
  }
  return h;
}

PreprocessContext target_context(const Header &h) {
  PreprocessContext ctx;
  ctx.kernel_release = "6.1.0-56-cloud-amd64";
  ctx.arch = "x86_64";
  ctx.kconfig = {{"CONFIG_KPROBES", "y"},
                 {"CONFIG_KRETPROBES", "y"},
                 {"CONFIG_SMP", "y"},
                 {"CONFIG_HZ", "250"},
                 {"CONFIG_MODULES", "y"},
                 {"CONFIG_EXT4_FS", "m"},
                 {"CONFIG_LOCALVERSION", "-cloud"}};
  ctx.args = h.args;
  return ctx;
}

std::string printed(const Diagnostics &d) {
  std::ostringstream ss;
  d.print(ss);
  return ss.str();
}

class LangSuite : public testing::TestWithParam<Case> {};

TEST_P(LangSuite, Run) {
  const Case &c = GetParam();
  static const auto known = known_failures();
  auto kf = known.find(c.rel);

  SourceFile file{c.rel, read_file(lang_dir() / c.rel)};
  Header h = read_header(file.text);
  bool ko = c.suite.ends_with("ko");
  bool sem = c.suite.starts_with("sem");
  ASSERT_TRUE(!ko || h.has_expect)
      << c.rel << ": a ko file needs '# XTAP-EXPECT: XTPnnnn LINE:COL'";

  PreprocessContext ctx = target_context(h);
  ParseOptions opts;
  opts.guru = h.guru;
  Diagnostics diags;
  std::vector<std::unique_ptr<SourceFile>> macro_files;
#ifdef XTAP_LANG_HAVE_TAPSETS
  if (sem) {
    std::string err;
    ASSERT_TRUE(
        load_macro_files({(source_dir() / "tapsets").string()}, &ctx, diags, &macro_files, &err))
        << err;
  }
#endif
  auto script = parse_script(file, diags, &ctx, opts);
  if (sem && !diags.has_errors()) {
#ifdef XTAP_LANG_HAVE_TAPSETS
    std::string err;
    ASSERT_TRUE(load_tapsets(*script, {(source_dir() / "tapsets").string()}, diags, &ctx, &err))
        << err;
#endif
    if (!diags.has_errors()) {
      Elaborated elab;
      ElaborateOptions eopts;
      eopts.keep_unused = h.keep_unused;
      elaborate(*script, lang_suite_env(), elab, diags, eopts);
    }
  }

  const Diagnostic *first = nullptr;
  for (const auto &d : diags.all())
    if (d.severity == Severity::Error) {
      first = &d;
      break;
    }

  std::string failure;
  if (!ko) {
    if (first) failure = "expected no error, got:\n" + printed(diags);
  } else if (!first) {
    failure = "expected " + h.code + " at " + std::to_string(h.line) + ":" +
              std::to_string(h.column) + ", got no error";
  } else if (first->code != h.code || first->loc.file != &file || first->loc.line != h.line ||
             first->loc.column != h.column) {
    failure = "expected " + h.code + " at " + std::to_string(h.line) + ":" +
              std::to_string(h.column) + " first, got:\n" + printed(diags);
  } else if (first->message.find(h.message) == std::string::npos) {
    failure = "expected the message to contain '" + h.message + "', got:\n" + printed(diags);
  }

  if (kf != known.end()) {
    if (failure.empty())
      FAIL() << c.rel << " is listed in tests/lang/known-failures.txt but passes now: remove it";
    GTEST_SKIP() << "known failure: " << kf->second << "\n" << failure;
  }
  EXPECT_TRUE(failure.empty()) << c.rel << ": " << failure;
}

std::string case_name(const testing::TestParamInfo<Case> &info) {
  std::string n = info.param.rel.substr(0, info.param.rel.size() - 4);  // drop ".stp"
  for (char &ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Lang, LangSuite, testing::ValuesIn(discover()), case_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(LangSuite);

TEST(LangSuiteLayout, EverySuiteHasScripts) {
  std::map<std::string, int> n;
  for (const auto &c : discover()) ++n[c.suite];
  for (const char *suite : {"parseok", "parseko", "semok", "semko"})
    EXPECT_GT(n[suite], 0) << "tests/lang/" << suite << "/ has no .stp files";
}

}  // namespace
}  // namespace xtap
