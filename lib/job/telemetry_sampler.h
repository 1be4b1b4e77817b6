// The GPU telemetry sampler's life on every node (issue 47, 1): started as the phase
// "telemetry" beside the training (its process group kept in RunState::phase_pids, so
// the last will and teardown stop it like the training's), asked to end after the
// training whatever its outcome, and stopped by group if it does not. The script
// (telemetry/sampler_script.h) also ends itself when the training is gone or at its
// deadline, so a killed suite leaves no sampler past the benchmark's timeout.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "job/node_exec.h"
#include "job/run_state.h"

namespace aorta::job {

inline constexpr const char* kTelemetryPhase = "telemetry";

// What the start says, for the stage log (which the console shows): notes, one line
// for each tool the nodes use; warnings, the one no-tool line of each node without one,
// or why a node could not start it (the run goes on without it).
struct SamplerStart {
  std::vector<std::string> notes;
  std::vector<std::string> warnings;
};

// Starts the sampler on every node when telemetry is enabled, after the training
// phase `training_label` started (its pid file names the group the sampler outlives
// not).
SamplerStart start_samplers(NodeExec& exec, RunState& state, const std::string& training_label);

// Asks each node's sampler to end (its end edge and #end), waits for it at most its
// edge limit and 3 s, then stops the group (stop_phase). Nothing when none started.
Status stop_samplers(NodeExec& exec, RunState& state);

}  // namespace aorta::job
