#include "report/junit_writer.h"

#include "common/version.h"

#include <fmt/format.h>


namespace aorta::report {
namespace {

std::string seconds(double s) { return fmt::format("{:.3f}", s); }

// <failure>, <skipped>, properties and the captured log of one stage.
void write_testcase(const RunRecord& run, const StageResult& stage, std::ostream& out) {
  out << "    <testcase name=\"" << escape_xml(stage.name) << "\" classname=\"" << escape_xml(run.suite)
      << "\" time=\"" << seconds(stage.seconds) << "\">\n";
  if (!stage.subtests.empty()) {
    out << "      <properties>\n";
    for (const auto& t : stage.subtests)
      out << "        <property name=\"cvs_aorta_subtest\" value=\"" << escape_xml(t.summary()) << "\"/>\n";
    out << "      </properties>\n";
  }
  // One <failure> per failed testcase: consumers show only the first.
  if (stage.outcome == job::Outcome::kFailed) {
    std::string all;
    for (const auto& f : stage.failures) all += (all.empty() ? "" : "\n") + f;
    std::string first = stage.failures.empty() ? "stage failed" : stage.failures.front();
    out << "      <failure message=\"" << escape_xml(first) << "\" type=\"failure\">" << escape_xml(all)
        << "</failure>\n";
  } else if (stage.outcome == job::Outcome::kSkipped) {
    out << "      <skipped message=\"" << escape_xml(stage.skip_reason) << "\"/>\n";
  }
  if (!stage.log.empty()) {
    out << "      <system-out>";
    for (const auto& line : stage.log) out << escape_xml(line) << "\n";
    out << "</system-out>\n";
  }
  out << "    </testcase>\n";
}

}  // namespace

void JunitWriter::write(const RunRecord& run, std::ostream& out) const {
  // The header counts are the testcases' own: one testcase per gtest test.
  std::string counts = fmt::format("tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{}\"",
                                   run.stages.size(), run.count(job::Outcome::kFailed),
                                   run.count(job::Outcome::kSkipped), seconds(run.seconds));
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"aorta_suite\" " << counts << ">\n";
  out << "  <testsuite name=\"" << escape_xml(run.suite) << "\" " << counts << " timestamp=\""
      << escape_xml(run.timestamp) << "\" hostname=\"" << escape_xml(run.hostname) << "\">\n";
  out << "    <properties>\n      <property name=\"run_id\" value=\"" << escape_xml(run.run_id) << "\"/>\n"
      << "      <property name=\"aorta_suite_version\" value=\"" << escape_xml(version()) << "\"/>\n"
      << "      <property name=\"aorta_suite_commit\" value=\"" << escape_xml(git_commit()) << "\"/>\n"
      << "    </properties>\n";
  for (const auto& stage : run.stages) write_testcase(run, stage, out);
  out << "  </testsuite>\n</testsuites>\n";
}

}  // namespace aorta::report
