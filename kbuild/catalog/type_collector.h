// Clang types -> the catalog's type table, with layouts as Clang computes
// them for the target (ASTRecordLayout: sizes, member bit offsets, bitfield
// widths). Typedef names are kept (users see pid_t, u64, bool); every other
// kind of sugar (typeof, parentheses, attributes, elaborated names) is
// looked through. Each type is added once: records, enums and typedefs by
// declaration, the rest by structure.
#pragma once

#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "clang/AST/ASTContext.h"
#include "llvm/ADT/DenseMap.h"
#include "symbols/catalog.h"

namespace xtap::kcatalog {

class TypeCollector {
 public:
  explicit TypeCollector(clang::ASTContext &ctx) : ctx_(ctx) {}

  // The id of `type`; what it reaches is added too, record members once
  // finish() has run.
  int add(clang::QualType type);
  // Adds the members of every record reached so far, and what they reach.
  void finish();
  TypeTable take() { return std::move(table_); }

 private:
  clang::ASTContext &ctx_;
  TypeTable table_;
  llvm::DenseMap<void *, int> by_qualtype_;  // a cache of add()
  llvm::DenseMap<const clang::Decl *, int> by_decl_;
  std::map<std::string, int> builtins_;
  std::map<std::pair<int, bool>, int> pointers_;                      // (target, const target)
  std::map<std::pair<int, uint64_t>, int> arrays_;                    // (element, count)
  std::map<std::tuple<int, std::vector<int>, bool>, int> functions_;  // (return, params, ...)
  std::vector<std::pair<int, const clang::RecordDecl *>> records_to_fill_;

  int convert(clang::QualType type);
  int builtin(const clang::BuiltinType *bt);
  int sized(KTypeKind kind, const std::string &name, clang::QualType type, bool is_signed);
  int pointer(clang::QualType pointee);
  int array(clang::QualType element, uint64_t count);
  int function(const clang::FunctionType *ft);
  int record(const clang::RecordDecl *rd);
  int enumeration(const clang::EnumDecl *ed);
  int typedef_name(const clang::TypedefNameDecl *td);
  void fill_record(int id, const clang::RecordDecl *def);
};

}  // namespace xtap::kcatalog
