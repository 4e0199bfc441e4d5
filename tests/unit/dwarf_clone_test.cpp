// GCC clones in the DWARF index (symbols/dwarf.h, docs/probes-clones.md):
// on unit/clone_fixture.c built with gcc -g -O2, cf_add's only code is
// cf_add.constprop.0, which DWARF names cf_add; the index marks it as that
// clone, its source prototype keeps both parameters, and the clone has
// only the one that survives. Skipped without the fixture (not GCC).
#include <gtest/gtest.h>

#include <algorithm>

#include "symbols/dwarf.h"

namespace xtap {
namespace {

#ifdef XTAP_CLONE_FIXTURE
const char *kFixture = XTAP_CLONE_FIXTURE;
#else
const char *kFixture = nullptr;
#endif

TEST(DwarfClones, ACloneIsFoundByItsSourceNameAndMarked) {
  if (!kFixture) GTEST_SKIP() << "no clone fixture in this build";
  std::string error;
  auto d = KernelDwarf::open(kFixture, "clone_fixture", "", &error);
  ASSERT_TRUE(d) << error;
  auto fns = d->match("cf_add", "");
  ASSERT_EQ(fns.size(), 1u);
  EXPECT_EQ(fns[0]->clone, "cf_add.constprop.0");
  // The clone's own ELF name finds it too.
  auto by_clone = d->match("cf_add.constprop.0", "");
  ASSERT_EQ(by_clone.size(), 1u);
  EXPECT_EQ(by_clone[0], fns[0]);
  // A function that is not cloned is not marked.
  auto run = d->match("cf_run", "");
  ASSERT_EQ(run.size(), 1u);
  EXPECT_EQ(run[0]->clone, "");
}

TEST(DwarfClones, ThePrototypeIsTheSourcesAndTheCloneKeepsFewerParameters) {
  if (!kFixture) GTEST_SKIP() << "no clone fixture in this build";
  std::string error;
  auto d = KernelDwarf::open(kFixture, "clone_fixture", "", &error);
  ASSERT_TRUE(d) << error;
  auto fns = d->match("cf_add", "");
  ASSERT_EQ(fns.size(), 1u);
  std::vector<KParam> params;
  int return_type = 0;
  ASSERT_TRUE(d->prototype(*fns[0], &params, &return_type));
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params[0].name, "base");
  EXPECT_EQ(params[1].name, "step");
  // In the clone, base is in an argument register; step was folded in.
  std::vector<DwarfVar> at_entry = d->variables_at(*fns[0], fns[0]->entry);
  auto base = std::find_if(at_entry.begin(), at_entry.end(),
                           [](const DwarfVar &v) { return v.name == "base"; });
  ASSERT_NE(base, at_entry.end());
  EXPECT_EQ(base->where, DwarfVar::Where::Register) << base->why;
}

}  // namespace
}  // namespace xtap
