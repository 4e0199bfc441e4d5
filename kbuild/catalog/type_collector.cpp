// Clang types -> the catalog's type table (see type_collector.h).
#include "kbuild/catalog/type_collector.h"

#include "clang/AST/Decl.h"
#include "clang/AST/RecordLayout.h"
#include "clang/AST/Type.h"

namespace xtap::kcatalog {

using namespace clang;

int TypeCollector::add(QualType type) {
  void *key = type.getAsOpaquePtr();
  auto it = by_qualtype_.find(key);
  if (it != by_qualtype_.end()) return it->second;
  int id = convert(type);
  by_qualtype_[key] = id;
  return id;
}

void TypeCollector::finish() {
  // Filling a record adds its members' types, which may reach new records.
  while (!records_to_fill_.empty()) {
    auto [id, def] = records_to_fill_.back();
    records_to_fill_.pop_back();
    fill_record(id, def);
  }
}

int TypeCollector::convert(QualType type) {
  // Sugar other than typedefs (typeof, parentheses, attributes, `struct x`
  // spelled out, array parameters adjusted to pointers) is peeled one layer
  // at a time until something the catalog represents shows up.
  for (;;) {
    const Type *t = type.getTypePtrOrNull();
    if (!t) return sized(KTypeKind::Void, "void", ctx_.VoidTy, false);
    switch (t->getTypeClass()) {
      case Type::Typedef: return typedef_name(cast<TypedefType>(t)->getDecl());
      case Type::Builtin: return builtin(cast<BuiltinType>(t));
      case Type::Pointer: return pointer(cast<PointerType>(t)->getPointeeType());
      case Type::ConstantArray: {
        const auto *at = cast<ConstantArrayType>(t);
        return array(at->getElementType(), at->getSize().getZExtValue());
      }
      case Type::IncompleteArray:
      case Type::VariableArray: return array(cast<ArrayType>(t)->getElementType(), 0);
      case Type::Vector:
      case Type::ExtVector: {
        const auto *vt = cast<VectorType>(t);
        return array(vt->getElementType(), vt->getNumElements());
      }
      case Type::Record: return record(cast<RecordType>(t)->getDecl());
      case Type::Enum: return enumeration(cast<EnumType>(t)->getDecl());
      case Type::FunctionProto:
      case Type::FunctionNoProto: return function(cast<FunctionType>(t));
      case Type::Complex:
        return sized(KTypeKind::Float, type.getUnqualifiedType().getAsString(), type, false);
      case Type::BitInt:
        return sized(KTypeKind::Int, type.getUnqualifiedType().getAsString(), type,
                     type->isSignedIntegerType());
      case Type::Atomic: type = cast<AtomicType>(t)->getValueType(); continue;
      default:
        // Nothing else is written in C headers; should it appear, it is
        // kept as void rather than guessed.
        QualType desugared = type.getSingleStepDesugaredType(ctx_);
        if (desugared == type) return sized(KTypeKind::Void, "void", ctx_.VoidTy, false);
        type = desugared;
    }
  }
}

int TypeCollector::builtin(const BuiltinType *bt) {
  if (bt->getKind() == BuiltinType::Void) return sized(KTypeKind::Void, "void", ctx_.VoidTy, false);
  std::string name = bt->getName(PrintingPolicy(ctx_.getLangOpts())).str();
  QualType type(bt, 0);
  if (bt->isInteger()) return sized(KTypeKind::Int, name, type, bt->isSignedInteger());
  if (bt->isFloatingPoint()) return sized(KTypeKind::Float, name, type, false);
  return sized(KTypeKind::Void, "void", ctx_.VoidTy, false);
}

// Base types, one entry per spelling ("unsigned int", "_Bool", "void").
int TypeCollector::sized(KTypeKind kind, const std::string &name, QualType type, bool is_signed) {
  auto it = builtins_.find(name);
  if (it != builtins_.end()) return it->second;
  KType k;
  k.kind = kind;
  k.name = name;
  k.size = kind == KTypeKind::Void ? 0 : ctx_.getTypeSizeInChars(type).getQuantity();
  k.is_signed = is_signed;
  int id = table_.add(std::move(k));
  builtins_.emplace(name, id);
  return id;
}

int TypeCollector::pointer(QualType pointee) {
  // Only the pointee's constness survives: it is part of how users know
  // the type ("const char*"); volatile and restrict change no read.
  bool is_const = pointee.isConstQualified();
  int target = add(pointee);
  auto key = std::make_pair(target, is_const);
  auto it = pointers_.find(key);
  if (it != pointers_.end()) return it->second;
  KType k;
  k.kind = KTypeKind::Pointer;
  k.size = ctx_.getTypeSizeInChars(ctx_.VoidPtrTy).getQuantity();
  k.target = target;
  k.is_const = is_const;
  int id = table_.add(std::move(k));
  pointers_.emplace(key, id);
  return id;
}

int TypeCollector::array(QualType element, uint64_t count) {
  int target = add(element);
  auto key = std::make_pair(target, count);
  auto it = arrays_.find(key);
  if (it != arrays_.end()) return it->second;
  KType k;
  k.kind = KTypeKind::Array;
  k.target = target;
  k.count = count;
  if (!element->isIncompleteType()) k.size = count * ctx_.getTypeSizeInChars(element).getQuantity();
  int id = table_.add(std::move(k));
  arrays_.emplace(key, id);
  return id;
}

int TypeCollector::function(const FunctionType *ft) {
  int ret = add(ft->getReturnType());
  std::vector<int> params;
  // A K&R declaration `int f()` says nothing about its parameters: spelled
  // "int (...)".
  bool variadic = true;
  if (const auto *proto = dyn_cast<FunctionProtoType>(ft)) {
    for (QualType p : proto->getParamTypes()) params.push_back(add(p));
    variadic = proto->isVariadic();
  }
  auto key = std::make_tuple(ret, params, variadic);
  auto it = functions_.find(key);
  if (it != functions_.end()) return it->second;
  KType k;
  k.kind = KTypeKind::Function;
  k.target = ret;
  k.variadic = variadic;
  for (int p : params) {
    KMember m;
    m.type = p;
    k.members.push_back(m);
  }
  int id = table_.add(std::move(k));
  functions_.emplace(std::move(key), id);
  return id;
}

int TypeCollector::record(const RecordDecl *rd) {
  const Decl *canonical = rd->getCanonicalDecl();
  auto it = by_decl_.find(canonical);
  if (it != by_decl_.end()) return it->second;
  KType k;
  k.kind = rd->isUnion() ? KTypeKind::Union : KTypeKind::Struct;
  k.name = rd->getName().str();
  // A record whose definition Clang rejected has no trustworthy layout: it
  // is kept incomplete, like one that is only declared.
  const RecordDecl *def = rd->getDefinition();
  k.complete = def && def->isCompleteDefinition() && !def->isInvalidDecl();
  if (k.complete) k.size = ctx_.getASTRecordLayout(def).getSize().getQuantity();
  int id = table_.add(std::move(k));
  by_decl_[canonical] = id;
  // Members later (finish()): a record reaches itself through pointers.
  if (def && table_.at(id).complete) records_to_fill_.emplace_back(id, def);
  return id;
}

void TypeCollector::fill_record(int id, const RecordDecl *def) {
  const ASTRecordLayout &layout = ctx_.getASTRecordLayout(def);
  std::vector<KMember> members;
  for (const FieldDecl *fd : def->fields()) {
    // Unnamed bitfields are padding; other unnamed fields are anonymous
    // structs and unions, whose members users name directly.
    if (fd->isUnnamedBitfield()) continue;
    bool anonymous = fd->isAnonymousStructOrUnion() || fd->getDeclName().isEmpty();
    if (anonymous && !fd->getType()->isRecordType()) continue;
    KMember m;
    m.name = anonymous ? "" : fd->getName().str();
    m.type = add(fd->getType());
    m.bit_offset = layout.getFieldOffset(fd->getFieldIndex());
    if (fd->isBitField()) m.bit_size = fd->getBitWidthValue(ctx_);
    members.push_back(std::move(m));
  }
  table_.mutable_at(id).members = std::move(members);
}

int TypeCollector::enumeration(const EnumDecl *ed) {
  const Decl *canonical = ed->getCanonicalDecl();
  auto it = by_decl_.find(canonical);
  if (it != by_decl_.end()) return it->second;
  const EnumDecl *def = ed->getDefinition();
  QualType underlying = def && !def->getIntegerType().isNull() ? def->getIntegerType() : ctx_.IntTy;
  KType k;
  k.kind = KTypeKind::Enum;
  k.name = ed->getName().str();
  k.size = ctx_.getTypeSizeInChars(underlying).getQuantity();
  k.is_signed = underlying->isSignedIntegerType();
  int id = table_.add(std::move(k));
  by_decl_[canonical] = id;
  return id;
}

int TypeCollector::typedef_name(const TypedefNameDecl *td) {
  const Decl *canonical = td->getCanonicalDecl();
  auto it = by_decl_.find(canonical);
  if (it != by_decl_.end()) return it->second;
  QualType underlying = td->getUnderlyingType();
  int target = add(underlying);
  KType k;
  k.kind = KTypeKind::Typedef;
  k.name = td->getName().str();
  k.target = target;
  if (!underlying->isIncompleteType() && !underlying->isFunctionType())
    k.size = ctx_.getTypeSizeInChars(underlying).getQuantity();
  int id = table_.add(std::move(k));
  by_decl_[canonical] = id;
  return id;
}

}  // namespace xtap::kcatalog
