#include "report/junit_writer.h"

#include <sstream>

#include <gtest/gtest.h>
#include <pugixml.hpp>

#include "common/utf8.h"
#include "report/text_log_writer.h"
#include "stages/stage_guard.h"

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

job::SubTest threshold(std::string key, Outcome outcome, std::string message, double actual, double limit, metrics::ThresholdKind gate) {
  return {job::SubTestKind::kThreshold, "metric", std::move(key), outcome, std::move(message), actual, limit, gate};
}

// The sub-test as a test of its own, as the fixture records it.
StageResult subtest_case(const StageResult& parent, const job::SubTest& t) {
  StageResult r = subtest_result(parent.stage, parent.stage + "/" + job::test_name_part(t.value), parent.label, t);
  r.seconds = 0;
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
                                      "Average iteration time 11.00ms exceeds threshold 1ms", 11.0, 1.0, metrics::ThresholdKind::kMax));
  failed.subtests.back().unit = metrics::MetricUnit::kMs;
  failed.subtests.push_back(threshold("min_compute_ratio", Outcome::kPassed, "", 0.775, 0.01, metrics::ThresholdKind::kMin));
  StageResult skipped = stage("test_analyze", Outcome::kSkipped, 0, "Optional TraceLens/GEMM analysis is disabled", {},
                              {}, "analysis");
  passed.tests = {subtest_case(passed, passed.subtests[0])};
  failed.tests = {subtest_case(failed, failed.subtests[0]), subtest_case(failed, failed.subtests[1])};
  run.stages = {passed, failed, skipped};
  return run;
}

pugi::xml_document parsed(const std::string& xml) {
  pugi::xml_document doc;
  EXPECT_TRUE(doc.load_string(xml.c_str())) << xml;
  return doc;
}

// The counts at <testsuites> and <testsuite>, of sample()'s 12.5 s run.
void expect_header_counts(const pugi::xml_document& doc, const char* tests, const char* failures, const char* skipped) {
  for (const char* level : {"/testsuites", "/testsuites/testsuite"}) {
    auto node = doc.select_node(level).node();
    EXPECT_STREQ(node.attribute("tests").value(), tests) << level;
    EXPECT_STREQ(node.attribute("failures").value(), failures) << level;
    EXPECT_STREQ(node.attribute("errors").value(), "0") << level;
    EXPECT_STREQ(node.attribute("skipped").value(), skipped) << level;
    EXPECT_STREQ(node.attribute("time").value(), "12.500") << level;
  }
}

TEST(JunitWriter, EveryTestIsOneTestcaseAndTheHeaderCountsThem) {
  std::ostringstream out;
  JunitWriter().write(sample(), out);
  auto doc = parsed(out.str());
  // 3 stages + 3 sub-test tests; failed: the stage and its failed sub-test; skipped: test_analyze.
  expect_header_counts(doc, "6", "2", "1");
  EXPECT_EQ(doc.select_nodes("//testcase").size(), 6u);
  EXPECT_EQ(doc.select_nodes("//testcase/failure").size(), 2u);
  EXPECT_EQ(doc.select_nodes("//testcase[count(failure) > 1]").size(), 0u) << "one <failure> per failed testcase";
  EXPECT_STREQ(doc.select_node("//testcase[@name='test_analyze']/skipped/@message").attribute().value(),
               "Optional TraceLens/GEMM analysis is disabled");
  // The body too: GitLab's parser, gtest and pytest read the reason there.
  EXPECT_STREQ(doc.select_node("//testcase[@name='test_analyze']/skipped").node().child_value(),
               "Optional TraceLens/GEMM analysis is disabled");
  // The stage keeps the original's cvs_aorta_subtest properties.
  auto stage = doc.select_node("//testcase[@name='test_validate_thresholds']").node();
  EXPECT_STREQ(stage.attribute("classname").value(), "aorta_single");
  // CVS's values exactly: "<label>: passed|failed" (reference 4.4).
  EXPECT_STREQ(stage.select_node("properties/property[1]/@value").attribute().value(),
               "[threshold] (metric=max_avg_iteration_ms): failed");
  EXPECT_STREQ(stage.select_node("properties/property[2]/@value").attribute().value(),
               "[threshold] (metric=min_compute_ratio): passed");
  EXPECT_STREQ(doc.select_node("//testcase[@name='test_collect_traces']/system-out").node().child_value(),
               "collected <2> files & \"more\"\n");
}

// Jenkins splits classname at its last dot into package and class; GitLab keys a
// test by suite, classname and name. A sub-test is test <suffix> of class <stage>.
TEST(JunitWriter, SubTestsAreTestsOfTheirStageAsAClassWithTheirValuesAsProperties) {
  std::ostringstream out;
  JunitWriter({"mi300x.nightly", JunitFamily::kLegacy}).write(sample(), out);
  auto doc = parsed(out.str());
  EXPECT_STREQ(doc.select_node("/testsuites/testsuite/@name").attribute().value(), "mi300x.nightly.aorta_single");
  auto slow = doc.select_node("//testcase[@name='max_avg_iteration_ms']").node();
  ASSERT_TRUE(slow);
  EXPECT_STREQ(slow.attribute("classname").value(), "mi300x.nightly.aorta_single.test_validate_thresholds");
  EXPECT_STREQ(slow.select_node("properties/property[@name='actual']/@value").attribute().value(), "11");
  EXPECT_STREQ(slow.select_node("properties/property[@name='limit']/@value").attribute().value(), "1");
  EXPECT_STREQ(slow.select_node("properties/property[@name='gate']/@value").attribute().value(), "max");
  EXPECT_STREQ(slow.select_node("properties/property[@name='unit']/@value").attribute().value(), "ms");
  EXPECT_STREQ(slow.select_node("failure/@message").attribute().value(),
               "Average iteration time 11.00ms exceeds threshold 1ms");
  EXPECT_NE(std::string(slow.child_value("system-out")).find("SUBFAIL [threshold] (metric=max_avg_iteration_ms)"),
            std::string::npos);
  auto host = doc.select_node("//testcase[@name='node_a']").node();
  EXPECT_STREQ(host.attribute("classname").value(), "mi300x.nightly.aorta_single.test_collect_traces");
  EXPECT_STREQ(doc.select_node("//testcase[@name='test_collect_traces']/@classname").attribute().value(),
               "mi300x.nightly.aorta_single");
}

// CVS's shape (the guide's JUnit paragraph, reference 4.4): one testcase per stage; each
// sub-test a cvs_aorta_subtest property of its stage and one more in the tests total;
// a failed sub-test's own <failure> in its stage, before the stage's (pytest logs a
// sub-test's report during the call, the stage's after it).
TEST(JunitWriter, CvsShapeIsOneTestcasePerStageWithSubTestsAsPropertiesAndFailures) {
  std::ostringstream out;
  JunitWriter({"", JunitFamily::kLegacy, JunitShape::kCvs}).write(sample(), out);
  auto doc = parsed(out.str());
  // 3 stages + 3 sub-tests; failures: the stage and its failed sub-test; skipped: test_analyze.
  expect_header_counts(doc, "6", "2", "1");
  auto cases = doc.select_nodes("//testcase");
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_STREQ(cases[0].node().attribute("name").value(), "test_collect_traces");
  EXPECT_STREQ(cases[1].node().attribute("name").value(), "test_validate_thresholds");
  EXPECT_STREQ(cases[2].node().attribute("name").value(), "test_analyze");
  EXPECT_STREQ(cases[0].node().attribute("classname").value(), "aorta_single");
  EXPECT_STREQ(cases[0].node().select_node("properties/property[@name='cvs_aorta_subtest']/@value").attribute().value(),
               "[trace collection] (host=node-a): passed");
  auto gate = cases[1].node();
  EXPECT_EQ(gate.select_nodes("properties/property[@name='cvs_aorta_subtest']").size(), 2u);
  EXPECT_STREQ(gate.select_node("properties/property[1]/@value").attribute().value(),
               "[threshold] (metric=max_avg_iteration_ms): failed");
  EXPECT_STREQ(gate.select_node("properties/property[2]/@value").attribute().value(),
               "[threshold] (metric=min_compute_ratio): passed");
  auto failures = gate.select_nodes("failure");
  ASSERT_EQ(failures.size(), 2u);
  EXPECT_STREQ(failures[0].node().attribute("message").value(), "Average iteration time 11.00ms exceeds threshold 1ms");
  EXPECT_EQ(std::string(failures[0].node().child_value()).rfind("[threshold] (metric=max_avg_iteration_ms): failed", 0), 0u)
      << failures[0].node().child_value();
  EXPECT_STREQ(failures[1].node().child_value(), "Average iteration time 11.00ms exceeds threshold 1ms");
  // The stage's own message is CVS's line, which scrapers of CVS's JUnit key on.
  EXPECT_STREQ(failures[1].node().attribute("message").value(),
               "Following FAILURES seen - ['Average iteration time 11.00ms exceeds threshold 1ms']");
  EXPECT_STREQ(cases[2].node().select_node("skipped/@message").attribute().value(),
               "Optional TraceLens/GEMM analysis is disabled");
}

// enforce_thresholds=false: CVS makes no sub-tests, so a recorded threshold is neither
// a property nor counted in the CVS shape.
TEST(JunitWriter, CvsShapeLeavesOutRecordedThresholds) {
  RunRecord run = sample();
  run.stages[1].outcome = Outcome::kSkipped;
  run.stages[1].failures.clear();
  for (auto& t : run.stages[1].subtests) {
    t.outcome = Outcome::kSkipped;
    t.record_only = true;
  }
  std::ostringstream out;
  JunitWriter({"", JunitFamily::kLegacy, JunitShape::kCvs}).write(run, out);
  auto doc = parsed(out.str());
  // 3 stages + the one host sub-test; skipped: the two stages.
  expect_header_counts(doc, "4", "0", "2");
  EXPECT_EQ(doc.select_nodes("//testcase[@name='test_validate_thresholds']/properties").size(), 0u);
}

// An interrupted node's collection, skipped (its training stopped), is neither
// recorded nor passed: its property and its own testcase say skipped.
TEST(JunitWriter, AnInterruptedNodesSkippedCollectionSaysSkipped) {
  RunRecord run = sample();
  job::SubTest& node = run.stages[0].subtests[0];
  node.outcome = Outcome::kSkipped;
  node.message = "no fresh traces";
  run.stages[0].tests = {subtest_case(run.stages[0], node)};
  std::ostringstream out;
  JunitWriter().write(run, out);
  auto doc = parsed(out.str());
  EXPECT_STREQ(doc.select_node("//testcase[@name='test_collect_traces']/properties/property/@value").attribute().value(),
               "[trace collection] (host=node-a): skipped");
  EXPECT_EQ(std::string(doc.select_node("//testcase[@name='node_a']/system-out").node().child_value()).rfind("SUBSKIP ", 0),
            0u);
}

TEST(JunitWriter, Xunit2DropsTestcasePropertiesAndTheTopLevelCounts) {
  std::ostringstream out;
  JunitWriter({"", JunitFamily::kXunit2}).write(sample(), out);
  auto doc = parsed(out.str());
  EXPECT_EQ(doc.select_nodes("//testcase/properties").size(), 0u);
  EXPECT_FALSE(doc.child("testsuites").attribute("skipped"));
  EXPECT_FALSE(doc.child("testsuites").attribute("tests"));
  EXPECT_STREQ(doc.select_node("/testsuites/testsuite/@skipped").attribute().value(), "1");
  EXPECT_EQ(doc.select_nodes("/testsuites/testsuite/properties/property").size(), 3u);  // run id, version, commit
}

TEST(JunitWriter, ControlCharactersXmlCannotHoldAreDropped) {
  RunRecord run = sample();
  run.stages[0].log = {"colour \x1b[0m end\x01 \xef\xbf\xbf."};
  run.stages[1].failures = {"bell\x07 <here>"};
  std::ostringstream out;
  JunitWriter().write(run, out);
  auto doc = parsed(out.str());
  EXPECT_STREQ(doc.select_node("//testcase[@name='test_collect_traces']/system-out").node().child_value(),
               "colour [0m end .\n");
  // The message is CVS's line, where Python's list repr already escapes the bell; the text drops it.
  EXPECT_STREQ(doc.select_node("//testcase[@name='test_validate_thresholds']/failure/@message").attribute().value(),
               "Following FAILURES seen - ['bell\\x07 <here>']");
  EXPECT_STREQ(doc.select_node("//testcase[@name='test_validate_thresholds']/failure").node().child_value(),
               "bell <here>");
}

TEST(JunitOptions, PrefixAndFamilyAreCheckedWithTheVariableNamed) {
  EXPECT_EQ(junit_prefix_error(""), "");
  EXPECT_EQ(junit_prefix_error("mi300x.nightly-2_b"), "");
  EXPECT_EQ(junit_prefix_error("a b"),
            "AORTA_JUNIT_PREFIX=\"a b\": byte 0x20 is not allowed; use letters, digits, '_' and '-', in parts joined by "
            "single dots (e.g. mi300x.nightly)");
  EXPECT_NE(junit_prefix_error("a/b").find("'/' is not allowed"), std::string::npos);
  EXPECT_NE(junit_prefix_error(".a").find("an empty part between dots"), std::string::npos);
  EXPECT_NE(junit_prefix_error("a..b").find("an empty part between dots"), std::string::npos);
  EXPECT_NE(junit_prefix_error("a.").find("an empty part between dots"), std::string::npos);
  EXPECT_NE(junit_prefix_error(std::string(129, 'a')).find("longer than 128"), std::string::npos);
  EXPECT_EQ(junit_prefix_error(std::string(128, 'a')), "");
  auto ok = junit_options("rack7", "xunit2");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->prefix, "rack7");
  EXPECT_EQ(ok->family, JunitFamily::kXunit2);
  auto defaults = junit_options(nullptr, nullptr);
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->family, JunitFamily::kLegacy);
  EXPECT_EQ(junit_options(nullptr, "xunit3").error().message,
            "AORTA_JUNIT_FAMILY=\"xunit3\": unknown JUnit family; use legacy (the default) or xunit2");
  EXPECT_FALSE(junit_options("bad prefix", nullptr).ok());
}

TEST(JunitOptions, ShapeIsGtestOrCvsAndCvsRefusesTheXunit2Family) {
  EXPECT_EQ(junit_options(nullptr, nullptr)->shape, JunitShape::kGtest);
  EXPECT_EQ(junit_options(nullptr, nullptr, "gtest")->shape, JunitShape::kGtest);
  EXPECT_EQ(junit_options(nullptr, "legacy", "cvs")->shape, JunitShape::kCvs);
  EXPECT_EQ(junit_options(nullptr, nullptr, "pytest").error().message,
            "JUnit shape \"pytest\": use gtest (the default) or cvs");
  EXPECT_EQ(junit_options(nullptr, "xunit2", "cvs").error().message,
            "the cvs JUnit shape keeps sub-tests as testcase properties, which AORTA_JUNIT_FAMILY=xunit2 forbids; "
            "unset AORTA_JUNIT_FAMILY or use the gtest shape");
}

// Node output and file names are bytes: the record holds them as valid UTF-8, so the
// XML (declared UTF-8) stays loadable and the text log readable.
TEST(JunitWriter, BytesThatAreNotUtf8BecomeValidText) {
  RunRecord run = sample();
  StageResult bytes = stage("test_parse_results", Outcome::kFailed, 0.1, "",
                            {"cannot parse h\xffst_1.json near \"aten::\xe2\x82\""}, {"note \xc0\xaf"}, "parse_results");
  bytes.subtests.push_back({job::SubTestKind::kTraceCollection, "host", "n\xfe", Outcome::kFailed, "bad \xed\xa0\x80"});
  stages::clean_texts(bytes);
  run.stages.push_back(bytes);
  std::ostringstream xml, log;
  JunitWriter().write(run, xml);
  TextLogWriter().write(run, log);
  EXPECT_TRUE(is_valid_utf8(xml.str()));
  EXPECT_TRUE(is_valid_utf8(log.str()));
  EXPECT_NE(xml.str().find("cannot parse h\xEF\xBF\xBDst_1.json near &quot;aten::\xEF\xBF\xBD&quot;"), std::string::npos)
      << xml.str();
  EXPECT_TRUE(pugi::xml_document().load_string(xml.str().c_str()));
}

// The HTML writers' escaping (the JUnit XML is built by pugixml).
TEST(EscapeXml, EscapesAndDropsCharactersXmlCannotHold) {
  EXPECT_EQ(escape_xml("a\x01" "b\x1b[0m<'>"), "ab[0m&lt;&apos;&gt;");
  EXPECT_EQ(escape_xml("line\nnext"), "line&#10;next");
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
