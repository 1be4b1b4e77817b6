#include "app/command_help.h"

#include <sstream>

#include <boost/program_options.hpp>

#include "app/cli_options.h"
#include "app/gtest_flags.h"

namespace aorta::cli {
namespace {

// A command's help: what comes before its options, the options, what comes after.
std::string help_text(const char* before, const boost::program_options::options_description& options,
                      const std::string& after = "") {
  std::ostringstream out;
  out << before << options << after;
  return out.str();
}

// Words into lines of at most 98 characters, each indented by two spaces; a word is never split.
std::string wrapped(const std::vector<std::string>& words) {
  std::string out, line = " ";
  for (const auto& word : words) {
    if (line.size() + 1 + word.size() > 98) {
      out += line + "\n";
      line = " ";
    }
    line += " " + word;
  }
  return out + line + "\n";
}

// The flags a run refuses, read from the rules that refuse them (gtest_flags.h), so
// the help names every one.
std::string refused_flags_text() {
  std::vector<std::string> words;
  auto add = [&words](const std::string& text) {
    std::istringstream in(text);
    for (std::string w; in >> w;) words.push_back(w);
  };
  add("Refused (exit 2), as each would end, repeat or reorder the one session of stages:");
  for (const auto& flag : app::refused_gtest_flags()) words.push_back(flag.form + ",");
  add("and any flag GoogleTest does not know; run the command again instead of repeating. Their GTEST_ "
      "variables count as the flags, and GTEST_TOTAL_SHARDS and GTEST_SHARD_INDEX are refused when set.");
  return wrapped(words);
}

}  // namespace

std::string usage() {
  return R"(aorta_suite - the Aorta training benchmark for GPU clusters, as GoogleTest suites

Usage:
  aorta_suite [run] [SUITE] [--cluster_file FILE] [--config_file FILE] [--output_dir DIR]
              [--workspace DIR] [--html FILE | --no-html] [--log-file FILE | --no-log-file]
              [--junitxml FILE] [--junit-shape gtest|cvs] [--baseline REPORT] [gtest flags]
              [-v|-q] [-s|--capture=METHOD] [-x|--maxfail=N] [-k EXPR]
      Run a suite. Without --cluster_file the cluster is this machine (no SSH);
      without --config_file the config is the shipped local_cpu_single.json. A file
      name that is not in the working directory names a shipped file (config list).
      Without SUITE or --gtest_filter the suite follows the node count: aorta_single
      for one node, aorta_distributed for more. Examples:
        aorta_suite --gtest_filter=*single*
        aorta_suite --cluster_file cluster.json --config_file aorta_distributed.json --gtest_filter=*distributed*
        aorta_suite run aorta_distributed --cluster_file cluster.json --config_file aorta_distributed.json \
            --html aorta_distributed.html --junitxml junit.xml      (CVS's command form)
  aorta_suite list [aorta_single|aorta_distributed]
      Print the suites and their stages in run order.
  aorta_suite config list
      Print the shipped config and threshold files.
  aorta_suite config copy NAME --output FILE
      Copy a shipped file, e.g. mi3xx_aorta_profile_overlap_2gpu_single.json; copy its
      threshold file next to it too.
  aorta_suite config import FILE.yaml [--output FILE.json]
      Turn CVS's test_aorta config (aorta_benchmark.yaml) into a config and its
      <name>_threshold.json, and check that it loads.
  aorta_suite analyze TRACE_DIR [--output FILE] [--include-unlinked-kernels] [--jobs N] [--ranks all]
      Compute per-rank and run metrics from the profiler traces under TRACE_DIR,
      reading N traces at once (default: one per core).
  aorta_suite compare BASELINE CANDIDATE [--max-regression [KEY=]PCT ...] [--output FILE]
      Two runs side by side (report JSONs, run folders or trace folders): per metric the
      values, change, ratio and verdict; a Mann-Whitney U test on the per-step times.
  aorta_suite history ROOT [--last N] [--baseline-runs K] [--max-regression PCT]
                      [--output FILE.json] [--html FILE]
      The run folders under ROOT: each headline metric's trend against a rolling
      baseline, the runs where one changed, the nodes and ranks named most often.
  aorta_suite COMMAND --help
      One command's options (run, list, config, analyze, compare, history).
  aorta_suite --help
  aorta_suite --version
      Print the version and the git commit this binary was built from.

Exit status: 0 every selected stage passed or was skipped by configuration;
1 a stage failed; 2 usage or configuration error.
)";
}

std::string run_help() {
  return help_text(
      "Usage: aorta_suite run [SUITE] [--cluster_file FILE] [--config_file FILE] [--output_dir DIR]\n"
      "                       [--workspace DIR] [--html FILE | --no-html] [--log-file FILE | --no-log-file]\n"
      "                       [--junitxml FILE] [--junit-shape gtest|cvs] [--baseline REPORT] [gtest flags]\n\n"
      "Runs one suite's stages, in order, as one session (one run id, one folder of reports).\n"
      "run is the default command: the word may be left out. SUITE (aorta_single or\n"
      "aorta_distributed) picks the suite, as `cvs run SUITE` does; --gtest_filter may narrow it.\n"
      "A configuration or node-count error runs nothing (exit 2) but still writes the reports\n"
      "asked for (--junitxml, --gtest_output=xml, --html, --log-file, --workspace) naming each problem.\n\n",
      run_options(),
      "\nGoogleTest flags (GoogleTest 1.12):\n"
      "  --gtest_filter=PATTERNS    stages to run; also picks the suite when no cluster decides it\n"
      "  --gtest_list_tests         list the tests (with --config_file/--cluster_file: the tests that\n"
      "                             config would run; no node is touched, no folder created)\n"
      "  --gtest_output=xml[:PATH]  the JUnit file: xml alone writes test_detail.xml here, xml:DIR/\n"
      "                             writes DIR/<suite>.xml; json is refused\n"
      "  --gtest_fail_fast          taken by the run, not gtest: later stages skip after a failure\n"
      "                             (they do anyway), while collection, reports and teardown still run\n"
      "  --gtest_color, --gtest_brief, --gtest_print_time, ... as in gtest;\n"
      "                             NO_COLOR (non-empty) means --gtest_color=no unless one is given\n" +
      refused_flags_text() +
      "\npytest arguments, as `cvs run` passes them (one line at the start says what each did):\n"
      "  -v, -vv, -vvv, --verbose    each test and its outcome are printed, as always\n"
      "  -q, --quiet                 --gtest_brief=1 (verbosity below pytest's default: each -v adds one)\n"
      "  -s, --capture=fd|sys|no|tee-sys  accepted: a stage's output is printed and kept in the log\n"
      "  -x, --exitfirst, --maxfail=N     --gtest_fail_fast (N >= 1; 0 is no limit)\n"
      "  -k EXPR                     the stages and sub-tests EXPR matches, as pytest's -k matches (and,\n"
      "                              or, not, parentheses; a case-insensitive substring of the test's name,\n"
      "                              its stage's or <suite>.py); not with --gtest_filter. Anything else is refused.\n"
      "\nExit status: 0 every selected stage passed or was skipped by configuration; 1 a stage failed;\n"
      "2 usage or configuration error.\n");
}

std::string analyze_help() {
  return help_text(
      "Usage: aorta_suite analyze TRACE_DIR [--output FILE] [--include-unlinked-kernels] [--jobs N] [--ranks all]\n\n"
      "Computes per-rank and run metrics from the profiler traces under TRACE_DIR.\n\n",
      analyze_options(),
      "\nExit status: 0 every trace parsed; 3 partial (the rest reported); 1 nothing parsed or the output\n"
      "could not be written; 2 usage error (also a bad AORTA_TRACE_MEMORY_LIMIT).\n");
}

std::string compare_help() {
  return help_text(
      "Usage: aorta_suite compare BASELINE CANDIDATE [--max-regression [KEY=]PCT ...] [--output FILE]\n\n"
      "Compares two runs. Each is an aorta_benchmark_report.json or analyze JSON, a run folder holding\n"
      "one, or a folder of traces (analyzed first). Per metric: both values, the change, the ratio and\n"
      "a verdict (better, worse, same, regressed past --max-regression); on the per-step times a\n"
      "two-sided Mann-Whitney U test (normal approximation, tie and continuity corrected; slower or\n"
      "faster when p < 0.05).\n\n",
      compare_options(),
      "\nExit status: 0 no metric regressed past its limit; 1 one did; 2 usage error or an input that\n"
      "cannot be read.\n");
}

std::string history_help() {
  return help_text(
      "Usage: aorta_suite history ROOT [--last N] [--baseline-runs K] [--max-regression PCT]\n"
      "                           [--output FILE.json] [--html FILE]\n\n"
      "Reads ROOT/<run>/aorta_benchmark_report.json (and ROOT/*/<run>/...; never the traces), oldest\n"
      "first by when each report was written, grouped by suite and configuration. Per headline metric\n"
      "(the gated ones compare judges): each run's value against the median of the last K passing runs\n"
      "of its group before it, judged as compare judges (a U test on the step times where both sides\n"
      "have enough, ratios in percentage points); the runs where a metric changed by 5 % (or PCT) or\n"
      "more; each node and rank named in the last N runs (diagnosis outliers, kernel-log findings,\n"
      "failed gates), most often first. A report that cannot be read is named and skipped.\n\n",
      history_options(),
      "\nExit status: 0 no group's newest run regressed past PCT; 1 one did; 2 usage error, or ROOT\n"
      "holds no readable report.\n");
}

std::string list_help() {
  return help_text(
      "Usage: aorta_suite list [aorta_single|aorta_distributed]\n\n"
      "Prints the suites and their stages in run order.\n\n",
      plain_options());
}

std::string config_help() {
  return help_text(
      "Usage: aorta_suite config list\n"
      "       aorta_suite config copy NAME --output FILE\n"
      "       aorta_suite config import FILE.yaml [--output FILE.json]\n\n"
      "Lists the shipped config and threshold files, copies one, or imports CVS's test_aorta YAML\n"
      "(never over an existing file).\n\n",
      config_copy_options());
}

}  // namespace aorta::cli
