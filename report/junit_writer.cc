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

struct Counts {
  size_t tests = 0, failures = 0, skipped = 0;
};

// A sub-test CVS makes: with enforce_thresholds=false it records thresholds without any.
bool cvs_subtest(const job::SubTest& t) { return t.outcome != job::Outcome::kSkipped; }

// CVS's property value exactly, "<label>: passed|failed" (a recorded, unenforced gate:
// "recorded"; a skipped one, which CVS never makes: "skipped"); what was measured and
// why it failed are in the sub-test's own failure.
std::string cvs_subtest_value(const job::SubTest& t) { return t.label() + ": " + t.verdict(); }

// The tests written as testcases: gtest's flat list, or in CVS's shape the stages
// (their sub-tests go inside them).
std::vector<const StageResult*> written(const RunRecord& run, JunitShape shape) {
  return shape == JunitShape::kCvs ? run.stage_tests() : run.tests();
}

// What the testcases say: gtest's tests one each; in CVS's shape a stage and each of
// its sub-tests one each, and every <failure> one failure.
Counts counted(const RunRecord& run, JunitShape shape) {
  Counts c;
  for (const StageResult* test : written(run, shape)) {
    ++c.tests;
    c.failures += test->outcome == job::Outcome::kFailed;
    c.skipped += test->outcome == job::Outcome::kSkipped;
    if (shape != JunitShape::kCvs) continue;
    for (const auto& t : test->subtests) {
      c.tests += cvs_subtest(t);
      c.failures += t.outcome == job::Outcome::kFailed;
    }
  }
  return c;
}

void counts(pugi::xml_node node, const RunRecord& run, JunitShape shape) {
  const Counts c = counted(run, shape);
  attr(node, "tests", std::to_string(c.tests));
  attr(node, "failures", std::to_string(c.failures));
  attr(node, "errors", "0");
  attr(node, "skipped", std::to_string(c.skipped));
  attr(node, "time", seconds(run.seconds));
}

// actual, limit, gate and unit of a sub-test, each only when it has one.
void subtest_properties(pugi::xml_node properties, const job::SubTest& t) {
  property(properties, t.key, t.value);
  if (t.actual) property(properties, "actual", fmt::format("{}", *t.actual));
  if (t.limit) property(properties, "limit", fmt::format("{}", *t.limit));
  if (t.gate) property(properties, "gate", metrics::kind_name(*t.gate));
  if (!t.unit_text().empty()) property(properties, "unit", t.unit_text());
}

void failure(pugi::xml_node tc, const std::string& message, const std::string& text) {
  auto f = tc.append_child("failure");
  attr(f, "message", message);
  attr(f, "type", "failure");
  f.text().set(xml_text(text).c_str());
}

// A test's own verdict: one <failure> holding all its failures (consumers show only
// the first), or <skipped> with its reason.
void verdict(pugi::xml_node tc, const StageResult& test) {
  if (test.outcome == job::Outcome::kFailed) {
    std::string all;
    for (const auto& f : test.failures) all += (all.empty() ? "" : "\n") + f;
    // A stage's message is CVS's line, which scrapers of CVS's JUnit key on; a sub-test's is its own.
    const std::string message = test.failures.empty() ? "stage failed"
                                : test.subtest        ? test.failures.front()
                                                      : stages::following_failures_line(test.failures);
    failure(tc, message, all);
  } else if (test.outcome == job::Outcome::kSkipped) {
    // The reason in the body too: GitLab's parser reads only the body (the attribute
    // alone gives it a Hash), as gtest and pytest write it.
    pugi::xml_node skipped = tc.append_child("skipped");
    attr(skipped, "message", test.skip_reason);
    skipped.text().set(xml_text(test.skip_reason).c_str());
  }
}

// A sub-test's line is the one its stage's log gives it; a stage's is its notes.
void system_out(pugi::xml_node tc, const StageResult& test) {
  std::string out;
  if (test.subtest) out = test.subtest->line() + "\n";
  for (const auto& line : test.log) out += line + "\n";
  if (!out.empty()) tc.append_child("system-out").text().set(xml_text(out).c_str());
}

pugi::xml_node testcase(const JunitOptions& options, const RunRecord& run, const StageResult& test, pugi::xml_node suite) {
  auto tc = suite.append_child("testcase");
  attr(tc, "name", junit_testcase_name(test));
  attr(tc, "classname", junit_classname(options, run, test));
  attr(tc, "time", seconds(test.seconds));
  return tc;
}

void write_testcase(const JunitOptions& options, const RunRecord& run, const StageResult& test, pugi::xml_node suite) {
  auto tc = testcase(options, run, test, suite);
  if (options.family == JunitFamily::kLegacy) {
    if (test.subtest) {
      subtest_properties(tc.append_child("properties"), *test.subtest);
    } else if (!test.subtests.empty()) {
      auto properties = tc.append_child("properties");
      for (const auto& t : test.subtests) property(properties, "cvs_aorta_subtest", cvs_subtest_value(t));
    }
  }
  verdict(tc, test);
  system_out(tc, test);
}

// CVS's shape: a stage and, inside it, its sub-tests' properties and failures.
void write_cvs_testcase(const JunitOptions& options, const RunRecord& run, const StageResult& test, pugi::xml_node suite) {
  auto tc = testcase(options, run, test, suite);
  pugi::xml_node properties;
  for (const auto& t : test.subtests) {
    if (!cvs_subtest(t)) continue;
    if (!properties) properties = tc.append_child("properties");
    property(properties, "cvs_aorta_subtest", cvs_subtest_value(t));
  }
  for (const auto& t : test.subtests)
    if (t.outcome == job::Outcome::kFailed) failure(tc, t.message.empty() ? t.summary() : t.message, t.summary());
  verdict(tc, test);
  system_out(tc, test);
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

Result<JunitOptions> junit_options(const char* prefix, const char* family, std::string_view shape) {
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
  if (shape == "cvs")
    options.shape = JunitShape::kCvs;
  else if (!shape.empty() && shape != "gtest")
    return Error{ErrorCode::kInvalidInput,
                 "JUnit shape \"" + xml_text(std::string(shape)) + "\": use gtest (the default) or cvs", ""};
  if (options.shape == JunitShape::kCvs && options.family == JunitFamily::kXunit2)
    return Error{ErrorCode::kInvalidInput,
                 "the cvs JUnit shape keeps sub-tests as testcase properties, which AORTA_JUNIT_FAMILY=xunit2 forbids; "
                 "unset AORTA_JUNIT_FAMILY or use the gtest shape", ""};
  return options;
}

Result<JunitOptions> junit_options_from_environment(std::string_view shape) {
  return junit_options(std::getenv("AORTA_JUNIT_PREFIX"), std::getenv("AORTA_JUNIT_FAMILY"), shape);
}

std::string junit_classname(const JunitOptions& options, const RunRecord& run, const StageResult& test) {
  std::string name = options.prefix.empty() ? run.suite : options.prefix + "." + run.suite;
  return test.subtest ? name + "." + test.stage : name;
}

std::string junit_testcase_name(const StageResult& test) {
  // gtest names a sub-test "<stage>/<suffix>"; its classname already holds the stage.
  if (test.subtest && test.name.size() > test.stage.size() + 1 && test.name.rfind(test.stage + "/", 0) == 0)
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
  if (!strict) counts(suites, run, options_.shape);
  auto suite = suites.append_child("testsuite");
  attr(suite, "name", options_.prefix.empty() ? run.suite : options_.prefix + "." + run.suite);
  counts(suite, run, options_.shape);
  attr(suite, "timestamp", run.timestamp);
  attr(suite, "hostname", run.hostname);
  auto properties = suite.append_child("properties");
  property(properties, "run_id", run.run_id);
  property(properties, "aorta_suite_version", run.version);
  property(properties, "aorta_suite_commit", run.commit);
  for (const StageResult* test : written(run, options_.shape)) {
    if (options_.shape == JunitShape::kCvs)
      write_cvs_testcase(options_, run, *test, suite);
    else
      write_testcase(options_, run, *test, suite);
  }
  doc.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
}

}  // namespace aorta::report
