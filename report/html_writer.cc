#include "report/html_writer.h"

#include <algorithm>
#include <functional>
#include <utility>

#include <fmt/format.h>

#include "metrics/metric_catalogue.h"
#include "metrics/threshold_catalogue.h"
#include "report/diagnosis_html.h"
#include "report/gate_figures.h"
#include "report/node_subtests.h"

namespace aorta::report {
namespace {

const char* kStyle = R"(body{font-family:Helvetica,Arial,sans-serif;font-size:14px;margin:24px;color:#222}
h1{font-size:22px}h2{font-size:16px;margin-top:20px}table{border-collapse:collapse;width:100%}
th,td{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}th{background:#eee}
table.facts{width:auto;margin-bottom:8px}table.facts th{font-weight:normal;color:#555}
.verdict{font-size:18px;font-weight:bold;padding:10px 14px;border-radius:4px;color:#fff}
.verdict.passed{background:#1a7f37}.verdict.failed{background:#cf222e}
.passed .col-result{color:#1a7f37;font-weight:bold}.failed .col-result{color:#cf222e;font-weight:bold}
.skipped .col-result{color:#9a6700;font-weight:bold}.extra td{background:#fafafa;font-family:monospace;white-space:pre-wrap}
.failure{color:#cf222e}.subtests td{font-family:Helvetica,Arial,sans-serif}.sub-passed .col-result{color:#1a7f37}
.sub-failed .col-result{color:#cf222e}.summary span{margin-right:16px}pre{white-space:pre-wrap}
tr.gate-failed th,tr.gate-failed td{background:#ffebe9}.gate-mark{color:#cf222e}
)";

std::string capitalized(job::Outcome outcome) {
  std::string s = job::outcome_name(outcome);
  s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

void write_head(const std::string& title, const std::string& stylesheet, std::ostream& out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" << escape_xml(title)
      << "</title>\n<link rel=\"stylesheet\" href=\"" << link_href(stylesheet) << "\">\n</head>\n<body>\n";
}

void write_facts(const char* id, const char* title, const std::vector<std::pair<std::string, std::string>>& rows,
                 std::ostream& out) {
  if (rows.empty()) return;
  out << "<h2>" << title << "</h2>\n<table class=\"facts\" id=\"" << id << "\">\n";
  for (const auto& [what, value] : rows)
    out << "<tr><th>" << escape_xml(what) << "</th><td>" << escape_xml(value) << "</td></tr>\n";
  out << "</table>\n";
}

// A row of the Metrics table and the metrics it shows, whose failed gates it marks.
struct MetricRow {
  std::string what, value;
  std::vector<std::string> metrics;  // catalogue keys
};

// The run's size and iteration time, the catalogue's HTML ratios (as %, as the gate
// cells show them), then the steps.
std::vector<MetricRow> headline(const metrics::RunMetrics& m) {
  std::vector<MetricRow> rows = {
      {"ranks", std::to_string(m.per_rank.size()), {"ranks"}},
      {"avg iteration time (the whole profiled window)",
       fmt::format("{:.3f} ms (min {:.3f}, max {:.3f})", m.avg_iteration_time_ms, m.min_iteration_time_us / 1000.0,
                   m.max_iteration_time_us / 1000.0),
       {"avg_iteration_time_ms"}}};
  for (const metrics::MetricSpec* spec : metrics::metrics_in(metrics::kInHtml))
    rows.push_back({spec->label, metrics::format_metric(*spec, m, metrics::RatioStyle::kPercent), {spec->key}});
  rows.push_back({"steps",
                  m.steps ? fmt::format("{} (mean {:.3f} ms, p95 {:.3f} ms, cv {:.2f}%)", m.steps->step_count,
                                        m.steps->mean_ms, m.steps->p95_ms, m.steps->cv * 100)
                          : "none (no ProfilerStep annotations in the traces)",
                  {"avg_step_time_ms", "step_time_cv"}});
  return rows;
}

// The record's failed gates (each stage's threshold sub-tests), by the metric they gate.
std::vector<std::pair<const metrics::ThresholdSpec*, const job::SubTest*>> failed_gates(const RunRecord& run) {
  std::vector<std::pair<const metrics::ThresholdSpec*, const job::SubTest*>> out;
  for (const auto& stage : run.stages)
    for (const auto& t : stage.subtests)
      if (t.kind == job::SubTestKind::kThreshold && t.outcome == job::Outcome::kFailed)
        if (const metrics::ThresholdSpec* spec = metrics::find_threshold(t.value)) out.emplace_back(spec, &t);
  return out;
}

// "✗ fails max_avg_iteration_ms (≤ 1 ms)", then a per-rank gate's rank ("on node3 rank 3
// (GPU 1)"): words beside the colour, read with styles off.
std::string failed_mark(const metrics::ThresholdSpec& spec, const job::SubTest& gate) {
  std::string mark = " <strong class=\"gate-mark\">&#x2717; fails " + escape_xml(spec.key);
  if (gate.limit)
    mark += fmt::format(" ({} {})", spec.kind == metrics::ThresholdKind::kMin ? "&ge;" : "&le;",
                        escape_xml(gate_limit_text(*gate.limit, gate.unit)));
  if (gate.subject) mark += " on " + escape_xml(gate.subject->text());
  return mark + "</strong>";
}

// The Metrics table: a row whose metric failed its gate has class gate-failed and says
// which gate; a failed gate's metric the table does not list gets a row of its own.
void write_metrics(const RunRecord& run, const metrics::RunMetrics& m, std::ostream& out) {
  std::vector<MetricRow> rows = headline(m);
  const auto failed = failed_gates(run);
  for (const auto& [spec, gate] : failed)
    // The metric by value: clang 15 cannot capture a structured binding.
    if (std::none_of(rows.begin(), rows.end(), [metric = spec->metric](const MetricRow& r) {
          return std::find(r.metrics.begin(), r.metrics.end(), metric) != r.metrics.end();
        }))
      rows.push_back({spec->row->label, gate->actual ? gate_actual_text(*gate->actual, gate->unit) : "-", {spec->metric}});
  out << "<h2>Metrics</h2>\n<table class=\"facts\" id=\"metrics\">\n";
  for (const auto& row : rows) {
    std::string marks;
    for (const auto& [spec, gate] : failed)
      if (std::find(row.metrics.begin(), row.metrics.end(), spec->metric) != row.metrics.end())
        marks += failed_mark(*spec, *gate);
    out << (marks.empty() ? "<tr>" : "<tr class=\"gate-failed\">") << "<th>" << escape_xml(row.what) << "</th><td>"
        << escape_xml(row.value) << marks << "</td></tr>\n";
  }
  out << "</table>\n";
}

// One row of a stage's sub-test panel: what the stage's body found, or (`body` null) a
// sub-test test the body never reached; `test` is its own gtest test, when it has one.
struct SubTestRow {
  const job::SubTest* body;
  const StageResult* test;
  job::Outcome outcome() const { return body ? body->outcome : test->outcome; }
};

// A row of the results table: a stage with its sub-tests' panel, or a sub-test test
// whose stage left no record at all (its stage test filtered out), which keeps its own row.
struct Entry {
  const StageResult* test;
  std::vector<SubTestRow> subtests;
};

// The stage's sub-tests: each the body reported, matched to its own test by key and
// value, then the tests the body never reached (their stage failed or was skipped first).
std::vector<SubTestRow> subtest_rows(const StageResult& stage) {
  std::vector<const StageResult*> tests;
  for (const auto& r : stage.tests) tests.push_back(&r);
  std::vector<SubTestRow> rows;
  for (const auto& t : stage.subtests) {
    SubTestRow row{&t, nullptr};
    for (auto& test : tests)
      if (test && test->subtest && test->subtest->key == t.key && test->subtest->value == t.value) {
        row.test = std::exchange(test, nullptr);
        break;
      }
    rows.push_back(row);
  }
  for (const StageResult* test : tests)
    if (test) rows.push_back({nullptr, test});
  return rows;
}

std::vector<Entry> entries(const RunRecord& run) {
  std::vector<Entry> out;
  for (const auto& r : run.stages) out.push_back({&r, subtest_rows(r)});
  return out;
}

// Outcomes as the page counts them; a recorded (enforce_thresholds: false) or unreached
// sub-test is skipped, never passed.
struct Counts {
  int total = 0, passed = 0, failed = 0, skipped = 0;
  void add(job::Outcome o) {
    ++total;
    (o == job::Outcome::kPassed ? passed : o == job::Outcome::kFailed ? failed : skipped) += 1;
  }
  // CVS's "<total> subtests, <failed> Failed, <passed> Passed", then the skipped ones.
  std::string subtests_text() const {
    return fmt::format("{} subtests, {} Failed, {} Passed", total, failed, passed) +
           (skipped ? fmt::format(", {} Skipped", skipped) : "");
  }
};

// A panel's rows past kListedNodes node sub-tests: the rows to list (every other
// sub-test, and the nodes that did not pass) and the passed nodes, folded.
struct NodePanel {
  std::vector<const SubTestRow*> listed, folded;
  std::string summary;  // nodes_summary's line; empty: no node folded
};

NodePanel node_panel(const std::vector<SubTestRow>& rows) {
  NodePanel panel;
  std::vector<const SubTestRow*> nodes;
  for (const auto& r : rows) (is_node_subtest(r.body ? *r.body : *r.test->subtest) ? nodes : panel.listed).push_back(&r);
  if (nodes.size() <= kListedNodes) {
    panel.listed.clear();
    for (const auto& r : rows) panel.listed.push_back(&r);
    return panel;
  }
  std::vector<std::pair<std::string, job::Outcome>> outcomes;
  for (const SubTestRow* r : nodes) {
    outcomes.emplace_back((r->body ? *r->body : *r->test->subtest).value, r->outcome());
    (r->outcome() == job::Outcome::kPassed ? panel.folded : panel.listed).push_back(r);
  }
  panel.summary = nodes_summary(outcomes);
  return panel;
}

void write_subtest_row(const RunRecord& run, const SubTestRow& r, std::ostream& out) {
  const job::SubTest& t = r.body ? *r.body : *r.test->subtest;
  // A body's recorded sub-test was measured, not gated (enforce_thresholds: false).
  const std::string result = r.body && r.body->record_only ? "Recorded" : capitalized(r.outcome());
  // A sub-test's own test is found by its name too: report.html#<stage>/<value>.
  out << "<tr class=\"sub-" << job::outcome_name(r.outcome()) << "\""
      << (r.test ? " id=\"" + escape_xml(r.test->name) + "\"" : std::string()) << "><td class=\"col-result\">" << result
      << "</td><td class=\"col-subtest\">" << escape_xml(t.label()) << "</td><td>"
      << (t.actual ? gate_actual_text(*t.actual, t.unit) : "") << "</td><td>"
      << (t.limit ? fmt::format("{} {}", t.gate == metrics::ThresholdKind::kMin ? "&ge;" : "&le;",
                                escape_xml(gate_limit_text(*t.limit, t.unit)))
                  : "")
      << "</td><td>" << escape_xml(t.message) << "</td><td class=\"col-links\">";
  if (r.test) out << "<a href=\"" << link_href(stage_log_path(run, *r.test)) << "\">Full Log</a>";
  out << "</td></tr>\n";
}

const char* kSubTestHeader =
    "<tr><th>Result</th><th>Sub-test</th><th>Actual</th><th>Gate</th><th>Reason</th><th>Links</th></tr>\n";

// The sub-tests of a stage, collapsed under its row (the original's panel), each
// linking its own test's Full Log page. Past kListedNodes nodes (issue 46) the panel
// says "64 nodes: 63 passed, 1 failed: node17", lists the nodes that did not pass, and
// keeps the passed ones folded in a <details> of their own.
void write_subtests(const RunRecord& run, const std::vector<SubTestRow>& rows, std::ostream& out) {
  Counts counts;
  for (const auto& r : rows) counts.add(r.outcome());
  const NodePanel nodes = node_panel(rows);
  out << "<details" << (counts.failed ? " open" : "") << "><summary>" << counts.subtests_text() << "</summary>\n";
  if (!nodes.summary.empty()) out << "<p class=\"node-summary\">" << escape_xml(nodes.summary) << "</p>\n";
  out << "<table class=\"subtests\">\n" << kSubTestHeader;
  for (const auto& r : nodes.listed) write_subtest_row(run, *r, out);
  out << "</table>\n";
  if (!nodes.folded.empty()) {
    out << "<details class=\"passed-nodes\"><summary>The " << nodes.folded.size()
        << " nodes that passed</summary>\n<table class=\"subtests\">\n" << kSubTestHeader;
    for (const auto& r : nodes.folded) write_subtest_row(run, *r, out);
    out << "</table>\n</details>\n";
  }
  out << "</details>\n";
}

void write_entry(const RunRecord& run, const Entry& entry, std::ostream& out) {
  const StageResult& test = *entry.test;
  out << "<tbody id=\"" << escape_xml(test.name) << "\" class=\"" << job::outcome_name(test.outcome)
      << " results-table-row\">\n<tr><td class=\"col-result\">" << capitalized(test.outcome)
      << "</td><td class=\"col-name\">" << escape_xml(run.suite + "::" + test.name) << "</td><td class=\"col-duration\">"
      << fmt::format("{:.3f} s", test.seconds) << "</td><td class=\"col-links\"><a href=\""
      << link_href(stage_log_path(run, test)) << "\">Full Log</a></td></tr>\n";
  if (!test.skip_reason.empty() || !test.failures.empty() || !entry.subtests.empty()) {
    out << "<tr class=\"extra\"><td colspan=\"4\">";
    if (!test.skip_reason.empty()) out << "<div class=\"skip-reason\">Skipped: " << escape_xml(test.skip_reason) << "</div>";
    for (const auto& f : test.failures) out << "<div class=\"failure\">" << escape_xml(f) << "</div>";
    if (!entry.subtests.empty()) write_subtests(run, entry.subtests, out);
    out << "</td></tr>\n";
  }
  out << "</tbody>\n";
}

// The banner and the counts: stages (one entry each, as the original's page has) and
// every sub-test of the panels, as CVS counts them.
void write_verdict(const RunRecord& run, const std::vector<Entry>& rows, std::ostream& out) {
  Counts stages, subtests;
  for (const StageResult* s : run.stage_tests()) stages.add(s->outcome);
  for (const auto& e : rows) {
    // A sub-test's test left without its stage is a row of its own, counted as a sub-test.
    if (e.test->subtest) subtests.add(e.test->outcome);
    for (const auto& r : e.subtests) subtests.add(r.outcome());
  }
  const bool failed = stages.failed || subtests.failed;
  out << "<h1>" << escape_xml(run.suite) << "</h1>\n<p id=\"verdict\" class=\"verdict " << (failed ? "failed" : "passed")
      << "\">"
      << (failed ? fmt::format("FAILED: {} of {} stages failed, {} of {} subtests failed", stages.failed, stages.total,
                               subtests.failed, subtests.total)
                 : fmt::format("PASSED: {} stages and {} subtests, none failed", stages.total, subtests.total))
      << "</p>\n<p class=\"summary\"><span>run " << escape_xml(run.run_id) << "</span><span>host "
      << escape_xml(run.hostname) << "</span><span>started " << escape_xml(run.timestamp) << "</span><span>"
      << fmt::format("{:.1f}", run.seconds) << " s</span></p>\n";
  out << "<p class=\"summary\"><span class=\"count-passed\">" << stages.passed
      << " Passed</span><span class=\"count-failed\">" << stages.failed << " Failed</span><span class=\"count-skipped\">"
      << stages.skipped << " Skipped</span><span class=\"cvs-subtests-count\">" << subtests.subtests_text()
      << "</span></p>\n";
}

}  // namespace

std::string report_stylesheet() { return kStyle; }

std::string stylesheet_path(const RunRecord& run) { return run.suite + "_html/report.css"; }

std::string stage_log_path(const RunRecord& run, const StageResult& stage) {
  size_t h = std::hash<std::string>()(run.run_id + "/" + stage.name);
  // A sub-test's name has a '/': the page stays in the one folder.
  return fmt::format("{}_html/{}_{:012x}.html", run.suite, job::test_name_part(stage.name), h & 0xffffffffffffULL);
}

void HtmlWriter::write(const RunRecord& run, std::ostream& out) const {
  write_head(run.suite, stylesheet_path(run), out);
  const std::vector<Entry> rows = entries(run);
  write_verdict(run, rows, out);
  if (extras_.result && !extras_.result->per_rank.empty()) {
    write_metrics(run, *extras_.result, out);
    write_diagnosis_html(*extras_.result, out);
  }
  write_facts("environment", "Environment", extras_.environment, out);
  if (!extras_.json_report_link.empty())
    out << "<p><a id=\"json-report\" href=\"" << link_href(extras_.json_report_link)
        << "\">aorta_benchmark_report.json</a></p>\n";
  if (!extras_.deck_link.empty())
    out << "<p><a id=\"run-deck\" href=\"" << link_href(extras_.deck_link) << "\">Aorta Run Deck</a></p>\n";
  if (!extras_.node_log_links.empty()) {
    out << "<p id=\"node-logs\">Node logs:";
    for (const auto& link : extras_.node_log_links)
      out << " <a href=\"" << link_href(link) << "\">" << escape_xml(link.substr(link.rfind('/') + 1)) << "</a>";
    out << "</p>\n";
  }
  out << "<table id=\"results-table\">\n<thead><tr><th>Result</th><th>Test</th><th>Duration</th><th>Links</th></tr></thead>\n";
  for (const auto& entry : rows) write_entry(run, entry, out);
  out << "</table>\n</body>\n</html>\n";
}

void write_stage_log_page(const RunRecord& run, const StageResult& stage, std::ostream& out,
                          const std::string& report_name) {
  write_head(run.suite + "::" + stage.name, "report.css", out);  // the page is in <suite>_html/, beside it
  out << "<h1>" << escape_xml(run.suite + "::" + stage.name) << "</h1>\n<p>" << capitalized(stage.outcome) << ", "
      << fmt::format("{:.3f} s", stage.seconds) << " &middot; <a href=\""
      << link_href("../" + (report_name.empty() ? run.suite + ".html" : report_name)) << "\">back to the report</a></p>\n<pre>";
  if (!stage.skip_reason.empty()) out << "Skipped: " << escape_xml(stage.skip_reason) << "\n";
  for (const auto& f : stage.failures) out << "FAIL - " << escape_xml(f) << "\n";
  for (const auto& t : stage.subtests) out << escape_xml(t.line()) << "\n";
  for (const auto& line : stage.log) out << escape_xml(line) << "\n";
  out << "</pre>\n</body>\n</html>\n";
}

}  // namespace aorta::report
