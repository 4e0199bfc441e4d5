// The kernel catalog loader (translator/symbols/): types, spellings,
// anonymous members, lookups, and corrupt files that must be errors with a
// line, never crashes. The real catalog of an installed kernel is tested in
// catalog_kernel_test.cpp.
#include "symbols/catalog.h"

#include <gtest/gtest.h>

namespace xtap {
namespace {

// A small catalog in the text format, as xtap-kcatalog writes it.
const char kSmall[] = R"(xtap-catalog 1
release 6.1.0-test
counts 17 2 2
t 0 void
t 1 int 4 s int
t 2 typedef 1 pid_t
t 3 int 1 s char
t 4 array 3 16
t 5 struct 64 5 task_struct
m 0 0 2 pid
m 32 0 4 comm
m 160 0 6
m 224 3 1 flags
m 256 0 7 next
t 6 union 4 2
m 0 0 1 a
m 0 0 8 b
t 7 ptr 5
t 8 int 4 u unsigned int
t 9 ptr 3 const
t 10 int 1 u _Bool
t 11 typedef 10 bool
t 12 func 1 2
p 7
p 9
t 13 ptr 12
t 14 ptr 9 const
t 15 struct incomplete file
t 16 func 0 1 ...
p 9
tp sched sched_switch 3
p 11 preempt
p 7 prev
p 7 next
tp - bare_tp 0
sc 257 openat 2
p 1 dfd
p 9 filename
sc 9 mmap -
end
)";

std::unique_ptr<KernelCatalog> parse_ok(const std::string &text) {
  std::string error;
  auto cat = KernelCatalog::parse(text, "cat.txt", &error);
  EXPECT_NE(cat, nullptr) << error;
  return cat;
}

std::string parse_error(const std::string &text) {
  std::string error;
  auto cat = KernelCatalog::parse(text, "cat.txt", &error);
  EXPECT_EQ(cat, nullptr);
  return error;
}

TEST(Catalog, ReadsTypesWithLayouts) {
  auto cat = parse_ok(kSmall);
  ASSERT_TRUE(cat);
  EXPECT_EQ(cat->release(), "6.1.0-test");
  const TypeTable &tt = cat->types();
  int task = tt.find_record("task_struct");
  ASSERT_EQ(task, 5);
  const KType &t = tt.at(task);
  EXPECT_EQ(t.kind, KTypeKind::Struct);
  EXPECT_EQ(t.size, 64u);
  ASSERT_EQ(t.members.size(), 5u);
  EXPECT_EQ(t.members[0].name, "pid");
  EXPECT_EQ(tt.spelling(t.members[0].type), "pid_t");
  EXPECT_EQ(tt.at(tt.strip_typedefs(t.members[0].type)).size, 4u);
  EXPECT_EQ(t.members[1].bit_offset, 32u);
  EXPECT_EQ(t.members[3].bit_size, 3u);
  EXPECT_EQ(tt.find_record("task_struct", /*is_union=*/true), -1);
  EXPECT_EQ(tt.find_record("file"), -1);  // incomplete records are not found
  EXPECT_FALSE(tt.at(15).complete);
}

TEST(Catalog, KeepsAnonymousMembers) {
  auto cat = parse_ok(kSmall);
  ASSERT_TRUE(cat);
  const TypeTable &tt = cat->types();
  const KMember &anon = tt.at(5).members[2];
  EXPECT_EQ(anon.name, "");
  EXPECT_EQ(anon.bit_offset, 160u);
  const KType &u = tt.at(anon.type);
  EXPECT_EQ(u.kind, KTypeKind::Union);
  EXPECT_EQ(u.name, "");
  EXPECT_EQ(u.members[1].name, "b");
  EXPECT_EQ(tt.spelling(anon.type), "union {...}");
}

TEST(Catalog, FindsMembersInsideAnonymousOnes) {
  auto cat = parse_ok(kSmall);
  ASSERT_TRUE(cat);
  const TypeTable &tt = cat->types();
  uint64_t offset = 0;
  const KMember *b = tt.find_member(5, "b", &offset);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(offset, 160u);
  EXPECT_EQ(tt.spelling(b->type), "unsigned int");
  const KMember *comm = tt.find_member(5, "comm", &offset);
  ASSERT_NE(comm, nullptr);
  EXPECT_EQ(offset, 32u);
  EXPECT_EQ(tt.find_member(5, "nope", &offset), nullptr);
  EXPECT_EQ(tt.find_member(1, "pid", &offset), nullptr);  // not a record
}

TEST(Catalog, SpellsTypesAsCDoes) {
  auto cat = parse_ok(kSmall);
  ASSERT_TRUE(cat);
  const TypeTable &tt = cat->types();
  EXPECT_EQ(tt.spelling(4), "char[16]");
  EXPECT_EQ(tt.spelling(7), "struct task_struct*");
  EXPECT_EQ(tt.spelling(8), "unsigned int");
  EXPECT_EQ(tt.spelling(9), "const char*");
  EXPECT_EQ(tt.spelling(11), "bool");
  EXPECT_EQ(tt.spelling(12), "int (struct task_struct*, const char*)");
  EXPECT_EQ(tt.spelling(13), "int (*)(struct task_struct*, const char*)");
  EXPECT_EQ(tt.spelling(14), "const char* const*");
  EXPECT_EQ(tt.spelling(15), "struct file");
  EXPECT_EQ(tt.spelling(16), "void (const char*, ...)");
  EXPECT_EQ(tt.spelling(99), "?");
}

TEST(Catalog, SpellsPointersToArraysAndArraysOfPointers) {
  TypeTable tt;
  KType chr_type;
  chr_type.kind = KTypeKind::Int;
  chr_type.name = "char";
  chr_type.size = 1;
  int chr = tt.add(chr_type);
  KType arr;
  arr.kind = KTypeKind::Array;
  arr.target = chr;
  arr.count = 16;
  int a = tt.add(arr);
  KType ptr;
  ptr.kind = KTypeKind::Pointer;
  ptr.target = a;
  int pa = tt.add(ptr);
  ptr.target = chr;
  int pc = tt.add(ptr);
  arr.target = pc;
  arr.count = 0;
  int ap = tt.add(arr);
  EXPECT_EQ(tt.spelling(pa), "char (*)[16]");
  EXPECT_EQ(tt.spelling(ap), "char*[]");
}

TEST(Catalog, FindsTracepointsWithOrWithoutSystem) {
  auto cat = parse_ok(kSmall);
  ASSERT_TRUE(cat);
  const KTracepoint *tp = cat->find_tracepoint("sched", "sched_switch");
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp, cat->find_tracepoint("", "sched_switch"));
  EXPECT_EQ(cat->find_tracepoint("irq", "sched_switch"), nullptr);
  EXPECT_EQ(cat->find_tracepoint("", "nope"), nullptr);
  ASSERT_EQ(tp->args.size(), 3u);
  EXPECT_EQ(tp->args[0].name, "preempt");
  EXPECT_EQ(cat->types().spelling(tp->args[1].type), "struct task_struct*");
  const KTracepoint *bare = cat->find_tracepoint("", "bare_tp");
  ASSERT_NE(bare, nullptr);
  EXPECT_EQ(bare->system, "");
  EXPECT_TRUE(bare->args.empty());
}

TEST(Catalog, FindsSyscalls) {
  auto cat = parse_ok(kSmall);
  ASSERT_TRUE(cat);
  const KSyscall *sc = cat->find_syscall("openat");
  ASSERT_NE(sc, nullptr);
  EXPECT_EQ(sc->nr, 257);
  EXPECT_EQ(sc, cat->find_syscall("sys_openat"));
  ASSERT_EQ(sc->args.size(), 2u);
  EXPECT_EQ(sc->args[1].name, "filename");
  EXPECT_TRUE(sc->prototype_known);
  EXPECT_EQ(cat->find_syscall("read"), nullptr);
  const KSyscall *mmap = cat->find_syscall("mmap");
  ASSERT_NE(mmap, nullptr);
  EXPECT_FALSE(mmap->prototype_known);
  EXPECT_TRUE(mmap->args.empty());
}

TEST(Catalog, WritesWhatItReads) {
  auto cat = parse_ok(kSmall);
  ASSERT_TRUE(cat);
  EXPECT_EQ(cat->to_text(), kSmall);
}

// Replaces the first occurrence of `from` in the small catalog.
std::string corrupted(const std::string &from, const std::string &to) {
  std::string s = kSmall;
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(Catalog, CorruptFilesAreErrorsWithTheirLine) {
  EXPECT_EQ(parse_error(""), "cat.txt:1: unexpected end of file (truncated catalog?)");
  EXPECT_EQ(parse_error("hello\n"), "cat.txt:1: not an xtap kernel catalog");
  EXPECT_EQ(parse_error(corrupted("xtap-catalog 1", "xtap-catalog 7")),
            "cat.txt:1: catalog format 7, this xtap reads format 1 (rebuild the catalog)");
  EXPECT_EQ(parse_error(corrupted("t 7 ptr 5", "t 7 ptr 55")).substr(0, 11), "cat.txt:18:");
  EXPECT_EQ(parse_error(corrupted("t 7 ptr 5", "t 7 ptr -1")).substr(0, 11), "cat.txt:18:");
  EXPECT_EQ(parse_error(corrupted("t 7 ptr 5", "t 7 pointer 5")),
            "cat.txt:18: unknown type kind 'pointer'");
  EXPECT_EQ(parse_error(corrupted("t 8 int", "t 9 int")),
            "cat.txt:19: type 9 out of order (expected 8)");
  EXPECT_EQ(parse_error(corrupted("m 32 0 4 comm", "m 32 x 4 comm")),
            "cat.txt:11: expected 'm BIT_OFFSET BIT_SIZE TYPE [NAME]'");
  // A record that claims more members than follow it.
  EXPECT_EQ(parse_error(corrupted("t 5 struct 64 5", "t 5 struct 64 6")),
            "cat.txt:15: expected 'm BIT_OFFSET BIT_SIZE TYPE [NAME]'");
  EXPECT_EQ(parse_error(corrupted("sc 257 openat 2", "sc 257 openat")),
            "cat.txt:36: expected 'sc NR NAME NARGS'");
  EXPECT_EQ(parse_error(corrupted("counts 17 2 2", "counts 17 2 99999999999")),
            "cat.txt:3: counts larger than the file");
  EXPECT_EQ(parse_error(corrupted("counts 17 2 2", "counts 17 2 3")),
            "cat.txt:40: expected 'sc NR NAME NARGS'");
  EXPECT_EQ(parse_error(corrupted("sc 9 mmap -", "sc 9 mmap - 1")),
            "cat.txt:39: expected 'sc NR NAME NARGS'");
  EXPECT_EQ(parse_error(corrupted("end\n", "")),
            "cat.txt:40: unexpected end of file (truncated catalog?)");
  EXPECT_EQ(parse_error(corrupted("t 2 typedef 1 pid_t", "t 2 typedef 1")),
            "cat.txt:6: typedef type without a name");
}

TEST(Catalog, TruncatedAnywhereIsAnErrorNotACrash) {
  std::string full = kSmall;
  for (size_t n = 0; n + 1 < full.size(); ++n) {
    std::string error;
    auto cat = KernelCatalog::parse(full.substr(0, n), "cat.txt", &error);
    // Cutting just before "end" or inside a trailing name can still parse
    // as a different valid catalog only if the "end" line survives.
    if (cat) ADD_FAILURE() << "parsed a catalog cut at byte " << n;
    else EXPECT_EQ(error.rfind("cat.txt:", 0), 0u) << error;
  }
}

TEST(Catalog, CyclesThatCCannotExpressAreErrors) {
  // Two pointers pointing at each other: spelling() would never end.
  std::string ptr_loop = corrupted("t 14 ptr 9 const", "t 14 ptr 13 const");
  ptr_loop.replace(ptr_loop.find("t 13 ptr 12"), 11, "t 13 ptr 14");
  EXPECT_EQ(
      parse_error(ptr_loop),
      "cat.txt:26: type 13: type contains itself through pointer/array/typedef/function links");
  // A struct that contains itself by value (through an array).
  std::string self = corrupted("t 4 array 3 16", "t 4 array 5 16");
  EXPECT_EQ(parse_error(self),
            "cat.txt:8: type 4: type contains itself through members, arrays and typedefs");
  // A typedef of itself: strip_typedefs() would never end.
  EXPECT_NE(
      parse_error(corrupted("t 2 typedef 1 pid_t", "t 2 typedef 2 pid_t")).find("contains itself"),
      std::string::npos);
}

}  // namespace
}  // namespace xtap
