#include "report/html_writer.h"

#include <functional>

#include <fmt/format.h>

namespace aorta::report {
namespace {

const char* kStyle = R"(body{font-family:Helvetica,Arial,sans-serif;font-size:14px;margin:24px;color:#222}
h1{font-size:22px}table{border-collapse:collapse;width:100%}th,td{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eee}.passed .col-result{color:#1a7f37;font-weight:bold}.failed .col-result{color:#cf222e;font-weight:bold}
.skipped .col-result{color:#9a6700;font-weight:bold}.extra td{background:#fafafa;font-family:monospace;white-space:pre-wrap}
.subtests td{font-family:Helvetica,Arial,sans-serif}.sub-passed .col-result{color:#1a7f37}.sub-failed .col-result{color:#cf222e}.summary span{margin-right:16px}pre{white-space:pre-wrap})";

std::string capitalized(job::Outcome outcome) {
  std::string s = job::outcome_name(outcome);
  s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

void write_head(const std::string& title, std::ostream& out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" << escape_xml(title)
      << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
}

// The sub-tests of a stage, collapsed under it.
void write_subtests(const StageResult& stage, std::ostream& out) {
  int failed = 0;
  for (const auto& t : stage.subtests) failed += !t.passed();
  out << "<details" << (failed ? " open" : "") << "><summary>" << stage.subtests.size() << " subtests, " << failed
      << " Failed, " << stage.subtests.size() - failed << " Passed</summary>\n<table class=\"subtests\">\n"
      << "<tr><th>Result</th><th>Sub-test</th><th>Actual</th><th>Gate</th><th>Reason</th></tr>\n";
  for (const auto& t : stage.subtests) {
    out << "<tr class=\"sub-" << job::outcome_name(t.outcome) << "\"><td class=\"col-result\">"
        << (t.outcome == job::Outcome::kSkipped ? "Recorded" : capitalized(t.outcome)) << "</td><td class=\"col-subtest\">"
        << escape_xml(t.label()) << "</td><td>"
        << (t.actual ? fmt::format("{:.6g}", *t.actual) : "") << "</td><td>"
        << (t.limit ? fmt::format("{} {:.6g}", t.gate == job::Gate::kMin ? "&ge;" : "&le;", *t.limit) : "") << "</td><td>"
        << escape_xml(t.message) << "</td></tr>\n";
  }
  out << "</table>\n</details>\n";
}

}  // namespace

std::string stage_log_path(const RunRecord& run, const StageResult& stage) {
  size_t h = std::hash<std::string>()(run.run_id + "/" + stage.name);
  // A sub-test's name has a '/': the page stays in the one folder.
  return fmt::format("{}_html/{}_{:012x}.html", run.suite, job::test_name_part(stage.name), h & 0xffffffffffffULL);
}

void HtmlWriter::write(const RunRecord& run, std::ostream& out) const {
  write_head(run.suite, out);
  const int passed = run.count(job::Outcome::kPassed);
  out << "<h1>" << escape_xml(run.suite) << "</h1>\n<p class=\"summary\"><span>run " << escape_xml(run.run_id)
      << "</span><span>host " << escape_xml(run.hostname) << "</span><span>started " << escape_xml(run.timestamp)
      << "</span><span>" << fmt::format("{:.1f}", run.seconds) << " s</span></p>\n";
  out << "<p class=\"summary\"><span class=\"count-passed\">" << passed << " Passed</span><span class=\"count-failed\">"
      << run.count(job::Outcome::kFailed) << " Failed</span><span class=\"count-skipped\">" << run.count(job::Outcome::kSkipped)
      << " Skipped</span><span class=\"cvs-subtests-count\">" << run.subtest_count() << " subtests, "
      << run.failed_subtests() << " Failed, " << run.subtest_count() - run.failed_subtests() << " Passed</span></p>\n";
  if (!run.deck_link.empty())
    out << "<p><a id=\"run-deck\" href=\"" << escape_xml(run.deck_link) << "\">Aorta Run Deck</a></p>\n";
  if (!run.node_log_links.empty()) {
    out << "<p id=\"node-logs\">Node logs:";
    for (const auto& link : run.node_log_links)
      out << " <a href=\"" << escape_xml(link) << "\">" << escape_xml(link.substr(link.rfind('/') + 1)) << "</a>";
    out << "</p>\n";
  }
  out << "<table id=\"results-table\">\n<thead><tr><th>Result</th><th>Test</th><th>Duration</th><th>Links</th></tr></thead>\n";
  for (const auto& stage : run.stages) {
    out << "<tbody class=\"" << job::outcome_name(stage.outcome) << " results-table-row\">\n<tr><td class=\"col-result\">"
        << capitalized(stage.outcome) << "</td><td class=\"col-name\">" << escape_xml(run.suite + "::" + stage.name)
        << "</td><td class=\"col-duration\">" << fmt::format("{:.3f} s", stage.seconds) << "</td><td class=\"col-links\">"
        << "<a href=\"" << escape_xml(stage_log_path(run, stage)) << "\">Full Log</a></td></tr>\n";
    bool extra = !stage.skip_reason.empty() || !stage.failures.empty() || !stage.subtests.empty();
    if (extra) {
      out << "<tr class=\"extra\"><td colspan=\"4\">";
      if (!stage.skip_reason.empty()) out << "<div class=\"skip-reason\">Skipped: " << escape_xml(stage.skip_reason) << "</div>";
      for (const auto& f : stage.failures) out << "<div class=\"failure\">" << escape_xml(f) << "</div>";
      if (!stage.subtests.empty()) write_subtests(stage, out);
      out << "</td></tr>\n";
    }
    out << "</tbody>\n";
  }
  out << "</table>\n</body>\n</html>\n";
}

void write_stage_log_page(const RunRecord& run, const StageResult& stage, std::ostream& out) {
  write_head(run.suite + "::" + stage.name, out);
  out << "<h1>" << escape_xml(run.suite + "::" + stage.name) << "</h1>\n<p>" << capitalized(stage.outcome) << ", "
      << fmt::format("{:.3f} s", stage.seconds) << " &middot; <a href=\"../" << escape_xml(run.suite)
      << ".html\">back to the report</a></p>\n<pre>";
  if (!stage.skip_reason.empty()) out << "Skipped: " << escape_xml(stage.skip_reason) << "\n";
  for (const auto& f : stage.failures) out << "FAIL - " << escape_xml(f) << "\n";
  for (const auto& t : stage.subtests) out << escape_xml(t.line()) << "\n";
  for (const auto& line : stage.log) out << escape_xml(line) << "\n";
  out << "</pre>\n</body>\n</html>\n";
}

}  // namespace aorta::report
