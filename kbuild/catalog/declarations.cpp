// Collecting tracepoints and syscall prototypes from the AST (see
// declarations.h).
#include "kbuild/catalog/declarations.h"

#include <algorithm>
#include <map>

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "kbuild/catalog/type_collector.h"

namespace xtap::kcatalog {
namespace {

using namespace clang;

constexpr llvm::StringLiteral kTraceIterPrefix = "__traceiter_";

// Where TRACE_SYSTEM was (re)defined or undefined, per file, in order.
class TraceSystems {
 public:
  explicit TraceSystems(const SourceManager &sm) : sm_(sm) {}

  void record(SourceLocation where, std::string value) {
    auto [file, offset] = sm_.getDecomposedExpansionLoc(where);
    active_[file].push_back({offset, std::move(value)});
  }

  // The system in force at `where` within its own file; "" when that file
  // sets none (bare tracepoints outside trace headers have no system).
  std::string at(SourceLocation where) {
    auto [file, offset] = sm_.getDecomposedExpansionLoc(where);
    const Definitions *defs = nullptr;
    auto active = active_.find(file);
    if (active != active_.end() && active->second.front().first <= offset) {
      defs = &active->second;
    } else {
      auto written = written_.find(file);
      if (written == written_.end())
        written = written_.emplace(file, written_definitions(file)).first;
      defs = &written->second;
    }
    std::string system;
    for (const auto &[def_offset, value] : *defs) {
      if (def_offset > offset) break;
      system = value;
    }
    return system;
  }

 private:
  using Definitions = std::vector<std::pair<unsigned, std::string>>;  // (offset, value), in order
  const SourceManager &sm_;
  std::map<FileID, Definitions> active_;   // seen by the preprocessor
  std::map<FileID, Definitions> written_;  // in the text, active or not

  // trace/events/module.h defines its system only under CREATE_TRACE_POINTS
  // (linux/module.h includes it in every file); when no definition was
  // active, the ones written in the file say what the system is.
  Definitions written_definitions(FileID file) const {
    Definitions out;
    llvm::StringRef text = sm_.getBufferData(file);
    for (size_t at = text.find("TRACE_SYSTEM"); at != llvm::StringRef::npos;
         at = text.find("TRACE_SYSTEM", at + 1)) {
      size_t line = text.rfind('\n', at) + 1;  // npos + 1 == 0
      llvm::StringRef before = text.slice(line, at).trim();
      if (!before.consume_front("#") || before.trim() != "define") continue;
      llvm::StringRef rest = text.slice(at + 12, text.find('\n', at));
      if (rest.empty() || !isspace(static_cast<unsigned char>(rest.front())))
        continue;  // TRACE_SYSTEM_VAR
      out.push_back({static_cast<unsigned>(at), rest.trim().str()});
    }
    return out;
  }
};

class TraceSystemTracker : public PPCallbacks {
 public:
  TraceSystemTracker(const Preprocessor &pp, TraceSystems *systems) : pp_(pp), systems_(systems) {}

  void MacroDefined(const Token &name, const MacroDirective *md) override {
    if (!is_trace_system(name)) return;
    // Usually one identifier, but "9p" is a number and "intel-sst" three
    // tokens: the value is the tokens as written.
    std::string value;
    for (const Token &t : md->getMacroInfo()->tokens())
      value += (value.empty() || !t.hasLeadingSpace() ? "" : " ") + pp_.getSpelling(t);
    systems_->record(name.getLocation(), value);
  }

  void MacroUndefined(const Token &name, const MacroDefinition &, const MacroDirective *) override {
    if (is_trace_system(name)) systems_->record(name.getLocation(), "");
  }

 private:
  const Preprocessor &pp_;
  TraceSystems *systems_;

  static bool is_trace_system(const Token &name) {
    const IdentifierInfo *ii = name.getIdentifierInfo();
    return ii && ii->getName() == "TRACE_SYSTEM";
  }
};

bool is_valid(const FunctionDecl *fd) {
  if (fd->isInvalidDecl()) return false;
  for (const ParmVarDecl *p : fd->parameters())
    if (p->isInvalidDecl() || p->getType()->containsErrors()) return false;
  return true;
}

class DeclarationCollector : public ASTConsumer {
 public:
  DeclarationCollector(const std::set<std::string> &syscall_functions,
                       std::unique_ptr<TraceSystems> systems, Declarations *out)
      : syscall_functions_(syscall_functions), systems_(std::move(systems)), out_(out) {}

  void HandleTranslationUnit(ASTContext &ctx) override {
    // After a fatal error Clang stops reporting; what it parsed after it is
    // not to be trusted, and the caller retries without the culprit.
    if (ctx.getDiagnostics().hasFatalErrorOccurred()) return;
    TypeCollector types(ctx);
    std::set<std::string> seen;
    for (const Decl *d : ctx.getTranslationUnitDecl()->decls()) {
      const auto *fd = dyn_cast<FunctionDecl>(d);
      if (!fd || !fd->getIdentifier()) continue;
      llvm::StringRef name = fd->getName();
      bool is_tracepoint = name.startswith(kTraceIterPrefix);
      if (!is_tracepoint && !syscall_functions_.count(name.str())) continue;
      if (!seen.insert(name.str()).second) continue;  // a redeclaration
      if (!is_valid(fd)) {
        out_->invalid.push_back(is_tracepoint
                                    ? "tracepoint " + name.drop_front(kTraceIterPrefix.size()).str()
                                    : "prototype " + name.str());
        continue;
      }
      if (is_tracepoint) add_tracepoint(fd, name.drop_front(kTraceIterPrefix.size()), types);
      else out_->prototypes[name.str()] = params(fd->parameters(), types);
    }
    types.finish();
    out_->types = types.take();
    std::sort(out_->tracepoints.begin(), out_->tracepoints.end(),
              [](const KTracepoint &a, const KTracepoint &b) {
                return std::tie(a.system, a.name) < std::tie(b.system, b.name);
              });
    out_->parsed = true;
  }

 private:
  const std::set<std::string> &syscall_functions_;
  std::unique_ptr<TraceSystems> systems_;
  Declarations *out_;

  static std::vector<KParam> params(llvm::ArrayRef<ParmVarDecl *> decls, TypeCollector &types) {
    std::vector<KParam> out;
    for (const ParmVarDecl *p : decls) {
      KParam kp;
      kp.name = p->getName().str();
      kp.type = types.add(p->getType());  // as passed: array parameters are pointers
      out.push_back(std::move(kp));
    }
    return out;
  }

  void add_tracepoint(const FunctionDecl *fd, llvm::StringRef name, TypeCollector &types) {
    llvm::ArrayRef<ParmVarDecl *> decls = fd->parameters();
    // The first parameter is the probe's private data, not the tracepoint's.
    if (!decls.empty() && decls.front()->getName() == "__data") decls = decls.drop_front();
    KTracepoint tp;
    tp.system = systems_->at(fd->getLocation());
    if (tp.system.find_first_of(" \t") != std::string::npos) tp.system.clear();  // not a name
    tp.name = name.str();
    tp.args = params(decls, types);
    out_->tracepoints.push_back(std::move(tp));
  }
};

class CollectAction : public ASTFrontendAction {
 public:
  CollectAction(const std::set<std::string> &syscall_functions, Declarations *out)
      : syscall_functions_(syscall_functions), out_(out) {}

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &ci, llvm::StringRef) override {
    auto systems = std::make_unique<TraceSystems>(ci.getSourceManager());
    ci.getPreprocessor().addPPCallbacks(
        std::make_unique<TraceSystemTracker>(ci.getPreprocessor(), systems.get()));
    return std::make_unique<DeclarationCollector>(syscall_functions_, std::move(systems), out_);
  }

 private:
  const std::set<std::string> &syscall_functions_;
  Declarations *out_;
};

}  // namespace

std::unique_ptr<FrontendAction> make_collect_action(const std::set<std::string> &syscall_functions,
                                                    Declarations *out) {
  return std::make_unique<CollectAction>(syscall_functions, out);
}

}  // namespace xtap::kcatalog
