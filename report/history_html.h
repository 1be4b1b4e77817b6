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

// A point's value in its unit ("-" for none), and its change against its rolling
// baseline with the verdict ("+3.10 % worse"; "same"; "-" when not judged).
std::string history_number(const nlohmann::ordered_json& v, const std::string& unit);
std::string history_change(const nlohmann::ordered_json& point);

void write_history_html(const nlohmann::ordered_json& history, std::ostream& out);
std::string history_stylesheet();

}  // namespace aorta::report
