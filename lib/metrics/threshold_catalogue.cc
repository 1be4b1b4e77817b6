#include "metrics/threshold_catalogue.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

namespace aorta::metrics {
namespace {

std::vector<ThresholdSpec> gated_rows() {
  std::vector<ThresholdSpec> gates;
  for (const auto& row : metric_catalogue())
    if (row.gate) gates.push_back({*row.gate, row.key, &row});
  std::sort(gates.begin(), gates.end(), [](const auto& a, const auto& b) { return a.position < b.position; });
  return gates;
}

}  // namespace

std::span<const ThresholdSpec> threshold_catalogue() {
  static const std::vector<ThresholdSpec> kGates = gated_rows();
  return kGates;
}

const ThresholdSpec* find_threshold(std::string_view key) {
  for (const auto& spec : threshold_catalogue())
    if (key == spec.key) return &spec;
  return nullptr;
}

std::string limit_text(double limit) {
  if (std::isfinite(limit) && limit == std::floor(limit) && std::fabs(limit) < 1e15)
    return fmt::format("{}", static_cast<long long>(limit));
  return fmt::format("{}", limit);
}

std::string format_limit(const ThresholdSpec& spec, double limit) {
  const std::string unit = gate_unit_text(spec.unit());
  return unit.empty() ? limit_text(limit) : limit_text(limit) + " " + unit;
}

std::string format_actual(const ThresholdSpec& spec, double actual) {
  const std::string unit = gate_unit_text(spec.unit());
  return unit.empty() ? fmt::format("{:.4f}", actual) : fmt::format("{:.2f} {}", actual, unit);
}

}  // namespace aorta::metrics
