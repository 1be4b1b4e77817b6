#include "telemetry/nvidia_smi_format.h"

#include <cstdint>
#include <string>
#include <vector>

#include "telemetry/value_text.h"

namespace aorta::telemetry {
namespace {

std::string trimmed(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  return std::string(s.substr(b, s.find_last_not_of(" \t\r") + 1 - b));
}

std::vector<std::string> cells(std::string_view line) {
  std::vector<std::string> out;
  for (size_t pos = 0;;) {
    const size_t comma = line.find(',', pos);
    out.push_back(trimmed(line.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos)));
    if (comma == std::string_view::npos) return out;
    pos = comma + 1;
  }
}

// NVML's clocks event reasons (nvml.h nvmlClocksEventReason*), by bit.
void read_reasons(const std::string& text, GpuReading& g) {
  static const std::pair<std::uint64_t, const char*> kReasons[] = {
      {0x1, "gpu_idle"},           {0x2, "applications_clocks_setting"}, {0x4, "sw_power_cap"},
      {0x8, "hw_slowdown"},        {0x10, "sync_boost"},                 {0x20, "sw_thermal_slowdown"},
      {0x40, "hw_thermal_slowdown"}, {0x80, "hw_power_brake_slowdown"},  {0x100, "display_clock_setting"}};
  if (!text.starts_with("0x") || text.size() < 3 || text.size() > 18 ||
      text.find_first_not_of("0123456789abcdefABCDEF", 2) != std::string::npos)
    return;
  const std::uint64_t bits = std::stoull(text.substr(2), nullptr, 16);
  for (auto [bit, name] : kReasons) g.throttle[name] = (bits & bit) != 0;
}

void read_cell(const std::string& field, const std::string& text, GpuReading& g) {
  if (field == "clocks_event_reasons.active" || field == "clocks_throttle_reasons.active") return read_reasons(text, g);
  if (text.starts_with("[")) return;  // [N/A], [Not Supported]
  const auto v = leading_number(text);
  if (!v) return;
  if (field == "temperature.gpu") g.temperature_c["gpu"] = *v;
  else if (field == "temperature.memory") g.temperature_c["memory"] = *v;
  else if (field == "power.draw") g.power_w = v;
  // The header names a field canonically: clocks.sm is printed "clocks.current.sm".
  else if (field == "clocks.current.sm" || field == "clocks.sm") g.clock_mhz = v;
  else if (field == "clocks.current.memory" || field == "clocks.mem") g.memory_clock_mhz = v;
  else if (field == "utilization.gpu") g.utilisation_pct = v;
  else if (field == "pcie.link.gen.current" || field == "pcie.link.gen.gpucurrent") g.speed_current = v;
  else if (field == "pcie.link.gen.max" || field == "pcie.link.gen.gpumax") g.speed_max = v;
  else if (field == "pcie.link.width.current") g.width_current = v;
  else if (field == "pcie.link.width.max") g.width_max = v;
}

// ecc.errors.{corrected,uncorrected}.volatile.total: both, or no ECC reading.
void read_ecc(const std::vector<std::string>& fields, const std::vector<std::string>& row, GpuReading& g) {
  std::optional<double> c, u;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (row[i].starts_with("[")) continue;
    if (fields[i] == "ecc.errors.corrected.volatile.total") c = leading_number(row[i]);
    if (fields[i] == "ecc.errors.uncorrected.volatile.total") u = leading_number(row[i]);
  }
  if (c && u) g.ecc = ErrorCounts{*c, *u};
}

}  // namespace

Readings parse_nvidia_smi(std::string_view body) {
  Readings out;
  std::vector<std::string> fields;
  size_t number = 0;
  for (const std::string_view line : text_lines(body)) {
    if (trimmed(line).empty()) continue;
    std::vector<std::string> row = cells(line);
    if (++number == 1) {
      for (auto& f : row) f = trimmed(f.substr(0, f.find(" [")));  // "power.draw [W]" -> "power.draw"
      fields = std::move(row);
      continue;
    }
    auto index = row.empty() ? std::nullopt : leading_number(row[0]);
    if (fields.empty() || fields[0] != "index" || row.size() != fields.size() || !index || *index < 0 ||
        *index > 65535 || row[0].find_first_not_of("0123456789") != std::string::npos) {
      out.errors.push_back("nvidia-smi: unreadable CSV line " + std::to_string(number));
      continue;
    }
    GpuReading& g = out.gpus[static_cast<int>(*index)];
    for (size_t i = 1; i < fields.size(); ++i) read_cell(fields[i], row[i], g);
    read_ecc(fields, row, g);
  }
  if (number == 0) out.errors.push_back("nvidia-smi: no CSV");
  return out;
}

}  // namespace aorta::telemetry
