// Entry values (DW_OP_entry_value) in the DWARF reader
// (symbols/dwarf_vars.cpp), on unit/entry_value_fixture.c, which
// tests/CMakeLists.txt compiles with gcc -g -O2 and, as the kernel is
// compiled, no unwind tables: its CFI is in .debug_frame (an ET_REL object,
// as a module's debuginfo). Skipped without the fixture.
#include <gtest/gtest.h>

#include <algorithm>

#include "symbols/dwarf.h"

namespace xtap {
namespace {

#ifdef XTAP_ENTRY_VALUE_FIXTURE
const char *kFixture = XTAP_ENTRY_VALUE_FIXTURE;
#else
const char *kFixture = nullptr;
#endif

const DwarfVar *var_named(const std::vector<DwarfVar> &vars, const std::string &name) {
  auto it =
      std::find_if(vars.begin(), vars.end(), [&](const DwarfVar &v) { return v.name == name; });
  return it == vars.end() ? nullptr : &*it;
}

TEST(DwarfEntryValues, ReadInsideTheFunctionWithTheCallsCfa) {
  if (!kFixture) GTEST_SKIP() << "no entry-value fixture in this build";
  std::string error;
  auto d = KernelDwarf::open(kFixture, "entry_value_fixture", "", &error);
  ASSERT_TRUE(d) << error;
  auto fns = d->match("ev_outer", "");
  ASSERT_EQ(fns.size(), 1u);
  const DwarfFunction &f = *fns[0];
  // At the entry `a` is in rdi; after the first call, only its entry value.
  std::vector<DwarfVar> entry_vars = d->variables_at(f, f.entry);
  const DwarfVar *at_entry = var_named(entry_vars, "a");
  ASSERT_TRUE(at_entry);
  EXPECT_EQ(at_entry->where, DwarfVar::Where::Register) << at_entry->why;
  EXPECT_EQ(at_entry->reg, 5);
  int entry_values = 0;
  for (const DwarfLine &l : d->lines(f, 1, 1 << 30)) {
    std::vector<DwarfVar> vars = d->variables_at(f, l.addr);
    const DwarfVar *a = var_named(vars, "a");
    if (!a || a->where != DwarfVar::Where::EntryValue) continue;
    ++entry_values;
    EXPECT_EQ(a->reg, 5);  // rdi, the first argument
    EXPECT_FALSE(a->in_memory);
    EXPECT_EQ(a->offset, 0);
    // The CFA: rsp + 16 after ev_outer's one push.
    EXPECT_EQ(a->cfa_reg, 7);
    EXPECT_EQ(a->cfa_offset, 16);
  }
  EXPECT_GT(entry_values, 0);
}

TEST(DwarfEntryValues, AnInlinedCopyHasNoEntryToKeepThemAt) {
  if (!kFixture) GTEST_SKIP() << "no entry-value fixture in this build";
  std::string error;
  auto d = KernelDwarf::open(kFixture, "entry_value_fixture", "", &error);
  ASSERT_TRUE(d) << error;
  auto copies = d->match_inlined("ev_inner", "");
  ASSERT_FALSE(copies.empty());
  int refused = 0;
  for (const DwarfFunction *c : copies)
    for (const DwarfLine &l : d->lines(*c, 1, 1 << 30)) {
      std::vector<DwarfVar> vars = d->variables_at(*c, l.addr);
      const DwarfVar *a = var_named(vars, "a");
      if (!a || a->where != DwarfVar::Where::Unavailable ||
          a->why.find("DW_OP_entry_value") == std::string::npos)
        continue;
      ++refused;
      EXPECT_NE(a->why.find("inlined"), std::string::npos) << a->why;
    }
  // GCC may keep every copy's `a` elsewhere; then there is nothing to refuse.
  RecordProperty("refused", refused);
}

}  // namespace
}  // namespace xtap
