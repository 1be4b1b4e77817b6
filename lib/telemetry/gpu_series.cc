#include "telemetry/gpu_series.h"

#include <algorithm>
#include <functional>
#include <map>

#include "metrics/outliers.h"
#include "telemetry/amd_smi_format.h"
#include "telemetry/nvidia_smi_format.h"
#include "telemetry/rocm_smi_format.h"

namespace aorta::telemetry {
namespace {

using Parser = std::function<Readings(std::string_view)>;

std::optional<Parser> parser_for(const std::string& tool) {
  if (tool == "amd-smi") return Parser(parse_amd_smi);
  if (tool == "rocm-smi") return Parser(parse_rocm_smi);
  if (tool == "nvidia-smi") return Parser(parse_nvidia_smi);
  return std::nullopt;
}

std::optional<MeanMax> mean_max(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  double sum = 0;
  for (double x : v) sum += x;
  return MeanMax{sum / static_cast<double>(v.size()), *std::max_element(v.begin(), v.end())};
}

// Every tick's value of one field, where reported.
template <typename Get>
std::vector<double> values(const std::vector<TimedReading>& ticks, Get get) {
  std::vector<double> out;
  for (const auto& t : ticks)
    if (std::optional<double> v = get(t.reading)) out.push_back(*v);
  return out;
}

ErrorCounts minus(const ErrorCounts& end, const ErrorCounts& start) {
  return {end.correctable - start.correctable, end.uncorrectable - start.uncorrectable};
}

void summarise_errors(const std::vector<TimedReading>& edges, GpuTelemetry& g) {
  std::vector<ErrorCounts> totals;
  for (const auto& e : edges)
    if (e.reading.ecc) totals.push_back(*e.reading.ecc);
  if (totals.size() >= 2) g.ecc = minus(totals.back(), totals.front());
  std::map<std::string, std::vector<ErrorCounts>> blocks;
  for (const auto& e : edges)
    for (const auto& [block, counts] : e.reading.ecc_blocks) blocks[block].push_back(counts);
  for (const auto& [block, counts] : blocks)
    if (counts.size() >= 2) g.ecc_blocks[block] = minus(counts.back(), counts.front());
}

// The link as the last edge that reports each figure saw it; downgraded when any edge
// read a width below its max.
void summarise_link(const std::vector<TimedReading>& edges, GpuTelemetry& g) {
  LinkState link;
  bool seen = false;
  std::vector<double> replays;
  for (const auto& e : edges) {
    const GpuReading& r = e.reading;
    for (auto [from, to] : {std::pair{&r.speed_current, &link.speed_current}, {&r.speed_max, &link.speed_max},
                            {&r.width_current, &link.width_current}, {&r.width_max, &link.width_max}})
      if (*from) *to = *from, seen = true;
    if (r.replays) replays.push_back(*r.replays), seen = true;
    // Width only: the link's speed drops at idle by design (power management), and
    // the edges are read before and after the training.
    if (r.width_current && r.width_max && *r.width_current < *r.width_max) link.downgraded = true;
  }
  if (replays.size() >= 2) link.replay_delta = replays.back() - replays.front();
  if (seen) g.link = link;
}

}  // namespace

std::optional<double> median(std::vector<double> v) {
  if (v.empty()) return std::nullopt;  // metrics' median_of says 0 for none: no reading is not 0 MHz
  return metrics::median_of(std::move(v));
}

std::vector<GpuSeries> node_series(const SampleFile& file, const std::string& name, std::vector<std::string>& errors) {
  std::map<int, GpuSeries> by_gpu;
  const auto parse = parser_for(file.tool);
  if (!parse) {
    if (file.tool != "none" && !file.records.empty()) errors.push_back(name + ": unknown tool \"" + file.tool + "\"");
    return {};
  }
  for (const SampleRecord& record : file.records) {
    Readings r = (*parse)(record.body);
    for (const auto& e : r.errors) errors.push_back(name + " line " + std::to_string(record.line) + ": " + e);
    for (auto& [gpu, reading] : r.gpus) {
      GpuSeries& s = by_gpu[gpu];
      s.gpu = gpu;
      (record.edge ? s.edges : s.ticks).push_back({record.time, std::move(reading)});
    }
  }
  std::vector<GpuSeries> out;
  for (auto& [gpu, s] : by_gpu) out.push_back(std::move(s));
  return out;
}

std::optional<double> fleet_clock_median(const std::vector<GpuSeries>& series) {
  std::vector<double> clocks;
  for (const auto& s : series)
    for (double c : values(s.ticks, [](const GpuReading& r) { return r.clock_mhz; })) clocks.push_back(c);
  return median(std::move(clocks));
}

GpuTelemetry summarise_gpu(const GpuSeries& s, std::optional<double> fleet) {
  GpuTelemetry g;
  g.host = s.host;
  g.gpu = s.gpu;
  g.samples = s.ticks.size();
  if (!s.ticks.empty()) g.window_seconds = s.ticks.back().time - s.ticks.front().time;
  std::map<std::string, std::vector<double>> temps;
  std::map<std::string, size_t> active;
  for (const auto& t : s.ticks) {
    for (const auto& [sensor, c] : t.reading.temperature_c) temps[sensor].push_back(c);
    for (const auto& [reason, on] : t.reading.throttle) active[reason] += on ? 1 : 0;
  }
  for (const auto& [sensor, v] : temps) g.temperature_c[sensor] = *mean_max(v);
  for (const auto& [reason, n] : active) g.throttle_share[reason] = static_cast<double>(n) / static_cast<double>(g.samples);
  g.power_w = mean_max(values(s.ticks, [](const GpuReading& r) { return r.power_w; }));
  const std::vector<double> clocks = values(s.ticks, [](const GpuReading& r) { return r.clock_mhz; });
  g.clock_median_mhz = median(clocks);
  g.memory_clock_median_mhz = median(values(s.ticks, [](const GpuReading& r) { return r.memory_clock_mhz; }));
  if (auto u = mean_max(values(s.ticks, [](const GpuReading& r) { return r.utilisation_pct; }))) g.utilisation_mean_pct = u->mean;
  if (fleet && !clocks.empty())
    g.share_under_fleet_clock = static_cast<double>(std::count_if(clocks.begin(), clocks.end(),
                                                                  [&](double c) { return c < 0.9 * *fleet; })) /
                                static_cast<double>(clocks.size());
  summarise_errors(s.edges, g);
  summarise_link(s.edges, g);
  return g;
}

}  // namespace aorta::telemetry
