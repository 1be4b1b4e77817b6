// Which progress lines a long list gets (issue 46): each of a few items, past
// kEveryItemUpTo one a quarter, so 512 traces or 64 nodes are not 512 or 64 console
// lines. Shared by the trace parse and the collection.
#pragma once

#include <cstddef>

namespace aorta {

inline constexpr size_t kEveryItemUpTo = 8;

// Whether the done'th of `total` items (1-based) gets a line: every one up to
// kEveryItemUpTo items, past that the one that completes each quarter.
inline bool progress_line_due(size_t done, size_t total) {
  return total <= kEveryItemUpTo || done == 0 || done * 4 / total != (done - 1) * 4 / total;
}

}  // namespace aorta
