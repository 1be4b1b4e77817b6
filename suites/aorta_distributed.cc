// aorta_distributed: the Aorta benchmark across two or more nodes with torchrun;
// adds test_setup_rdma (torchrun and RDMA devices in every container).
#include "fixtures/stage_fixture.h"

namespace {

using aorta::fixtures::Stage;

class aorta_distributed : public aorta::fixtures::StageTest {};

TEST_F(aorta_distributed, test_launch_container) { run_stage(Stage::kLaunchContainer); }
TEST_F(aorta_distributed, test_clone_aorta) { run_stage(Stage::kCloneAorta); }
TEST_F(aorta_distributed, test_setup_rdma) { run_stage(Stage::kSetupRdma); }
TEST_F(aorta_distributed, test_build_rccl) { run_stage(Stage::kBuildRccl); }
TEST_F(aorta_distributed, test_run_benchmark) { run_stage(Stage::kRunBenchmark); }
TEST_F(aorta_distributed, test_collect_traces) { run_stage(Stage::kCollectTraces); }
TEST_F(aorta_distributed, test_analyze) { run_stage(Stage::kAnalyze); }
TEST_F(aorta_distributed, test_parse_results) { run_stage(Stage::kParseResults); }
TEST_F(aorta_distributed, test_validate_thresholds) { run_stage(Stage::kValidateThresholds); }
TEST_F(aorta_distributed, test_generate_report) { run_stage(Stage::kGenerateReport); }
TEST_F(aorta_distributed, test_teardown) { run_stage(Stage::kTeardown); }

}  // namespace
