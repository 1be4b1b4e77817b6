#include "app/rank_results_command.h"

#include <filesystem>
#include <iostream>

#include "app/exit_codes.h"
#include "metrics/trace_set.h"
#include "result_json/rank_results_json.h"

namespace aorta::app {

int rank_results_command(int argc, char** argv) {
  std::vector<std::filesystem::path> files(argv + 2, argv + argc);
  if (files.empty()) {
    std::cerr << "usage: aorta_suite rank-results TRACE...\n";
    return kExitUsage;
  }
  const metrics::TraceSet set = metrics::analyze_files(files, {});
  const auto text = result_json::rank_results_json(set).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::cout << result_json::kRankResultsMarker << text << "\n";
  return kExitOk;
}

}  // namespace aorta::app
