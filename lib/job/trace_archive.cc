// The traces a collection left on the nodes (analysis.archive_traces outliers or
// none), copied home once node-side analysis has said which ones to keep (collect.h).
#include "job/collect.h"
#include "job/collect_copy.h"

namespace aorta::job {

std::set<std::string> archive_traces(NodeExec& exec, RunState& state, const std::set<std::string>& wanted,
                                     std::vector<std::string>& notes, const ProgressFn& progress) {
  std::set<std::string> kept;
  if (!state.deferred_copies) return kept;
  std::vector<NodeCopy> copies;
  for (const auto& node : state.deferred_copies->nodes) {
    NodeCopy pick;
    pick.index = node.index;
    pick.host = node.host;
    pick.compression = node.compression;
    for (size_t f = 0; node.error.empty() && f < node.files.size(); ++f)
      if (wanted.count(copy_destination(node, f).string())) {
        pick.files.push_back(node.files[f]);
        pick.dests.push_back(node.dests[f]);
      }
    if (!pick.files.empty()) copies.push_back(std::move(pick));
  }
  state.deferred_copies.reset();
  if (copies.empty()) return kept;
  copy_all(exec, copies, copies.size(), progress, kProgressEvery, notes);
  for (const auto& node : copies) {
    if (!node.error.empty()) notes.push_back(node.host + ": its traces were not archived: " + node.error);
    for (size_t f = 0; node.error.empty() && f < node.files.size(); ++f) kept.insert(copy_destination(node, f).string());
  }
  return kept;
}

}  // namespace aorta::job
