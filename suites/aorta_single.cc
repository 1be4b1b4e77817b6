// aorta_single: the Aorta benchmark on exactly one node; its stages in run order.
#include "suites/suites.h"

namespace aorta::suites {

std::vector<fixtures::Stage> aorta_single_stages() {
  using fixtures::Stage;
  return {Stage::kLaunchContainer, Stage::kCloneAorta,         Stage::kBuildRccl,      Stage::kRunBenchmark,
          Stage::kCollectTraces,   Stage::kAnalyze,            Stage::kParseResults,   Stage::kValidateThresholds,
          Stage::kGenerateReport,  Stage::kTeardown};
}

}  // namespace aorta::suites
