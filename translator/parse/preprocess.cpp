#include "parse/preprocess.h"

#include <fnmatch.h>

#include <algorithm>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>

#include "parse/lexer.h"

namespace xtap {

void load_kconfig(const std::string &path, PreprocessContext *ctx) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("CONFIG_", 0) != 0) continue;
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string v = line.substr(eq + 1);
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    ctx->kconfig[line.substr(0, eq)] = v;
  }
}

int compare_versions(const std::string &a, const std::string &b) {
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    long x = 0, y = 0;
    while (i < a.size() && isdigit(static_cast<unsigned char>(a[i]))) x = x * 10 + (a[i++] - '0');
    while (j < b.size() && isdigit(static_cast<unsigned char>(b[j]))) y = y * 10 + (b[j++] - '0');
    if (x != y) return x < y ? -1 : 1;
    // Skip one separator; anything that is not a number ends the comparison.
    bool more_a = i < a.size() && a[i] == '.', more_b = j < b.size() && b[j] == '.';
    if (!more_a && !more_b) break;
    if (more_a) ++i;
    if (more_b) ++j;
  }
  return 0;
}

namespace {

using Macro = MacroDef;

constexpr int kMaxExpansionDepth = 32;
// How deep %( conditionals may nest: each level rescans the tokens it
// holds, so an absurd depth would cost quadratic time before the stack.
constexpr int kMaxConditionalDepth = 64;
// How many tokens macro expansion may step through, counting each macro
// body once per use: macros that expand into several copies of each other
// grow exponentially with their depth, in output or (past
// kMaxExpansionDepth) in errors.
constexpr size_t kMaxExpandedTokens = 500'000;

class Preprocessor {
 public:
  Preprocessor(const PreprocessContext &ctx, Diagnostics &d) : ctx_(ctx), diags_(d) {}

  // A macro file: its macros, and what else it holds once they are taken out.
  std::vector<Token> run_library(const std::vector<Token> &in, std::map<std::string, Macro> *out) {
    std::vector<Token> rest = run(in);
    for (auto &[name, m] : macros_) (*out)[name] = m;
    return rest;
  }

  std::vector<Token> run(const std::vector<Token> &in) {
    std::vector<Token> toks = collect_defines(in);
    std::vector<Token> out;
    expand(toks, 0, toks.size() - 1, out, 0);  // the End token is appended below
    out.push_back(toks.back());
    return out;
  }

 private:
  using Toks = std::vector<Token>;

  // Index of the %) that closes the %( at `open`, or `end` if there is none.
  size_t matching_close(const Toks &t, size_t open, size_t end) {
    int depth = 0;
    for (size_t i = open; i < end; ++i) {
      if (t[i].is_op("%(")) ++depth;
      if (t[i].is_op("%)") && --depth == 0) return i;
    }
    return end;
  }

  // Removes @define NAME[(params)] %( body %) and records the macros. A
  // @define inside a %( conditional is left in place: expand() records it
  // if its branch is taken (stap ignores macros of branches not taken).
  Toks collect_defines(const Toks &in) {
    Toks out;
    int conditional = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i].is_op("%(")) ++conditional;
      if (in[i].is_op("%)") && conditional > 0) --conditional;
      if (!(in[i].kind == Tok::Identifier && in[i].text == "@define") || conditional > 0) {
        out.push_back(in[i]);
        continue;
      }
      i = define(in, i, in.size() - 1);
    }
    // An unfinished @define at the end may have stepped over the End token.
    if (out.empty() || out.back().kind != Tok::End) out.push_back(in.back());
    return out;
  }

  // The @define at `at` (tokens up to `end`): records the macro and returns
  // the index of its last token.
  size_t define(const Toks &in, size_t at_index, size_t end) {
    Location at = in[at_index].loc;
    size_t j = at_index + 1;
    if (j >= end || in[j].kind != Tok::Identifier) {
      diags_.error("XTP1031", at, "@define needs a macro name");
      return at_index;
    }
    const Location name_loc = in[j].loc;
    std::string name = in[j++].text;
    Macro m;
    m.loc = at;
    if (j < end && in[j].is_op("(")) {
      ++j;
      while (j < end && in[j].kind == Tok::Identifier) {
        m.params.push_back(in[j++].text);
        if (j < end && in[j].is_op(",")) ++j;
      }
      if (j >= end || !in[j].is_op(")")) {
        diags_.error("XTP1031", in[std::min(j, end)].loc, "malformed @define parameter list");
        return std::min(j, end - 1);
      }
      ++j;
    }
    if (j >= end || !in[j].is_op("%(")) {
      diags_.error("XTP1031", in[std::min(j, end)].loc,
                   "@define " + name + " needs a body in %( ... %)");
      return std::min(j, end - 1);
    }
    size_t close = matching_close(in, j, end);
    if (close == end) {
      diags_.error("XTP1032", in[j].loc, "unterminated %( in @define " + name);
      return end - 1;
    }
    m.body.assign(in.begin() + j + 1, in.begin() + close);
    if (name == "define") {  // the body is skipped, not read as script text
      diags_.error("XTP1031", name_loc, "@define cannot be redefined");
      return close;
    }
    if (macros_.count(name)) diags_.error("XTP1033", at, "macro @" + name + " is defined twice");
    macros_[name] = std::move(m);
    return close;
  }

  void expand(const Toks &t, size_t begin, size_t end, Toks &out, int depth) {
    if (depth > kMaxExpansionDepth) {
      // Once: a macro that uses itself twice would report it at every leaf.
      if (!reported_too_deep_)
        diags_.error("XTP1034", t[begin].loc,
                     "macro expansion nests too deeply (recursive @define?)");
      reported_too_deep_ = true;
      return;
    }
    for (size_t i = begin; i < end; ++i) {
      const Token &tok = t[i];
      if (depth > 0 && ++expanded_ > kMaxExpandedTokens) {
        if (!reported_too_many_) {
          reported_too_many_ = true;
          diags_
              .error("XTP2272", tok.loc,
                     "macro expansion goes through more than " +
                         std::to_string(kMaxExpandedTokens) +
                         " tokens (macros expanding into copies of each other?)")
              .hint = "a macro used several times in another macro doubles its size at each level";
        }
        return;
      }
      if (tok.is_op("%(")) {
        i = conditional(t, i, end, out, depth);
        continue;
      }
      if (tok.kind == Tok::Identifier && tok.text == "@define") {
        if (depth > 0) {
          diags_.error("XTP1031", tok.loc, "@define inside a macro body");
          continue;
        }
        i = define(t, i, end);
        continue;
      }
      if (tok.is_op("%?") || tok.is_op("%:") || tok.is_op("%)")) {
        diags_.error("XTP1035", tok.loc, "'" + tok.text + "' without a matching '%('");
        continue;
      }
      if (tok.kind == Tok::Identifier && (tok.text[0] == '$' || tok.text[0] == '@')) {
        if (argument(t, i, end, out, depth, &i)) continue;
      }
      out.push_back(tok);
    }
  }

  // Script arguments and macros: false if the token at i is none of these
  // (a target variable such as $fd); else true, *consumed = the last index used.
  bool argument(const Toks &t, size_t i, size_t end, Toks &out, int depth, size_t *consumed) {
    size_t last = i;
    bool done = expand_argument(t, i, end, out, depth, &last);
    if (done) *consumed = last;
    return done;
  }

  bool expand_argument(const Toks &t, size_t i, size_t end, Toks &out, int depth,
                       size_t *last_out) {
    size_t &last = *last_out;
    const Token &tok = t[i];
    std::string rest = tok.text.substr(1);
    if (rest == "#") {
      // $# is the count as a number, @# as a string literal, as in stap.
      Token n = tok;
      n.kind = tok.text[0] == '$' ? Tok::Number : Tok::String;
      n.number = static_cast<long long>(ctx_.args.size());
      n.text = std::to_string(n.number);
      out.push_back(n);
      return true;
    }
    if (!rest.empty() && std::all_of(rest.begin(), rest.end(), ::isdigit)) {
      // More digits than any argument count: missing, not an overflow.
      size_t idx = rest.size() > 9 ? 0 : std::stoul(rest);
      if (idx < 1 || idx > ctx_.args.size()) {
        diags_
            .error("XTP1036", tok.loc,
                   "script argument " + tok.text +
                       " is missing: " + std::to_string(ctx_.args.size()) + " given")
            .hint = "pass arguments after the script: xtap script.stp ARG1 ARG2 ...";
        return true;
      }
      const std::string &arg = ctx_.args[idx - 1];
      if (tok.text[0] == '@') {
        Token s = tok;
        s.kind = Tok::String;
        s.text = arg;
        out.push_back(s);
        return true;
      }
      // $N is the argument's text lexed as script tokens (usually a number).
      arg_files_.push_back(std::make_unique<SourceFile>(SourceFile{"argument " + tok.text, arg}));
      Diagnostics sub;
      for (auto &a : lex(*arg_files_.back(), sub)) {
        if (a.kind == Tok::End) break;
        a.loc = tok.loc;
        out.push_back(a);
      }
      if (sub.has_errors())
        diags_
            .error("XTP1037", tok.loc,
                   "script argument " + tok.text + " ('" + arg + "') is not a valid token")
            .hint = "use @" + rest + " to take the argument as a string";
      return true;
    }
    // No target variable or macro name starts with a digit: $12A3 is a
    // mistyped script argument.
    if (!rest.empty() && ::isdigit(static_cast<unsigned char>(rest[0]))) {
      diags_.error("XTP1044", tok.loc, "'" + tok.text + "' is not a script argument").hint =
          "script arguments are $1, $2, ... (or @1, @2, ... as strings)";
      return true;
    }
    if (tok.text[0] != '@') return false;
    const Macro *found = nullptr;
    if (auto it = macros_.find(rest); it != macros_.end()) {
      found = &it->second;
    } else if (auto lib = ctx_.library_macros.find(rest); lib != ctx_.library_macros.end()) {
      found = &lib->second;
    } else {
      return false;
    }
    const Macro &m = *found;
    std::vector<Toks> args;
    if (!m.params.empty()) {
      if (i + 1 >= end || !t[i + 1].is_op("(")) {
        diags_.error(
            "XTP1038", tok.loc,
            "macro @" + rest + " takes " + std::to_string(m.params.size()) + " argument(s)");
        return true;
      }
      // A comma inside (), [] or {} belongs to its argument: @m(a[i, j], f(x, y)).
      int nest = 0;
      args.emplace_back();
      for (last = i + 2; last < end; ++last) {
        const Token &a = t[last];
        if (a.is_op(")") && nest <= 0) break;
        if (a.is_op("(") || a.is_op("[") || a.is_op("{")) ++nest;
        if (a.is_op(")") || a.is_op("]") || a.is_op("}")) --nest;
        if (a.is_op(",") && nest == 0) {
          args.emplace_back();
          continue;
        }
        args.back().push_back(a);
      }
      if (last >= end) {
        diags_.error("XTP1038", tok.loc, "macro @" + rest + "'s argument list has no closing ')'");
        return true;
      }
      if (args.size() != m.params.size()) {
        diags_.error("XTP1038", tok.loc,
                     "macro @" + rest + " takes " + std::to_string(m.params.size()) +
                         " argument(s), " + std::to_string(args.size()) + " given");
        return true;
      }
    }
    // The macro's own tokens remember this use, for diagnostics; the
    // arguments keep their places at the use site.
    auto via = std::make_shared<Expansion>(Expansion{"macro '@" + rest + "'", tok.loc});
    Toks body;
    for (const Token &b : m.body) {
      bool substituted = false;
      if (b.kind == Tok::Identifier && b.text[0] == '@')
        for (size_t p = 0; p < m.params.size(); ++p)
          if (b.text.substr(1) == m.params[p]) {
            body.insert(body.end(), args[p].begin(), args[p].end());
            substituted = true;
          }
      if (!substituted) {
        body.push_back(b);
        body.back().loc.via = via;
      }
    }
    body.push_back(Token{});  // sentinel for expand()'s end
    expand(body, 0, body.size() - 1, out, depth + 1);
    return true;
  }

  // %( COND %? A %: B %) starting at `open`; returns the index of its %).
  size_t conditional(const Toks &t, size_t open, size_t end, Toks &out, int depth) {
    size_t close = matching_close(t, open, end);
    if (conditional_depth_ >= kMaxConditionalDepth) {
      diags_
          .error("XTP2273", t[open].loc,
                 "'%(' conditionals nest more than " + std::to_string(kMaxConditionalDepth) +
                     " levels deep")
          .hint = "join the conditions with && and ||";
      return close == end ? end - 1 : close;
    }
    struct Level {
      int &depth;
      explicit Level(int &counter) : depth(counter) { ++depth; }
      ~Level() { --depth; }
    } level(conditional_depth_);
    if (close == end) {
      diags_.error("XTP1032", t[open].loc, "unterminated '%(' conditional").hint =
          "close it with '%)'";
      return end - 1;
    }
    size_t q = close, colon = close, stray = close;
    int nest = 0;
    for (size_t i = open + 1; i < close; ++i) {
      if (t[i].is_op("%(")) ++nest;
      if (t[i].is_op("%)")) --nest;
      if (nest != 0) continue;
      if (t[i].is_op("%?") && q == close) q = i;
      else if (t[i].is_op("%:") && q != close && colon == close) colon = i;
      else if (t[i].is_op("%?") || t[i].is_op("%:")) stray = i;  // a second %? or %:
    }
    if (stray != close) {
      diags_.error("XTP1035", t[stray].loc, "'" + t[stray].text + "' without a matching '%('")
          .hint = "a conditional has one '%?' and at most one '%:'";
      return close;
    }
    if (q == close) {
      diags_.error("XTP1039", t[open].loc, "conditional without '%?'").hint =
          "write %( condition %? tokens %: other tokens %)";
      return close;
    }
    // The condition's own script arguments and macros are expanded first,
    // as stap does: %( $# > 1 %? ... %), %( @1 == "x" %? ... %).
    Toks cond;
    int errors = diags_.error_count();
    expand(t, open + 1, q, cond, depth);
    if (diags_.error_count() != errors) return close;
    cond.push_back(t[q]);
    pos_ = 0;
    cond_end_ = cond.size() - 1;
    toks_ = &cond;
    bool value = false;
    try {
      value = condition();
      if (pos_ != cond_end_)
        throw CondError{cond[pos_].loc, "unexpected '" + cond[pos_].text + "' in condition"};
    } catch (const CondError &e) {
      diags_.error("XTP1040", e.loc, "bad preprocessor condition: " + e.what).hint =
          "conditions compare kernel_v, kernel_vr, arch, runtime, systemtap_v, "
          "systemtap_privilege, "
          "guru_mode or CONFIG_* with a literal, or two literals ($#, @1, a macro), "
          "joined by && and ||";
      return close;
    }
    if (value) expand(t, q + 1, colon, out, depth);
    else if (colon != close) expand(t, colon + 1, close, out, depth);
    return close;
  }

  struct CondError {
    Location loc;
    std::string what;
  };

  const Token &cur() {
    if (pos_ >= cond_end_) throw CondError{(*toks_)[cond_end_].loc, "incomplete condition"};
    return (*toks_)[pos_];
  }

  bool condition() {
    bool v = conjunction();
    while (pos_ < cond_end_ && cur().is_op("||")) {
      ++pos_;
      v = conjunction() || v;
    }
    return v;
  }

  bool conjunction() {
    bool v = comparison();
    while (pos_ < cond_end_ && cur().is_op("&&")) {
      ++pos_;
      v = comparison() && v;
    }
    return v;
  }

  bool comparison() {
    if (cur().is_op("(")) {
      ++pos_;
      bool v = condition();
      if (!cur().is_op(")")) throw CondError{cur().loc, "expected ')'"};
      ++pos_;
      return v;
    }
    if (cur().is_op("!")) {
      ++pos_;
      return !comparison();
    }
    Token lhs = cur();
    ++pos_;
    Token op = cur();
    static const char *ops[] = {"==", "!=", "<", "<=", ">", ">="};
    bool known = false;
    for (const char *o : ops) known |= op.is_op(o);
    if (!known) throw CondError{op.loc, "expected a comparison operator"};
    ++pos_;
    Token rhs = cur();
    ++pos_;
    const std::string &n = lhs.text;
    const bool lhs_config = lhs.kind == Tok::Identifier && n.rfind("CONFIG_", 0) == 0;
    const bool rhs_config = rhs.kind == Tok::Identifier && rhs.text.rfind("CONFIG_", 0) == 0;
    if (rhs.kind != Tok::String && rhs.kind != Tok::Number && !(lhs_config && rhs_config))
      throw CondError{rhs.loc, lhs_config
                                   ? "the right side must be a literal or another CONFIG_ option"
                                   : "the right side must be a literal"};
    std::string rv = rhs.kind == Tok::String ? rhs.text : std::to_string(rhs.number);

    auto cmp_result = [&](int c) {
      if (op.text == "==") return c == 0;
      if (op.text == "!=") return c != 0;
      if (op.text == "<") return c < 0;
      if (op.text == "<=") return c <= 0;
      if (op.text == ">") return c > 0;
      return c >= 0;
    };
    // String-valued operands: == and != match shell globs, as in stap.
    auto str_cmp = [&](const std::string &have) {
      if (op.text == "==" || op.text == "!=") {
        bool m = fnmatch(rv.c_str(), have.c_str(), 0) == 0;
        return op.text == "==" ? m : !m;
      }
      return cmp_result(have.compare(rv));
    };
    auto ver_cmp = [&](const std::string &have) {
      if ((op.text == "==" || op.text == "!=") && rv.find_first_of("*?[") != std::string::npos)
        return str_cmp(have);
      return cmp_result(compare_versions(have, rv));
    };
    auto num_cmp = [&](long long have, long long want) {
      return cmp_result(have < want ? -1 : have > want ? 1 : 0);
    };
    // Two literals (what $1, @1, $#, @# and macros leave): numbers compare
    // as numbers, strings as strings (no globs), as in stap.
    if (lhs.kind == Tok::Number || lhs.kind == Tok::String) {
      if (lhs.kind != rhs.kind)
        throw CondError{rhs.loc, lhs.kind == Tok::Number ? "expected a number as right side"
                                                         : "expected a string as right side"};
      if (lhs.kind == Tok::Number) return num_cmp(lhs.number, rhs.number);
      return cmp_result(lhs.text.compare(rhs.text));
    }
    if (lhs.kind != Tok::Identifier) throw CondError{lhs.loc, "expected a condition name"};
    if (n == "kernel_v")
      return ver_cmp(ctx_.kernel_release.substr(0, ctx_.kernel_release.find('-')));
    if (n == "kernel_vr") return ver_cmp(ctx_.kernel_release);
    if (n == "systemtap_v") return ver_cmp(ctx_.compat_version);
    // stap only tests these names for (glob) equality.
    const bool eq_only = n == "arch" || n == "runtime" || n == "guru_mode";
    if (eq_only && op.text != "==" && op.text != "!=")
      throw CondError{op.loc, "'" + n + "' is compared with '==' or '!=' only"};
    if (n == "arch") return str_cmp(ctx_.arch);
    if (n == "runtime") return str_cmp("kernel");
    // xtap runs every module with full privileges: stap's "stapdev".
    if (n == "systemtap_privilege") return str_cmp("stapdev");
    if (n == "guru_mode") {
      if (rhs.kind != Tok::Number) throw CondError{rhs.loc, "compare guru_mode with 0 or 1"};
      long long have = ctx_.guru ? 1 : 0;
      return cmp_result(have < rhs.number ? -1 : have > rhs.number ? 1 : 0);
    }
    if (lhs_config) {
      std::string have = config_value(n);
      if (rhs.kind == Tok::String) return str_cmp(have);
      long long a = 0, b = 0;
      if (rhs.kind == Tok::Number) {
        // An unset option is "" and compares as 0, as in stap.
        if (!config_number(have, &a))
          throw CondError{lhs.loc, n + " is \"" + have + "\", not a number"};
        return num_cmp(a, rhs.number);
      }
      // CONFIG_A OP CONFIG_B: as numbers when both are, else as strings.
      std::string other = config_value(rhs.text);
      if (config_number(have, &a) && config_number(other, &b)) return num_cmp(a, b);
      return cmp_result(have.compare(other));
    }
    throw CondError{lhs.loc, "unknown condition name '" + n + "'"};
  }

  std::string config_value(const std::string &name) const {
    auto it = ctx_.kconfig.find(name);
    return it == ctx_.kconfig.end() ? "" : it->second;
  }

  // strtoll's reading of a config value (decimal, 0x hex, 0 octal); ""
  // reads as 0.
  static bool config_number(const std::string &v, long long *out) {
    errno = 0;
    char *end = nullptr;
    *out = std::strtoll(v.c_str(), &end, 0);
    return errno == 0 && end && *end == '\0';
  }

  const PreprocessContext &ctx_;
  Diagnostics &diags_;
  int conditional_depth_ = 0;       // %( conditionals open now
  bool reported_too_many_ = false;  // XTP2272 once
  bool reported_too_deep_ = false;  // XTP1034 once
  size_t expanded_ = 0;             // tokens stepped through by expand()
  std::map<std::string, Macro> macros_;
  std::vector<std::unique_ptr<SourceFile>> arg_files_;
  const Toks *toks_ = nullptr;
  size_t pos_ = 0, cond_end_ = 0;
};

}  // namespace

void collect_library_macros(const std::vector<Token> &toks, PreprocessContext *ctx,
                            Diagnostics &diags) {
  std::map<std::string, Macro> found;
  std::vector<Token> rest = Preprocessor(*ctx, diags).run_library(toks, &found);
  for (const auto &t : rest)
    if (t.kind != Tok::End) {
      diags.error("XTP1042", t.loc, "a macro file (.stpm) holds only @define macros").hint =
          "put probes, functions and globals in a .stp tapset";
      break;
    }
  for (auto &[name, m] : found) {
    if (ctx->library_macros.count(name))
      diags.error("XTP1033", m.loc, "macro @" + name + " is defined twice");
    ctx->library_macros[name] = std::move(m);
  }
}

std::vector<Token> preprocess(const std::vector<Token> &toks, const PreprocessContext &ctx,
                              Diagnostics &diags) {
  return Preprocessor(ctx, diags).run(toks);
}

}  // namespace xtap
