// What a node runs for a phase: the effective environment, the launch command
// (script mode or torchrun) and the phase script around it (reference §1.5.5, §1.6).
// Pure string building; every config value is quoted, extra_torchrun_args and
// extra_train_args elements included (one argument each).
#pragma once

#include <string>
#include <vector>

#include "config/variant.h"

namespace aorta::job {

enum class LaunchMode { kScript, kTorchrun };

// auto: script on one node, torchrun on more. Error text when script is asked for
// several nodes (the original's check at job construction).
LaunchMode launch_mode(const config::Variant& v, size_t nodes);

// The environment every phase exports, in order (reference §1.6.2).
config::KeyValues effective_env(const config::Variant& v);

// NCCL_MAX_NCHANNELS of the effective env, for the report (112 when not a number).
int nccl_channels(const config::Variant& v);

// The training override that sets the workload's output folder.
inline constexpr const char* kOutputDirKey = "training.output_dir";
// The config overrides training.output_dir itself; otherwise each run gets its own.
bool sets_output_dir(const config::Variant& v);

// bash <repo>/<experiment_script> <repo>/<base_config> [--override k=v ...]
std::string script_mode_command(const config::Variant& v);

struct Rendezvous {
  std::string master_addr;
  int master_port = 0;
};

// bash -lc '<torchrun ...>' for node `node_rank` of `nodes`.
std::string torchrun_command(const config::Variant& v, const Rendezvous& rdzv, size_t nodes, size_t node_rank);

// The marker every phase script prints on exit, with the real status.
inline constexpr const char* kExitMarker = "CVS_AORTA_EXIT=";

// The per-node phase script: EXIT trap printing the marker, set -e, cd to the repo,
// exports, LD_LIBRARY_PATH default, NODE_RANK / MASTER_ADDR / MASTER_PORT, command.
std::string phase_script(const config::Variant& v, size_t node_rank, const Rendezvous& rdzv,
                         const std::string& command);

// Exit status from a phase log: the last CVS_AORTA_EXIT=<n> line, -1 if none yet.
int exit_code_from_log(const std::string& log_text);

}  // namespace aorta::job
