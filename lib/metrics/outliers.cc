#include "metrics/outliers.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace aorta::metrics {
namespace {

enum class Worse { kHigher, kLower, kEither };
enum class Family { kCompute, kBandwidth, kIdle, kHostWait };

struct Measure {
  std::string unit;
  Family family;
  Worse worse;
  double min_share;
  std::vector<std::pair<size_t, double>> values;  // (index into ranks, value)
};

// Every rank's values, by measure name.
std::map<std::string, Measure> gather(const std::vector<RankMetrics>& ranks) {
  std::map<std::string, Measure> out;
  for (size_t r = 0; r < ranks.size(); ++r) {
    const RankMetrics& m = ranks[r];
    if (m.idle_time_us) {
      auto& idle = out.try_emplace("GPU idle time", Measure{"us", Family::kIdle, Worse::kEither, 0.10, {}}).first->second;
      idle.values.emplace_back(r, *m.idle_time_us);
    }
    if (!m.diagnosis) continue;
    auto& host = out.try_emplace("GPU host-wait time", Measure{"us", Family::kHostWait, Worse::kHigher, 0.10, {}})
                     .first->second;
    host.values.emplace_back(r, m.diagnosis->idle.host_wait_us);
    for (const KernelClassTime& c : m.diagnosis->classes) {
      if (c.name != "gemm" && c.name != "attention" && c.name != "other_compute") continue;
      auto& k = out.try_emplace(c.name + " mean kernel time", Measure{"us", Family::kCompute, Worse::kHigher, 0.05, {}})
                    .first->second;
      k.values.emplace_back(r, c.time_us / static_cast<double>(c.kernels));
    }
    for (const CollectiveBandwidth& b : m.diagnosis->collectives) {
      if (!b.busbw_gbps) continue;
      const std::string name = fmt::format("{} {} B {} x{} bus bandwidth", b.collective, b.bytes, b.dtype, b.group_size);
      auto& k = out.try_emplace(name, Measure{"GB/s", Family::kBandwidth, Worse::kLower, 0.10, {}}).first->second;
      k.values.emplace_back(r, *b.busbw_gbps);
    }
  }
  return out;
}

std::string percent(double ratio) { return fmt::format("{:.1f}%", std::abs(ratio - 1) * 100); }

std::string reason_of(const Finding& f, Family family, bool other_family_too) {
  const std::string peers = fmt::format("the median of {} ranks", f.ranks);
  switch (family) {
    case Family::kCompute:
      return fmt::format("{} {} slower than {} for the same kernels; {}", f.measure, percent(f.ratio), peers,
                         other_family_too ? "its bus bandwidth is low too: suspect the node (power, clocks)"
                                          : "its bus bandwidth is normal: suspect this GPU (clocks, thermals), not "
                                            "the fabric");
    case Family::kBandwidth:
      return fmt::format("{} {} below {}; {}", f.measure, percent(f.ratio), peers,
                         other_family_too ? "its compute is slow too: suspect the GPU or node"
                                          : "its compute is normal: suspect its link, NIC or switch port, not the GPU");
    case Family::kIdle:
      return fmt::format("{} {} {} {}; {}", f.measure, percent(f.ratio), f.ratio > 1 ? "above" : "below", peers,
                         f.ratio > 1 ? "its GPU waits on its host (launch gaps, input) or on slower peers"
                                     : "its peers wait on it");
    case Family::kHostWait:
      return fmt::format("{} {} above {}: its GPU waits for its host to launch kernels (CPU contention or "
                         "frequency, data loading, Python overhead): suspect the host, not the GPU or the fabric",
                         f.measure, percent(f.ratio), peers);
  }
  return "";
}

bool is_part(Family f) { return f == Family::kCompute || f == Family::kBandwidth; }

// Each known node with two or more ranks whose GPU or link is out of line (compute or
// bandwidth: host waits and idle are no part's fault) gets one finding, before the first
// of them: several sick GPUs of one node point at what they share. Only in a run of two
// nodes or more, where a node has peers to differ from.
std::vector<Finding> with_node_findings(const std::vector<std::pair<Finding, Family>>& found,
                                        const std::vector<RankMetrics>& ranks) {
  std::set<std::string> nodes;
  for (const RankMetrics& r : ranks)
    if (r.node) nodes.insert(*r.node);
  std::map<std::string, std::set<int>> ranks_of;
  for (const auto& [f, family] : found)
    if (f.node && f.rank && is_part(family)) ranks_of[*f.node].insert(*f.rank);
  std::vector<Finding> out;
  std::set<std::string> said;
  for (const auto& [f, family] : found) {
    if (nodes.size() >= 2 && f.node && is_part(family) && ranks_of[*f.node].size() >= 2 &&
        said.insert(*f.node).second) {
      const auto& outliers = ranks_of[*f.node];
      Finding n{.node = f.node, .measure = "outlier ranks", .unit = "ranks",
                .value = static_cast<double>(outliers.size()), .ranks = f.ranks, .ratio = f.ratio, .of_node = true};
      n.reason = fmt::format("{} of its ranks have slow compute or bandwidth (ranks {}): suspect what they share (the "
                             "node's power, cooling, PCIe switch or NIC), not one GPU",
                             outliers.size(), fmt::join(outliers, ", "));
      out.push_back(std::move(n));
    }
    out.push_back(f);
  }
  return out;
}

}  // namespace

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::vector<Finding> find_outliers(const std::vector<RankMetrics>& ranks) {
  std::vector<std::pair<Finding, Family>> found;
  for (const auto& [name, m] : gather(ranks)) {
    if (m.values.size() < kMinRanks) continue;
    std::vector<double> xs, deviations;
    for (const auto& v : m.values) xs.push_back(v.second);
    const double median = median_of(xs);
    for (double x : xs) deviations.push_back(std::abs(x - median));
    const double spread = 3.5 * 1.4826 * median_of(deviations);
    if (!(median > 0)) continue;
    for (const auto& [r, x] : m.values) {
      const double ratio = x / median;
      const bool worse = m.worse == Worse::kEither || (m.worse == Worse::kHigher) == (x > median);
      if (!worse || std::abs(x - median) <= spread || std::abs(ratio - 1) < m.min_share) continue;
      found.push_back({{ranks[r].rank, ranks[r].node, ranks[r].gpu, ranks[r].source, name, m.unit, x, median, xs.size(), ratio, ""},
                       m.family});
    }
  }
  // A rank with compute and bandwidth findings both points at the node, not one part.
  std::set<std::pair<std::string, Family>> families;
  for (const auto& [f, family] : found) families.insert({f.source, family});
  for (auto& [f, family] : found) {
    const Family other = family == Family::kCompute ? Family::kBandwidth : Family::kCompute;
    f.reason = reason_of(f, family, is_part(family) && families.count({f.source, other}) > 0);
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return std::abs(a.first.ratio - 1) > std::abs(b.first.ratio - 1);
  });
  return with_node_findings(found, ranks);
}

}  // namespace aorta::metrics
