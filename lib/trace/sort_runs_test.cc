// stable_sort_runs and RisingSearch against the library's own algorithms, on data
// shaped like a trace's (a few long rising runs, ties) and on data in no order.
#include "trace/sort_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "trace/rising_search.h"

namespace aorta::trace {
namespace {

using Record = std::pair<int, int>;  // (key, file position): a stable sort keeps positions rising per key

std::vector<Record> runs_of(size_t n, size_t runs, int key_range, std::mt19937& rng) {
  std::vector<int> keys(n);
  std::uniform_int_distribution<int> key(0, key_range);
  for (auto& k : keys) k = key(rng);
  // Cut into `runs` pieces, each sorted: rising runs with ties inside and across.
  std::vector<size_t> cuts{0, n};
  std::uniform_int_distribution<size_t> at(0, n);
  for (size_t i = 1; i < runs; ++i) cuts.push_back(at(rng));
  std::sort(cuts.begin(), cuts.end());
  for (size_t i = 0; i + 1 < cuts.size(); ++i) std::sort(keys.begin() + cuts[i], keys.begin() + cuts[i + 1]);
  std::vector<Record> out;
  for (size_t i = 0; i < n; ++i) out.emplace_back(keys[i], static_cast<int>(i));
  return out;
}

TEST(StableSortRuns, EqualsStdStableSortElementForElement) {
  std::mt19937 rng(7);
  auto by_key = [](const Record& a, const Record& b) { return a.first < b.first; };
  // Empty, one element, one run, 2 to 200 runs (odd and even counts), and no order at
  // all (the library's sort takes over); key ranges with many ties and with few.
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{1000}, size_t{100000}})
    for (size_t runs : {size_t{1}, size_t{2}, size_t{3}, size_t{7}, size_t{200}, n})
      for (int range : {3, 1 << 30}) {
        std::vector<Record> mine = runs_of(n, std::max<size_t>(runs, 1), range, rng);
        std::vector<Record> theirs = mine;
        stable_sort_runs(mine, by_key);
        std::stable_sort(theirs.begin(), theirs.end(), by_key);
        ASSERT_EQ(mine, theirs) << n << " records in " << runs << " runs, keys 0.." << range;
      }
}

TEST(StableSortRuns, RangeVersionEqualsStdStableSort) {
  std::mt19937 rng(5);
  auto by_key = [](const Record& a, const Record& b) { return a.first < b.first; };
  for (size_t runs : {size_t{1}, size_t{2}, size_t{5}, size_t{8}, size_t{5000}}) {
    std::vector<Record> mine = runs_of(5000, runs, 100, rng);
    std::vector<Record> theirs = mine;
    std::vector<Record> scratch(mine.size() - 1000);
    stable_sort_runs(mine.begin() + 500, mine.end() - 500, scratch.begin(), by_key);
    std::stable_sort(theirs.begin() + 500, theirs.end() - 500, by_key);
    ASSERT_EQ(mine, theirs) << runs << " runs";
  }
}

// Keyed events' shape: groups (threads) interleaved record by record, each group's
// keys a few rising runs, ties inside a group; the result is std::stable_sort's by
// (group, key), so file order stays within a (group, key).
TEST(StableSortGrouped, EqualsStdStableSortByGroupThenKey) {
  std::mt19937 rng(3);
  struct Keyed {
    unsigned group;
    int key;
    int position;
    bool operator==(const Keyed&) const = default;
  };
  for (size_t groups : {size_t{1}, size_t{2}, size_t{10}, size_t{300}})
    for (size_t runs : {size_t{1}, size_t{3}, size_t{40}, size_t{20000}}) {
      std::vector<Record> keys = runs_of(20000, runs, 500, rng);
      std::uniform_int_distribution<unsigned> group(0, static_cast<unsigned>(groups - 1));
      std::vector<Keyed> mine;
      for (const auto& [key, position] : keys) mine.push_back({group(rng), key, position});
      std::vector<Keyed> theirs = mine;
      stable_sort_grouped(
          mine, groups, [](const Keyed& k) { return k.group; }, [](const Keyed& a, const Keyed& b) { return a.key < b.key; });
      std::stable_sort(theirs.begin(), theirs.end(), [](const Keyed& a, const Keyed& b) {
        return a.group != b.group ? a.group < b.group : a.key < b.key;
      });
      ASSERT_TRUE(mine == theirs) << groups << " groups, " << runs << " runs";
    }
  std::vector<Keyed> none;
  stable_sort_grouped(none, 0, [](const Keyed& k) { return k.group; }, [](const Keyed& a, const Keyed& b) { return a.key < b.key; });
  EXPECT_TRUE(none.empty());
}

TEST(RisingSearch, EqualsLowerAndUpperBoundForRisingAndFallingKeys) {
  std::mt19937 rng(11);
  std::vector<int> sorted(5000);
  std::uniform_int_distribution<int> value(0, 2000);  // ties
  for (auto& v : sorted) v = value(rng);
  std::sort(sorted.begin(), sorted.end());
  // Mostly rising keys with jumps back, keys below and above every element, and the
  // empty range.
  std::vector<int> keys;
  for (int k = -5; k < 2100; k += 3) keys.push_back(k);
  for (int i = 0; i < 3000; ++i) keys.push_back(value(rng) - 50 + (i % 100));
  keys.push_back(-1000);
  keys.push_back(1 << 30);
  auto below = [](int element, int key) { return element < key; };
  auto not_above = [](int element, int key) { return !(key < element); };
  RisingSearch lower(sorted.cbegin(), sorted.cend(), below);
  RisingSearch upper(sorted.cbegin(), sorted.cend(), not_above);
  for (int k : keys) {
    ASSERT_EQ(lower(k) - sorted.cbegin(), std::lower_bound(sorted.cbegin(), sorted.cend(), k) - sorted.cbegin()) << k;
    ASSERT_EQ(upper(k) - sorted.cbegin(), std::upper_bound(sorted.cbegin(), sorted.cend(), k) - sorted.cbegin()) << k;
  }
  const std::vector<int> none;
  RisingSearch empty(none.cbegin(), none.cend(), below);
  EXPECT_EQ(empty(5), none.cend());
}

}  // namespace
}  // namespace aorta::trace
