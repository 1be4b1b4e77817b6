// What the console shows of a stage's node sub-tests (issue 46): gtest prints a RUN and
// an OK line for each, 128 lines at 64 nodes. The first kListedNodes of a family show as
// gtest shows them; past those, a passing one is withheld and the family ends with one
// line counting them; one that fails or is skipped shows whole (its RUN line first). The
// JUnit file and the HTML report keep every one.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace aorta::report {

class NodeTestFold {
 public:
  // Families: test names that start with one of `prefixes` ("test_collect_traces/").
  explicit NodeTestFold(std::vector<std::string> prefixes) : prefixes_(std::move(prefixes)) {}

  // A test starts. Whether its RUN line shows now; before it, the line that ends the
  // family before (when it withheld any).
  struct Start {
    std::optional<std::string> family_end;
    bool show = true;
  };
  Start start(const std::string& suite, const std::string& name);
  // The withheld test is failing or skipped: its RUN line shows now (true once).
  bool reveal();
  // The test ended: whether its end line shows (false for a withheld one that passed).
  bool end(bool passed);
  // The line that ends the family now (a suite or the run ends), if it withheld any.
  std::optional<std::string> finish();

 private:
  std::vector<std::string> prefixes_;
  std::string family_;      // "<suite>.<prefix>", empty outside one
  size_t seen_ = 0;         // the family's tests so far
  size_t withheld_ = 0;     // passed ones not shown
  bool holding_ = false;    // the running test's RUN line is withheld
};

}  // namespace aorta::report
