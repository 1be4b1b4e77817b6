// JUnit XML for Jenkins, GitLab and xUnit tools, built as a pugixml document so it is
// always well-formed UTF-8. One <testcase> per gtest test (stage or sub-test), one
// <failure> per failed testcase, <skipped> with its reason, and header counts, at
// <testsuites> and <testsuite>, equal to what the testcases say.
//
// Names (Jenkins splits classname at its last '.': package before, class after;
// GitLab keys a test by suite name, classname and name, so two matrix jobs that
// write the same names would overwrite each other in a merged report):
//   stage     classname "<prefix>.aorta_single"                           name "test_validate_thresholds"
//   sub-test  classname "<prefix>.aorta_single.test_validate_thresholds"  name "max_avg_iteration_ms"
// so Jenkins shows package <prefix> (or "(root)"), class aorta_single, test
// test_validate_thresholds, and a stage's sub-tests as a class of their own.
//
// Families: legacy (the default) keeps the stage's cvs_aorta_subtest properties and
// gives each sub-test testcase actual, limit, gate and unit properties; xunit2 (as
// pytest's junit_family=xunit2) drops what the strict xUnit schema forbids:
// properties on testcases, and the counts on <testsuites>, which may not include a
// skipped count there (report/junit_xunit2.xsd); the <testsuite> keeps all counts.
//
// Shapes: gtest (the default) is all of the above; cvs (--junit-shape cvs, or the
// config's junit_shape) is the file CVS writes, for dashboards keyed on it: one
// <testcase> per stage, each passed or failed sub-test a cvs_aorta_subtest property of
// its stage and one more in the tests count, and a failed sub-test's own <failure> in
// its stage before the stage's (pytest logs a sub-test's report during the call, the
// stage's after it). A recorded-only threshold is no sub-test there, as in CVS.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"
#include "report/report_writer.h"

namespace aorta::report {

enum class JunitFamily { kLegacy, kXunit2 };
enum class JunitShape { kGtest, kCvs };

struct JunitOptions {
  std::string prefix;  // AORTA_JUNIT_PREFIX: first part of every classname; empty for none
  JunitFamily family = JunitFamily::kLegacy;  // AORTA_JUNIT_FAMILY: legacy | xunit2
  JunitShape shape = JunitShape::kGtest;      // --junit-shape or the config's junit_shape: gtest | cvs
};

// Empty when prefix can start a classname, else why not (naming AORTA_JUNIT_PREFIX):
// letters, digits, '_' and '-' in parts joined by single dots, at most 128 characters.
std::string junit_prefix_error(std::string_view prefix);

// Options from the two variables' values (nullptr: unset) and the shape asked for
// (empty: gtest), or an error naming the variable or shape and what it may be. The
// cvs shape's testcase properties are what the xunit2 family exists to drop, so the
// two together are refused.
Result<JunitOptions> junit_options(const char* prefix, const char* family, std::string_view shape = "");
// The same from this process's environment.
Result<JunitOptions> junit_options_from_environment(std::string_view shape = "");

// The classname and name a test gets (see above).
std::string junit_classname(const JunitOptions& options, const RunRecord& run, const StageResult& test);
std::string junit_testcase_name(const StageResult& test);

class JunitWriter final : public ReportWriter {
 public:
  explicit JunitWriter(JunitOptions options = {}) : options_(std::move(options)) {}
  void write(const RunRecord& run, std::ostream& out) const override;
  std::string file_name(const std::string& suite) const override { return suite + ".xml"; }

 private:
  JunitOptions options_;
};

}  // namespace aorta::report
