// Every stage module's spec, each defined in lib/stages/<stage>.cc, declared for
// the suites table (suites/suites.cc) and for tests that run one stage's body.
#pragma once

#include "stages/stage.h"

namespace aorta::stages {

extern const StageSpec kLaunchContainer, kCloneAorta, kSetupRdma, kBuildRccl, kRunBenchmark, kCollectTraces, kAnalyze,
    kParseResults, kValidateThresholds, kGenerateReport, kTeardown;

}  // namespace aorta::stages
