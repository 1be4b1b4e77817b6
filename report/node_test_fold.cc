#include "report/node_test_fold.h"

#include <fmt/format.h>

#include "report/node_subtests.h"

namespace aorta::report {

NodeTestFold::Start NodeTestFold::start(const std::string& suite, const std::string& name) {
  std::string family;
  for (const auto& prefix : prefixes_)
    if (name.rfind(prefix, 0) == 0) family = suite + "." + prefix;
  Start out;
  if (family != family_) {
    out.family_end = finish();
    family_ = family;
    seen_ = 0;
  }
  holding_ = !family_.empty() && ++seen_ > kListedNodes;
  out.show = !holding_;
  return out;
}

bool NodeTestFold::reveal() {
  const bool now = holding_;
  holding_ = false;
  return now;
}

bool NodeTestFold::end(bool passed) {
  if (!holding_) return true;
  holding_ = false;
  if (passed) ++withheld_;
  return !passed;
}

std::optional<std::string> NodeTestFold::finish() {
  if (withheld_ == 0) return std::nullopt;
  // gtest's info prefix, not "[       OK ]": a log reader must not take it for a test.
  std::string line = fmt::format("[----------] {}* {} more passed, not shown here (the JUnit file and the HTML "
                                 "report have each)", family_, withheld_);
  withheld_ = 0;
  return line;
}

}  // namespace aorta::report
