#include "app/gtest_flags.h"

#include <cctype>
#include <charconv>
#include <map>

namespace aorta::app {
namespace {

enum class Kind { kBool, kInt, kString };

// GoogleTest 1.12's flags (ParseGoogleTestFlag in gtest.cc, plus flagfile).
const std::map<std::string, Kind>& known_flags() {
  static const std::map<std::string, Kind> flags = {
      {"also_run_disabled_tests", Kind::kBool}, {"break_on_failure", Kind::kBool},
      {"catch_exceptions", Kind::kBool},        {"color", Kind::kString},
      {"death_test_style", Kind::kString},      {"death_test_use_fork", Kind::kBool},
      {"fail_fast", Kind::kBool},               {"filter", Kind::kString},
      {"list_tests", Kind::kBool},              {"output", Kind::kString},
      {"brief", Kind::kBool},                   {"print_time", Kind::kBool},
      {"print_utf8", Kind::kBool},              {"random_seed", Kind::kInt},
      {"repeat", Kind::kInt},                   {"recreate_environments_when_repeating", Kind::kBool},
      {"shuffle", Kind::kBool},                 {"stack_trace_depth", Kind::kInt},
      {"stream_result_to", Kind::kString},      {"throw_on_failure", Kind::kBool},
      {"flagfile", Kind::kString},
  };
  return flags;
}

Error usage(const std::string& message) { return Error{ErrorCode::kInvalidInput, message, ""}; }

// gtest's reading of a bool value: false only when it starts with 0, f or F.
bool bool_value(const std::string& v) { return v.empty() || (v[0] != '0' && v[0] != 'f' && v[0] != 'F'); }

std::optional<long> int_value(const std::string& v) {
  long n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size() || v.empty()) return std::nullopt;
  return n;
}

Error repeat_refused(const std::string& what) {
  return usage(what + " is refused: one run is one session of stages (one run id, one set of traces and reports); "
                      "to run N times, run the command N times");
}

Error shuffle_refused(const std::string& what) {
  return usage(what + " is refused: the stages run in order, each on what the one before left");
}

// Flags that end the process at a failure or on a lost connection (SIGTRAP, SIGABRT,
// an exception out of gtest): no collection, no reports, no teardown, and the nodes'
// locks held for their time limit. (issue 29)
Error abort_refused(const std::string& what, const std::string& why) {
  return usage(what + " is refused: " + why + ", so traces, reports and teardown (containers, the aorta_path lock) "
                      "would be lost; the stages after a failure already stop or run only what helps");
}

std::string abort_reason(const std::string& key) {
  if (key == "break_on_failure") return "it stops the process with SIGTRAP at the first failure";
  if (key == "throw_on_failure") return "it turns the first failure into an exception that ends the process";
  if (key == "stream_result_to") return "gtest aborts the process when it cannot reach that host";
  return "";
}

// xml, xml:FILE or xml:DIR/ as gtest reads them; json is refused (the JSON
// report is aorta_benchmark_report.json, in the run's folder).
Result<JunitOutput> junit_output(const std::string& flag, const std::string& value) {
  std::string format = value.substr(0, value.find(':'));
  if (format == "json")
    return usage(flag + " is not supported: the JUnit file is --gtest_output=xml[:PATH]; the JSON report is "
                        "aorta_benchmark_report.json in the run's folder");
  if (format != "xml") return usage(flag + ": unknown format '" + format + "' (use xml, xml:FILE or xml:DIR/)");
  // Bare xml: gtest's default, test_detail.xml in the current folder.
  if (value == "xml") return JunitOutput{"test_detail.xml", false};
  std::string path = value.substr(4);
  if (path.empty()) return JunitOutput{".", true};
  return JunitOutput{path, path.back() == '/'};
}

// Why one --gtest_ word is refused (unknown, malformed, or breaking the session), or nothing.
std::optional<Error> flag_refusal(const std::string& arg, const std::string& name, const std::string& key,
                                  const std::optional<std::string>& value) {
  if (key.rfind("internal_", 0) == 0) return usage(name + " is GoogleTest-internal (death tests); the suite runs none");
  auto it = known_flags().find(key);
  if (it == known_flags().end())
    return usage("unknown GoogleTest flag " + name + " (see aorta_suite run --help for the gtest flags it takes)");
  if (it->second != Kind::kBool && !value) return usage(name + " needs a value (" + name + "=...)");
  if (it->second == Kind::kInt && !int_value(*value)) return usage(arg + ": not a whole number");
  if (key == "flagfile")
    return usage(name + " is not supported: give the flags on the command line, where they are checked");
  if (key == "repeat" && *int_value(*value) != 1) return repeat_refused(arg);
  if (key == "shuffle" && bool_value(value.value_or(""))) return shuffle_refused(arg);
  if (std::string why = abort_reason(key);
      !why.empty() && (key == "stream_result_to" ? !value->empty() : bool_value(value.value_or(""))))
    return abort_refused(arg, why);
  return std::nullopt;
}

}  // namespace

Result<GtestFlags> check_gtest_flags(const std::vector<std::string>& args, const Getenv& getenv) {
  GtestFlags out;
  bool color_given = false, fail_fast_given = false;
  std::optional<std::string> output;
  std::string output_label;  // the flag or variable it came from, for errors
  for (const auto& arg : args) {
    size_t eq = arg.find('=');
    std::string name = arg.substr(0, eq);  // --gtest_x
    std::optional<std::string> value;
    if (eq != std::string::npos) value = arg.substr(eq + 1);
    std::string key = name.rfind("--gtest_", 0) == 0 ? name.substr(8) : "";
    if (auto refused = flag_refusal(arg, name, key, value)) return *refused;
    if (key == "filter") {
      out.filter = *value;
      continue;
    }
    if (key == "output") {
      output = *value;
      output_label = arg;
      continue;
    }
    if (key == "fail_fast") {
      fail_fast_given = true;
      out.fail_fast = bool_value(value.value_or(""));
      continue;
    }
    if (key == "list_tests") out.list_tests = bool_value(value.value_or(""));
    if (key == "color") color_given = true;
    out.pass_through.push_back(arg);
  }
  // gtest reads these variables as defaults for the flags; the same rules apply.
  if (const char* r = getenv("GTEST_REPEAT"); r && *r) {
    auto n = int_value(r);
    if (!n) return usage(std::string("GTEST_REPEAT=") + r + ": not a whole number");
    if (*n != 1) return repeat_refused(std::string("GTEST_REPEAT=") + r);
  }
  // gtest counts any value but "0" as true, an empty one too.
  if (const char* s = getenv("GTEST_SHUFFLE"); s && std::string(s) != "0")
    return shuffle_refused(std::string("GTEST_SHUFFLE=") + s);
  for (const char* key : {"break_on_failure", "throw_on_failure", "stream_result_to"}) {
    std::string variable = "GTEST_" + std::string(key);
    for (char& c : variable) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const char* v = getenv(variable.c_str());
    if (v && *v && (std::string(key) == "stream_result_to" || std::string(v) != "0"))
      return abort_refused(variable + "=" + v, abort_reason(key));
  }
  // gtest reads GTEST_FAIL_FAST as the flag's default: any value but "0" is true.
  if (const char* f = getenv("GTEST_FAIL_FAST"); f && !fail_fast_given) out.fail_fast = std::string(f) != "0";
  // Sharding would split one session's stages across processes, each its own run.
  for (const char* variable : {"GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX"})
    if (const char* v = getenv(variable); v && *v)
      return usage(std::string(variable) + "=" + v + " is refused: the stages of a run are one session in one "
                   "process, each on what the one before left; they cannot be sharded");
  // GTEST_FILTER is the filter when no --gtest_filter is given, as in gtest; it
  // also picks the suite.
  if (const char* f = getenv("GTEST_FILTER"); !out.filter && f && *f) out.filter = f;
  if (const char* o = getenv("GTEST_OUTPUT"); !output && o && *o) {
    output = o;
    output_label = std::string("GTEST_OUTPUT=") + o;
  }
  // Bazel's variable, which gtest reads when neither of the above is given.
  if (const char* x = getenv("XML_OUTPUT_FILE"); !output && x && *x) {
    output = std::string("xml:") + x;
    output_label = std::string("XML_OUTPUT_FILE=") + x;
  }
  if (output) {
    auto junit = junit_output(output_label, *output);
    if (!junit) return junit.error();
    out.junit = *junit;
  }
  if (const char* c = getenv("GTEST_COLOR"); c && *c) color_given = true;
  if (const char* no = getenv("NO_COLOR"); no && *no && !color_given) out.pass_through.push_back("--gtest_color=no");
  return out;
}

}  // namespace aorta::app
