// A sub-test's words in the reports: a gate enforce_thresholds=false only records is
// "recorded" and passes (SUBPASS, as CVS would print it); a skipped one (an interrupted
// node's collection, its training stopped) is "skipped", never recorded nor SUBPASS.
#include "job/outcome.h"

#include <gtest/gtest.h>

namespace aorta::job {
namespace {

TEST(SubTestVerdict, AnInterruptedNodesSkippedCollectionIsSkippedNotRecorded) {
  // As test_collect_traces makes it after SIGINT (lib/stages/collect_traces.cc).
  const SubTest collection{.kind = SubTestKind::kTraceCollection, .key = "host", .value = "n2",
                           .outcome = Outcome::kSkipped,
                           .message = "no fresh traces (the run was interrupted by SIGINT and its training stopped)"};
  EXPECT_EQ(collection.verdict(), "skipped");
  EXPECT_EQ(collection.line(),
            "SUBSKIP [trace collection] (host=n2): skipped - no fresh traces (the run was interrupted by SIGINT and "
            "its training stopped)");
}

TEST(SubTestVerdict, ARecordOnlyGateIsRecordedAndPasses) {
  const SubTest gate{.kind = SubTestKind::kThreshold, .key = "metric", .value = "max_avg_iteration_ms",
                     .outcome = Outcome::kSkipped, .message = "enforce_thresholds=false", .actual = 12.0, .limit = 5.0,
                     .gate = metrics::ThresholdKind::kMax, .unit = metrics::MetricUnit::kMs, .record_only = true};
  EXPECT_EQ(gate.verdict(), "recorded");
  EXPECT_EQ(gate.line(),
            "SUBPASS [threshold] (metric=max_avg_iteration_ms): recorded (actual 12 ms, max 5 ms) - enforce_thresholds=false");
}

TEST(SubTestVerdict, PassedAndFailedSayTheOriginalsWords) {
  SubTest t{.kind = SubTestKind::kTraceCollection, .key = "host", .value = "n1"};
  EXPECT_EQ(t.line(), "SUBPASS [trace collection] (host=n1): passed");
  t.outcome = Outcome::kFailed;
  t.message = "copy failed";
  EXPECT_EQ(t.line(), "SUBFAIL [trace collection] (host=n1): failed - copy failed");
}

}  // namespace
}  // namespace aorta::job
