#include "report/run_record.h"

#include <fmt/format.h>

#include "common/utf8.h"

namespace aorta::report {

std::string SubTestRecord::summary() const {
  std::string s = label + ": " + (passed ? "passed" : "failed");
  if (actual) s += fmt::format(" (actual {:.6g}, {} {:.6g})", *actual, gate, limit.value_or(0));
  if (!passed && !message.empty()) s += " - " + message;
  return s;
}

StageResult valid_text(StageResult stage) {
  stage.name = valid_utf8(stage.name);
  stage.outcome = valid_utf8(stage.outcome);
  stage.skip_reason = valid_utf8(stage.skip_reason);
  stage.label = valid_utf8(stage.label);
  for (auto& f : stage.failures) f = valid_utf8(f);
  for (auto& line : stage.log) line = valid_utf8(line);
  for (auto& t : stage.subtests) {
    t.label = valid_utf8(t.label);
    t.message = valid_utf8(t.message);
    t.gate = valid_utf8(t.gate);
  }
  return stage;
}

int RunRecord::failed_stages() const {
  int n = 0;
  for (const auto& s : stages) n += s.outcome == "failed";
  return n;
}

int RunRecord::skipped_stages() const {
  int n = 0;
  for (const auto& s : stages) n += s.outcome == "skipped";
  return n;
}

int RunRecord::subtest_count() const {
  int n = 0;
  for (const auto& s : stages) n += static_cast<int>(s.subtests.size());
  return n;
}

int RunRecord::failed_subtests() const {
  int n = 0;
  for (const auto& s : stages)
    for (const auto& t : s.subtests) n += !t.passed;
  return n;
}

}  // namespace aorta::report
