#include "report/junit_writer.h"

#include <cstdlib>

#include <fmt/format.h>
#include <pugixml.hpp>

namespace aorta::report {
namespace {

constexpr size_t kMaxPrefix = 128;

std::string seconds(double s) { return fmt::format("{:.3f}", s); }

// The record's text is valid UTF-8 already; XML 1.0 still cannot hold C0 controls
// other than tab, newline and carriage return, nor U+FFFE and U+FFFF, which a
// compiler's or node's output may carry (ANSI colour codes, say).
std::string xml_text(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') continue;
    if (c == 0xEF && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0xBF &&
        (static_cast<unsigned char>(text[i + 2]) == 0xBE || static_cast<unsigned char>(text[i + 2]) == 0xBF)) {
      i += 2;
      continue;
    }
    out += static_cast<char>(c);
  }
  return out;
}

void attr(pugi::xml_node node, const char* name, const std::string& value) {
  node.append_attribute(name).set_value(xml_text(value).c_str());
}

void property(pugi::xml_node properties, const std::string& name, const std::string& value) {
  auto p = properties.append_child("property");
  attr(p, "name", name);
  attr(p, "value", value);
}

void counts(pugi::xml_node node, const RunRecord& run) {
  attr(node, "tests", std::to_string(run.stages.size()));
  attr(node, "failures", std::to_string(run.count(job::Outcome::kFailed)));
  attr(node, "errors", "0");
  attr(node, "skipped", std::to_string(run.count(job::Outcome::kSkipped)));
  attr(node, "time", seconds(run.seconds));
}

// actual, limit, gate and unit of a sub-test, each only when it has one.
void subtest_properties(pugi::xml_node properties, const job::SubTest& t) {
  property(properties, t.key, t.value);
  if (t.actual) property(properties, "actual", fmt::format("{}", *t.actual));
  if (t.limit) property(properties, "limit", fmt::format("{}", *t.limit));
  if (t.gate) property(properties, "gate", *t.gate == job::Gate::kMin ? "min" : "max");
  if (!t.unit.empty()) property(properties, "unit", t.unit);
}

void write_testcase(const JunitOptions& options, const RunRecord& run, const StageResult& test, pugi::xml_node suite) {
  auto tc = suite.append_child("testcase");
  attr(tc, "name", junit_testcase_name(test));
  attr(tc, "classname", junit_classname(options, run, test));
  attr(tc, "time", seconds(test.seconds));
  if (options.family == JunitFamily::kLegacy) {
    if (test.is_subtest()) {
      subtest_properties(tc.append_child("properties"), *test.subtest);
    } else if (!test.subtests.empty()) {
      auto properties = tc.append_child("properties");
      for (const auto& t : test.subtests) property(properties, "cvs_aorta_subtest", t.summary());
    }
  }
  // One <failure> per failed testcase: consumers show only the first.
  if (test.outcome == job::Outcome::kFailed) {
    std::string all;
    for (const auto& f : test.failures) all += (all.empty() ? "" : "\n") + f;
    auto failure = tc.append_child("failure");
    attr(failure, "message", test.failures.empty() ? "stage failed" : test.failures.front());
    attr(failure, "type", "failure");
    failure.text().set(xml_text(all).c_str());
  } else if (test.outcome == job::Outcome::kSkipped) {
    attr(tc.append_child("skipped"), "message", test.skip_reason);
  }
  // A sub-test's line is the one its stage's log gives it; a stage's is its notes.
  std::string out;
  if (test.is_subtest()) out = test.subtest->line() + "\n";
  for (const auto& line : test.log) out += line + "\n";
  if (!out.empty()) tc.append_child("system-out").text().set(xml_text(out).c_str());
}

}  // namespace

std::string junit_prefix_error(std::string_view prefix) {
  const std::string shown = "AORTA_JUNIT_PREFIX=\"" + xml_text(std::string(prefix)) + "\"";
  const std::string rule = "; use letters, digits, '_' and '-', in parts joined by single dots (e.g. mi300x.nightly)";
  if (prefix.empty()) return "";
  if (prefix.size() > kMaxPrefix) return shown + ": longer than " + std::to_string(kMaxPrefix) + " characters" + rule;
  if (prefix.front() == '.' || prefix.back() == '.' || prefix.find("..") != std::string_view::npos)
    return shown + ": an empty part between dots" + rule;
  for (char c : prefix) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              c == '.';
    if (!ok) {
      unsigned char u = static_cast<unsigned char>(c);
      std::string what = u >= 0x21 && u < 0x7f ? fmt::format("'{}'", c) : fmt::format("byte 0x{:02x}", u);
      return shown + ": " + what + " is not allowed" + rule;
    }
  }
  return "";
}

Result<JunitOptions> junit_options(const char* prefix, const char* family) {
  JunitOptions options;
  if (prefix) {
    if (std::string e = junit_prefix_error(prefix); !e.empty()) return Error{ErrorCode::kInvalidInput, e, ""};
    options.prefix = prefix;
  }
  std::string f = family ? family : "";
  if (f == "xunit2")
    options.family = JunitFamily::kXunit2;
  else if (!f.empty() && f != "legacy" && f != "xunit1")
    return Error{ErrorCode::kInvalidInput,
                 "AORTA_JUNIT_FAMILY=\"" + xml_text(f) + "\": unknown JUnit family; use legacy (the default) or xunit2", ""};
  return options;
}

Result<JunitOptions> junit_options_from_environment() {
  return junit_options(std::getenv("AORTA_JUNIT_PREFIX"), std::getenv("AORTA_JUNIT_FAMILY"));
}

std::string junit_classname(const JunitOptions& options, const RunRecord& run, const StageResult& test) {
  std::string name = options.prefix.empty() ? run.suite : options.prefix + "." + run.suite;
  return test.is_subtest() ? name + "." + test.stage : name;
}

std::string junit_testcase_name(const StageResult& test) {
  // gtest names a sub-test "<stage>/<suffix>"; its classname already holds the stage.
  if (test.is_subtest() && test.name.size() > test.stage.size() + 1 && test.name.rfind(test.stage + "/", 0) == 0)
    return test.name.substr(test.stage.size() + 1);
  return test.name;
}

void JunitWriter::write(const RunRecord& run, std::ostream& out) const {
  pugi::xml_document doc;
  auto decl = doc.append_child(pugi::node_declaration);
  decl.append_attribute("version").set_value("1.0");
  decl.append_attribute("encoding").set_value("UTF-8");
  const bool strict = options_.family == JunitFamily::kXunit2;
  auto suites = doc.append_child("testsuites");
  attr(suites, "name", "aorta_suite");
  // The strict schema has no skipped count on <testsuites>, and a consumer that reads
  // tests there without one counts every skipped test as passed (test-results-parser
  // does): so xunit2 gives <testsuites> no counts at all, as pytest does, and
  // consumers add up the <testsuite>'s.
  if (!strict) counts(suites, run);
  auto suite = suites.append_child("testsuite");
  attr(suite, "name", options_.prefix.empty() ? run.suite : options_.prefix + "." + run.suite);
  counts(suite, run);
  attr(suite, "timestamp", run.timestamp);
  attr(suite, "hostname", run.hostname);
  auto properties = suite.append_child("properties");
  property(properties, "run_id", run.run_id);
  property(properties, "aorta_suite_version", run.version);
  property(properties, "aorta_suite_commit", run.commit);
  for (const auto& test : run.stages) write_testcase(options_, run, test, suite);
  doc.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
}

}  // namespace aorta::report
