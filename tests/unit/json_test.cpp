// The small JSON reader and writer behind bundle manifests.
#include <gtest/gtest.h>

#include "common/json.h"

namespace xtap::json {
namespace {

TEST(Json, RoundTripsAManifestShape) {
  Value m = Value::object();
  m.set("xtap_bundle", Value::number(1));
  m.set("module", Value::string("xtap_ab\"c\n"));
  Value mods = Value::array();
  Value one = Value::object();
  one.set("release", Value::string("6.1.0-56-cloud-amd64"));
  one.set("signed", Value::boolean(true));
  one.set("size", Value::number(123456));
  mods.push(one);
  m.set("modules", mods);
  std::string err;
  for (int indent : {-1, 2}) {
    auto back = parse(m.dump(indent), &err);
    ASSERT_TRUE(back) << err;
    EXPECT_EQ(back->dump(-1), m.dump(-1));
    EXPECT_EQ((*back)["module"].as_string(), "xtap_ab\"c\n");
    EXPECT_EQ((*back)["modules"].items()[0]["size"].as_number(), 123456);
    EXPECT_TRUE((*back)["modules"].items()[0]["signed"].as_bool());
  }
  EXPECT_EQ(m.dump(-1),
            "{\"xtap_bundle\":1,\"module\":\"xtap_ab\\\"c\\n\",\"modules\":[{\"release\":"
            "\"6.1.0-56-cloud-amd64\",\"signed\":true,\"size\":123456}]}");
}

TEST(Json, ReadsEscapesAndNumbers) {
  std::string err;
  auto v = parse(R"( {"a": "\u00e9\ud83d\ude00\t", "b": [-1.5e2, 0, true, null], "c": {}} )", &err);
  ASSERT_TRUE(v) << err;
  EXPECT_EQ((*v)["a"].as_string(), "\xc3\xa9\xf0\x9f\x98\x80\t");
  EXPECT_EQ((*v)["b"].items()[0].as_number(), -150);
  EXPECT_EQ((*v)["b"].items()[3].kind(), Value::Kind::Null);
  EXPECT_TRUE((*v)["c"].is_object());
  EXPECT_EQ((*v)["missing"].kind(), Value::Kind::Null);
  EXPECT_EQ((*v)["missing"]["deeper"].as_string(), "");
}

TEST(Json, SaysWhereBadInputGoesWrong) {
  std::string err;
  EXPECT_FALSE(parse("{\"a\": 1,\n  \"b\" 2}", &err));
  EXPECT_EQ(err, "line 2, column 7: expected ':'");
  EXPECT_FALSE(parse("[1, 2", &err));
  EXPECT_EQ(err, "line 1, column 6: unterminated array");
  EXPECT_FALSE(parse("\"abc", &err));
  EXPECT_EQ(err, "line 1, column 5: unterminated string");
  EXPECT_FALSE(parse("{} x", &err));
  EXPECT_EQ(err, "line 1, column 4: unexpected text after the document");
  EXPECT_FALSE(parse("", &err));
  EXPECT_FALSE(parse("01", &err));
  EXPECT_FALSE(parse("\"\\x\"", &err));
}

TEST(Json, RefusesDeepNestingWithoutCrashing) {
  std::string err;
  EXPECT_FALSE(parse(std::string(100000, '['), &err));
  EXPECT_NE(err.find("nested too deeply"), std::string::npos) << err;
  EXPECT_TRUE(parse(std::string(60, '[') + std::string(60, ']'), &err)) << err;
}

}  // namespace
}  // namespace xtap::json
