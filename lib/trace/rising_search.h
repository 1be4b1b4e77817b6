// A binary search for keys that mostly come in rising order, as a trace's events do in
// file order (correlations, flow ids): each search starts at the previous answer and
// doubles its step forward, so a rising key costs a few comparisons on memory that is
// already in cache instead of log2(n) misses across the whole range. A key below the
// previous answer searches from the start again. Every answer is the plain search's.
#pragma once

#include <algorithm>
#include <cstddef>

namespace aorta::trace {

// The first element of [first, last) for which below(element, key) is false, where
// below holds for a prefix of the range (std::partition_point): with below = "less
// than key" that is std::lower_bound, with "not greater than key" std::upper_bound.
template <class It, class Below>
class RisingSearch {
 public:
  RisingSearch(It first, It last, Below below) : first_(first), last_(last), at_(first), below_(below) {}

  template <class Key>
  It operator()(const Key& key) {
    // Everything before at_ is below the key when the element just before it is.
    if (at_ != first_ && !below_(*(at_ - 1), key)) at_ = first_;
    It lo = at_;
    size_t step = 1;
    while (static_cast<size_t>(last_ - lo) > step && below_(lo[step], key)) {
      lo += step;
      step *= 2;
    }
    // The answer lies in [lo, lo + step] (lo[step] is not below), or up to last_.
    const It end = static_cast<size_t>(last_ - lo) > step ? lo + step + 1 : last_;
    at_ = std::partition_point(lo, end, [&](const auto& e) { return below_(e, key); });
    return at_;
  }

 private:
  It first_, last_, at_;
  Below below_;
};

}  // namespace aorta::trace
