#include "report/junit_writer.h"

#include <sstream>

#include <gtest/gtest.h>

#include "common/utf8.h"
#include "report/text_log_writer.h"

namespace aorta::report {
namespace {

RunRecord sample() {
  RunRecord run;
  run.suite = "aorta_single";
  run.run_id = "abc";
  run.timestamp = "2026-12-01T00:00:00";
  run.hostname = "node-a";
  run.seconds = 12.5;
  StageResult passed{"test_collect_traces", "passed", 0.5, "", {}, {"collected <2> files & \"more\""}, {}, "collect_traces"};
  passed.subtests.push_back({"[trace collection] (host=node-a)", true, "", std::nullopt, std::nullopt, ""});
  StageResult failed{"test_validate_thresholds", "failed", 0.25, "",
                     {"Average iteration time 11.00ms exceeds threshold 1ms"}, {}, {}, "thresholds"};
  failed.subtests.push_back({"[threshold] (metric=max_avg_iteration_ms)", false,
                             "Average iteration time 11.00ms exceeds threshold 1ms", 11.0, 1.0, "max"});
  failed.subtests.push_back({"[threshold] (metric=min_compute_ratio)", true, "", 0.775, 0.01, "min"});
  StageResult skipped{"test_analyze", "skipped", 0, "Optional TraceLens/GEMM analysis is disabled", {}, {}, {}, "analysis"};
  run.stages = {passed, failed, skipped};
  return run;
}

TEST(JunitWriter, SubTestsArePropertiesCountedAndFailedSeparately) {
  std::ostringstream out;
  JunitWriter().write(sample(), out);
  const std::string xml = out.str();
  // 3 stages + 3 sub-tests; failures: one stage + one sub-test.
  EXPECT_NE(xml.find("<testsuite name=\"aorta_single\" tests=\"6\" failures=\"2\" errors=\"0\" skipped=\"1\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<property name=\"cvs_aorta_subtest\" value=\"[threshold] (metric=max_avg_iteration_ms): failed "
                     "(actual 11, max 1) - Average iteration time 11.00ms exceeds threshold 1ms\"/>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("value=\"[threshold] (metric=min_compute_ratio): passed (actual 0.775, min 0.01)\""),
            std::string::npos);
  size_t case_start = xml.find("<testcase name=\"test_validate_thresholds\"");
  size_t case_end = xml.find("</testcase>", case_start);
  std::string tc = xml.substr(case_start, case_end - case_start);
  size_t first = tc.find("<failure ");
  ASSERT_NE(first, std::string::npos);
  EXPECT_NE(tc.find("<failure ", first + 1), std::string::npos) << "the failed sub-test adds its own <failure>";
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
  StageResult bytes{"test_parse_results", "failed", 0.1, "", {"cannot parse h\xffst_1.json near \"aten::\xe2\x82\""},
                    {"note \xc0\xaf"}, {}, "parse_results"};
  bytes.subtests.push_back({"[trace collection] (host=n\xfe)", false, "bad \xed\xa0\x80", std::nullopt, std::nullopt, ""});
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
  EXPECT_NE(log.find("3 stages: 1 failed, 1 skipped; 3 sub-tests, 1 failed"), std::string::npos) << log;
}

}  // namespace
}  // namespace aorta::report
