#include "tracelens/excel_reports.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/utf8.h"
#include "trace/trace_files.h"
#include "tracelens/workbook.h"

namespace aorta::tracelens {
namespace fs = std::filesystem;

std::vector<fs::path> find_excel_reports(const fs::path& analysis_dir) {
  std::vector<fs::path> per_rank, per_channel;
  std::error_code ec;
  for (fs::directory_iterator it(analysis_dir / "individual_reports", ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!name.ends_with(".xlsx") || !it->is_regular_file(ec)) continue;
    if (name.starts_with("perf_rank")) per_rank.push_back(it->path());
    else if (name.starts_with("perf_") && name.find("ch_rank") != std::string::npos) per_channel.push_back(it->path());
  }
  std::sort(per_rank.begin(), per_rank.end());
  std::sort(per_channel.begin(), per_channel.end());
  return per_rank.empty() ? per_channel : per_rank;
}

namespace {

// A report's gpu_timeline rows in ms. A missing row is 0, as in the original, but said
// (a renamed row would read as 0); a sheet without a total or with a time too large to
// be one is no breakdown.
Result<trace::Breakdown> breakdown(const std::map<std::string, double>& sheet, const std::string& name,
                                   std::vector<std::string>& warnings) {
  for (const char* row : {"total_time", "computation_time", "exposed_comm_time", "total_comm_time"})
    if (!sheet.count(row)) warnings.push_back(name + ": its gpu_timeline has no " + row + " row; taken as 0");
  auto ms = [&](const char* row) { return sheet.count(row) ? sheet.at(row) * 1000.0 : 0.0; };
  trace::Breakdown b;
  b.total_time = ms("total_time");
  b.computation_time = ms("computation_time");
  b.exposed_comm_time = ms("exposed_comm_time");
  b.total_comm_time = ms("total_comm_time");
  b.exposed_memcpy_time = ms("exposed_memcpy_time");
  b.total_memcpy_time = ms("total_memcpy_time");
  b.busy_time = ms("busy_time");
  b.idle_time = ms("idle_time");
  // Exposed comm is the communication no compute covers: the rest ran under compute.
  b.comp_comm_overlap_time = std::max(0.0, b.total_comm_time - b.exposed_comm_time);
  if (b.total_time <= 0) return Error{ErrorCode::kInvalidInput, "its gpu_timeline has no total_time", name};
  bool finite = true;
  for (double v : {b.total_time, b.computation_time, b.exposed_comm_time, b.total_comm_time, b.exposed_memcpy_time,
                   b.total_memcpy_time, b.busy_time, b.idle_time})
    finite = finite && std::isfinite(v);
  if (!finite) return Error{ErrorCode::kInvalidInput, "a time in its gpu_timeline is too large to be one", name};
  return b;
}

}  // namespace

metrics::TraceSet parse_excel_reports(const fs::path& analysis_dir) {
  metrics::TraceSet set;
  const fs::path individual = analysis_dir / "individual_reports";
  std::error_code ec;
  if (!fs::is_directory(individual, ec)) {
    set.errors.push_back("Individual reports not found: " + valid_utf8(individual.string()));
    return set;
  }
  std::vector<fs::path> reports = find_excel_reports(analysis_dir);
  set.files_found = reports.size();
  if (reports.empty()) {
    set.errors.push_back("No perf_rank*.xlsx files found in " + valid_utf8(individual.string()));
    return set;
  }
  std::map<int, std::string> seen;  // rank -> the report it came from
  for (const auto& report : reports) {
    const std::string name = valid_utf8(report.filename().string());
    auto sheet = read_gpu_timeline(report);
    if (!sheet) {
      set.warnings.push_back("Failed to parse " + name + ": " + valid_utf8(sheet.error().message));
      continue;
    }
    auto b = breakdown(*sheet, name, set.warnings);
    if (!b) {
      set.warnings.push_back("Failed to parse " + name + ": " + b.error().message);
      continue;
    }
    metrics::RankMetrics m = metrics::from_timeline(*b);
    m.parser = metrics::ParserPath::kTracelensExcel;
    m.source = valid_utf8(report.string());
    m.rank = trace::rank_from_path(report.filename());
    m.rank_source = m.rank ? "path" : "unknown";
    if (!m.rank) set.warnings.push_back(name + ": no rank in the file name; its rank is unknown");
    if (m.rank && !seen.emplace(*m.rank, name).second) {
      set.warnings.push_back("duplicate rank " + std::to_string(*m.rank) + ": " + name + " ignored, the rank is read from " +
                             seen[*m.rank]);
      continue;
    }
    set.ranks.push_back(std::move(m));
    ++set.files_parsed;
  }
  if (set.ranks.empty()) {
    set.errors.push_back("No reports could be parsed");
    set.status = metrics::ParseStatus::kFailed;
  } else {
    set.status = set.files_parsed < set.files_found ? metrics::ParseStatus::kPartial : metrics::ParseStatus::kSuccess;
  }
  return set;
}

}  // namespace aorta::tracelens
