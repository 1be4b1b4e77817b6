#include "telemetry/summary.h"

#include <algorithm>

#include "common/regular_file.h"
#include "telemetry/gpu_series.h"

namespace aorta::telemetry {
namespace {

namespace fs = std::filesystem;

// A sample file is bounded by the sampler's cap; a larger one is read this far.
constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{256} << 20;

void bound_errors(std::vector<std::string>& errors) {
  if (errors.size() <= kMaxNodeErrors) return;
  const size_t more = errors.size() - kMaxNodeErrors;
  errors.resize(kMaxNodeErrors);
  errors.push_back(std::to_string(more) + " more error(s)");
}

// node-<i>.log's i, for the cluster's order; files without one sort after, by name.
std::pair<long long, std::string> node_order(const fs::path& p) {
  const std::string stem = p.stem().string();
  if (stem.starts_with("node-") && stem.size() > 5 && stem.size() < 15 &&
      stem.find_first_not_of("0123456789", 5) == std::string::npos)
    return {std::stoll(stem.substr(5)), stem};
  return {1LL << 62, stem};
}

}  // namespace

RunTelemetry summarise(const std::vector<NamedSamples>& files) {
  RunTelemetry run;
  std::vector<GpuSeries> series;
  for (const NamedSamples& f : files) {
    const SampleFile file = read_sample_file(f.text);
    NodeTelemetry node;
    node.host = file.host.empty() ? f.name : file.host;
    node.tool = file.tool.empty() ? "unknown" : file.tool;
    node.truncated = file.truncated;
    for (const auto& e : file.errors) node.errors.push_back(f.name + " " + e);
    for (GpuSeries& s : node_series(file, f.name, node.errors)) {
      s.host = node.host;
      series.push_back(std::move(s));
    }
    bound_errors(node.errors);
    run.nodes.push_back(std::move(node));
  }
  run.fleet_clock_median_mhz = fleet_clock_median(series);
  for (const GpuSeries& s : series) run.gpus.push_back(summarise_gpu(s, run.fleet_clock_median_mhz));
  return run;
}

RunTelemetry summarise(const std::vector<fs::path>& files) {
  std::vector<NamedSamples> texts;
  for (const fs::path& p : files) {
    // Only a regular file, never waited on (a FIFO left there): anything else, one past
    // the sampler's own cap or one that cannot be read reads as empty, and its node is
    // named with "no header".
    FileText file = read_regular_file(p, kMaxFileBytes, /*follow_links=*/true);
    texts.push_back({p.filename().string(), file.status == FileText::Status::kRead ? std::move(file.text) : ""});
  }
  return summarise(texts);
}

std::optional<RunTelemetry> read_telemetry_folder(const fs::path& folder) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return std::nullopt;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(folder, ec))
    if (entry.path().extension() == ".log" && entry.is_regular_file(ec)) files.push_back(entry.path());
  if (files.empty()) return std::nullopt;
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) { return node_order(a) < node_order(b); });
  return summarise(files);
}

std::optional<RunTelemetry> read_telemetry_beside(const fs::path& traces) {
  if (auto inside = read_telemetry_folder(traces / "telemetry")) return inside;
  const fs::path folder = traces.has_filename() ? traces : traces.parent_path();  // "run/torch_traces/"
  return read_telemetry_folder(folder.parent_path() / "telemetry");
}

}  // namespace aorta::telemetry
