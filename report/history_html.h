// history.html: `aorta_suite history`'s JSON (lib/history/history_json.h) drawn as one
// page, a trend chart per headline metric and group as inline SVG (the Run Deck's
// bars, run_deck_charts.h). No script and no inline style: the styles are in
// history.css beside the page, so Jenkins' default CSP (style-src 'self') shows it.
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

namespace aorta::report {

inline constexpr const char* kHistoryStylesheet = "history.css";

void write_history_html(const nlohmann::ordered_json& history, std::ostream& out);
std::string history_stylesheet();

}  // namespace aorta::report
