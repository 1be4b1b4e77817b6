// The Run Deck's recent-runs strip (--history ROOT): this run's group only, its last
// runs with each metric against the rolling baseline, this run marked; a run whose
// report or group cannot be found says why instead.
#include "report/run_deck_recent.h"

#include <gtest/gtest.h>

#include <sstream>

#include "tests/history_fixture.h"

namespace aorta::report {
namespace {

using testing::sample_report;
using testing::TempDir;
using testing::write_run;

constexpr long kNight = 86400;

TEST(RecentRuns, TheGroupsLastRunsWithTheRegressedRunJudgedAndThisRunMarked) {
  TempDir root;
  nlohmann::json r = sample_report();
  const double base = r["performance"]["avg_iteration_time_ms"].get<double>();
  nlohmann::json other = r;
  other["cluster"]["gpus_per_node"] = 8;  // another group: never in the strip
  for (int i = 1; i <= 12; ++i) write_run(root, "night" + std::to_string(100 + i), r, kNight * i);
  write_run(root, "other", other, kNight * 13);
  nlohmann::json slow = r;
  slow["performance"]["avg_iteration_time_ms"] = base * 1.25;
  const auto own = write_run(root, "tonight", slow, kNight * 14);

  const auto s = recent_runs_json(root.path(), own);
  ASSERT_TRUE(s["error"].is_null()) << s.dump();
  EXPECT_EQ(s["runs_in_group"], 13);  // 12 nights and tonight; "other" is not of the group
  ASSERT_EQ(s["rows"].size(), kRecentRuns);
  EXPECT_EQ(s["rows"][0]["run"], "night104");  // the last ten, oldest first
  const auto& last = s["rows"].back();
  EXPECT_EQ(last["run"], "tonight");
  EXPECT_TRUE(last["this_run"]);
  EXPECT_TRUE(s["this_run_included"]);
  const auto& it = last["values"]["avg_iteration_time_ms"];
  EXPECT_DOUBLE_EQ(it["value"].get<double>(), base * 1.25);
  EXPECT_DOUBLE_EQ(it["baseline"].get<double>(), base);  // the median of the last 5 passing nights
  EXPECT_NEAR(it["change"].get<double>(), 25.0, 1e-9);
  EXPECT_EQ(it["verdict"], "worse");

  std::ostringstream html;
  recent_runs_html(s, html);
  EXPECT_NE(html.str().find("<tr class=\"this-run\"><td>tonight (this run)</td><td>pass</td>"), std::string::npos)
      << html.str();
  EXPECT_NE(html.str().find("+25.00 % worse"), std::string::npos) << html.str();
  EXPECT_EQ(html.str().find("night103"), std::string::npos);  // older than the last ten
}

TEST(RecentRuns, WithoutItsOwnReportOrOutsideTheRootItSaysWhy) {
  TempDir root, elsewhere;
  write_run(root, "night1", sample_report(), kNight);
  const auto none = recent_runs_json(root.path(), std::nullopt);
  EXPECT_NE(none["error"].get<std::string>().find("wrote no benchmark report"), std::string::npos);
  std::ostringstream html;
  recent_runs_html(none, html);
  EXPECT_NE(html.str().find("No recent runs from " + root.path().string()), std::string::npos) << html.str();

  const auto outside = recent_runs_json(root.path(), write_run(elsewhere, "x", sample_report(), kNight * 2));
  ASSERT_TRUE(outside["error"].is_null()) << outside.dump();
  EXPECT_FALSE(outside["this_run_included"]);
  EXPECT_EQ(outside["rows"].size(), 1u);

  nlohmann::json other = sample_report();
  other["cluster"]["gpus_per_node"] = 8;
  const auto no_group = recent_runs_json(root.path(), write_run(elsewhere, "y", other, kNight * 3));
  EXPECT_NE(no_group["error"].get<std::string>().find("no run of the group"), std::string::npos) << no_group.dump();
}

}  // namespace
}  // namespace aorta::report
