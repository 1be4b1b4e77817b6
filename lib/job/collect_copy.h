// The copy half of collect_traces: every node's chosen files brought here at once,
// each copy checked against the node's listing, progress told as it goes. Internal to
// the collection (collect.cc decides what to copy and where it goes).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "job/collect.h"
#include "job/copy_check.h"
#include "job/node_exec.h"
#include "job/phase.h"

namespace aorta::job {

// One node's part of a collection.
struct NodeCopy {
  size_t index = 0;  // in exec.hosts()
  std::string host;
  std::vector<FreshFile> files;
  std::vector<std::filesystem::path> dests;  // where each file goes, before a compression suffix
  Compression compression = Compression::kNone;
  // Filled as the copies end (under the collection's mutex).
  size_t fetched = 0;
  uint64_t stored = 0;    // bytes written here (what came over the wire)
  uint64_t raw = 0;       // the files' own bytes
  std::string error;      // the first failure; the node's files not yet started are skipped
  bool reported = false;  // its closing progress line was printed
  std::vector<std::string> trees;
  std::chrono::steady_clock::time_point started{}, last_line{};
  size_t first_job = 0;   // its files' jobs are first_job, first_job + 1, ... in order
};

// What each node can compress with, as the variant asks (a node without the asked
// compressor gets its error); copy_all asks it first.
void choose_compression(NodeExec& exec, std::vector<NodeCopy>& copies, std::vector<std::string>& notes);

// The copies a collection held back (analysis.archive_traces outliers or none): placed,
// compression chosen, copied later only where archive_traces (collect.h) is asked to.
struct DeferredCopies {
  std::vector<NodeCopy> nodes;
};

// How file f of the node travels (a .json trace compressed, a .gz or a log as it is),
// and where its copy lands here (its dest with the compression's suffix).
Compression copy_compression(const NodeCopy& node, size_t f);
std::filesystem::path copy_destination(const NodeCopy& node, size_t f);

// Copies every node's files at once and checks each copy; fills the NodeCopy fields.
// nodes: how many the collection covers (the progress lines' "done of N").
void copy_all(NodeExec& exec, std::vector<NodeCopy>& copies, size_t nodes, const ProgressFn& progress,
              std::chrono::milliseconds progress_every, std::vector<std::string>& notes);

}  // namespace aorta::job
