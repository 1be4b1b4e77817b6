// Run folders made from the real sample report (docs/sample-output), varied per run,
// for the history tests: a value scaled, a rank named, a run failed, an mtime set.
#pragma once

#include <sys/time.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "test_paths.h"  // AORTA_SOURCE_DIR
#include "tests/temp_dir.h"

namespace aorta::testing {

// The real sample report without its start time, as builds before started_at wrote
// them: the runs a test writes order by their files' times (write_run), unless the
// test gives each a started_at of its own.
inline nlohmann::json sample_report() {
  std::ifstream in(std::filesystem::path(AORTA_SOURCE_DIR) / "docs/sample-output/aorta_benchmark_report.json");
  nlohmann::json report = nlohmann::json::parse(in);
  report.erase("started_at");
  return report;
}

// An outlier naming `node` rank `rank` (GPU `rank`), as the diagnosis writes one.
inline nlohmann::json outlier(const std::string& node, int rank) {
  return {{"rank", rank}, {"node", node}, {"gpu", rank}, {"source", "rank.json"}, {"measure", "compute"},
          {"unit", "us"}, {"value", 2.0}, {"median", 1.0}, {"ranks", 8}, {"ratio_to_median", 2.0},
          {"of_node", false}, {"reason", "slow"}};
}

// ROOT/<name>/aorta_benchmark_report.json, written at `seconds` after the epoch.
inline std::filesystem::path write_run(const TempDir& root, const std::string& name, const nlohmann::json& report,
                                       long seconds) {
  const auto path = root.write(name + "/aorta_benchmark_report.json", report.dump());
  const timeval times[2] = {{seconds, 0}, {seconds, 0}};
  ::utimes(path.c_str(), times);
  return path;
}

}  // namespace aorta::testing
