#include "common/utf8.h"

#include <gtest/gtest.h>

namespace aorta {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

// Expected strings come from Python's bytes.decode('utf-8', 'replace'), which also
// replaces each maximal ill-formed subpart once.
TEST(Utf8, InvalidSequencesAreReplacedAsPythonDoes) {
  EXPECT_EQ(valid_utf8("ok \xC3\xA9"), "ok \xC3\xA9");
  EXPECT_EQ(valid_utf8("a\xFF" "b"), "a" + kFffd + "b");
  EXPECT_EQ(valid_utf8("\xE2\x82"), kFffd);                       // cut mid-character
  EXPECT_EQ(valid_utf8("\xE2\x82x"), kFffd + "x");
  EXPECT_EQ(valid_utf8("\xED\xA0\x80"), kFffd + kFffd + kFffd);   // a surrogate
  EXPECT_EQ(valid_utf8("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);  // past U+10FFFF
  EXPECT_EQ(valid_utf8("\xC0\xAF"), kFffd + kFffd);               // overlong
  EXPECT_EQ(valid_utf8("\xF0\x9F\x98"), kFffd);
  EXPECT_EQ(valid_utf8("\xE0\x80\xAF"), kFffd + kFffd + kFffd);
}

TEST(Utf8, ValidTextIsUnchanged) {
  std::string text = "rank 0 \xF0\x9F\x98\x80 \xE2\x82\xAC nccl:all_reduce";
  EXPECT_TRUE(is_valid_utf8(text));
  EXPECT_EQ(valid_utf8(text), text);
  EXPECT_FALSE(is_valid_utf8("x\x80"));
  EXPECT_TRUE(is_valid_utf8(valid_utf8("x\x80")));
}

TEST(Utf8, PrefixNeverEndsInsideACharacter) {
  std::string euro = "ab\xE2\x82\xAC";  // 5 bytes, the euro sign takes the last 3
  EXPECT_EQ(utf8_prefix(euro, 5), euro);
  EXPECT_EQ(utf8_prefix(euro, 4), "ab");
  EXPECT_EQ(utf8_prefix(euro, 3), "ab");
  EXPECT_EQ(utf8_prefix(euro, 2), "ab");
  EXPECT_EQ(utf8_prefix(euro, 1), "a");
}

}  // namespace
// Issue 29, 7: what reaches a terminal cannot drive it: OSC 52 (clipboard), a title,
// a clear screen, C1 CSI; a tab and other characters stay as they are.
TEST(Printable, ControlCharactersAreShownEscaped) {
  EXPECT_EQ(printable("a\x1b]52;c;eA==\x07" "b"), "a\\x1b]52;c;eA==\\x07" "b");
  EXPECT_EQ(printable("\x1b[2J\r\nx\x7f"), "\\x1b[2J\\x0d\\x0ax\\x7f");
  EXPECT_EQ(printable("c1 \xc2\x9b" "31m"), "c1 \\x9b" "31m");
  EXPECT_EQ(printable("tab\tok \xe2\x82\xac \xc2\xa0"), "tab\tok \xe2\x82\xac \xc2\xa0");
  EXPECT_EQ(printable("bad \xff"), "bad \xef\xbf\xbd");
}

}  // namespace aorta

namespace aorta {
// Multi-line notes keep their line breaks; anything longer than the bound is cut at
// a character boundary and says how long it was.
TEST(Printable, TextKeepsLinesAndIsCut) {
  EXPECT_EQ(printable_text("one\ntwo\r\x1b[1A", 100), "one\ntwo\\x0d\\x1b[1A");
  EXPECT_EQ(printable_text("ab\xe2\x82\xac" "cd", 4), "ab [cut: 7 bytes in all]");
  EXPECT_EQ(printable_text(std::string(1 << 20, 'x'), 10), "xxxxxxxxxx [cut: 1048576 bytes in all]");
}
}  // namespace aorta
