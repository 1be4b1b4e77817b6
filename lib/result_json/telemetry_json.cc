#include "result_json/telemetry_json.h"

#include "common/utf8.h"
#include "result_json/metrics_json.h"
#include "redact/redact.h"

namespace aorta::result_json {
namespace {

using ordered_json = nlohmann::ordered_json;
using namespace telemetry;

ordered_json mean_max_json(const MeanMax& m) { return {{"mean", m.mean}, {"max", m.max}}; }

ordered_json counts_json(const ErrorCounts& e) {
  return {{"correctable", e.correctable}, {"uncorrectable", e.uncorrectable}};
}

ordered_json link_json(const std::optional<LinkState>& link) {
  if (!link) return nullptr;
  return {{"speed_current", optional_number(link->speed_current)}, {"speed_max", optional_number(link->speed_max)},
          {"width_current", optional_number(link->width_current)}, {"width_max", optional_number(link->width_max)},
          {"replay_delta", optional_number(link->replay_delta)},   {"downgraded", link->downgraded}};
}

ordered_json gpu_json(const GpuTelemetry& g) {
  ordered_json o;
  o["node"] = valid_utf8(g.host);
  o["gpu"] = g.gpu;
  o["samples"] = g.samples;
  o["window_seconds"] = g.window_seconds;
  ordered_json temps = ordered_json::object();
  for (const auto& [sensor, m] : g.temperature_c) temps[valid_utf8(sensor)] = mean_max_json(m);
  o["temperature_c"] = temps;
  o["power_w"] = g.power_w ? mean_max_json(*g.power_w) : ordered_json(nullptr);
  o["clock_median_mhz"] = optional_number(g.clock_median_mhz);
  o["memory_clock_median_mhz"] = optional_number(g.memory_clock_median_mhz);
  o["utilisation_mean_pct"] = optional_number(g.utilisation_mean_pct);
  o["share_under_fleet_clock"] = optional_number(g.share_under_fleet_clock);
  ordered_json throttle = ordered_json::object();
  for (const auto& [reason, share] : g.throttle_share) throttle[valid_utf8(reason)] = share;
  o["throttle_share"] = throttle;
  o["ecc"] = g.ecc ? counts_json(*g.ecc) : ordered_json(nullptr);
  ordered_json blocks = ordered_json::object();
  for (const auto& [block, counts] : g.ecc_blocks) blocks[valid_utf8(block)] = counts_json(counts);
  o["ecc_blocks"] = blocks;
  o["link"] = link_json(g.link);
  return o;
}

}  // namespace

ordered_json telemetry_json(const RunTelemetry& run) {
  ordered_json nodes = ordered_json::array();
  for (const NodeTelemetry& n : run.nodes) {
    ordered_json errors = ordered_json::array();  // a tool's output quoted: any bytes
    for (const auto& e : n.errors) errors.push_back(valid_utf8(redact::redact_text(e)));
    nodes.push_back({{"node", valid_utf8(n.host)}, {"tool", valid_utf8(n.tool)}, {"errors", errors},
                     {"truncated", n.truncated}});
  }
  ordered_json gpus = ordered_json::array();
  for (const GpuTelemetry& g : run.gpus) gpus.push_back(gpu_json(g));
  return {{"fleet_clock_median_mhz", optional_number(run.fleet_clock_median_mhz)}, {"nodes", nodes}, {"gpus", gpus}};
}

}  // namespace aorta::result_json
