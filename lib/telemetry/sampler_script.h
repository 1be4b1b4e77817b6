// The node's GPU telemetry sampler (issue 47, 1): the bash script the suite writes into
// the node's work folder and starts beside the training. It takes the first tool of
// gpu_tools() on PATH and writes tool_commands.h's records into telemetry.log: the
// header, an edge, a tick every interval, an edge at the end and `#end <epoch> <reason>`.
// It ends when the suite asks (the stop file), when the training's process group is
// gone (the suite was killed), or at its deadline, whichever comes first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aorta::telemetry {

inline constexpr const char* kSampleFile = "telemetry.log";
inline constexpr const char* kStopFile = "telemetry.stop";  // its presence ends the sampler

// The file's cap: sized for amd-smi's JSON (about 4 KiB a GPU a tick) of 8 GPUs every
// second over 4 hours (14,400 ticks x 32 KiB = 450 MiB) and the edges; past it,
// `#truncated` and no more ticks. The last 4 MiB (one record at most) are kept for the end's edge and #end.
inline constexpr int64_t kCapBytes = int64_t{512} << 20;
inline constexpr int64_t kEndReserveBytes = int64_t{4} << 20;
// One tool call's output beyond which it is cut and named (ulimit -f, in KiB).
inline constexpr int64_t kRecordCapKiB = 4096;
// After the benchmark's own timeout: the suite stops the sampler well before this.
inline constexpr int kDeadlineMarginSeconds = 120;

struct SamplerPlan {
  std::string host;              // the cluster's name for the node: the header's host=
  std::string work_dir;          // the node's work folder (job::node_work_dir)
  std::string training_pid_file; // the training's process group id: the sampler ends when it is gone
  int interval_seconds = 1;
  int deadline_seconds = 3600 + kDeadlineMarginSeconds;  // from the sampler's start
  int tick_limit_seconds = 5;    // one tick's tool call at most (timeout)
  int edge_limit_seconds = 10;   // one edge's tool call at most
  int64_t cap_bytes = kCapBytes;
};

// The plan for a benchmark of timeout_seconds sampled every interval_seconds: a tick's
// call is cut at two intervals and 3 s, an edge's at twice that.
SamplerPlan sampler_plan(const std::string& host, const std::string& work_dir, const std::string& training_pid_file,
                         int interval_seconds, int timeout_seconds);

// The script's text; every value in it is quoted, numbers checked again by the script.
std::string sampler_script(const SamplerPlan& plan);

// The tool the header names ("none" when the node has none), or "" for a text that is
// no header.
std::string header_tool(const std::string& header_line);

// The one line a run says of its nodes without any tool, however many: "node n1: ...",
// "3 nodes (n1, n2, n3): ...", past 8 the first 8 and how many more.
std::string no_tool_line(const std::vector<std::string>& hosts);

}  // namespace aorta::telemetry
