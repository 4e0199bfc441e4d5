#include "parse/lexer.h"

#include <gtest/gtest.h>

namespace xtap {
namespace {

std::vector<Token> lex_text(const std::string &text, Diagnostics &d, SourceFile &f) {
  f.name = "t.stp";
  f.text = text;
  return lex(f, d);
}

TEST(Lexer, OperatorsTakeTheLongestSpelling) {
  SourceFile f;
  Diagnostics d;
  auto t = lex_text("a <<= b <<< c << d .= e . f", d, f);
  ASSERT_FALSE(d.has_errors());
  EXPECT_EQ(t[1].text, "<<=");
  EXPECT_EQ(t[3].text, "<<<");
  EXPECT_EQ(t[5].text, "<<");
  EXPECT_EQ(t[7].text, ".=");
  EXPECT_EQ(t[9].text, ".");
  EXPECT_EQ(t.back().kind, Tok::End);
}

TEST(Lexer, NumbersInEveryBase) {
  SourceFile f;
  Diagnostics d;
  auto t = lex_text("10 0x1F 017 0 9223372036854775807", d, f);
  ASSERT_FALSE(d.has_errors());
  EXPECT_EQ(t[0].number, 10);
  EXPECT_EQ(t[1].number, 31);
  EXPECT_EQ(t[2].number, 15);
  EXPECT_EQ(t[3].number, 0);
  EXPECT_EQ(t[4].number, 9223372036854775807LL);
}

TEST(Lexer, MalformedNumbersAreErrors) {
  SourceFile f;
  Diagnostics d;
  lex_text("09 0xZ 99999999999999999999", d, f);
  EXPECT_EQ(d.error_count(), 3);
  EXPECT_EQ(d.all()[0].code, "XTP1005");
  EXPECT_EQ(d.all()[2].code, "XTP1004");
}

TEST(Lexer, StringEscapes) {
  SourceFile f;
  Diagnostics d;
  auto t = lex_text(R"("a\tb\n\"q\"\\ \x41\101")", d, f);
  ASSERT_FALSE(d.has_errors());
  EXPECT_EQ(t[0].kind, Tok::String);
  EXPECT_EQ(t[0].text, "a\tb\n\"q\"\\ AA");
}

TEST(Lexer, CommentsOfAllThreeKinds) {
  SourceFile f;
  Diagnostics d;
  auto t = lex_text("# shell\n// c++\n/* c\n */ probe", d, f);
  ASSERT_FALSE(d.has_errors());
  ASSERT_EQ(t.size(), 2u);
  EXPECT_TRUE(t[0].is_kw("probe"));
  EXPECT_EQ(t[0].loc.line, 4);
  EXPECT_EQ(t[0].loc.column, 5);
}

TEST(Lexer, UnterminatedStringAndComment) {
  SourceFile f;
  Diagnostics d;
  lex_text("\"abc\n/* never closed", d, f);
  ASSERT_EQ(d.error_count(), 2);
  EXPECT_EQ(d.all()[0].code, "XTP1002");
  EXPECT_EQ(d.all()[0].loc.line, 1);
  EXPECT_EQ(d.all()[1].code, "XTP1003");
  EXPECT_EQ(d.all()[1].loc.line, 2);
}

TEST(Lexer, StrayCharacterIsReportedAndSkipped) {
  SourceFile f;
  Diagnostics d;
  auto t = lex_text("a ` b", d, f);
  ASSERT_EQ(d.error_count(), 1);
  EXPECT_EQ(d.all()[0].code, "XTP1001");
  EXPECT_EQ(d.all()[0].loc.column, 3);
  EXPECT_EQ(t[1].text, "b");
}

}  // namespace
}  // namespace xtap
