#include "telemetry/rocm_smi_format.h"

#include <algorithm>

#include "telemetry/value_text.h"

namespace aorta::telemetry {
namespace {

using nlohmann::json;

// "16.0GT/s x16" -> {16, 16}; nothing when the text is not a PCIe level.
std::optional<std::pair<double, double>> pcie_level(std::string_view text) {
  const size_t gt = text.find("GT/s x");
  if (gt == std::string_view::npos) return std::nullopt;
  size_t from = text.find_last_of(" (", gt);
  auto speed = leading_number(text.substr(from == std::string_view::npos ? 0 : from + 1, gt));
  auto width = leading_number(text.substr(gt + 6));
  if (!speed || !width) return std::nullopt;
  return std::pair{*speed, *width};
}

void read_pcie(const std::string& key, const std::string& value, GpuReading& g) {
  auto level = pcie_level(value);
  if (!level) return;
  if (key == "pcie clock level") {
    g.speed_current = level->first;
    g.width_current = level->second;
  } else if (!key.empty() && key.find_first_not_of("0123456789") == std::string::npos) {
    g.speed_max = std::max(g.speed_max.value_or(0), level->first);
    g.width_max = std::max(g.width_max.value_or(0), level->second);
  }
}

void read_card(const json& card, GpuReading& g) {
  static const std::pair<const char*, const char*> kSensors[] = {
      {"Temperature (Sensor edge) (C)", "edge"},
      {"Temperature (Sensor junction) (C)", "hotspot"},
      {"Temperature (Sensor memory) (C)", "memory"}};
  for (const auto& [key, value] : card.items()) {
    if (!value.is_string()) continue;
    const std::string& text = value.get_ref<const std::string&>();
    for (auto [label, name] : kSensors)
      if (key == label)
        if (auto v = json_number(value)) g.temperature_c[name] = *v;
    auto v = json_number(value);
    if (key.find("Graphics Package Power (W)") != std::string::npos && v) g.power_w = v;
    if (key == "sclk clock speed:" && v) g.clock_mhz = v;
    if (key == "mclk clock speed:" && v) g.memory_clock_mhz = v;
    if (key == "GPU use (%)" && v) g.utilisation_pct = v;
    if (key == "PCIe Replay Count" && v) g.replays = v;
    read_pcie(key, text, g);
  }
}

}  // namespace

Readings parse_rocm_smi(std::string_view body) {
  Readings out;
  const json doc = json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    out.errors.push_back("rocm-smi: not a JSON object (" + std::to_string(body.size()) + " bytes)");
    return out;
  }
  for (const auto& [key, card] : doc.items()) {
    if (!key.starts_with("card")) continue;  // "system"
    auto index = leading_number(std::string_view(key).substr(4));
    if (!card.is_object() || !index || *index < 0 || *index > 65535 ||
        key.find_first_not_of("0123456789", 4) != std::string::npos) {
      out.errors.push_back("rocm-smi: unreadable entry " + key.substr(0, 40));
      continue;
    }
    read_card(card, out.gpus[static_cast<int>(*index)]);
  }
  return out;
}

}  // namespace aorta::telemetry
