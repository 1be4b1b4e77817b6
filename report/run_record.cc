#include "report/run_record.h"

#include "common/utf8.h"

namespace aorta::report {

StageResult valid_text(StageResult stage) {
  stage.name = valid_utf8(stage.name);
  stage.stage = valid_utf8(stage.stage);
  stage.skip_reason = valid_utf8(stage.skip_reason);
  stage.label = valid_utf8(stage.label);
  for (auto& f : stage.failures) f = valid_utf8(f);
  for (auto& line : stage.log) line = valid_utf8(line);
  auto clean = [](job::SubTest& t) {
    t.key = valid_utf8(t.key);
    t.value = valid_utf8(t.value);
    t.message = valid_utf8(t.message);
    t.unit = valid_utf8(t.unit);
  };
  for (auto& t : stage.subtests) clean(t);
  if (stage.subtest) clean(*stage.subtest);
  return stage;
}

int RunRecord::count(job::Outcome outcome) const {
  int n = 0;
  for (const auto& s : stages) n += s.outcome == outcome;
  return n;
}

int RunRecord::subtest_count() const {
  int n = 0;
  for (const auto& s : stages) n += s.is_subtest();
  return n;
}

int RunRecord::failed_subtests() const {
  int n = 0;
  for (const auto& s : stages) n += s.is_subtest() && s.outcome == job::Outcome::kFailed;
  return n;
}

}  // namespace aorta::report
