// Run Deck states and values (reference §4.6) on the original's fixture: rank 1
// 12000/9000/4000 us, rank 0 10000/8000/3000 us (total/compute/comm).
#include "report/run_deck.h"

#include <sstream>
#include <tuple>

#include <gtest/gtest.h>

#include "tests/deck_fixture.h"
#include "tests/rank_fixture.h"

namespace aorta::report {
namespace {

using aorta::testing::rank_metrics;

using Fixture = aorta::testing::DeckFixture;

// Issue 19: with --baseline the deck compares the run with it, as `compare` does.
// This run: ranks of 10 and 12 ms, avg 11 ms; compute 0.8 and 0.75, avg 0.775.
TEST(RunDeck, AgainstABaseline) {
  Fixture f;
  metrics::RunFigures baseline{"base.json", {{"avg_iteration_time_ms", 10.0}, {"avg_compute_ratio", 0.775}}, {}};
  DeckInput in = f.input();
  EXPECT_TRUE(run_deck_json(in)["comparison"].is_null());
  in.baseline = &baseline;
  auto deck = run_deck_json(in);
  const auto& c = deck["comparison"];
  ASSERT_EQ(c["metrics"].size(), 2u);  // only what both have
  EXPECT_EQ(c["baseline"], "base.json");
  EXPECT_EQ(c["metrics"][0]["metric"], "avg_iteration_time_ms");
  EXPECT_DOUBLE_EQ(c["metrics"][0]["change"].get<double>(), 1.0);   // 11 - 10
  EXPECT_DOUBLE_EQ(c["metrics"][0]["ratio"].get<double>(), 1.1);
  EXPECT_EQ(c["metrics"][0]["verdict"], "worse");
  EXPECT_EQ(c["metrics"][1]["verdict"], "same");
  EXPECT_TRUE(c["step_times"].is_null());  // neither has steps
  std::ostringstream html;
  write_run_deck_html(deck, html);
  EXPECT_NE(html.str().find("<section id=\"comparison\"><h2>Against the baseline</h2>"), std::string::npos);
  EXPECT_NE(html.str().find("<td>avg_iteration_time_ms</td><td>10</td><td>11</td><td>1</td><td>1.1000</td>"
                            "<td class=\"fail\">worse</td>"),
            std::string::npos)
      << html.str();
}

// The comparison's diagnosis rows in the deck's table, as compare prints them: GEMM
// share 25 % -> 20 % is -5.00 pp (ratio 0.8); all-reduce 40 -> 30 GB/s is -10.000, worse.
TEST(RunDeck, AgainstABaselineShowsTheDiagnosisRows) {
  Fixture f;
  metrics::RunFigures baseline{"base.json", {{"avg_iteration_time_ms", 10.0}}, {}};
  DeckInput in = f.input();
  in.baseline = &baseline;
  auto deck = run_deck_json(in);
  deck["comparison"]["diagnosis"] = nlohmann::ordered_json::parse(R"({"note": null,
      "kernel_classes": [{"class": "gemm", "baseline_share": 0.25, "candidate_share": 0.2, "change": -0.05,
                          "ratio": 0.8, "verdict": "changed"}],
      "busbw": [{"collective": "allreduce", "baseline_gbps": 40, "candidate_gbps": 30, "change": -10, "ratio": 0.75,
                 "verdict": "worse"}]})");
  std::ostringstream html;
  write_run_deck_html(deck, html);
  EXPECT_NE(html.str().find("<tr><td>share gemm</td><td>25.00 %</td><td>20.00 %</td><td>-5.00 pp</td><td>0.8000</td>"
                            "<td class=\"na\">changed</td></tr>"),
            std::string::npos)
      << html.str();
  EXPECT_NE(html.str().find("<tr><td>busbw allreduce</td><td>40.000 GB/s</td><td>30.000 GB/s</td><td>-10.000</td>"
                            "<td>0.7500</td><td class=\"fail\">worse</td></tr>"),
            std::string::npos);
  deck["comparison"]["diagnosis"] = nlohmann::ordered_json::parse(R"({"note": "baseline base.json: no rank diagnosed",
                                                            "kernel_classes": [], "busbw": []})");
  std::ostringstream without;
  write_run_deck_html(deck, without);
  EXPECT_NE(without.str().find("<p id=\"diagnosis-comparison-note\">baseline base.json: no rank diagnosed</p>"),
            std::string::npos);
}

TEST(RunDeck, EnforcedPassingRun) {
  Fixture f;
  auto deck = run_deck_json(f.input());
  EXPECT_EQ(deck["overall_status"], "pass");
  EXPECT_EQ(deck["gate_matrix"]["iteration_time"]["status"], "pass");
  EXPECT_EQ(deck["gate_matrix"]["overlap_ratio"]["status"], "na");  // null threshold
  EXPECT_EQ(deck["gate_matrix"]["rank_balance"]["status"], "na");   // not configured
  EXPECT_DOUBLE_EQ(deck["cells"][0]["metrics"]["training.avg_iteration_time_ms"].get<double>(), 11.0);
  EXPECT_DOUBLE_EQ(deck["cells"][0]["metrics"]["training.avg_compute_time_ms"].get<double>(), 8.5);
  EXPECT_DOUBLE_EQ(deck["cells"][0]["metrics"]["training.avg_comm_time_ms"].get<double>(), 3.5);
  const auto& series = deck["metric_charts"]["series"];
  ASSERT_EQ(series.size(), 6u);
  EXPECT_EQ(series[0]["points"].dump(), "[[0,10.0],[1,12.0]]");
  EXPECT_EQ(series[3]["points"].dump(), "[[0,80.0],[1,75.0]]");
  EXPECT_EQ(deck["lifecycle"].dump(), R"({"benchmark":1.5,"thresholds":0.1})");
  std::string all = deck.dump();
  EXPECT_EQ(all.find("exposed"), std::string::npos);
  std::ostringstream html;
  write_run_deck_html(deck, html);
  for (const char* needle : {"Aorta Run Deck", "Threshold gates", "Time by rank", "Share of iteration by rank",
                             "max_avg_iteration_ms", "Metrics source", "PASS · 11.00 ms (limit ≤ 20 ms)"})
    EXPECT_NE(html.str().find(needle), std::string::npos) << needle;
}

TEST(RunDeck, StatesFollowTheGate) {
  Fixture f;
  f.variant.thresholds[0].value = 1;  // 11 ms > 1 ms
  EXPECT_EQ(run_deck_json(f.input())["overall_status"], "fail");
  f.run.stages[1].outcome = job::Outcome::kSkipped;  // an earlier failure: gate not run
  EXPECT_EQ(threshold_state(f.input()), "not evaluated");
  EXPECT_EQ(run_deck_json(f.input())["overall_status"], "record");
  f.variant.enforce_thresholds = false;
  EXPECT_EQ(threshold_state(f.input()), "record-only");
  EXPECT_EQ(run_deck_json(f.input())["gate_matrix"]["iteration_time"]["status"], "record");
  EXPECT_EQ(run_deck_json(f.input(false))["overall_status"], "na");
  EXPECT_TRUE(run_deck_json(f.input(false))["cells"].empty());
}

// A configured step gate on traces without ProfilerStep annotations (the fixture's
// ranks have none) cannot be measured: it fails, with the reason, not "na".
TEST(RunDeck, AStepGateWithoutStepsFails) {
  Fixture f;
  f.variant.thresholds.push_back({"max_avg_step_time_ms", 500.0});
  auto deck = run_deck_json(f.input());
  EXPECT_EQ(deck["gate_matrix"]["step_time"]["status"], "fail");
  EXPECT_EQ(deck["gate_matrix"]["step_time"]["actual"], nullptr);
  EXPECT_EQ(deck["gate_matrix"]["step_time"]["reason"],
            "Average step time not available: the traces have no ProfilerStep annotations");
  EXPECT_EQ(deck["gate_matrix"]["step_balance"]["status"], "na");  // not configured
  EXPECT_EQ(deck["overall_status"], "fail");
}

// Gates print in the unit they are written in: the iteration gate once read
// `≤ 6e+04` in the HTML table. The fixture's average is 11 ms.
TEST(RunDeck, GateTextInTheGatesUnit) {
  Fixture f;
  f.variant.thresholds = {{"max_avg_iteration_ms", 60000.0}, {"min_compute_ratio", 0.5}, {"max_time_variance_ratio", 0.125}};
  auto deck = run_deck_json(f.input());
  std::ostringstream html;
  write_run_deck_html(deck, html);
  const std::string page = html.str();
  for (const char* needle : {"<td class=\"num\">≤ 60000 ms</td>", "<td class=\"num\">≥ 0.5</td>",
                             "<td class=\"num\">≤ 0.125</td>", "<td class=\"num\">11.00 ms</td>",
                             "<td class=\"num\">0.7750</td>", "<td class=\"num\">0.1286</td>",
                             "PASS · 11.00 ms (limit ≤ 60000 ms)", "PASS · 0.7750 (limit ≥ 0.5)"})
    EXPECT_NE(page.find(needle), std::string::npos) << needle;
  EXPECT_EQ(page.find("6e+04"), std::string::npos);
  // sqrt(2e6) / 11000 = 0.1286 > 0.125: the variance gate fails.
  EXPECT_NE(page.find("FAIL · 0.1286 (limit ≤ 0.125)"), std::string::npos);
  f.variant.thresholds = {{"max_avg_iteration_ms", 835.25}};
  std::ostringstream fractional;
  write_run_deck_html(run_deck_json(f.input()), fractional);
  EXPECT_NE(fractional.str().find("<td class=\"num\">≤ 835.25 ms</td>"), std::string::npos);
}

// A zero limit fails with its unit (audit D18); record-only and not-evaluated runs
// show their states and n/a without a result (audit D19).
TEST(RunDeck, RunCardRowsForEveryState) {
  Fixture f;
  f.variant.thresholds = {{"max_avg_iteration_ms", 0.0}};
  auto card = [&](bool with_result = true) {
    std::string rows;
    const auto deck = run_deck_json(f.input(with_result));
    for (const auto& r : deck["run_card_display"])
      if (r[0] == "max_avg_iteration_ms") rows += r[1].get<std::string>();
    return rows;
  };
  EXPECT_EQ(card(), "FAIL · 11.00 ms (limit ≤ 0 ms)");
  f.variant.enforce_thresholds = false;
  EXPECT_EQ(card(), "RECORD · 11.00 ms (limit ≤ 0 ms)");
  EXPECT_EQ(card(false), "RECORD · n/a (limit ≤ 0 ms)");
  f.variant.enforce_thresholds = true;
  f.run.stages[1].outcome = job::Outcome::kSkipped;
  EXPECT_EQ(card(), "NOT EVALUATED · 11.00 ms (limit ≤ 0 ms)");
}

TEST(RunDeck, OneRankHasNoCharts) {
  Fixture f;
  f.result = metrics::aggregate({rank_metrics(0, 10000, 8000, 3000)}).value();
  EXPECT_TRUE(run_deck_json(f.input())["metric_charts"]["series"].empty());
  EXPECT_TRUE(run_deck_json(f.input())["metric_charts"]["charts"].empty());
}

std::string page(const nlohmann::ordered_json& deck) {
  std::ostringstream html;
  write_run_deck_html(deck, html);
  return html.str();
}

// The SVG of the chart whose heading has id `chart-<id>`.
std::string chart_svg(const std::string& html, const std::string& id) {
  size_t at = html.find("id=\"chart-" + id + "\"");
  if (at == std::string::npos) return "";
  size_t begin = html.find("<svg", at), end = html.find("</svg>", at);
  return html.substr(begin, end - begin);
}

// Geometry: the axis runs from x = 150 to x = 550 (400 px). A 3.16 % compute share
// is 0.0316 * 400 = 12.64 px wide, not the full width it had when bars were scaled
// to the largest; the 0.5 compute gate sits at 150 + 200 = 350.
TEST(RunDeck, ShareChartsOnAFixedAxisWithTheirGate) {
  Fixture f;
  f.result = metrics::aggregate({rank_metrics(0, 10000, 316, 3000), rank_metrics(1, 10000, 5000, 1000)}).value();
  f.variant.thresholds = {{"min_compute_ratio", 0.5}, {"min_overlap_ratio", 0.25}};
  auto deck = run_deck_json(f.input());
  const auto& share = deck["metric_charts"]["charts"][1];
  EXPECT_EQ(share["id"], "share");
  EXPECT_EQ(share["scale"], "fixed");
  EXPECT_EQ(share["axis"].dump(), R"({"max":100,"ticks":[0,25,50,75,100]})");
  ASSERT_EQ(share["gates"].size(), 1u);
  EXPECT_EQ(share["gates"][0]["threshold"], "min_compute_ratio");
  EXPECT_EQ(share["gates"][0]["label"], "min 0.5 (50 %) compute ratio");
  EXPECT_EQ(deck["metric_charts"]["charts"][2]["gates"][0]["threshold"], "min_overlap_ratio");
  const std::string svg = chart_svg(page(deck), "share");
  // rank 0 compute first (3.16 %), then rank 0 comm (30 %), rank 1 compute (50 %).
  EXPECT_NE(svg.find(R"(<rect class="bar" x="150" y="20" width="12.64")"), std::string::npos) << svg;
  EXPECT_NE(svg.find(R"(<rect class="bar" x="150" y="44" width="120.00")"), std::string::npos) << svg;
  EXPECT_NE(svg.find(R"(<rect class="bar" x="150" y="68" width="200.00")"), std::string::npos) << svg;
  EXPECT_NE(svg.find(R"(data-threshold="min_compute_ratio" x1="350.00")"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">min 0.5 (50 %) compute ratio</text>"), std::string::npos);
  for (const char* tick : {R"(x1="150.00" y1="116")", R"(x1="250.00" y1="116")", R"(x1="550.00" y1="116")", ">0 %<",
                           ">25 %<", ">100 %<"})
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  // The overlap gate at 25 % of the axis: 150 + 100.
  EXPECT_NE(chart_svg(page(deck), "overlap").find(R"(data-threshold="min_overlap_ratio" x1="250.00")"), std::string::npos);
}

// Time charts keep an axis scaled to the data, with its ticks in ms: the fixture's
// longest bar is 12 ms, so ticks 0, 5, 10, 15 ms and 10 ms is 400 * 10 / 15 = 266.67
// px. A gate beyond the axis is drawn at its end and says so.
TEST(RunDeck, TimeChartShowsItsScaleAndAGateBeyondIt) {
  Fixture f;
  auto deck = run_deck_json(f.input());  // max_avg_iteration_ms 20
  const auto& time = deck["metric_charts"]["charts"][0];
  EXPECT_EQ(time["scale"], "data");
  EXPECT_EQ(time["axis"].dump(), R"({"max":15.0,"ticks":[0.0,5.0,10.0,15.0]})");
  ASSERT_EQ(time["gates"].size(), 1u);
  EXPECT_EQ(time["gates"][0]["off_axis"], true);
  EXPECT_EQ(time["gates"][0]["label"], "max 20 ms avg iteration time, beyond the axis: drawn at its end");
  std::string svg = chart_svg(page(deck), "time");
  EXPECT_NE(svg.find(R"(<rect class="bar" x="150" y="20" width="266.67")"), std::string::npos) << svg;
  EXPECT_NE(svg.find(R"(data-threshold="max_avg_iteration_ms" x1="550.00")"), std::string::npos) << svg;
  for (const char* tick : {">0 ms<", ">5 ms<", ">15 ms<", R"(x1="283.33")"}) EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  f.variant.thresholds = {{"max_avg_iteration_ms", 6.0}};  // inside: 150 + 400 * 6 / 15 = 310
  svg = chart_svg(page(run_deck_json(f.input())), "time");
  EXPECT_NE(svg.find(R"(data-threshold="max_avg_iteration_ms" x1="310.00")"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">max 6 ms avg iteration time</text>"), std::string::npos) << svg;
  f.variant.thresholds = {};
  deck = run_deck_json(f.input());
  EXPECT_TRUE(deck["metric_charts"]["charts"][0]["gates"].empty());
  EXPECT_EQ(page(deck).find("class=\"gate\""), std::string::npos);
}

// NCCL channels and the RCCL branch only for an accelerator run: RCCL built, or a
// rank parsed from a GPU timeline. The fixture's ranks are basic scans.
TEST(RunDeck, AcceleratorFieldsOnlyOnAcceleratorRuns) {
  Fixture f;
  auto fields = [&] {
    const auto deck = run_deck_json(f.input());
    std::string found;
    for (const auto& r : deck["run_card_display"])
      if (r[0] == "NCCL channels" || r[0] == "RCCL branch") found += r[0].get<std::string>() + ";";
    for (const auto& h : deck["results_table"]["headers"])
      if (h == "NCCL channels" || h == "RCCL branch") found += "column " + h.get<std::string>() + ";";
    if (deck["cells"][0]["dimensions"].contains("nccl_channels")) found += "cell;";
    EXPECT_EQ(deck["results_table"]["headers"].size(), deck["results_table"]["rows"][0].size());
    const std::string html = page(deck);
    EXPECT_EQ(html.find("NCCL channels") != std::string::npos, deck["accelerator_fields"].get<bool>());
    EXPECT_EQ(html.find("develop") != std::string::npos, deck["accelerator_fields"].get<bool>());
    return found;
  };
  const std::string all = "NCCL channels;RCCL branch;column NCCL channels;column RCCL branch;cell;";
  EXPECT_EQ(fields(), all);  // RCCL built (the default)
  f.variant.skip_rccl_build = true;  // the CPU run: gloo, basic scans
  EXPECT_EQ(fields(), "");
  f.result.per_rank[1].parser = metrics::ParserPath::kGpuTimeline;  // GPU-shaped traces
  EXPECT_EQ(fields(), all);
}

// The run card's "Metrics source" names what made the numbers (issue 45, 7): the
// TraceLens Excel reports only when they were read, CVS's "Basic raw-trace scan" when
// every rank took it, else our own raw-trace parser (never "TraceLens on raw traces":
// TraceLens did not run); "Metrics algorithm" names each rank's path: the CPU timeline
// for gloo on CPU (no accelerator fields), each path by name when the ranks differ.
TEST(RunDeck, MetricsSourceNamesTheParserPath) {
  Fixture f;
  auto row = [&](const std::string& label) {
    const std::string html = page(run_deck_json(f.input()));
    const std::string open = "<th>" + label + "</th><td>";
    const size_t at = html.find(open);
    return at == std::string::npos ? std::string() : html.substr(at + open.size(), html.find("</td>", at) - at - open.size());
  };
  const std::string raw = "aorta_suite raw-trace parser (TraceLens not run)";
  EXPECT_EQ(row("Metrics source"), "Basic raw-trace scan");  // every rank fell back to the basic scan
  EXPECT_EQ(row("Metrics algorithm"), "Basic raw-trace scan");
  for (auto& r : f.result.per_rank) r.parser = metrics::ParserPath::kCpuTimeline;
  EXPECT_EQ(row("Metrics source"), raw);
  EXPECT_EQ(row("Metrics algorithm"), "CPU timeline (operators and collectives) on raw traces");
  f.variant.skip_rccl_build = true;
  EXPECT_FALSE(run_deck_json(f.input())["accelerator_fields"].get<bool>());
  f.result.per_rank[1].parser = metrics::ParserPath::kGpuTimeline;
  EXPECT_EQ(row("Metrics algorithm"), "GPU timeline, CPU timeline on raw traces, by rank");
  for (auto& r : f.result.per_rank) r.parser = metrics::ParserPath::kTracelensExcel;
  EXPECT_EQ(row("Metrics source"), "Aorta TraceLens Excel reports");
  EXPECT_EQ(row("Metrics algorithm"), "Aorta TraceLens Excel reports");
  EXPECT_NE(page(run_deck_json(f.input(false))).find("<th>Metrics source</th><td>—</td>"), std::string::npos);
}

// This tool's words: gtest stages and the HTML report, not the original's pytest.
TEST(RunDeck, WordsOfThisTool) {
  Fixture f;
  const std::string html = page(run_deck_json(f.input()));
  EXPECT_NE(html.find("<th>gtest stages</th><td>all passed</td>"), std::string::npos);
  EXPECT_NE(html.find(R"(<th>HTML report</th><td><a href="../r.html">)"), std::string::npos);
  EXPECT_EQ(html.find("ytest"), std::string::npos);
  f.run.stages[0].outcome = job::Outcome::kFailed;
  EXPECT_NE(page(run_deck_json(f.input())).find("failures — see the HTML report"), std::string::npos);
}

}  // namespace
}  // namespace aorta::report
