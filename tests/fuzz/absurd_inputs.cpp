#include "absurd_inputs.h"

namespace xtap::fuzz {
namespace {

std::string repeat(const std::string &s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

std::string in_begin(const std::string &body) { return "probe begin {\n" + body + "\n}\n"; }

}  // namespace

std::vector<AbsurdInput> absurd_inputs() {
  constexpr size_t kDeep = 100000;
  std::vector<AbsurdInput> v;
  v.push_back({"string_literal_10MB", in_begin("print(\"" + std::string(10 << 20, 'A') + "\")"),
               "XTP2271"});
  v.push_back({"adjacent_literals_10MB",
               in_begin("print(" + repeat("\"" + std::string(1024, 'B') + "\" ", 10240) + ")"),
               "XTP2271"});
  v.push_back({"string_literal_64KiB", in_begin("print(\"" + std::string(65536, 'C') + "\")"), ""});
  v.push_back({"parens_100k",
               in_begin("x = " + repeat("(", kDeep) + "1" + repeat(")", kDeep) + "\nprint(x)"),
               "XTP2270"});
  v.push_back({"parens_300",
               in_begin("x = " + repeat("(", 300) + "1" + repeat(")", 300) + "\nprint(x)"), ""});
  v.push_back({"blocks_100k", "probe begin " + repeat("{", kDeep) + repeat("}", kDeep), "XTP2270"});
  v.push_back(
      {"blocks_300", "probe begin " + repeat("{", 300) + "print(1)" + repeat("}", 300), ""});
  v.push_back({"unary_100k", in_begin("x = " + repeat("!", kDeep) + "1\nprint(x)"), "XTP2270"});
  v.push_back(
      {"sum_chain_100k", in_begin("x = 1" + repeat(" + 1", kDeep) + "\nprint(x)"), "XTP2270"});
  v.push_back({"sum_chain_500", in_begin("x = 1" + repeat(" + 1", 500) + "\nprint(x)"), ""});
  v.push_back({"else_if_100k",
               in_begin("x = 1\nif (x) print(1)" + repeat(" else if (x) print(1)", kDeep)),
               "XTP2270"});
  v.push_back({"assignments_100k", in_begin(repeat("x = ", kDeep) + "1\nprint(x)"), "XTP2270"});
  v.push_back(
      {"ternaries_100k", in_begin("x = " + repeat("1 ? 1 : ", kDeep) + "1\nprint(x)"), "XTP2270"});
  v.push_back(
      {"conditionals_100k",
       in_begin(repeat("%( arch == \"x86_64\" %? ", kDeep) + "print(1)" + repeat(" %)", kDeep)),
       "XTP2273"});
  std::string bomb;
  bomb += "@define m0 %( 1 + %)\n";
  for (int i = 1; i <= 30; ++i)
    bomb += "@define m" + std::to_string(i) + " %( @m" + std::to_string(i - 1) + " @m" +
            std::to_string(i - 1) + " %)\n";
  v.push_back({"macro_doubling_2^30", bomb + in_begin("x = @m30 1\nprint(x)"), "XTP2272"});
  v.push_back({"macro_doubling_2^31_too_deep",
               bomb +
                   "@define m31 %( @m30 @m30 %)\n@define m32 %( @m31 @m31 %)\n@define m33 %( @m32 "
                   "@m32 %)\n" +
                   in_begin("x = @m33 1\nprint(x)"),
               "XTP1034"});
  v.push_back(
      {"identifier_1MB",
       in_begin(std::string(1 << 20, 'v') + " = 1\nprint(" + std::string(1 << 20, 'v') + ")"), ""});
  v.push_back(
      {"number_100k_digits", in_begin("print(" + std::string(kDeep, '9') + ")"), "XTP1004"});
  v.push_back({"probes_20k", repeat("probe begin { print(1) }\n", 20000), ""});
  v.push_back({"statements_100k", in_begin(repeat("x = 1; ", kDeep) + "print(x)"), ""});
  v.push_back({"nul_bytes", std::string("probe begin { print(\"a\0b\") }\0\0\0", 32), "*"});
  return v;
}

}  // namespace xtap::fuzz
