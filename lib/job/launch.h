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

// The marker every phase script prints on exit, with the real status: for the
// person reading the log. The status the suite acts on is the exit file's.
inline constexpr const char* kExitMarker = "CVS_AORTA_EXIT=";

// The per-node phase script: an EXIT trap that writes the status to `exit_file`
// (whole, by rename) and prints the marker, set -e, cd to the repo, exports,
// LD_LIBRARY_PATH default, NODE_RANK / MASTER_ADDR / MASTER_PORT, command. Only the
// wrapper writes the exit file: nothing the training prints can end the wait.
std::string phase_script(const config::Variant& v, size_t node_rank, const Rendezvous& rdzv, const std::string& command,
                         const std::string& exit_file);

// Exit status from an exit file's text: its one number, -1 if none yet.
int exit_code_from_status(const std::string& text);

}  // namespace aorta::job
