// Cases from Slurm's documented hostlist syntax (slurm.conf NodeName, scontrol show
// hostnames), each expanded by hand.
#include "slurm/hostlist.h"

#include <gtest/gtest.h>

namespace aorta::slurm {
namespace {

std::vector<std::string> hosts(std::string_view e) {
  auto r = expand_hostlist(e);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : std::vector<std::string>{};
}

TEST(Hostlist, PlainNamesAndLists) {
  EXPECT_EQ(hosts("node1"), (std::vector<std::string>{"node1"}));
  EXPECT_EQ(hosts("a,b,c"), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(Hostlist, RangesKeepZeroPadding) {
  EXPECT_EQ(hosts("node[01-04,07]"), (std::vector<std::string>{"node01", "node02", "node03", "node04", "node07"}));
  EXPECT_EQ(hosts("n[8-11]"), (std::vector<std::string>{"n8", "n9", "n10", "n11"}));
  EXPECT_EQ(hosts("n[098-101]"), (std::vector<std::string>{"n098", "n099", "n100", "n101"}));
}

TEST(Hostlist, SeveralRangesAndPrefixesWithDigits) {
  EXPECT_EQ(hosts("gpu2n[1-2],login1,cpu[3,5]"),
            (std::vector<std::string>{"gpu2n1", "gpu2n2", "login1", "cpu3", "cpu5"}));
  EXPECT_EQ(hosts("rack[1-2]-n[01-02]"),
            (std::vector<std::string>{"rack1-n01", "rack1-n02", "rack2-n01", "rack2-n02"}));
  EXPECT_EQ(hosts("x[1-2]y"), (std::vector<std::string>{"x1y", "x2y"}));
}

TEST(Hostlist, BadExpressionsSayWhy) {
  for (std::string_view e : {"", "n[1-", "n1]", "n[a-b]", "n[5-1]", "n[1-99999999]", "a,,b"}) {
    auto r = expand_hostlist(e);
    EXPECT_FALSE(r.ok()) << e;
    if (!r.ok()) {
      EXPECT_NE(r.error().message.find("hostlist '"), std::string::npos) << r.error().message;
    }
  }
}

}  // namespace
}  // namespace aorta::slurm
