#include "report/text_log_writer.h"

#include <fmt/format.h>

#include "report/run_summary.h"

namespace aorta::report {

void TextLogWriter::write(const RunRecord& run, std::ostream& out) const {
  out << fmt::format("{} run {} on {} at {}\n", run.suite, run.run_id, run.hostname, run.timestamp);
  for (const StageResult* s : run.tests()) {
    out << fmt::format("\n== {} {} ({:.3f}s)\n", s->name, job::outcome_name(s->outcome), s->seconds);
    if (!s->skip_reason.empty()) out << "skipped: " << s->skip_reason << "\n";
    for (const auto& f : s->failures) out << "FAIL - " << f << "\n";
    for (const auto& t : s->subtests) out << t.line() << "\n";
    for (const auto& line : s->log) out << line << "\n";
  }
  out << fmt::format("\n{} tests: {} passed, {} failed, {} skipped ({} of them sub-tests, {} failed); {:.1f}s\n",
                     run.tests().size(), run.count(job::Outcome::kPassed), run.count(job::Outcome::kFailed),
                     run.count(job::Outcome::kSkipped), run.subtest_count(), run.failed_subtests(), run.seconds);
  out << "\n" << run_summary(run, result_);
}

}  // namespace aorta::report
