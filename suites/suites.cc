// The suites: each one's stages in run order and its node rule. A stage runs in a
// suite by one line here (its spec is declared in lib/stages/specs.h).
#include "suites/suites.h"

#include <algorithm>

#include "stages/specs.h"

namespace aorta::suites {

using namespace aorta::stages;

const std::vector<fixtures::SuiteSpec>& all() {
  static const std::vector<fixtures::SuiteSpec> suites = {
      {"aorta_single",
       {
           &kLaunchContainer,
           &kCloneAorta,
           &kBuildRccl,
           &kRunBenchmark,
           &kCollectTraces,
           &kAnalyze,
           &kParseResults,
           &kValidateThresholds,
           &kGenerateReport,
           &kTeardown,
       },
       1, 1, "aorta_single requires exactly one node; use aorta_distributed for multiple nodes"},
      // Across two or more nodes with torchrun; adds test_setup_rdma (torchrun and
      // RDMA devices in every container).
      {"aorta_distributed",
       {
           &kLaunchContainer,
           &kCloneAorta,
           &kSetupRdma,
           &kBuildRccl,
           &kRunBenchmark,
           &kCollectTraces,
           &kAnalyze,
           &kParseResults,
           &kValidateThresholds,
           &kGenerateReport,
           &kTeardown,
       },
       2, 0, "aorta_distributed requires at least two nodes; use aorta_single for one node"},
  };
  return suites;
}

const fixtures::SuiteSpec* find(const std::string& name) {
  for (const auto& suite : all())
    if (name == suite.name) return &suite;
  return nullptr;
}

std::string names(const std::string& last_separator) {
  std::string joined;
  const auto& suites = all();
  for (size_t i = 0; i < suites.size(); ++i)
    joined += (i == 0 ? "" : i + 1 == suites.size() ? last_separator : ", ") + std::string(suites[i].name);
  return joined;
}

std::vector<const stages::StageSpec*> lifecycle() {
  std::vector<const stages::StageSpec*> merged;
  for (const auto& suite : all()) {
    auto at = merged.begin();  // where this suite's next stage goes when merged lacks it
    for (const stages::StageSpec* stage : suite.stages) {
      auto found = std::find(merged.begin(), merged.end(), stage);
      at = found != merged.end() ? found + 1 : merged.insert(at, stage) + 1;
    }
  }
  return merged;
}

}  // namespace aorta::suites
