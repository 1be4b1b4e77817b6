// What the config and cluster files say, checked before a run starts: only files are
// read, no node is touched and nothing is created.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "app/cli.h"
#include "app/gtest_flags.h"
#include "app/test_selection.h"
#include "common/result.h"
#include "config/cluster.h"
#include "config/variant.h"
#include "fixtures/lifecycle.h"
#include "metrics/compare.h"
#include "slurm/run_form.h"

namespace aorta::app {

struct Plan {
  config::Cluster cluster;
  config::Variant variant;
  std::string config_file;
  slurm::RunForm form;  // plain, a job step's task, or inside a job's allocation
  const fixtures::SuiteSpec* suite = nullptr;
  std::optional<metrics::RunFigures> baseline;  // --baseline, read before anything runs
};

// Why a run cannot start: each problem, already said on stderr (exit 2); the reports
// of a run that could not start name them.
struct Refusal {
  std::vector<std::string> problems;
};

// `o` with its --config_file and --cluster_file found (config::find_named_file): a bare
// name the working directory lacks becomes the shipped file's full path, and a choice
// between the two is said on one stderr line each; or the error of a name found nowhere.
Result<cli::Options> with_named_files(const cli::Options& o);

// The plan for a run in `form`, or why there is none.
std::variant<Plan, Refusal> load_plan(const cli::Options& o, const GtestFlags& flags, const TestSelection& selection,
                                slurm::RunForm form);

std::vector<std::string> host_names(const config::Cluster& cluster);

}  // namespace aorta::app
