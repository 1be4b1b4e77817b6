// Every vector implementation this CPU runs classifies bytes exactly as the scalar
// one does, on real trace text and on random bytes.
#include "trace/block_masks.h"

#include <random>
#include <string>

#include <gtest/gtest.h>

namespace aorta::trace {
namespace {

void expect_same_as_scalar(const std::string& text) {
  auto all = block_masks_all();
  ASSERT_EQ(std::string(all.back().isa), "scalar");
  for (size_t at = 0; at + 64 <= text.size(); at += 7) {
    BlockMasks want = all.back().fn(text.data() + at);
    for (const auto& impl : all) {
      BlockMasks got = impl.fn(text.data() + at);
      ASSERT_EQ(got.quotes, want.quotes) << impl.isa << " at " << at;
      ASSERT_EQ(got.backslashes, want.backslashes) << impl.isa << " at " << at;
      ASSERT_EQ(got.brackets, want.brackets) << impl.isa << " at " << at;
      ASSERT_EQ(got.quote_parity, want.quote_parity) << impl.isa << " at " << at;
    }
  }
}

TEST(BlockMasks, EveryImplementationAgreesWithTheScalarOne) {
  expect_same_as_scalar(
      R"({"ph": "X", "cat": "kernel", "name": "void at::native::{lambda(int)#1}<float[4]>", "pid": 0, "tid": 7,)"
      R"( "ts": 1754483023817.123, "dur": 3.5, "args": {"External id": 12, "correlation": 34, "note": "a\"b\\c"}},)");
  std::mt19937 random(7);
  std::string bytes(64 * 1024, '\0');
  const char alphabet[] = "\"\\{}[]ab:, \x7b\xdb\xfb\x5b\x5d\x7d\x80\xff";
  for (char& c : bytes) c = alphabet[random() % (sizeof alphabet - 1)];
  expect_same_as_scalar(bytes);
}

TEST(BlockMasks, ScalarMasksByHand) {
  std::string block = R"({"a":"}"}\[)" + std::string(54, ' ');
  BlockMasks m = block_masks_all().back().fn(block.data());
  EXPECT_EQ(m.quotes, 0b0010101010u);        // bytes 1, 3, 5, 7
  EXPECT_EQ(m.backslashes, 0b1000000000u);   // byte 9
  EXPECT_EQ(m.brackets, 0b10101000001u);     // bytes 0, 6, 8, 10
  EXPECT_EQ(m.quote_parity, 0b0001100110u);  // inside "a" (1-2) and "}" (5-6)
}

}  // namespace
}  // namespace aorta::trace
