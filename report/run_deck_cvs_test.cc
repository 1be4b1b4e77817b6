// The Run Deck's CVS-shaped sections against the reference's field lists (§4.6.2-4.6.7,
// §5.6) on the original's fixture: rank 1 12000/9000/4000 us, rank 0 10000/8000/3000 us
// (total/compute/comm). Numbers worked by hand:
//   avg 11 ms; sample std sqrt(((-1000)^2 + 1000^2) / 1) = 1414.2136 us = 1.4142136 ms;
//   variance 1414.2136 / 11000 = 0.12856487; compute (8 + 9) / 2 = 8.5 ms, comm 3.5 ms;
//   compute ratio (0.8 + 0.75) / 2 = 0.775; comm ratio (0.3 + 1/3) / 2 = 0.3166667;
//   overlap ((1000/3000) + (1000/4000)) / 2 = 0.2916667.
#include "report/run_deck_cvs.h"

#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/deck_fixture.h"

namespace aorta::report {
namespace {

using aorta::testing::rank_metrics;
using Fixture = aorta::testing::DeckFixture;

std::set<std::string> keys(const nlohmann::ordered_json& object) {
  std::set<std::string> out;
  for (const auto& [key, value] : object.items()) out.insert(key);
  return out;
}

TEST(RunDeckCvs, DeckResultsCellIsOneElementListsWithDimensionsAndCharts) {
  Fixture f;
  const auto deck = run_deck_json(f.input());
  ASSERT_EQ(keys(deck["deck_results"]), std::set<std::string>{"test"});
  const auto& cell = deck["deck_results"]["test"];
  EXPECT_EQ(keys(cell), (std::set<std::string>{"avg_iteration_time_ms", "std_iteration_time_ms", "min_iteration_time_ms",
                                                "max_iteration_time_ms", "avg_compute_time_ms", "avg_comm_time_ms",
                                                "avg_compute_ratio", "avg_comm_ratio", "avg_overlap_ratio", "ranks",
                                                "time_variance_ratio", "_dimensions", "_metric_charts"}));
  const std::pair<const char*, double> expected[] = {
      {"avg_iteration_time_ms", 11.0}, {"std_iteration_time_ms", 1.4142136}, {"min_iteration_time_ms", 10.0},
      {"max_iteration_time_ms", 12.0}, {"avg_compute_time_ms", 8.5},        {"avg_comm_time_ms", 3.5},
      {"avg_compute_ratio", 0.775},     {"avg_comm_ratio", 0.3166667},       {"avg_overlap_ratio", 0.2916667},
      {"time_variance_ratio", 0.12856487}};
  for (const auto& [key, value] : expected) {
    ASSERT_TRUE(cell[key].is_array() && cell[key].size() == 1) << key;
    EXPECT_NEAR(cell[key][0].get<double>(), value, 1e-6) << key;
  }
  EXPECT_EQ(cell["ranks"].dump(), "[2]");  // an integer count
  EXPECT_EQ(cell["_dimensions"].dump(),
            R"({"nodes":"1","gpus_per_node":"2","nccl_channels":"112","rccl_branch":"develop"})");
  const auto& charts = cell["_metric_charts"];
  EXPECT_EQ(charts["metrics"].dump(), "[]");
  EXPECT_EQ(charts["heatmaps"].dump(), "[]");
  ASSERT_EQ(charts["series"].size(), 6u);
  for (const auto& s : charts["series"])
    EXPECT_EQ(keys(s), (std::set<std::string>{"group", "name", "unit", "node", "x_label", "points"}));
  // CVS's series: group "Per rank", the chart as name, the measure as node.
  const std::tuple<const char*, const char*, const char*> names[] = {
      {"Time", "iteration", "ms"}, {"Time", "compute", "ms"}, {"Time", "comm", "ms"},
      {"Share of iteration", "compute", "%"}, {"Share of iteration", "comm", "%"}, {"Comm overlap", "overlap", "%"}};
  for (size_t i = 0; i < 6; ++i) {
    const auto& [name, node, unit] = names[i];
    EXPECT_EQ(charts["series"][i]["group"], "Per rank") << i;
    EXPECT_EQ(charts["series"][i]["name"], name) << i;
    EXPECT_EQ(charts["series"][i]["node"], node) << i;
    EXPECT_EQ(charts["series"][i]["unit"], unit) << i;
    EXPECT_EQ(charts["series"][i]["x_label"], "rank") << i;
  }
  EXPECT_EQ(charts["series"][0]["points"].dump(), "[[0,10.0],[1,12.0]]");
  EXPECT_EQ(charts["series"][3]["points"].dump(), "[[0,80.0],[1,75.0]]");
  EXPECT_EQ(charts["series"][5]["points"].dump(), "[[0,33.33333333333333],[1,25.0]]");  // 1000/3000, 1000/4000
  EXPECT_EQ(deck.dump().find("exposed"), std::string::npos);
}

// D3: a zero-mean variance is absent, not null, in both cells; one rank: no charts.
// A CPU run (RCCL build skipped, basic scan) has empty channel and branch dimensions.
TEST(RunDeckCvs, ZeroMeanVarianceIsAbsentAndOneRankHasNoCharts) {
  Fixture f;
  metrics::RankMetrics idle = rank_metrics(0, 1, 0, 0);
  idle.total_time_us = 0;
  idle.compute_ratio = 0;
  f.result = metrics::aggregate({idle}).value();
  f.variant.model_id.clear();
  f.variant.skip_rccl_build = true;
  const auto deck = run_deck_json(f.input());
  ASSERT_TRUE(deck["deck_results"].contains("default"));
  const auto& cell = deck["deck_results"]["default"];
  EXPECT_FALSE(cell.contains("time_variance_ratio"));
  EXPECT_FALSE(cell.contains("_metric_charts"));
  EXPECT_EQ(cell["avg_iteration_time_ms"].dump(), "[0.0]");
  EXPECT_EQ(cell["_dimensions"].dump(), R"({"nodes":"1","gpus_per_node":"2","nccl_channels":"","rccl_branch":""})");
  EXPECT_FALSE(deck["cells"][0]["metrics"].contains("training.time_variance_ratio"));
  EXPECT_TRUE(deck["cells"][0]["metrics"].contains("training.avg_iteration_time_ms"));
  EXPECT_TRUE(run_deck_json(f.input(false))["deck_results"].empty());
}

// D4 and the spec shape: {max 20, min_compute 0.5, min_overlap null} gives two
// training.-prefixed {kind, value} specs; each tier holds only its metric's; the
// record tier holds the ungated metrics and no spec.
TEST(RunDeckCvs, SpecsByMetricAndTheRecordTier) {
  Fixture f;
  f.variant.thresholds = {{"max_avg_iteration_ms", 20.0}, {"min_compute_ratio", 0.5}, {"min_overlap_ratio", std::nullopt}};
  auto deck = run_deck_json(f.input());
  EXPECT_EQ(deck["threshold_specs"].dump(),
            R"({"training.avg_iteration_time_ms":{"kind":"max","value":20.0,"verdict":"pass","reason":""},)"
            R"("training.avg_compute_ratio":{"kind":"min","value":0.5,"verdict":"pass","reason":""}})");
  const auto& gates = deck["gate_matrix"];
  EXPECT_EQ(keys(gates["iteration_time"]["specs"]), std::set<std::string>{"training.avg_iteration_time_ms"});
  EXPECT_EQ(keys(gates["compute_ratio"]["specs"]), std::set<std::string>{"training.avg_compute_ratio"});
  EXPECT_TRUE(gates["overlap_ratio"]["specs"].empty());
  EXPECT_EQ(gates["overlap_ratio"]["status"], "na");
  EXPECT_EQ(gates["record"]["status"], "record");
  EXPECT_TRUE(gates["record"]["specs"].empty());
  const std::string recorded = gates["record"]["metrics"].dump();
  EXPECT_EQ(recorded.find("avg_compute_ratio"), std::string::npos);
  EXPECT_NE(recorded.find("training.avg_comm_ratio"), std::string::npos);
  const auto& order = deck["report"]["tier_order"];
  EXPECT_EQ(order[0], "iteration_time");
  EXPECT_EQ(order[1], "compute_ratio");
  EXPECT_EQ(order[2], "overlap_ratio");
  EXPECT_EQ(order[3], "rank_balance");
  EXPECT_EQ(order.back(), "record");
  // Not evaluated: the specs carry no verdict.
  f.run.stages[1].outcome = job::Outcome::kSkipped;
  deck = run_deck_json(f.input());
  EXPECT_FALSE(deck["threshold_specs"]["training.avg_iteration_time_ms"].contains("verdict"));
}

// D14: one row per configured threshold in map order, exactly CVS's keys; the
// failing row carries the original's message; the states without a gate run.
TEST(RunDeckCvs, VerdictRowsHaveCvsKeysInEveryState) {
  Fixture f;
  f.variant.thresholds = {{"max_avg_iteration_ms", 20.0}, {"min_compute_ratio", 0.8}};
  auto rows = run_deck_json(f.input())["threshold_verdicts"];
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& r : rows)
    EXPECT_EQ(keys(r), (std::set<std::string>{"threshold", "metric", "kind", "limit", "actual", "status", "message"}));
  EXPECT_EQ(rows[0].dump(), R"({"threshold":"max_avg_iteration_ms","metric":"avg_iteration_time_ms",)"
                            R"("kind":"max","limit":20.0,"actual":11.0,"status":"pass","message":""})");
  EXPECT_EQ(rows[1]["status"], "fail");
  EXPECT_EQ(rows[1]["message"], "Average compute ratio 77.50% below threshold 80.00%");  // 0.775 < 0.8
  EXPECT_EQ(rows[1]["kind"], "min");
  f.run.stages[1].outcome = job::Outcome::kSkipped;  // an earlier failure: the gate did not run
  rows = run_deck_json(f.input())["threshold_verdicts"];
  EXPECT_EQ(rows[1]["status"], "not evaluated");
  EXPECT_DOUBLE_EQ(rows[1]["actual"].get<double>(), 0.775);
  EXPECT_EQ(rows[1]["message"], "");
  f.variant.enforce_thresholds = false;  // record-only: the rows still carry the actual
  rows = run_deck_json(f.input())["threshold_verdicts"];
  EXPECT_EQ(rows[0]["status"], "record");
  EXPECT_DOUBLE_EQ(rows[0]["actual"].get<double>(), 11.0);
  rows = run_deck_json(f.input(false))["threshold_verdicts"];
  EXPECT_EQ(rows[0]["status"], "record");
  EXPECT_TRUE(rows[0]["actual"].is_null());
}

// D21: the top level's sections as §4.6.7 lists them, the results table's profile
// columns, the profile's identity, and panels that are the page's sections in order.
TEST(RunDeckCvs, TopLevelSectionsPanelsAndSummary) {
  Fixture f;
  const auto deck = run_deck_json(f.input());
  for (const char* key : {"schema_version", "suite_id", "generated_at", "cvs_version", "overall_status", "report",
                          "run_card_display", "run_card_notes", "provenance", "lifecycle", "cells", "gate_matrix",
                          "results_table", "panels", "datasets", "deck_profile", "summary"})
    EXPECT_TRUE(deck.contains(key)) << key;
  for (const char* key : {"cells", "metric_charts", "gate_matrix", "results_table", "overall_status"})
    EXPECT_TRUE(deck["datasets"]["training_sweep"].contains(key)) << key;
  for (const char* key : {"pytest_html_path", "log_file_path", "cluster_file", "config_file"})
    EXPECT_TRUE(deck["provenance"].contains(key)) << key;
  EXPECT_EQ(deck["results_table"]["headers"].dump(),
            R"j(["Model","Nodes","GPUs/node","NCCL channels","RCCL branch","Ranks","Avg iter (ms)",)j"
            R"j("Iter std across ranks (ms)","Min rank iter (ms)","Max rank iter (ms)","Time variance","Compute (ms)",)j"
            R"j("Comm time (ms)","Compute ratio","Comm ratio","Overlap ratio"])j");
  EXPECT_EQ(deck["deck_profile"]["profile_id"], "aorta_rundeck");
  EXPECT_EQ(deck["deck_profile"]["report_basename"], "aorta_run_deck");
  EXPECT_EQ(deck["deck_profile"]["dataset_builder"], "training_sweep");
  // CVS's STAGE_LABELS, whatever stages this run had.
  EXPECT_EQ(deck["report"]["lifecycle_labels"].dump(),
            R"(["container_launch","clone","rdma_setup","rccl_build","benchmark","collect_traces","analysis",)"
            R"("parse","thresholds","report","teardown"])");
  EXPECT_EQ(deck["deck_profile"]["sources"].dump(),
            R"({"results":"cvs_results_dict","variant":"aorta_deck_variant","lifecycle":"lifecycle"})");
  // Two gates configured and passed; every other gate of the catalogue is na.
  const size_t na = metrics::threshold_catalogue().size() - 2;
  EXPECT_EQ(deck["summary"].dump(),
            R"({"overall_status":"pass","thresholds":"enforced","headline":{"metric":"training.avg_iteration_time_ms",)"
            R"("value":11.0,"unit":"ms"},"tiers":{"pass":2,"na":)" + std::to_string(na) + R"(,"record":1},)"
            R"("stages":{"passed":2,"failed":0,"skipped":0}})");
  std::ostringstream html;
  write_run_deck_html(deck, html);
  size_t at = 0;
  std::string ids;
  for (const auto& p : deck["panels"]) {
    ids += p["id"].get<std::string>() + " ";
    at = html.str().find("<section id=\"" + p["id"].get<std::string>() + "\"><h2>" + p["title"].get<std::string>(), at);
    EXPECT_NE(at, std::string::npos) << p.dump();
  }
  EXPECT_EQ(ids, "gates diagnosis-section run-card lifecycle result per-rank per-step results ");
  EXPECT_EQ(html.str().find("<section id=", at + 1), std::string::npos);  // no section the panels leave out
  f.result = metrics::aggregate({rank_metrics(0, 10000, 8000, 3000)}).value();
  EXPECT_EQ(run_deck_json(f.input())["panels"].dump().find("per-rank"), std::string::npos);
}

// datasets.training_sweep as CVS's cell builder makes it (CVS's test_aorta_deck.py):
// one cell with cell_id, tiers in tier order (fail/pass by the gate, na without a spec,
// record for the record tier or a gate that did not run), the highlighted metrics,
// gate_matrix rows, six series and the profile's results table.
TEST(RunDeckCvs, TrainingSweepCellsTiersAndTable) {
  Fixture f;
  f.variant.thresholds = {{"max_avg_iteration_ms", 1.0}, {"min_compute_ratio", 0.01}};  // 11 ms > 1 ms
  auto sweep = run_deck_json(f.input())["datasets"]["training_sweep"];
  ASSERT_EQ(sweep["cells"].size(), 1u);
  const auto& cell = sweep["cells"][0];
  EXPECT_EQ(cell["cell_id"], "test");
  // Every tier in the catalogue's order (ThresholdCatalogue.GatesInTheDecksTierOrder), na without a spec.
  nlohmann::ordered_json tiers;
  for (const auto& gate : metrics::threshold_catalogue()) tiers[gate.tier] = "na";
  tiers["iteration_time"] = "fail";
  tiers["compute_ratio"] = "pass";
  tiers["record"] = "record";
  EXPECT_EQ(cell["tiers"].dump(), tiers.dump());
  EXPECT_EQ(sweep["gate_matrix"][0]["tiers"], cell["tiers"]);
  EXPECT_EQ(sweep["overall_status"], "fail");
  ASSERT_EQ(cell["metrics"].size(), 5u);
  EXPECT_EQ(cell["metrics"][0]["label"], "Avg iteration");
  EXPECT_EQ(cell["metrics"][0]["status"], "fail");
  EXPECT_EQ(cell["metrics"][0]["spec"]["reason"],
            "Average iteration time 11.00ms exceeds threshold 1ms (the whole profiled window)");
  EXPECT_EQ(cell["metrics"][2]["metric"], "training.avg_overlap_ratio");
  EXPECT_EQ(cell["metrics"][2]["status"], "record");  // no spec
  EXPECT_NEAR(cell["metrics"][3]["actual"].get<double>(), 0.12856487, 1e-8);
  EXPECT_DOUBLE_EQ(cell["metrics"][4]["actual"].get<double>(), 3.5);  // comm time
  // Each highlight's deck key and unit are its catalogue row's: times in ms, a fraction a "ratio".
  EXPECT_EQ(cell["metrics"][4]["metric"], "training.avg_comm_time_ms");
  EXPECT_EQ(cell["metrics"][4]["unit"], "ms");
  EXPECT_EQ(cell["metrics"][0]["unit"], "ms");
  EXPECT_EQ(cell["metrics"][1]["unit"], "ratio");
  EXPECT_EQ(sweep["metric_charts"]["series"].size(), 6u);
  EXPECT_EQ(sweep["session_lifecycle_labels"].size(), 11u);
  f.run.stages[1].outcome = job::Outcome::kSkipped;  // the gate did not run
  sweep = run_deck_json(f.input())["datasets"]["training_sweep"];
  EXPECT_EQ(sweep["cells"][0]["tiers"]["iteration_time"], "record");
  EXPECT_EQ(sweep["cells"][0]["metrics"][0]["status"], "record");
  EXPECT_EQ(sweep["overall_status"], "record");
  // A CPU run: the profile's every column, "—" where the run has no value.
  f.variant.skip_rccl_build = true;
  f.variant.model_id.clear();
  sweep = run_deck_json(f.input())["datasets"]["training_sweep"];
  EXPECT_EQ(sweep["results_table"]["headers"].size(), 16u);
  EXPECT_EQ(sweep["results_table"]["rows"][0][0], "—");
  EXPECT_EQ(sweep["results_table"]["rows"][0][3], "—");
  EXPECT_EQ(sweep["results_table"]["rows"][0][4], "—");
  EXPECT_EQ(sweep["cells"][0]["cell_id"], "default");
  EXPECT_TRUE(run_deck_json(f.input(false))["datasets"]["training_sweep"]["cells"].empty());
}

}  // namespace
}  // namespace aorta::report
