// The hidden `rank-results` command: a node's part of node-side analysis
// (analysis.where "nodes"). The head runs `aorta_suite rank-results FILE...` on each
// node through the run's transport; it reads the node's own traces and prints one
// line, result_json::kRankResultsMarker and the set as JSON (rank_results_json.h).
#pragma once

namespace aorta::app {

// argv[1] is "rank-results"; the rest are the trace files. Exit 0 once the line is
// printed (a trace that failed to parse is an error inside it), 2 without a file.
int rank_results_command(int argc, char** argv);

}  // namespace aorta::app
