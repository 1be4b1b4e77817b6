#include "report/run_deck_heatmap.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "common/utf8.h"
#include "report/report_writer.h"

namespace aorta::report {
namespace {

using Json = nlohmann::ordered_json;

// A rank's steps as the JSON report has them: its first kMaxStepRows.
size_t shown_steps(const metrics::RankMetrics& r) { return std::min(r.steps.size(), result_json::kMaxStepRows); }

double mean_step_ms(const metrics::RankMetrics& r) {
  double sum = 0;
  for (size_t i = 0; i < shown_steps(r); ++i) sum += r.steps[i].time_ms;
  return sum / static_cast<double>(shown_steps(r));
}

std::string rank_name(const std::optional<int>& rank) { return rank ? std::to_string(*rank) : "?"; }

// "node rank N (GPU g)": what a reader needs to find the GPU; unknown parts left out.
std::string where(const std::optional<std::string>& node, const std::optional<int>& rank, const std::optional<int>& gpu) {
  std::string s = node ? valid_utf8(*node) + " " : "";
  s += "rank " + rank_name(rank);
  if (gpu) s += fmt::format(" (GPU {})", *gpu);
  return s;
}

double median_step_ms(const std::vector<const metrics::RankMetrics*>& ranks) {
  std::vector<double> all;
  for (const auto* r : ranks)
    for (size_t i = 0; i < shown_steps(*r); ++i) all.push_back(r->steps[i].time_ms);
  const size_t mid = all.size() / 2;
  std::nth_element(all.begin(), all.begin() + static_cast<long>(mid), all.end());
  const double upper = all[mid];
  if (all.size() % 2) return upper;
  return (*std::max_element(all.begin(), all.begin() + static_cast<long>(mid)) + upper) / 2;
}

// Row i holds ranks [i * per_row, (i + 1) * per_row); each cell the max of its ranks'
// steps in its column's bin, null where none of them has such a step.
Json rows_json(const std::vector<const metrics::RankMetrics*>& ranks, size_t per_row, size_t per_column, size_t columns) {
  Json rows = Json::array();
  for (size_t first = 0; first < ranks.size(); first += per_row) {
    const size_t last = std::min(first + per_row, ranks.size()) - 1;
    std::vector<std::optional<double>> cells(columns);
    for (size_t k = first; k <= last; ++k)
      for (size_t i = 0; i < shown_steps(*ranks[k]); ++i) {
        auto& cell = cells[i / per_column];
        cell = std::max(cell.value_or(0.0), ranks[k]->steps[i].time_ms);
      }
    Json values = Json::array();
    for (const auto& c : cells) values.push_back(c ? Json(std::round(*c * 1000) / 1000) : Json(nullptr));
    const std::string label = first == last ? "rank " + rank_name(ranks[first]->rank)
                                            : "ranks " + rank_name(ranks[first]->rank) + "-" + rank_name(ranks[last]->rank);
    rows.push_back({{"label", label}, {"cells", values}});
  }
  return rows;
}

// The slowest ranks by mean step time whose mean is above the median step (a label
// marks a slow rank, not the slowest of equals), then the diagnosis outliers that have
// steps, each rank once.
Json labelled_json(const metrics::RunMetrics& result, const std::vector<const metrics::RankMetrics*>& ranks, size_t per_row,
                   double median) {
  std::vector<size_t> order(ranks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return mean_step_ms(*ranks[a]) > mean_step_ms(*ranks[b]); });
  Json labelled = Json::array();
  std::vector<bool> done(ranks.size());
  const auto add = [&](size_t k, const std::string& why, const std::optional<std::string>& node, std::optional<int> gpu) {
    if (done[k]) return;
    done[k] = true;
    labelled.push_back({{"row", k / per_row}, {"rank", ranks[k]->rank ? Json(*ranks[k]->rank) : Json(nullptr)},
                        {"label", where(node, ranks[k]->rank, gpu)},
                        {"mean_step_ms", std::round(mean_step_ms(*ranks[k]) * 1000) / 1000}, {"why", why}});
  };
  for (size_t i = 0; i < std::min(kLabelledSlowest, ranks.size()) && mean_step_ms(*ranks[order[i]]) > median; ++i)
    add(order[i], fmt::format("slowest #{}", i + 1), ranks[order[i]]->node, ranks[order[i]]->gpu);
  for (const auto& f : result.outliers)
    for (size_t k = 0; k < ranks.size(); ++k)
      if (f.rank && ranks[k]->rank == f.rank)
        add(k, "outlier: " + valid_utf8(f.measure), f.node ? f.node : ranks[k]->node, f.gpu ? f.gpu : ranks[k]->gpu);
  return labelled;
}

}  // namespace

Json step_heatmap_json(const metrics::RunMetrics& result, Json gates) {
  std::vector<const metrics::RankMetrics*> ranks;
  size_t longest = 0;
  for (const auto& r : result.per_rank)
    if (!r.steps.empty()) {
      ranks.push_back(&r);
      longest = std::max(longest, shown_steps(r));
    }
  if (ranks.empty()) return nullptr;
  // In rank order, unknown ranks last, as per_rank is.
  const size_t per_row = (ranks.size() + kMaxHeatmapRows - 1) / kMaxHeatmapRows;
  const size_t per_column = (longest + kMaxHeatmapColumns - 1) / kMaxHeatmapColumns;
  const size_t columns = (longest + per_column - 1) / per_column;
  const double median = median_step_ms(ranks);
  std::string caption = fmt::format("Rows: {}; columns: {}; colour: the step time against the median step, {:.2f} ms.",
                                    per_row == 1 ? "ranks" : fmt::format("{} ranks each, the slowest of them", per_row),
                                    per_column == 1 ? "steps" : fmt::format("{} steps each, the slowest", per_column),
                                    median);
  Json columns_json = Json::array();  // the first step of each column
  for (size_t c = 0; c < columns; ++c) {
    std::optional<int64_t> step;
    for (const auto* r : ranks)
      if (c * per_column < shown_steps(*r)) step = std::min(step.value_or(r->steps[c * per_column].step), r->steps[c * per_column].step);
    columns_json.push_back(*step);
  }
  return {{"id", "step-heatmap"}, {"title", "Step time by rank and step"}, {"unit", "ms"},
          {"median_ms", std::round(median * 1000) / 1000}, {"ranks", ranks.size()}, {"ranks_per_row", per_row},
          {"steps_per_column", per_column}, {"columns", columns_json}, {"rows", rows_json(ranks, per_row, per_column, columns)},
          {"labelled", labelled_json(result, ranks, per_row, median)}, {"gates", std::move(gates)}, {"caption", caption}};
}

namespace {

// Geometry: row labels left of kHeatX, the cells kHeatWidth wide, the labelled ranks
// right of them. A row is 6-18 px so that 64 rows stay one screen.
constexpr int kHeatX = 110, kHeatWidth = 360, kTop = 10, kLabelX = kHeatX + kHeatWidth + 16, kWidth = 900;

// The colour of a cell's time against the median: blues faster, greys about it, browns
// slower (not the verdict red: the CSP check counts red pixels). `upto`: the ratio each
// colour ends at; the last has no end.
struct Shade {
  double upto;
  const char* fill;
};
constexpr Shade kShades[] = {{0.9, "#2166ac"},  {1.0, "#92c5de"},  {1.05, "#e6e6e6"}, {1.1, "#fdd49e"},
                             {1.25, "#f4a259"}, {1.5, "#b35806"}, {INFINITY, "#54278f"}};

const char* fill_of(double ms, double median) {
  const double ratio = median > 0 ? ms / median : 1;
  for (const auto& s : kShades)
    if (ratio < s.upto) return s.fill;
  return kShades[std::size(kShades) - 1].fill;
}

std::string num(double v) { return fmt::format("{:.2f}", v); }

// The swatches with their ms ranges, below the cells.
void legend(double median, int y, std::ostream& out) {
  double from = 0;
  int x = 0;
  for (const auto& s : kShades) {
    const std::string range = std::isinf(s.upto) ? fmt::format("≥ {:.2f}", from * median)
                              : from == 0       ? fmt::format("< {:.2f}", s.upto * median)
                                                : fmt::format("{:.2f}-{:.2f}", from * median, s.upto * median);
    out << fmt::format(R"(<rect x="{}" y="{}" width="12" height="12" fill="{}" stroke="#888"/>)", x, y, s.fill)
        << fmt::format(R"(<text x="{}" y="{}" font-size="10">{} ms</text>)", x + 15, y + 10, range);
    x += 120;
    from = s.upto;
  }
}

}  // namespace

void svg_step_heatmap(const Json& h, std::ostream& out) {
  const auto& rows = h["rows"];
  const size_t columns = h["columns"].size();
  const int row_h = std::clamp(480 / static_cast<int>(rows.size()), 6, 18);
  const double cell_w = static_cast<double>(kHeatWidth) / static_cast<double>(columns);
  const double median = h["median_ms"].get<double>();
  // The labelled ranks right of their rows, pushed down where two would overlap.
  std::vector<std::pair<int, int>> label_y;  // row centre, text baseline
  int last = 0;
  for (const auto& l : h["labelled"]) {
    const int centre = kTop + row_h * l["row"].get<int>() + row_h / 2;
    last = std::max(centre + 4, last + 13);
    label_y.emplace_back(centre, last);
  }
  const int base = std::max(kTop + row_h * static_cast<int>(rows.size()), last);
  out << fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" id="step-heatmap" width="{}" height="{}" role="img" shape-rendering="crispEdges">)",
                     kWidth, base + 50);
  const size_t every = rows.size() <= 32 ? 1 : 8;  // row labels: each row, or every 8th
  for (size_t r = 0; r < rows.size(); ++r) {
    const int y = kTop + row_h * static_cast<int>(r);
    if (r % every == 0)
      out << fmt::format(R"(<text x="0" y="{}" font-size="10">{}</text>)", y + std::min(row_h, 10), escape_xml(rows[r]["label"]));
    const auto& cells = rows[r]["cells"];
    for (size_t c = 0; c < cells.size(); ++c)
      if (!cells[c].is_null())
        out << fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>)", num(kHeatX + cell_w * c), y,
                           num(cell_w), row_h, fill_of(cells[c].get<double>(), median));
  }
  size_t i = 0;
  for (const auto& l : h["labelled"]) {
    const auto [centre, y] = label_y[i++];
    out << fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#555"/>)", kHeatX + kHeatWidth + 2, centre, kLabelX - 2, y - 4)
        << fmt::format(R"(<text class="worst" x="{}" y="{}" font-size="10">{}: {}, mean {:.2f} ms</text>)", kLabelX, y,
                       escape_xml(l["label"]), escape_xml(l["why"]), l["mean_step_ms"].get<double>());
  }
  const int axis_y = kTop + row_h * static_cast<int>(rows.size()) + 12;
  out << fmt::format(R"(<text x="{}" y="{}" font-size="10">step {}</text>)", kHeatX, axis_y, h["columns"][0].get<int64_t>())
      << fmt::format(R"(<text x="{}" y="{}" font-size="10" text-anchor="end">step {}</text>)", kHeatX + kHeatWidth, axis_y,
                     h["columns"][columns - 1].get<int64_t>());
  legend(median, base + 24, out);
  out << "</svg>\n";
}

}  // namespace aorta::report
