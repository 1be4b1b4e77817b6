// aorta_distributed: the Aorta benchmark across two or more nodes with torchrun;
// adds test_setup_rdma (torchrun and RDMA devices in every container).
#include "suites/suites.h"

namespace aorta::suites {

std::vector<fixtures::Stage> aorta_distributed_stages() {
  using fixtures::Stage;
  return {Stage::kLaunchContainer, Stage::kCloneAorta,     Stage::kSetupRdma,          Stage::kBuildRccl,
          Stage::kRunBenchmark,    Stage::kCollectTraces,  Stage::kAnalyze,            Stage::kParseResults,
          Stage::kValidateThresholds, Stage::kGenerateReport, Stage::kTeardown};
}

}  // namespace aorta::suites
