#include "report/junit_writer.h"

#include <sstream>

#include <gtest/gtest.h>

#include "common/utf8.h"
#include "report/text_log_writer.h"

namespace aorta::report {
namespace {

using job::Outcome;

StageResult stage(std::string name, Outcome outcome, double seconds, std::string skip,
                  std::vector<std::string> failures, std::vector<std::string> log, std::string label) {
  StageResult r;
  r.name = r.stage = std::move(name);
  r.outcome = outcome;
  r.seconds = seconds;
  r.skip_reason = std::move(skip);
  r.failures = std::move(failures);
  r.log = std::move(log);
  r.label = std::move(label);
  return r;
}

job::SubTest threshold(std::string key, Outcome outcome, std::string message, double actual, double limit, job::Gate gate) {
  return {job::SubTestKind::kThreshold, "metric", std::move(key), outcome, std::move(message), actual, limit, gate};
}

// The sub-test as a test of its own, as the fixture records it.
StageResult subtest_case(const StageResult& parent, const job::SubTest& t) {
  StageResult r = stage(parent.stage + "/" + job::test_name_part(t.value), t.outcome, 0, "", {}, {}, parent.label);
  r.stage = parent.stage;
  r.subtest = t;
  if (t.outcome == Outcome::kFailed) r.failures.push_back(t.message);
  return r;
}

RunRecord sample() {
  RunRecord run;
  run.suite = "aorta_single";
  run.run_id = "abc";
  run.timestamp = "2026-12-01T00:00:00";
  run.hostname = "node-a";
  run.seconds = 12.5;
  StageResult passed = stage("test_collect_traces", Outcome::kPassed, 0.5, "", {}, {"collected <2> files & \"more\""},
                             "collect_traces");
  passed.subtests.push_back({job::SubTestKind::kTraceCollection, "host", "node-a"});
  StageResult failed = stage("test_validate_thresholds", Outcome::kFailed, 0.25, "",
                             {"Average iteration time 11.00ms exceeds threshold 1ms"}, {}, "thresholds");
  failed.subtests.push_back(threshold("max_avg_iteration_ms", Outcome::kFailed,
                                      "Average iteration time 11.00ms exceeds threshold 1ms", 11.0, 1.0, job::Gate::kMax));
  failed.subtests.back().unit = "ms";
  failed.subtests.push_back(threshold("min_compute_ratio", Outcome::kPassed, "", 0.775, 0.01, job::Gate::kMin));
  StageResult skipped = stage("test_analyze", Outcome::kSkipped, 0, "Optional TraceLens/GEMM analysis is disabled", {},
                              {}, "analysis");
  run.stages = {passed, subtest_case(passed, passed.subtests[0]), failed, subtest_case(failed, failed.subtests[0]),
                subtest_case(failed, failed.subtests[1]), skipped};
  return run;
}

TEST(JunitWriter, EveryTestIsOneTestcaseAndTheHeaderCountsThem) {
  std::ostringstream out;
  JunitWriter().write(sample(), out);
  const std::string xml = out.str();
  // 3 stages + 3 sub-test tests; failed: the stage and its failed sub-test.
  EXPECT_NE(xml.find("<testsuite name=\"aorta_single\" tests=\"6\" failures=\"2\" errors=\"0\" skipped=\"1\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<property name=\"cvs_aorta_subtest\" value=\"[threshold] (metric=max_avg_iteration_ms): failed "
                     "(actual 11 ms, max 1 ms) - Average iteration time 11.00ms exceeds threshold 1ms\"/>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("value=\"[threshold] (metric=min_compute_ratio): passed (actual 0.775, min 0.01)\""),
            std::string::npos);
  EXPECT_NE(xml.find("<testcase name=\"test_validate_thresholds/max_avg_iteration_ms\""), std::string::npos);
  size_t testcases = 0, failures = 0;
  for (size_t at = xml.find("<testcase "); at != std::string::npos; at = xml.find("<testcase ", at + 1)) ++testcases;
  for (size_t at = xml.find("<failure "); at != std::string::npos; at = xml.find("<failure ", at + 1)) ++failures;
  EXPECT_EQ(testcases, 6u);
  EXPECT_EQ(failures, 2u) << "one <failure> per failed testcase";
  EXPECT_NE(xml.find("<skipped message=\"Optional TraceLens/GEMM analysis is disabled\"/>"), std::string::npos);
  EXPECT_NE(xml.find("collected &lt;2&gt; files &amp; &quot;more&quot;"), std::string::npos);
}

TEST(JunitWriter, EscapingDropsCharactersXmlCannotHold) {
  EXPECT_EQ(escape_xml("a\x01" "b\x1b[0m<'>"), "ab[0m&lt;&apos;&gt;");
  EXPECT_EQ(escape_xml("line\nnext"), "line&#10;next");
}

// Node output and file names are bytes: the record holds them as valid UTF-8, so the
// XML (declared UTF-8) stays loadable and the text log readable.
TEST(JunitWriter, BytesThatAreNotUtf8BecomeValidText) {
  RunRecord run = sample();
  StageResult bytes = stage("test_parse_results", Outcome::kFailed, 0.1, "",
                            {"cannot parse h\xffst_1.json near \"aten::\xe2\x82\""}, {"note \xc0\xaf"}, "parse_results");
  bytes.subtests.push_back({job::SubTestKind::kTraceCollection, "host", "n\xfe", Outcome::kFailed, "bad \xed\xa0\x80"});
  run.stages.push_back(valid_text(bytes));
  std::ostringstream xml, log;
  JunitWriter().write(run, xml);
  TextLogWriter().write(run, log);
  EXPECT_TRUE(is_valid_utf8(xml.str()));
  EXPECT_TRUE(is_valid_utf8(log.str()));
  EXPECT_NE(xml.str().find("cannot parse h\xEF\xBF\xBDst_1.json near &quot;aten::\xEF\xBF\xBD&quot;"), std::string::npos)
      << xml.str();
}

TEST(TextLogWriter, StagesSubTestsAndTotals) {
  std::ostringstream out;
  TextLogWriter().write(sample(), out);
  const std::string log = out.str();
  EXPECT_NE(log.find("== test_validate_thresholds failed (0.250s)"), std::string::npos) << log;
  EXPECT_NE(log.find("SUBFAIL [threshold] (metric=max_avg_iteration_ms): failed"), std::string::npos);
  EXPECT_NE(log.find("skipped: Optional TraceLens/GEMM analysis is disabled"), std::string::npos);
  EXPECT_NE(log.find("6 tests: 3 passed, 2 failed, 1 skipped (3 of them sub-tests, 1 failed)"), std::string::npos) << log;
}

}  // namespace
}  // namespace aorta::report
