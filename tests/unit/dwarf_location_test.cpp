// Computed DWARF locations (probes/dwarf_location.cpp): DwarfVar pieces of
// resolved operations, as symbols/dwarf_vars.cpp lowers GCC's expressions,
// turned into C and that C compiled with gcc and run against stand-ins for
// the runtime's register and memory readers, so that the test checks the
// values the expressions compute, not their spelling.
#include <dwarf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>

#include "probes/dwarf_location.h"

namespace xtap {
namespace {

using K = DwarfExprOp::Kind;

struct Types {
  TypeTable t;
  int void_t, s64, s32, u16, ptr, rec;
  Types() {
    KType v;
    v.kind = KTypeKind::Void;
    void_t = t.add(v);
    KType l;
    l.kind = KTypeKind::Int;
    l.name = "long int";
    l.size = 8;
    l.is_signed = true;
    s64 = t.add(l);
    l.name = "int";
    l.size = 4;
    s32 = t.add(l);
    l.name = "short unsigned int";
    l.size = 2;
    l.is_signed = false;
    u16 = t.add(l);
    KType p;
    p.kind = KTypeKind::Pointer;
    p.size = 8;
    p.target = s64;
    ptr = t.add(p);
    KType r;
    r.kind = KTypeKind::Struct;
    r.name = "fd";
    r.size = 16;
    r.complete = true;
    rec = t.add(r);
  }
};

DwarfExprOp op(K kind, int64_t number = 0, int reg = -1, int atom = 0, uint32_t size = 8) {
  DwarfExprOp o;
  o.kind = kind;
  o.number = number;
  o.reg = reg;
  o.atom = atom;
  o.size = size;
  return o;
}

DwarfPiece piece(DwarfPiece::Kind kind, std::vector<DwarfExprOp> ops, uint32_t size = 0,
                 int reg = -1) {
  DwarfPiece p;
  p.kind = kind;
  p.ops = std::move(ops);
  p.size = size;
  p.reg = reg;
  return p;
}

ContextVar computed(const Types &ty, int type, std::vector<DwarfPiece> pieces) {
  DwarfVar v;
  v.name = "v";
  v.type = type;
  v.where = DwarfVar::Where::Computed;
  v.pieces = std::move(pieces);
  ContextVar cv;
  computed_context_var(ty.t, v, "", false, &cv);
  return cv;
}

// Evaluates C expressions of u64 with registers rN = 0x1000 * (N + 1) and
// memory where the u64 at address A holds A * 3 (loads of fewer bytes take
// its low bytes, sign-extended when asked).
std::vector<unsigned long long> evaluate(const std::vector<std::string> &exprs) {
  char dir[] = "/tmp/xtap-dwloc-XXXXXX";
  if (!mkdtemp(dir)) return {};
  std::string src = std::string(dir) + "/e.c", exe = std::string(dir) + "/e";
  std::ofstream c(src);
  c << "#include <stdio.h>\n#include <stdint.h>\ntypedef uint64_t u64; typedef int64_t s64;\n"
       "typedef int32_t s32; typedef uint32_t u32; typedef int16_t s16; typedef uint16_t u16;\n"
       "typedef int8_t s8; typedef uint8_t u8; struct xtap_context { int unused; };\n"
       "static u64 xtap_dwarf_reg(struct xtap_context *c, int r) { return 0x1000ULL * (r + 1); }\n"
       "static u64 xtap_dwarf_load(struct xtap_context *c, u64 a, u32 size, int sgn) {\n"
       "  u64 v = a * 3; if (size == 8) return v; v &= (1ULL << (8 * size)) - 1;\n"
       "  if (sgn && (v >> (8 * size - 1))) v |= ~0ULL << (8 * size); return v; }\n"
       "int main(void) { struct xtap_context ctx, *c = &ctx;\n";
  for (const std::string &e : exprs)
    c << "  printf(\"%llu\\n\", (unsigned long long)(" << e << "));\n";
  c << "  return 0; }\n";
  c.close();
  std::vector<unsigned long long> out;
  if (system(("gcc -O0 -w -o " + exe + " " + src).c_str()) != 0) return out;
  std::unique_ptr<FILE, int (*)(FILE *)> p(popen(exe.c_str(), "r"), pclose);
  unsigned long long v;
  while (p && fscanf(p.get(), "%llu", &v) == 1) out.push_back(v);
  system(("rm -rf " + std::string(dir)).c_str());
  return out;
}

TEST(DwarfLocation, StackMachineOperationsComputeTheirValues) {
  Types ty;
  std::vector<std::string> exprs;
  // DW_OP_breg5 8, DW_OP_stack_value: rdi + 8 (a pointer kept as base + offset).
  ContextVar a = computed(ty, ty.ptr, {piece(DwarfPiece::Kind::Value, {op(K::Reg, 8, 5)})});
  // DW_OP_breg3 0, DW_OP_lit1, DW_OP_shl, DW_OP_lit3, DW_OP_minus: (rbx << 1) - 3.
  ContextVar b =
      computed(ty, ty.s64,
               {piece(DwarfPiece::Kind::Value,
                      {op(K::Reg, 0, 3), op(K::Const, 1), op(K::Binary, 0, -1, DW_OP_shl),
                       op(K::Const, 3), op(K::Binary, 0, -1, DW_OP_minus)})});
  // A signed comparison: (lit5 - lit7) < 0 is 1.
  ContextVar c =
      computed(ty, ty.s64,
               {piece(DwarfPiece::Kind::Value,
                      {op(K::Const, 5), op(K::Const, 7), op(K::Binary, 0, -1, DW_OP_minus),
                       op(K::Const, 0), op(K::Binary, 0, -1, DW_OP_lt)})});
  // DW_OP_dup, DW_OP_over, DW_OP_swap, DW_OP_rot, DW_OP_drop keep the stack's order:
  // 1 2 3 rot -> 3 1 2; minus -> 3 (1-2); drop -> 3.
  ContextVar d = computed(ty, ty.s64,
                          {piece(DwarfPiece::Kind::Value,
                                 {op(K::Const, 1), op(K::Const, 2), op(K::Const, 3), op(K::Rot),
                                  op(K::Binary, 0, -1, DW_OP_minus), op(K::Drop)})});
  // An int computed in a register: the upper half dropped, sign-extended.
  ContextVar e =
      computed(ty, ty.s32, {piece(DwarfPiece::Kind::Value, {op(K::Const, 0xffffffffLL)})});
  // Memory at a computed address: DW_OP_breg7 16, DW_OP_deref, DW_OP_plus_uconst 8 is a place.
  ContextVar f =
      computed(ty, ty.s64,
               {piece(DwarfPiece::Kind::Memory,
                      {op(K::Reg, 16, 7), op(K::Deref), op(K::Unary, 8, -1, DW_OP_plus_uconst)})});
  // DW_OP_shra of a negative value, DW_OP_div by a constant.
  ContextVar g =
      computed(ty, ty.s64,
               {piece(DwarfPiece::Kind::Value,
                      {op(K::Const, -64), op(K::Const, 2), op(K::Binary, 0, -1, DW_OP_shra),
                       op(K::Const, 4), op(K::Binary, 0, -1, DW_OP_div)})});
  for (const ContextVar *cv : {&a, &b, &c, &d, &e, &f, &g}) {
    ASSERT_TRUE(cv->unavailable.empty()) << cv->unavailable;
    exprs.push_back(cv->c_value);
  }
  EXPECT_EQ(f.address_c.empty(), false) << "memory at a computed address is a place";
  std::vector<unsigned long long> v = evaluate(exprs);
  ASSERT_EQ(v.size(), exprs.size()) << "the C did not compile or run";
  EXPECT_EQ(v[0], 0x6000ULL + 8);
  EXPECT_EQ(v[1], (0x4000ULL << 1) - 3);
  EXPECT_EQ(v[2], 1u);
  EXPECT_EQ(v[3], 3u);
  EXPECT_EQ(v[4], ~0ULL);  // (int)-1 widened
  unsigned long long ptr = (0x8000ULL + 16) * 3 + 8;
  EXPECT_EQ(v[5], ptr * 3);
  EXPECT_EQ(v[6], static_cast<unsigned long long>(-4LL));
}

TEST(DwarfLocation, PiecesMakeOneScalarLowBytesFirst) {
  Types ty;
  // A long whose low half is in rdx (DWARF 1) and high half a constant:
  // DW_OP_reg1 DW_OP_piece 4 DW_OP_lit7 DW_OP_stack_value DW_OP_piece 4.
  ContextVar a = computed(ty, ty.s64,
                          {piece(DwarfPiece::Kind::Register, {}, 4, 1),
                           piece(DwarfPiece::Kind::Value, {op(K::Const, 7)}, 4)});
  // A short from two bytes of memory at rsp+0 and rsp+1... as 1-byte pieces.
  ContextVar b = computed(ty, ty.u16,
                          {piece(DwarfPiece::Kind::Memory, {op(K::Reg, 0, 7)}, 1),
                           piece(DwarfPiece::Kind::Memory, {op(K::Reg, 1, 7)}, 1)});
  ASSERT_TRUE(a.unavailable.empty()) << a.unavailable;
  ASSERT_TRUE(b.unavailable.empty()) << b.unavailable;
  std::vector<unsigned long long> v = evaluate({a.c_value, b.c_value});
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0], (7ULL << 32) | 0x2000ULL);
  EXPECT_EQ(v[1], ((0x8000ULL * 3) & 0xff) | ((((0x8000ULL + 1) * 3) & 0xff) << 8));
}

TEST(DwarfLocation, WhatCannotBeHeldSaysWhy) {
  Types ty;
  // A struct over two registers (struct fd in ksys_read).
  ContextVar a = computed(
      ty, ty.rec,
      {piece(DwarfPiece::Kind::Register, {}, 8, 3), piece(DwarfPiece::Kind::Register, {}, 4, 6)});
  EXPECT_NE(a.unavailable.find("DW_OP_piece"), std::string::npos) << a.unavailable;
  // Part of it optimised out.
  ContextVar b = computed(
      ty, ty.s64,
      {piece(DwarfPiece::Kind::Register, {}, 4, 1), piece(DwarfPiece::Kind::Missing, {}, 4)});
  EXPECT_NE(b.unavailable.find("optimised out"), std::string::npos) << b.unavailable;
  // A division by a value known only at run time.
  ContextVar c = computed(ty, ty.s64,
                          {piece(DwarfPiece::Kind::Value, {op(K::Const, 8), op(K::Reg, 0, 0),
                                                           op(K::Binary, 0, -1, DW_OP_div)})});
  EXPECT_NE(c.unavailable.find("divides"), std::string::npos) << c.unavailable;
  // An entry value with no function entry to keep it at.
  ContextVar d = computed(ty, ty.s64, {piece(DwarfPiece::Kind::Value, {op(K::EntryReg, 0, 5)})});
  EXPECT_NE(d.unavailable.find("DW_OP_entry_value"), std::string::npos) << d.unavailable;
  EXPECT_TRUE(d.entry_frame.empty());
}

TEST(DwarfLocation, AProgramsMemoryIsReadWithTheUserReader) {
  Types ty;
  DwarfVar v;
  v.name = "v";
  v.type = ty.s64;
  v.where = DwarfVar::Where::Computed;
  v.pieces = {piece(DwarfPiece::Kind::Memory, {op(K::Reg, 16, 7), op(K::Deref)})};
  ContextVar cv;
  computed_context_var(ty.t, v, "", true, &cv);
  ASSERT_TRUE(cv.unavailable.empty()) << cv.unavailable;
  EXPECT_EQ(cv.c_value.find("xtap_dwarf_load"), std::string::npos) << cv.c_value;
  EXPECT_NE(cv.c_value.find("xtap_dwarf_uload(c, xtap_dwarf_uload("), std::string::npos)
      << cv.c_value;
  // A program's static moves with its load address, which is not known.
  v.pieces = {piece(DwarfPiece::Kind::Value, {op(K::Symbol, 8)})};
  ContextVar st;
  computed_context_var(ty.t, v, "", true, &st);
  EXPECT_NE(st.unavailable.find("static"), std::string::npos) << st.unavailable;
}

}  // namespace
}  // namespace xtap
