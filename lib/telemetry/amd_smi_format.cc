#include "telemetry/amd_smi_format.h"

#include "telemetry/value_text.h"

namespace aorta::telemetry {
namespace {

using nlohmann::json;

const json& member(const json& o, const char* key) {
  static const json kNull;
  return o.is_object() && o.contains(key) ? o[key] : kNull;
}

void read_temperatures(const json& t, GpuReading& g) {
  for (auto [key, name] : {std::pair{"edge", "edge"}, {"hotspot", "hotspot"}, {"mem", "memory"}})
    if (auto v = json_number(member(t, key))) g.temperature_c[name] = *v;
}

// metric --throttle: each *_violation_status is "ACTIVE" / "NOT ACTIVE" (MI300+);
// power.throttle_status "THROTTLED" / "UNTHROTTLED" on older boards.
void read_throttle(const json& gpu, GpuReading& g) {
  const json& t = member(gpu, "throttle");
  if (t.is_object())
    for (const auto& [key, value] : t.items()) {
      const std::string suffix = "_violation_status";
      if (!value.is_string() || key.size() <= suffix.size() || !key.ends_with(suffix)) continue;
      const std::string& s = value.get_ref<const std::string&>();
      if (s == "ACTIVE" || s == "NOT ACTIVE") g.throttle[key.substr(0, key.size() - suffix.size())] = s == "ACTIVE";
    }
  const json& status = member(member(gpu, "power"), "throttle_status");
  if (status == "THROTTLED" || status == "UNTHROTTLED") g.throttle["throttle_status"] = status == "THROTTLED";
}

std::optional<ErrorCounts> counts(const json& o, const char* correctable, const char* uncorrectable) {
  auto c = json_number(member(o, correctable));
  auto u = json_number(member(o, uncorrectable));
  if (!c || !u) return std::nullopt;
  return ErrorCounts{*c, *u};
}

void read_edge(const json& gpu, GpuReading& g) {
  if (auto e = counts(member(gpu, "ecc"), "total_correctable_count", "total_uncorrectable_count")) g.ecc = e;
  const json& blocks = member(gpu, "ecc_blocks");
  if (blocks.is_object())
    for (const auto& [block, value] : blocks.items())
      if (auto e = counts(value, "correctable_count", "uncorrectable_count")) g.ecc_blocks[block] = *e;
  const json& pcie = member(gpu, "pcie");
  if (auto v = json_number(member(pcie, "width"))) g.width_current = v;
  if (auto v = json_number(member(pcie, "speed"))) g.speed_current = v;
  if (auto v = json_number(member(pcie, "replay_count"))) g.replays = v;
  const json& bus = member(gpu, "bus");  // static --bus
  if (auto v = json_number(member(bus, "max_pcie_width"))) g.width_max = v;
  if (auto v = json_number(member(bus, "max_pcie_speed"))) g.speed_max = v;
}

void read_gpu(const json& gpu, GpuReading& g) {
  read_temperatures(member(gpu, "temperature"), g);
  if (auto v = json_number(member(member(gpu, "power"), "socket_power"))) g.power_w = v;
  const json& clock = member(gpu, "clock");
  if (auto v = json_number(member(member(clock, "gfx_0"), "clk"))) g.clock_mhz = v;
  if (auto v = json_number(member(member(clock, "mem_0"), "clk"))) g.memory_clock_mhz = v;
  if (auto v = json_number(member(member(gpu, "usage"), "gfx_activity"))) g.utilisation_pct = v;
  read_throttle(gpu, g);
  read_edge(gpu, g);
}

// Newer amd-smi wraps the list: {"gpu_data": [...]}.
const json& gpu_list(const json& doc) { return doc.is_object() ? member(doc, "gpu_data") : doc; }

}  // namespace

Readings parse_amd_smi(std::string_view body) {
  Readings out;
  const auto docs = json_documents(body);
  if (docs.empty()) out.errors.push_back("amd-smi: no JSON");
  for (std::string_view text : docs) {
    const json doc = json::parse(text, nullptr, false);
    if (doc.is_discarded()) {
      out.errors.push_back("amd-smi: JSON that does not parse (" + std::to_string(text.size()) + " bytes)");
      continue;
    }
    const json& list = gpu_list(doc);
    if (!list.is_array()) {
      out.errors.push_back("amd-smi: JSON without a list of GPUs");
      continue;
    }
    for (const json& gpu : list) {
      const json& index = member(gpu, "gpu");
      if (!index.is_number_integer() || index.get<long long>() < 0 || index.get<long long>() > 65535) {
        out.errors.push_back("amd-smi: a GPU without a valid \"gpu\" index");
        continue;
      }
      read_gpu(gpu, out.gpus[index.get<int>()]);
    }
  }
  return out;
}

}  // namespace aorta::telemetry
