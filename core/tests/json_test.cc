// The JSON writer of the report and the trace (core/src/json.h).
#include <gtest/gtest.h>

#include "../src/json.h"

namespace {

std::string quoted(const std::string& s) {
  taskbench::JsonWriter w;
  w.value(s);
  return w.str();
}

TEST(Json, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(quoted("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(quoted("x\ny\x7f"), "\"x\\u000ay\\u007f\"");
}

// Bug found by the flag fuzz test on the systems: `-json '\xff.json'` wrote the command line
// into the report byte for byte, and the report was not valid JSON (not UTF-8).
TEST(Json, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  EXPECT_EQ(quoted("\xff.json"), "\"\\ufffd.json\"");
  EXPECT_EQ(quoted("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
  EXPECT_EQ(quoted("\xc3"), "\"\\ufffd\"");                   // truncated sequence
  EXPECT_EQ(quoted("\xc0\xaf"), "\"\\ufffd\\ufffd\"");         // overlong '/'
  EXPECT_EQ(quoted("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");  // a surrogate
  EXPECT_EQ(quoted("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");  // above U+10FFFF
}

}  // namespace
