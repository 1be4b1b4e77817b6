#include "report/run_record.h"

#include "common/utf8.h"

namespace aorta::report {

int RunRecord::count(job::Outcome outcome) const {
  int n = 0;
  for (const auto& s : stages) n += s.outcome == outcome;
  return n;
}

int RunRecord::stage_count(job::Outcome outcome) const {
  int n = 0;
  for (const auto& s : stages) n += !s.is_subtest() && s.outcome == outcome;
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
