// The Run Deck's "recent runs" strip (a run given --history ROOT, issue 46 item 4): the
// last runs under ROOT of this run's group (its suite and configuration), each headline
// metric with its rolling baseline and verdict as `aorta_suite history` judges them
// (lib/history), this run marked when its folder lies under ROOT.
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>

#include <nlohmann/json.hpp>

namespace aorta::report {

inline constexpr size_t kRecentRuns = 10;

// The strip's section of aorta_run_deck.json. `own_report`: this run's
// aorta_benchmark_report.json (its group); without it, or with no run of the group
// under root, the section says why in "error".
nlohmann::ordered_json recent_runs_json(const std::filesystem::path& root,
                                        const std::optional<std::filesystem::path>& own_report);
void recent_runs_html(const nlohmann::ordered_json& section, std::ostream& out);

}  // namespace aorta::report
