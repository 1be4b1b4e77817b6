// GoogleTest's filter semantics, for the run's own choices before gtest sees the
// filter (which suite, which stages a selection leaves out).
#pragma once

#include <string>

namespace aorta::cli {

// ':'-separated globs, optional '-' negative part, applied to a full test name such
// as aorta_single.test_teardown.
bool filter_matches(const std::string& filter, const std::string& test_name);

}  // namespace aorta::cli
