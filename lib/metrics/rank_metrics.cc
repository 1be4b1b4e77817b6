#include "metrics/rank_metrics.h"

#include <algorithm>

namespace aorta::metrics {
namespace {

double ratio(double part, double whole) { return whole > 0 ? part / whole : 0.0; }

}  // namespace

const char* parser_name(ParserPath path) {
  switch (path) {
    case ParserPath::kGpuTimeline: return "tracelens_gpu_timeline";
    case ParserPath::kCpuTimeline: return "cpu_timeline";
    case ParserPath::kBasicScan: return "basic_scan";
    case ParserPath::kTracelensExcel: return "tracelens_excel";
  }
  return "unknown";
}

RankMetrics from_timeline(const trace::Breakdown& b) {
  RankMetrics m;
  m.parser = ParserPath::kGpuTimeline;
  m.total_time_us = b.total_time;
  m.compute_time_us = b.computation_time;
  m.comm_time_us = b.exposed_comm_time;
  m.total_comm_time_us = b.total_comm_time;
  m.exposed_comm_time_us = b.exposed_comm_time;
  m.total_memcpy_time_us = b.total_memcpy_time;
  m.exposed_memcpy_time_us = b.exposed_memcpy_time;
  m.busy_time_us = b.busy_time;
  m.idle_time_us = b.idle_time;
  m.compute_ratio = ratio(b.computation_time, b.total_time);
  m.comm_ratio = ratio(b.exposed_comm_time, b.total_time);
  m.exposed_comm_ratio = m.comm_ratio;
  m.overlap_ratio = ratio(b.comp_comm_overlap_time, b.total_comm_time);
  return m;
}

RankMetrics from_cpu_timeline(const trace::Breakdown& b) {
  RankMetrics m = from_timeline(b);
  m.parser = ParserPath::kCpuTimeline;
  m.total_memcpy_time_us.reset();
  m.exposed_memcpy_time_us.reset();
  return m;
}

RankMetrics from_basic_scan(const trace::BasicScan& s) {
  RankMetrics m;
  m.parser = ParserPath::kBasicScan;
  m.total_time_us = s.total;
  if (m.total_time_us == 0 && s.has_ts) m.total_time_us = s.max_end - s.min_ts;
  m.compute_time_us = s.compute;
  m.comm_time_us = s.comm;
  m.total_comm_time_us = s.comm;
  m.compute_ratio = ratio(s.compute, m.total_time_us);
  m.comm_ratio = ratio(s.comm, m.total_time_us);
  m.overlap_ratio = s.comm > 0 ? std::max(0.0, s.compute + s.comm - m.total_time_us) / s.comm : 0.0;
  return m;
}

}  // namespace aorta::metrics
