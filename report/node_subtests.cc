#include "report/node_subtests.h"

#include <fmt/format.h>

namespace aorta::report {

bool is_node_subtest(const job::SubTest& t) { return t.kind == job::SubTestKind::kTraceCollection && t.key == "host"; }

std::string nodes_summary(const std::vector<std::pair<std::string, job::Outcome>>& nodes) {
  size_t passed = 0, failed = 0, skipped = 0;
  std::vector<std::string> not_passed;
  for (const auto& [name, outcome] : nodes) {
    (outcome == job::Outcome::kPassed ? passed : outcome == job::Outcome::kFailed ? failed : skipped) += 1;
    if (outcome != job::Outcome::kPassed) not_passed.push_back(name);
  }
  return fmt::format("{} nodes: {} passed, {} failed", nodes.size(), passed, failed) +
         (skipped ? fmt::format(", {} skipped", skipped) : "") +
         (not_passed.empty() ? "" : fmt::format(": {}", fmt::join(not_passed, ", ")));
}

}  // namespace aorta::report
