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

template <class Vector, class Less>
void stable_sort_runs(Vector& v, Less less) {
  std::vector<size_t> bounds{0};  // where each ascending run starts, then the end
  for (size_t i = 1; i < v.size(); ++i)
    if (less(v[i], v[i - 1])) bounds.push_back(i);
  bounds.push_back(v.size());
  // Short runs (data in no order): the library's sort is the better one.
  if (bounds.size() - 1 > v.size() / 64 + 1) {
    std::stable_sort(v.begin(), v.end(), less);
    return;
  }
  if (bounds.size() <= 2) return;
  Vector other(v.size());
  Vector* from = &v;
  Vector* to = &other;
  while (bounds.size() > 2) {
    std::vector<size_t> merged{0};
    size_t k = 0;
    for (; k + 2 < bounds.size(); k += 2) {
      // std::merge takes the first range's element on a tie: earlier runs stay first.
      std::merge(from->begin() + bounds[k], from->begin() + bounds[k + 1], from->begin() + bounds[k + 1],
                 from->begin() + bounds[k + 2], to->begin() + bounds[k], less);
      merged.push_back(bounds[k + 2]);
    }
    if (k + 1 < bounds.size()) {  // an odd run out: carried over as it is
      std::copy(from->begin() + bounds[k], from->begin() + bounds[k + 1], to->begin() + bounds[k]);
      merged.push_back(bounds[k + 1]);
    }
    bounds = std::move(merged);
    std::swap(from, to);
  }
  if (from != &v) v.swap(*from);
}

}  // namespace aorta::trace
