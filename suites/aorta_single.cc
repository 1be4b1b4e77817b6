// aorta_single: the Aorta benchmark on exactly one node. One TEST per lifecycle
// stage, in run order; gtest runs a suite's tests in the order they are defined.
#include "fixtures/stage_fixture.h"

namespace {

using aorta::fixtures::Stage;

class aorta_single : public aorta::fixtures::StageTest {};

TEST_F(aorta_single, test_launch_container) { run_stage(Stage::kLaunchContainer); }
TEST_F(aorta_single, test_clone_aorta) { run_stage(Stage::kCloneAorta); }
TEST_F(aorta_single, test_build_rccl) { run_stage(Stage::kBuildRccl); }
TEST_F(aorta_single, test_run_benchmark) { run_stage(Stage::kRunBenchmark); }
TEST_F(aorta_single, test_collect_traces) { run_stage(Stage::kCollectTraces); }
TEST_F(aorta_single, test_analyze) { run_stage(Stage::kAnalyze); }
TEST_F(aorta_single, test_parse_results) { run_stage(Stage::kParseResults); }
TEST_F(aorta_single, test_validate_thresholds) { run_stage(Stage::kValidateThresholds); }
TEST_F(aorta_single, test_generate_report) { run_stage(Stage::kGenerateReport); }
TEST_F(aorta_single, test_teardown) { run_stage(Stage::kTeardown); }

}  // namespace
