// Cases from Slurm's documented hostlist syntax (slurm.conf NodeName, scontrol show
// hostnames), each expanded by hand.
#include "slurm/hostlist.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

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

// Issue 42, 9: the limit holds for the whole list, counted before expansion: the sum
// over a bracket's ranges, the product over an item's brackets, the sum over items.
TEST(Hostlist, TheLimitCountsEveryRangeBracketAndItem) {
  struct Case {
    std::string_view list;
    size_t hosts;  // counted by hand
  } cases[] = {{"n[1-3,5]", 4},           {"n[1-3,5]x[1-2]", 8},   {"a,b[1-2],c[1-2]d[7,9]", 7},
               {"r[0-1]-n[0-1]-g[0-2]", 12}, {"n[1-1,1-1,1-1]", 3}, {"solo", 1}};
  for (const auto& c : cases) {
    auto at_limit = expand_hostlist(c.list, c.hosts);
    ASSERT_TRUE(at_limit.ok()) << c.list << ": " << at_limit.error().message;
    EXPECT_EQ(at_limit->size(), c.hosts) << c.list;
    auto past = expand_hostlist(c.list, c.hosts - 1);
    ASSERT_FALSE(past.ok()) << c.list;
    EXPECT_NE(past.error().message.find("expands to too many hosts"), std::string::npos) << past.error().message;
  }
}

// How much the process has mapped, from /proc/self/statm (pages).
size_t mapped_bytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0;
  statm >> pages;
  return pages * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
}

// A 402-byte list of 40 ranges of a million hosts each (probe 16): refused at once,
// in a child allowed 64 MiB more than it has mapped; the old per-range check made
// 42 million names (gigabytes) before it counted them.
TEST(Hostlist, HugeListsAreRefusedBeforeAnyNameIsMade) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer maps terabytes of shadow memory; an address-space limit says nothing there";
#endif
  std::string many = "n[0-1048574";
  for (int i = 1; i < 40; ++i) many += ",0-1048574";
  many += "]";
  const std::string lists[] = {many, "n[0-1023]x[0-1023]y[0-1]", "a[0-999999999999999999]", many + "," + many};
  for (const auto& list : lists) {
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      struct rlimit limit{};
      limit.rlim_cur = limit.rlim_max = mapped_bytes() + (64u << 20);
      ::setrlimit(RLIMIT_AS, &limit);
      try {
        auto r = expand_hostlist(list);
        ::_exit(!r.ok() && r.error().message.find("expands to too many hosts") != std::string::npos &&
                        r.error().message.size() < 200
                    ? 0
                    : 1);
      } catch (...) {
        ::_exit(2);  // out of memory
      }
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << list.substr(0, 40) << "...: exit " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1)
        << " (1: not refused as too many hosts, or a message quoting the whole list; 2: out of memory)";
  }
}

}  // namespace
}  // namespace aorta::slurm
