#include "metrics/run_mismatch.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "metrics/rank_metrics.h"

namespace aorta::metrics {
namespace {

std::string device_of(const std::string& parser) {
  if (parser == parser_name(ParserPath::kGpuTimeline) || parser == parser_name(ParserPath::kTracelensExcel))
    return "GPU";
  if (parser == parser_name(ParserPath::kCpuTimeline)) return "CPU";
  return "unknown";
}

// "tracelens_gpu_timeline x3, basic_scan x1": each parser and its rank count, in first-seen order.
std::string parsers_text(const std::vector<std::string>& parsers) {
  std::vector<std::pair<std::string, size_t>> counts;
  for (const auto& p : parsers) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == p; });
    if (it == counts.end()) counts.emplace_back(p, 1);
    else ++it->second;
  }
  std::vector<std::string> parts;
  for (const auto& [p, n] : counts) parts.push_back(fmt::format("{} x{}", p, n));
  return fmt::format("{}", fmt::join(parts, ", "));
}

// Rank by rank when the counts agree, else which parsers each run used.
bool parsers_differ(const std::vector<std::string>& b, const std::vector<std::string>& c) {
  if (b.size() == c.size()) return b != c;
  auto distinct = [](std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  };
  return distinct(b) != distinct(c);
}

}  // namespace

std::string device_kind(const std::vector<std::string>& rank_parsers) {
  if (rank_parsers.empty()) return "unknown";
  const std::string first = device_of(rank_parsers.front());
  for (const auto& p : rank_parsers)
    if (device_of(p) != first) return "mixed";
  return first;
}

std::vector<std::string> run_mismatches(const RunFigures& baseline, const RunFigures& candidate) {
  std::vector<std::string> out;
  const auto& b = baseline.rank_parsers;
  const auto& c = candidate.rank_parsers;
  if (!b.empty() && !c.empty() && b.size() != c.size())
    out.push_back(fmt::format("rank count differs: baseline {} rank(s), candidate {}; the medians and spreads are "
                              "over different ranks",
                              b.size(), c.size()));
  const std::string bd = device_kind(b), cd = device_kind(c);
  if (!b.empty() && !c.empty() && bd != cd)
    out.push_back(fmt::format("device differs: baseline {} ({}), candidate {} ({}); the times are not of one "
                              "machine, so a change is no regression",
                              bd, parsers_text(b), cd, parsers_text(c)));
  else if (!b.empty() && !c.empty() && parsers_differ(b, c))
    out.push_back(fmt::format("parsers differ: baseline {}, candidate {}; the figures are not measured alike",
                              parsers_text(b), parsers_text(c)));
  for (const auto& [key, value] : baseline.configuration) {
    auto other = candidate.configuration.find(key);
    if (other != candidate.configuration.end() && other->second != value)
      out.push_back(fmt::format("{} differs: baseline {}, candidate {}; the runs are not set up alike", key, value,
                                other->second));
  }
  return out;
}

}  // namespace aorta::metrics
