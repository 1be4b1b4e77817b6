// The trace reader's memory budget: byte sizes and the environment override.
#include "trace/trace_limits.h"

#include <cstdlib>

#include <gtest/gtest.h>

namespace aorta::trace {
namespace {

TEST(TraceLimits, SizesAndTheEnvironment) {
  EXPECT_EQ(*parse_byte_size("4G"), uint64_t{4} << 30);
  EXPECT_EQ(*parse_byte_size("512M"), uint64_t{512} << 20);
  EXPECT_EQ(*parse_byte_size("2GiB"), uint64_t{2} << 30);
  EXPECT_EQ(*parse_byte_size("33554432"), uint64_t{32} << 20);
  EXPECT_FALSE(parse_byte_size("4X").ok());
  EXPECT_FALSE(parse_byte_size("").ok());
  EXPECT_FALSE(parse_byte_size("-1G").ok());
  EXPECT_FALSE(parse_byte_size("99999999999999999999").ok());
  EXPECT_FALSE(parse_byte_size("1M").ok());  // below the smallest budget
  TraceLimits d;
  EXPECT_EQ(d.max_token_bytes, uint64_t{64} << 20);
  EXPECT_EQ(d.max_state_bytes, uint64_t{1536} << 20);
  auto big = TraceLimits::with_total(uint64_t{16} << 30);
  EXPECT_EQ(big.max_token_bytes, uint64_t{64} << 20);
  EXPECT_EQ(big.max_state_bytes, uint64_t{6} << 30);
  ::setenv(kMemoryLimitVariable, "256M", 1);
  auto from_env = trace_limits_from_environment();
  ::setenv(kMemoryLimitVariable, "lots", 1);
  auto bad = trace_limits_from_environment();
  ::unsetenv(kMemoryLimitVariable);
  ASSERT_TRUE(from_env.ok());
  EXPECT_EQ(from_env->total_bytes, uint64_t{256} << 20);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().describe().find("AORTA_TRACE_MEMORY_LIMIT: 'lots' is not a byte size"), std::string::npos);
}

}  // namespace
}  // namespace aorta::trace
