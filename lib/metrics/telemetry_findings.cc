#include "metrics/telemetry_findings.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace aorta::metrics {
namespace {

using telemetry::GpuTelemetry;
using telemetry::RunTelemetry;

// A reason that says why the clock is where it is without the GPU being held back:
// nvidia-smi's gpu_idle (no work) and applications_clocks_setting (the operator's).
bool counted_reason(const std::string& reason) {
  return reason.find("idle") == std::string::npos && reason.find("application") == std::string::npos;
}

// Per sensor, the median of the GPUs' max and how far above it a GPU is hot.
struct SensorCut {
  double median = 0;
  double margin = 0;
};

// What a GPU is compared with: every sensor's cut, and the fleet's clock median.
struct Fleet {
  std::map<std::string, SensorCut> sensors;
  std::optional<double> clock_mhz;
};

Fleet fleet_of(const RunTelemetry& run) {
  std::map<std::string, std::vector<double>> maxima;
  std::vector<double> clocks;
  for (const GpuTelemetry& g : run.gpus) {
    for (const auto& [sensor, t] : g.temperature_c) maxima[sensor].push_back(t.max);
    if (g.clock_median_mhz) clocks.push_back(*g.clock_median_mhz);
  }
  Fleet fleet;
  for (const auto& [sensor, xs] : maxima) {
    if (xs.size() < kMinRanks) continue;
    const double median = median_of(xs);
    std::vector<double> deviations;
    for (double x : xs) deviations.push_back(std::abs(x - median));
    fleet.sensors[sensor] = {median, std::max(kHotMarginC, 3.5 * 1.4826 * median_of(deviations))};
  }
  fleet.clock_mhz = run.fleet_clock_median_mhz;
  if (!fleet.clock_mhz && !clocks.empty()) fleet.clock_mhz = median_of(clocks);
  return fleet;
}

std::string share(double s) { return fmt::format("{:.0f}%", s * 100); }

// "spent 41% of the window throttled (thermal), 12% (power)", worst reason first.
std::optional<std::string> throttle_sign(const GpuTelemetry& g) {
  std::vector<std::pair<double, std::string>> reasons;
  for (const auto& [reason, s] : g.throttle_share)
    if (counted_reason(reason) && s > kThrottledShare) reasons.emplace_back(s, reason);
  if (reasons.empty()) return std::nullopt;
  std::stable_sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string text = fmt::format("spent {} of the window throttled ({})", share(reasons[0].first), reasons[0].second);
  for (size_t i = 1; i < reasons.size(); ++i) text += fmt::format(", {} ({})", share(reasons[i].first), reasons[i].second);
  return text;
}

// The sensor furthest above its cut: "reached 97 °C (hotspot) against the fleet's median 78 °C".
std::optional<std::string> hot_sign(const GpuTelemetry& g, const Fleet& fleet) {
  std::optional<std::string> text;
  double worst = 0;
  for (const auto& [sensor, t] : g.temperature_c) {
    const auto cut = fleet.sensors.find(sensor);
    if (cut == fleet.sensors.end()) continue;
    const double over = t.max - cut->second.median - cut->second.margin;
    if (over <= 0 || (text && over <= worst)) continue;
    worst = over;
    text = fmt::format("reached {:.0f} °C ({}) against the fleet's median {:.0f} °C", t.max, sensor, cut->second.median);
  }
  return text;
}

std::optional<std::string> clock_sign(const GpuTelemetry& g, const Fleet& fleet) {
  if (!g.clock_median_mhz || !fleet.clock_mhz || !(*g.clock_median_mhz < kSlowClockShare * *fleet.clock_mhz))
    return std::nullopt;
  return fmt::format("ran at a clock median of {:.0f} MHz against the fleet's {:.0f} MHz", *g.clock_median_mhz,
                     *fleet.clock_mhz);
}

// "has its PCIe link at 16 of 32 GT/s, x8 of x16": the parts below their maximum.
std::optional<std::string> link_sign(const GpuTelemetry& g) {
  if (!g.link || !g.link->downgraded) return std::nullopt;
  const telemetry::LinkState& l = *g.link;
  std::vector<std::string> parts;
  if (l.speed_current && l.speed_max && *l.speed_current < *l.speed_max)
    parts.push_back(fmt::format("{:g} of {:g} GT/s", *l.speed_current, *l.speed_max));
  if (l.width_current && l.width_max && *l.width_current < *l.width_max)
    parts.push_back(fmt::format("x{:g} of x{:g}", *l.width_current, *l.width_max));
  if (parts.empty()) return "has its PCIe link below its maximum (at the start or the end)";
  return fmt::format("has its PCIe link at {}", fmt::join(parts, ", "));
}

std::vector<std::string> ecc_signs(const GpuTelemetry& g) {
  std::vector<std::string> out;
  if (!g.ecc) return out;
  if (g.ecc->uncorrectable > 0) out.push_back(fmt::format("had {:g} new uncorrectable ECC/RAS errors", g.ecc->uncorrectable));
  if (g.ecc->correctable > 0)
    out.push_back(fmt::format("had {:g} new correctable ECC/RAS errors (a note: corrected, but a rising count foretells "
                              "uncorrectable ones)",
                              g.ecc->correctable));
  return out;
}

std::vector<std::string> signs_of(const GpuTelemetry& g, const Fleet& fleet) {
  std::vector<std::string> signs;
  for (auto sign : {throttle_sign(g), hot_sign(g, fleet), clock_sign(g, fleet), link_sign(g)})
    if (sign) signs.push_back(std::move(*sign));
  for (auto& sign : ecc_signs(g)) signs.push_back(std::move(sign));
  return signs;
}

std::optional<std::string> evidence_of(const std::vector<std::string>& signs) {
  if (signs.empty()) return std::nullopt;
  return fmt::format("its GPU {}", fmt::join(signs, ", "));
}

}  // namespace

double throttled_share(const GpuTelemetry& gpu) {
  double worst = 0;
  for (const auto& [reason, s] : gpu.throttle_share)
    if (counted_reason(reason)) worst = std::max(worst, s);
  return worst;
}

std::optional<std::string> gpu_evidence(const GpuTelemetry& gpu, const RunTelemetry& run) {
  return evidence_of(signs_of(gpu, fleet_of(run)));
}

void join_telemetry(RunMetrics& run) {
  std::erase_if(run.outliers, [](const Finding& f) { return f.of_gpu; });
  for (Finding& f : run.outliers) f.evidence.reset();
  if (!run.telemetry) return;
  const Fleet fleet = fleet_of(*run.telemetry);
  std::set<std::pair<std::string, int>> named;
  for (const GpuTelemetry& g : run.telemetry->gpus) {
    const std::vector<std::string> signs = signs_of(g, fleet);
    if (signs.empty()) continue;
    bool on_a_rank = false;
    for (Finding& f : run.outliers)
      if (!f.of_node && f.node == g.host && f.gpu == g.gpu) {
        f.evidence = evidence_of(signs);
        on_a_rank = true;
      }
    if (on_a_rank || !named.insert({g.host, g.gpu}).second) continue;
    Finding f;
    f.node = g.host;
    f.gpu = g.gpu;
    f.measure = "GPU telemetry";
    f.unit = "signs";
    f.value = static_cast<double>(signs.size());
    f.ranks = run.telemetry->gpus.size();
    f.reason = "out of line in its telemetry, though no rank on it is by its times (yet)";
    f.of_gpu = true;
    f.evidence = evidence_of(signs);
    run.outliers.push_back(std::move(f));
  }
}

}  // namespace aorta::metrics
