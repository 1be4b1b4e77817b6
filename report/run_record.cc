#include "report/run_record.h"

namespace aorta::report {

std::vector<const StageResult*> RunRecord::tests() const {
  std::vector<const StageResult*> out;
  for (const auto& s : stages) {
    out.push_back(&s);
    for (const auto& t : s.tests) out.push_back(&t);
  }
  return out;
}

std::vector<const StageResult*> RunRecord::stage_tests() const {
  std::vector<const StageResult*> out;
  // The one place a record's kind is asked: a sub-test's test is a stage's child, or,
  // its stage test filtered out, a top-level record that reports a sub-test.
  for (const auto& s : stages)
    if (!s.subtest) out.push_back(&s);
  return out;
}

StageResult* RunRecord::find_test(const std::string& name) {
  for (auto s = stages.rbegin(); s != stages.rend(); ++s) {
    for (auto t = s->tests.rbegin(); t != s->tests.rend(); ++t)
      if (t->name == name) return &*t;
    if (s->name == name) return &*s;
  }
  return nullptr;
}

namespace {

int with_outcome(const std::vector<const StageResult*>& tests, job::Outcome outcome) {
  int n = 0;
  for (const auto* t : tests) n += t->outcome == outcome;
  return n;
}

}  // namespace

int RunRecord::count(job::Outcome outcome) const { return with_outcome(tests(), outcome); }

int RunRecord::stage_count(job::Outcome outcome) const { return with_outcome(stage_tests(), outcome); }

int RunRecord::subtest_count() const { return static_cast<int>(tests().size() - stage_tests().size()); }

int RunRecord::failed_subtests() const { return count(job::Outcome::kFailed) - stage_count(job::Outcome::kFailed); }

}  // namespace aorta::report
