#include "common/progress_pace.h"

#include <vector>

#include <gtest/gtest.h>

namespace aorta {
namespace {

std::vector<size_t> due(size_t total) {
  std::vector<size_t> out;
  for (size_t done = 1; done <= total; ++done)
    if (progress_line_due(done, total)) out.push_back(done);
  return out;
}

TEST(ProgressPace, EachOfAFewThenOneAQuarter) {
  EXPECT_EQ(due(2), (std::vector<size_t>{1, 2}));
  EXPECT_EQ(due(8), (std::vector<size_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(due(64), (std::vector<size_t>{16, 32, 48, 64}));
  EXPECT_EQ(due(10), (std::vector<size_t>{3, 5, 8, 10}));
}

}  // namespace
}  // namespace aorta
