// Flame graphs: stacks from a session's output (folded lines, stap stack
// blocks), their merging, and the SVG: widths, escaping, well-formed XML
// (checked with python3's XML parser), the same bytes for the same stacks.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "common/file_io.h"
#include "common/process.h"
#include "flamegraph/session.h"
#include "flamegraph/stacks.h"
#include "flamegraph/svg.h"
#include "temp_dir.h"

namespace xtap::flamegraph {
namespace {

StackCollector collect(const std::string &text, std::string *rest = nullptr) {
  StackCollector c;
  size_t from = 0;
  while (from < text.size()) {
    size_t nl = text.find('\n', from);
    std::string line = text.substr(from, nl - from);
    if (!c.add_line(line) && rest) *rest += line + "\n";
    from = nl == std::string::npos ? text.size() : nl + 1;
  }
  c.finish();
  return c;
}

TEST(FlameStacks, FoldedLinesMergeAndSort) {
  std::string rest;
  auto c = collect("b;c 2\nheader line\na;b;c 3\nb;c 5\ntotal 7\n", &rest);
  EXPECT_EQ(folded_text(c.stacks()), "a;b;c 3\nb;c 7\n");
  EXPECT_EQ(c.total_samples(), 10u);
  // A line without ';' is output, not a one-frame stack.
  EXPECT_EQ(rest, "header line\ntotal 7\n");
}

TEST(FlameStacks, FoldedLineShapes) {
  std::string frames;
  uint64_t n = 0;
  EXPECT_TRUE(parse_folded_line("java;Foo.bar baz;x 12", &frames, &n));
  EXPECT_EQ(frames, "java;Foo.bar baz;x");
  EXPECT_EQ(n, 12u);
  EXPECT_TRUE(parse_folded_line("a;b 1\r", &frames, &n));
  EXPECT_FALSE(parse_folded_line("a;b", &frames, &n));
  EXPECT_FALSE(parse_folded_line(" a;b 3", &frames, &n));
  EXPECT_FALSE(parse_folded_line("a;b x3", &frames, &n));
  EXPECT_FALSE(parse_folded_line(";a 3", &frames, &n));
  EXPECT_FALSE(parse_folded_line("a; 3", &frames, &n));
  EXPECT_FALSE(parse_folded_line("a;b 99999999999999999999", &frames, &n));
}

TEST(FlameStacks, StapStackLines) {
  std::string f;
  EXPECT_TRUE(parse_stack_line(" 0xffffffff81234567 : vfs_read+0x4/0x1a0 [kernel]", &f));
  EXPECT_EQ(f, "vfs_read");
  EXPECT_TRUE(parse_stack_line(" 0xffffffffc0a01234 : xtap_probe+0x10/0x20 [xtap_abc]", &f));
  EXPECT_EQ(f, "xtap_probe");
  EXPECT_TRUE(parse_stack_line(" 0xffffffff81234567 : 0xffffffff81234567", &f));
  EXPECT_EQ(f, "0xffffffff81234567");
  EXPECT_TRUE(parse_stack_line("\t0x4005d6", &f));
  EXPECT_EQ(f, "0x4005d6");
  EXPECT_TRUE(parse_stack_line(" 0x4005d6 : main+0x1a/0x30 [/usr/bin/app]", &f));
  EXPECT_EQ(f, "main");
  EXPECT_FALSE(parse_stack_line("0xffffffff81234567 : vfs_read+0x4/0x1a0", &f));  // not indented
  EXPECT_FALSE(parse_stack_line(" 0x : x", &f));
  EXPECT_FALSE(parse_stack_line(" 0xffff = 3", &f));
  EXPECT_FALSE(parse_stack_line(" count 3", &f));
}

// stap's flame graph recipe: foreach (s in stacks) { print_stack(s); printf("\t%d\n", n) }
TEST(FlameStacks, StapBlocksWithCountsInnermostFirst) {
  std::string rest;
  auto c = collect(
      "WARNING: something\n"
      " 0xffffffff81000003 : leaf+0x1/0x10 [kernel]\n"
      " 0xffffffff81000002 : mid+0x1/0x10 [kernel]\n"
      " 0xffffffff81000001 : root+0x1/0x10 [kernel]\n"
      "\t5\n"
      " 0xffffffff81000002 : mid+0x1/0x10 [kernel]\n"
      " 0xffffffff81000001 : root+0x1/0x10 [kernel]\n"
      "\t2\n"
      " 0xffffffff81000003 : leaf+0x1/0x10 [kernel]\n"
      " 0xffffffff81000002 : mid+0x1/0x10 [kernel]\n"
      " 0xffffffff81000001 : root+0x1/0x10 [kernel]\n"
      "1\n",
      &rest);
  EXPECT_EQ(folded_text(c.stacks()), "root;mid 2\nroot;mid;leaf 6\n");
  EXPECT_EQ(rest, "WARNING: something\n");
}

// print_backtrace() per event, without counts: each block is one sample.
TEST(FlameStacks, StapBlocksWithoutCounts) {
  std::string rest;
  auto c = collect(
      "hit\n"
      " 0x2 : b+0x1/0x2\n"
      " 0x1 : a+0x1/0x2\n"
      "\n"
      " 0x2 : b+0x1/0x2\n"
      " 0x1 : a+0x1/0x2\n"
      "done\n"
      " 0x1 : a+0x1/0x2\n",
      &rest);
  EXPECT_EQ(folded_text(c.stacks()), "a 1\na;b 2\n");
  EXPECT_EQ(rest, "hit\ndone\n");
}

// A frame never carries the folded separator.
TEST(FlameStacks, SemicolonInAFrameName) {
  auto c = collect(" 0x1 : odd;name+0x1/0x2\n\t3\n");
  EXPECT_EQ(folded_text(c.stacks()), "odd:name 3\n");
}

TEST(FlameSvg, Escaping) {
  EXPECT_EQ(xml_escape("<lambda> & \"q\" 'a'"), "&lt;lambda&gt; &amp; &quot;q&quot; &apos;a&apos;");
  EXPECT_EQ(xml_escape(std::string("a\x01z\t")), "a?z\t");
  EXPECT_EQ(xml_escape("caf\xc3\xa9 \xff"), "caf\xc3\xa9 ?");
}

std::string attr(const std::string &svg, const std::string &name, const std::string &attr_name) {
  std::smatch m;
  std::regex re(
      "<g class=\"f\" data-n=\"" + name +
      "\"[^>]*data-w=\"([0-9]+)\"[^>]*>.*?<rect x=\"([0-9.]+)\" y=\"[0-9]+\" width=\"([0-9.]+)\"");
  if (!std::regex_search(svg, m, re)) return "";
  return attr_name == "samples" ? m[1].str() : attr_name == "x" ? m[2].str() : m[3].str();
}

TEST(FlameSvg, WidthsFollowSamples) {
  FoldedStacks s = {{"main;a", 30}, {"main;b", 10}, {"other", 60}};
  std::string svg = render_svg(s);
  // 1200 px wide, 10 px each side: 1180 px for 100 samples.
  EXPECT_EQ(attr(svg, "all", "samples"), "100");
  EXPECT_EQ(attr(svg, "all", "width"), "1180.00");
  EXPECT_EQ(attr(svg, "main", "width"), "472.00");
  EXPECT_EQ(attr(svg, "a", "width"), "354.00");
  EXPECT_EQ(attr(svg, "b", "x"), "364.00");  // after a, in name order
  EXPECT_EQ(attr(svg, "other", "x"), "482.00");
  EXPECT_NE(svg.find("<title>main (40 samples, 40.00%)</title>"), std::string::npos);
  EXPECT_EQ(svg, render_svg(s));  // deterministic
}

TEST(FlameSvg, NarrowFramesAreLeftOut) {
  FoldedStacks s = {{"big;x", 100000}, {"tiny;y", 1}};
  std::string svg = render_svg(s);
  EXPECT_NE(svg.find("data-n=\"big\""), std::string::npos);
  EXPECT_EQ(svg.find("data-n=\"tiny\""), std::string::npos);
  EXPECT_EQ(attr(svg, "all", "samples"), "100001");
}

TEST(FlameSvg, LabelsAreCutToFit) {
  FoldedStacks s = {{"a_rather_long_function_name_that_cannot_fit;x", 1}, {"w;y", 99}};
  std::string svg = render_svg(s);
  EXPECT_EQ(svg.find(">a_rather_long_function_name_that_cannot_fit</text>"), std::string::npos);
  EXPECT_NE(svg.find(">w</text>"), std::string::npos);
}

// The SVG is XML that a real parser reads, hostile names included, and
// carries its script and search box inline.
TEST(FlameSvg, ParsesAsXml) {
  FoldedStacks s = {{"main;<lambda>;operator<<;a&b", 4},
                    {"main;std::vector<int>::push_back", 2},
                    {"main;\"quoted\";'single'", 1},
                    {"caf\xc3\xa9;\xfe\xff", 1}};
  SvgOptions o;
  o.title = "<script>&";
  std::string svg = render_svg(s, o);
  EXPECT_EQ(svg.find("<lambda>"), std::string::npos);
  EXPECT_NE(svg.find("&lt;lambda&gt;"), std::string::npos);
  EXPECT_NE(svg.find("function flameInit()"), std::string::npos);
  EXPECT_NE(svg.find("id=\"search\""), std::string::npos);
  test::TempDir d;
  ASSERT_TRUE(write_file(d.str("g.svg"), svg));
  std::string err;
  int code = process::run_to_end(
      {{"python3", "-c",
        "import sys, xml.etree.ElementTree as ET\n"
        "root = ET.parse(sys.argv[1]).getroot()\n"
        "ns = '{http://www.w3.org/2000/svg}'\n"
        "names = [g.get('data-n') for g in root.iter(ns + 'g') if g.get('class') == 'f']\n"
        "assert '<lambda>' in names and 'a&b' in names and 'operator<<' in names, names\n"
        "assert '\"quoted\"' in names and \"'single'\" in names, names\n"
        "assert root.find(ns + 'script') is not None\n",
        d.str("g.svg")},
       "",
       "/dev/null",
       d.str("py.out"),
       d.str("py.out")},
      &err);
  EXPECT_EQ(code, 0) << err << read_file(d.str("py.out"));
}

// The SVG's script, run by node against a stand-in DOM
// (flamegraph_script_check.js): zoom, hover, reset, search and its share.
TEST(FlameSvg, ScriptZoomsHoversAndSearches) {
  std::string err;
  if (process::run_to_end({{"node", "--version"}}, &err) != 0)
    GTEST_SKIP() << "node is not installed";
  FoldedStacks s;
  s["main;parse;lex;next_char"] = 40;
  s["main;parse;lex"] = 5;
  s["main;parse;<lambda>&x"] = 7;
  s["main;eval;lex;next_char"] = 9;
  s["main;eval;run"] = 30;
  s["init;lex"] = 3;
  test::TempDir d;
  ASSERT_TRUE(write_file(d.str("g.svg"), render_svg(s)));
  int code = process::run_to_end(
      {{"node", std::string(XTAP_SOURCE_DIR) + "/tests/unit/flamegraph_script_check.js",
        d.str("g.svg")},
       "",
       "/dev/null",
       d.str("node.out"),
       d.str("node.out")},
      &err);
  EXPECT_EQ(code, 0) << err << read_file(d.str("node.out"));
  EXPECT_EQ(read_file(d.str("node.out")), "ok\n");
}

// A session's output as the driver reads it from xtap-run (here a shell
// standing in for the runner): stacks to the files, the rest to -o FILE,
// the runner's exit status kept.
TEST(FlameSession, RunnerOutputIsSplit) {
  test::TempDir d;
  OutputFiles o;
  o.folded = d.str("out.folded");
  o.svg = d.str("out.svg");
  o.rest = d.str("rest.txt");
  o.title = "t";
  o.quiet = true;
  int code = run_collecting_stacks(o, {"sh", "-c",
                                       "echo begin; printf ' 0x2 : b+0x1/0x2\\n 0x1 : "
                                       "a+0x1/0x2\\n\\t4\\n'; echo 'x;y 2'; echo end; exit 3"});
  EXPECT_EQ(code, 3);
  EXPECT_EQ(read_file(d.str("rest.txt")), "begin\nend\n");
  EXPECT_EQ(read_file(d.str("out.folded")), "a;b 4\nx;y 2\n");
  EXPECT_NE(read_file(d.str("out.svg")).find("data-n=\"b\""), std::string::npos);
}

TEST(FlameSession, FromStacksFile) {
  test::TempDir d;
  ASSERT_TRUE(write_file(d.str("in.txt"), "noise\na;b 1\na;b 2\n"));
  OutputFiles o;
  o.from_stacks = d.str("in.txt");
  o.folded = d.str("out.folded");
  o.quiet = true;
  EXPECT_EQ(convert_stacks(o), 0);
  EXPECT_EQ(read_file(d.str("out.folded")), "a;b 3\n");
  o.from_stacks = d.str("missing");
  EXPECT_EQ(convert_stacks(o), 1);
}

// A hostile folded file with a very deep stack is cut, not a crash.
TEST(FlameSvg, VeryDeepStacksAreCut) {
  std::string deep = "f0";
  for (int i = 1; i < 200000; ++i) deep += ";f" + std::to_string(i % 7);
  std::string svg = render_svg({{deep, 3}});
  EXPECT_NE(svg.find("data-d=\"1000\""), std::string::npos);
  EXPECT_EQ(svg.find("data-d=\"1001\""), std::string::npos);
}

TEST(FlameSvg, NoStacksIsStillAnSvg) {
  std::string svg = render_svg({});
  EXPECT_NE(svg.find("no stacks"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

}  // namespace
}  // namespace xtap::flamegraph
