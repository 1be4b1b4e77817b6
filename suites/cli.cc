#include "suites/cli.h"

#include <sstream>

namespace aorta::cli {
namespace {

// --name=value or --name value; advances i past a separate value.
bool take_value(const std::vector<std::string>& args, size_t& i, const std::string& name, std::string& out,
                std::string& error) {
  const std::string& a = args[i];
  if (a == name) {
    if (i + 1 >= args.size()) {
      error = name + " needs a value";
      return true;
    }
    out = args[++i];
    return true;
  }
  if (a.rfind(name + "=", 0) == 0) {
    out = a.substr(name.size() + 1);
    return true;
  }
  return false;
}

bool glob_match(const char* pattern, const char* text) {
  if (*pattern == '\0') return *text == '\0';
  if (*pattern == '*') return glob_match(pattern + 1, text) || (*text && glob_match(pattern, text + 1));
  if (*text && (*pattern == '?' || *pattern == *text)) return glob_match(pattern + 1, text + 1);
  return false;
}

bool any_match(const std::string& patterns, const std::string& name) {
  std::stringstream in(patterns);
  std::string p;
  while (std::getline(in, p, ':'))
    if (!p.empty() && glob_match(p.c_str(), name.c_str())) return true;
  return false;
}

}  // namespace

std::string usage() {
  return R"(aorta_suite - the Aorta training benchmark for GPU clusters, as GoogleTest suites

Usage:
  aorta_suite [--cluster_file FILE] [--config_file FILE] [--output_dir DIR] [gtest flags]
      Run a suite. Without --cluster_file the cluster is this machine (no SSH);
      without --config_file the config is the shipped local_cpu_single.json.
      Without --gtest_filter the suite follows the node count: aorta_single for one
      node, aorta_distributed for more. Examples:
        aorta_suite --gtest_filter=*single*
        aorta_suite --cluster_file cluster.json --config_file aorta_distributed.json --gtest_filter=*distributed*
  aorta_suite list [aorta_single|aorta_distributed]
      Print the suites and their stages in run order.
  aorta_suite config list
      Print the shipped config and threshold files.
  aorta_suite config copy NAME --output FILE
      Copy a shipped file, e.g. mi3xx_aorta_profile_overlap_2gpu_single.json; copy its
      threshold file next to it too.
  aorta_suite analyze TRACE_DIR [--output FILE] [--include-unlinked-kernels] [--jobs N]
      Compute per-rank and run metrics from the profiler traces under TRACE_DIR,
      reading N traces at once (default: one per core).
  aorta_suite --help
  aorta_suite --version
      Print the version and the git commit this binary was built from.

Exit status: 0 every selected stage passed or was skipped by configuration;
1 a stage failed; 2 usage or configuration error.
)";
}

Options parse(const std::vector<std::string>& args) {
  Options o;
  size_t i = 0;
  if (args.size() == 1 && args[0] == "--version") {
    o.command = Command::kVersion;
    return o;
  }
  if (!args.empty() && args[0] == "list") {
    o.command = Command::kList;
    if (args.size() > 2) o.error = "list takes at most one suite name";
    if (args.size() == 2) o.suite = args[1];
    return o;
  }
  if (!args.empty() && args[0] == "config") {
    if (args.size() >= 2 && args[1] == "list") {
      o.command = Command::kConfigList;
      return o;
    }
    o.command = Command::kConfigCopy;
    if (args.size() < 3 || args[1] != "copy") {
      o.error = "usage: aorta_suite config copy NAME --output FILE";
      return o;
    }
    o.config_name = args[2];
    for (i = 3; i < args.size() && o.error.empty(); ++i)
      if (!take_value(args, i, "--output", o.output, o.error)) o.error = "unknown argument: " + args[i];
    if (o.error.empty() && o.output.empty()) o.error = "config copy needs --output FILE";
    return o;
  }
  if (!args.empty() && args[0] == "analyze") {
    o.command = Command::kAnalyze;
    for (i = 1; i < args.size() && o.error.empty(); ++i) {
      std::string jobs;
      if (take_value(args, i, "--output", o.output, o.error)) continue;
      if (take_value(args, i, "--jobs", jobs, o.error)) {
        try {
          o.jobs = std::stoi(jobs);
        } catch (const std::exception&) {
          o.jobs = 0;
        }
        if (o.jobs < 1) o.error = "--jobs needs a whole number >= 1";
        continue;
      }
      if (args[i] == "--include-unlinked-kernels") {
        o.include_unlinked = true;
      } else if (args[i].rfind("--", 0) == 0 || !o.trace_dir.empty()) {
        o.error = "unknown argument: " + args[i];
      } else {
        o.trace_dir = args[i];
      }
    }
    if (o.error.empty() && o.trace_dir.empty()) o.error = "analyze needs TRACE_DIR";
    return o;
  }
  for (i = 0; i < args.size() && o.error.empty(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h" || a == "help") {
      o.command = Command::kHelp;
      return o;
    }
    if (take_value(args, i, "--cluster_file", o.cluster_file, o.error)) continue;
    if (take_value(args, i, "--config_file", o.config_file, o.error)) continue;
    if (take_value(args, i, "--output_dir", o.output_dir, o.error)) continue;
    if (a.rfind("--gtest_", 0) == 0) {
      o.gtest_args.push_back(a);
      continue;
    }
    o.error = "unknown argument: " + a + " (see --help)";
  }
  return o;
}

std::optional<std::string> gtest_filter(const std::vector<std::string>& gtest_args) {
  std::optional<std::string> filter;
  for (const auto& a : gtest_args)
    if (a.rfind("--gtest_filter=", 0) == 0) filter = a.substr(15);
  return filter;
}

bool filter_matches(const std::string& filter, const std::string& test_name) {
  size_t dash = filter.find('-');
  std::string positive = dash == std::string::npos ? filter : filter.substr(0, dash);
  std::string negative = dash == std::string::npos ? "" : filter.substr(dash + 1);
  if (positive.empty()) positive = "*";
  return any_match(positive, test_name) && !any_match(negative, test_name);
}

}  // namespace aorta::cli
