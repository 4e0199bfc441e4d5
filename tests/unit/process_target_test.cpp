// process(PID) and process("PATH").begin/.end in pass 2
// (translator/probes/process_target.cpp, process_lifecycle.cpp): the PID's
// executable from /proc, the filter to that process, the errors users see.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "helpers.h"
#include "probes/process_probe.h"

namespace xtap {
namespace {

std::string self_pid() { return std::to_string(getpid()); }

TEST(ProcessTarget, PidProbesTheProcessExecutableOnlyInThatProcess) {
  auto r = test::run("probe process(" + self_pid() + ").function(\"main\") { }");
  ASSERT_TRUE(r->ok) << r->printed();
  ASSERT_EQ(r->elab.probes.size(), 1u);
  auto *p = dynamic_cast<const ProcessFunctionProbe *>(r->elab.probes[0].get());
  ASSERT_TRUE(p);
  EXPECT_EQ(p->path, std::filesystem::read_symlink("/proc/self/exe").string());
  EXPECT_EQ(p->pid, getpid());
  // The module checks the file's build-id before arming.
  EXPECT_FALSE(p->build_id.empty());
  EXPECT_GT(p->build_id_offset, 0u);
  EXPECT_NE(process_spec_fields(*p).find(".pid = " + self_pid()), std::string::npos);
}

TEST(ProcessTarget, PidLifecyclePointsAreNamedByThePid) {
  auto r = test::run("probe process(" + self_pid() + ").end, process(" + self_pid() +
                     ").thread.begin { }");
  ASSERT_TRUE(r->ok) << r->printed();
  ASSERT_EQ(r->elab.probes.size(), 2u);
  EXPECT_EQ(r->elab.probes[0]->name(), "process(" + self_pid() + ").end");
  EXPECT_EQ(r->elab.probes[1]->name(), "process(" + self_pid() + ").thread.begin");
}

TEST(ProcessTarget, MissingPidIsAnErrorAtThePid) {
  auto r = test::run("probe process(999999999).begin { }");
  EXPECT_EQ(r->first_error(), "XTP2178");
  EXPECT_NE(r->printed().find("t.stp:1:7"), std::string::npos) << r->printed();
  EXPECT_EQ(test::run("probe process(0).function(\"main\") { }")->first_error(), "XTP2178");
  // An optional point on a missing process is dropped.
  EXPECT_TRUE(test::run("probe process(999999999).function(\"main\")?, begin { }")->ok);
}

TEST(ProcessTarget, PathLifecyclePoints) {
  auto r = test::run("probe process(\"/bin/sh\").begin, process(\"sh\").thread.end { }");
  ASSERT_TRUE(r->ok) << r->printed();
  ASSERT_EQ(r->elab.probes.size(), 2u);
  EXPECT_EQ(r->elab.probes[0]->name(), "process(\"/bin/sh\").begin");
  EXPECT_EQ(r->elab.probes[0]->user_file(), "/bin/sh");
  EXPECT_EQ(test::run("probe process(\"/no/such/prog\").end { }")->first_error(), "XTP2171");
  EXPECT_EQ(test::run("probe process(\"/bin/s*\").begin { }")->first_error(), "XTP2170");
  EXPECT_EQ(test::run("probe process(\"/bin/sh\").begin(1) { }")->first_error(), "XTP2170");
}

}  // namespace
}  // namespace xtap
