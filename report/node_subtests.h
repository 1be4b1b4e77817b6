// A stage's node sub-tests (one per node whose traces are collected) at 64 nodes and
// more (issue 46): past kListedNodes the reports say them in one line, "64 nodes: 63
// passed, 1 failed: node17", and list the nodes that did not pass; the HTML report
// folds the passed ones, the console leaves them to the JUnit file.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "job/outcome.h"

namespace aorta::report {

inline constexpr size_t kListedNodes = 8;

// A node's sub-test: trace collection's per-host check (not the artifact's).
bool is_node_subtest(const job::SubTest& t);

// "64 nodes: 63 passed, 1 failed: node17" (", 2 skipped" when some were), each node
// given as (name, outcome).
std::string nodes_summary(const std::vector<std::pair<std::string, job::Outcome>>& nodes);

}  // namespace aorta::report
