// The Run Deck's charts as JSON (reference §4.6): their axes, the configured gates
// drawn on them, and the per-rank and per-step bars. The page draws them from here.
#pragma once

#include <ostream>
#include <string>

#include "report/run_deck.h"

namespace aorta::report {

// An axis from 0 scaled to the data with round ticks (0, 5, 10, 15 ms).
nlohmann::ordered_json data_axis(double largest);

// metric_charts: per-rank series, per-rank charts and per-step charts with their note.
nlohmann::ordered_json metric_charts_json(const DeckInput& in);

// Horizontal bars ([label, value] each) on `axis` as inline SVG, with the gates
// ({threshold, drawn_at, label} each) as dashed lines: the deck's charts and history.html's trends.
void svg_chart(const nlohmann::ordered_json& bars, const std::string& unit, const nlohmann::ordered_json& axis,
               const nlohmann::ordered_json& gates, std::ostream& out);

}  // namespace aorta::report
