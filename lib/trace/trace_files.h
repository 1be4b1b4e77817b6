// Finding rank traces under a directory and telling which rank each one is.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace aorta::trace {

struct FoundTraces {
  std::vector<std::filesystem::path> files;
  // Folders that could not be listed ("<path>: Permission denied"): traces in them
  // are missing from `files`, so the caller must say so.
  std::vector<std::string> unreadable;
  // Symbolic links that could lead to traces (a trace's name, or to a folder), sorted.
  // They are never followed (a loop, or files outside the tree), so the caller must
  // name them: each is traces not analyzed.
  std::vector<std::filesystem::path> links;
  // Entries with a trace's name that are neither a file nor a folder (a FIFO, a socket,
  // a device), sorted: "<path>: not a regular file (a FIFO)". Never opened (a FIFO
  // would block the open), so the caller must name them: each is a trace not analyzed.
  std::vector<std::string> not_regular;
};

// A trace's file name: *.json, *.json.gz or *.json.zst.
bool is_trace_name(const std::string& name);

// Every *.json / *.json.gz / *.json.zst file below dir, sorted by path. When some of them sit in
// a torch_profiler directory (Aorta's layout, also under combined_traces/node_<i>/),
// only those count, so reports and metrics files next to traces are never read.
FoundTraces find_traces(const std::filesystem::path& dir);
std::vector<std::filesystem::path> find_trace_files(const std::filesystem::path& dir);  // files only

// Rank from the path: rank<N>, rank_<N>, rank-<N>, then worker<N>, then gpu<N>,
// searched from the file name up through its parent directories. The word must not
// continue a longer word, so "frank1" is no rank (the original's regex said it was).
std::optional<int> rank_from_path(const std::filesystem::path& file);

// The host in the file name PyTorch's tensorboard_trace_handler writes,
// <host>_<pid>.<milliseconds>.pt.trace.json (.gz or .zst after a copy); none for any
// other name. A host name is letters, digits, dots and dashes (RFC 1123).
std::optional<std::string> host_from_file_name(const std::filesystem::path& file);

}  // namespace aorta::trace
