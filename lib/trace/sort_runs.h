// Stable sorting for a trace's records, which arrive in file order as a few long
// sorted runs (a Kineto trace's correlations, flow ids and kernel start times rise
// within each of its sections): the runs are found and merged pairwise, so k runs
// cost log2(k) linear passes where std::stable_sort always makes about log2(n). A
// stable sort has one result, so it is std::stable_sort's, element for element.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace aorta::trace {
namespace sort_runs_detail {

// Where each ascending run of [first, last) starts, then where the last one ends.
template <class It, class Less>
std::vector<size_t> run_bounds(It first, It last, Less less) {
  std::vector<size_t> bounds{0};
  const size_t n = static_cast<size_t>(last - first);
  for (size_t i = 1; i < n; ++i)
    if (less(first[i], first[i - 1])) bounds.push_back(i);
  bounds.push_back(n);
  return bounds;
}

// Short runs (data in no order): the library's sort is the better one.
inline bool too_many_runs(const std::vector<size_t>& bounds) { return bounds.size() - 1 > bounds.back() / 64 + 1; }

// Merges the runs pairwise, back and forth between [a, a + n) and [b, b + n) until one
// is left; true when it ended in b.
template <class It, class Less>
bool merge_runs(It a, It b, std::vector<size_t> bounds, Less less) {
  bool in_b = false;
  while (bounds.size() > 2) {
    std::vector<size_t> merged{0};
    size_t k = 0;
    for (; k + 2 < bounds.size(); k += 2) {
      // std::merge takes the first range's element on a tie: earlier runs stay first.
      std::merge(a + bounds[k], a + bounds[k + 1], a + bounds[k + 1], a + bounds[k + 2], b + bounds[k], less);
      merged.push_back(bounds[k + 2]);
    }
    if (k + 1 < bounds.size()) {  // an odd run out: carried over as it is
      std::copy(a + bounds[k], a + bounds[k + 1], b + bounds[k]);
      merged.push_back(bounds[k + 1]);
    }
    bounds = std::move(merged);
    std::swap(a, b);
    in_b = !in_b;
  }
  return in_b;
}

}  // namespace sort_runs_detail

template <class Vector, class Less>
void stable_sort_runs(Vector& v, Less less) {
  using namespace sort_runs_detail;
  std::vector<size_t> bounds = run_bounds(v.begin(), v.end(), less);
  if (too_many_runs(bounds)) {
    std::stable_sort(v.begin(), v.end(), less);
    return;
  }
  if (bounds.size() <= 2) return;
  Vector other(v.size());
  if (merge_runs(v.begin(), other.begin(), std::move(bounds), less)) v.swap(other);
}

// The same for a range, with `scratch` holding room for as many elements.
template <class It, class Less>
void stable_sort_runs(It first, It last, It scratch, Less less) {
  using namespace sort_runs_detail;
  std::vector<size_t> bounds = run_bounds(first, last, less);
  if (too_many_runs(bounds)) {
    std::stable_sort(first, last, less);
    return;
  }
  if (bounds.size() <= 2) return;
  if (merge_runs(first, scratch, std::move(bounds), less)) std::copy(scratch, scratch + (last - first), first);
}

// Stable sort by (group(x), then less) where group(x) < groups, for records whose
// groups interleave in the file but whose order within a group is a few runs (keyed
// events by thread, then key): one counting pass places them by group, then each
// group's runs are merged. std::stable_sort's result, in a few passes instead of
// log2(n).
template <class Vector, class Group, class Less>
void stable_sort_grouped(Vector& v, size_t groups, Group group, Less less) {
  std::vector<size_t> start(groups + 1, 0);
  for (const auto& x : v) ++start[group(x) + 1];
  for (size_t g = 0; g < groups; ++g) start[g + 1] += start[g];
  Vector placed(v.size());
  std::vector<size_t> next(start.begin(), start.end() - 1);
  for (const auto& x : v) placed[next[group(x)]++] = x;
  for (size_t g = 0; g < groups; ++g)
    stable_sort_runs(placed.begin() + start[g], placed.begin() + start[g + 1], v.begin() + start[g], less);
  v.swap(placed);
}

}  // namespace aorta::trace
