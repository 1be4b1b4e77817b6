#include "history/run_reports.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <iomanip>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/regular_file.h"
#include "common/utf8.h"
#include "history/headline.h"
#include "metrics/gate_subject.h"

namespace aorta::history {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

// A report of 512 ranks is about 3 MB; a file far past that is not one of ours.
constexpr std::uintmax_t kMaxReportBytes = std::uintmax_t{64} << 20;

std::optional<int> integer(const json& v) {
  return v.is_number_integer() ? std::optional<int>(v.get<int>()) : std::nullopt;
}
std::optional<std::string> text(const json& v) {
  return v.is_string() ? std::optional<std::string>(valid_utf8(v.get<std::string>())) : std::nullopt;
}
const json& at(const json& object, const char* key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::string group_key(const json& report) {
  const json& cluster = at(report, "cluster");
  const int nodes = integer(at(cluster, "nodes")).value_or(0);
  const int gpus = integer(at(cluster, "gpus_per_node")).value_or(0);
  std::string group = fmt::format("{}, {} node{} x {} GPU{}", nodes == 1 ? "aorta_single" : "aorta_distributed", nodes,
                                  nodes == 1 ? "" : "s", gpus, gpus == 1 ? "" : "s");
  const json& configuration = at(report, "configuration");
  if (configuration.is_object())
    for (const auto& [key, value] : configuration.items())  // json objects iterate by key: a stable text
      if (!value.is_null()) group += ", " + valid_utf8(key) + " " + (value.is_string() ? valid_utf8(value.get<std::string>()) : value.dump());
  return group;
}

// A rank-level subject ("node2 rank 3 (GPU 3)") or a GPU's own ("node3 GPU 3": a GPU
// named by its telemetry, no rank), and its node, from an object with node, rank and gpu.
void name_subject(const json& who, bool node_only, const std::string& source, std::vector<Named>& out) {
  metrics::GateSubject s{text(at(who, "node")), integer(at(who, "rank")), integer(at(who, "gpu"))};
  if (s.node) out.push_back({*s.node, "node", source});
  if (node_only) return;
  if (s.rank) out.push_back({s.text(), "rank", source});
  else if (s.node && s.gpu) out.push_back({metrics::GateSubject{s.node, std::nullopt, s.gpu, true}.text(), "gpu", source});
}

// Every node the report's ranks ran on, for the kernel-log findings (their texts name the host).
std::vector<Named> kernel_log_nodes(const json& report) {
  if (at(report, "kernel_log_matches").empty()) return {};  // the usual case: no pattern to build
  std::set<std::string> nodes;
  for (const auto& r : at(report, "per_rank_summary"))
    if (auto node = text(at(r, "node"))) nodes.insert(*node);
  std::vector<Named> out;
  for (const auto& node : nodes) {
    const std::regex word("(^|[^A-Za-z0-9_.-])" + std::regex_replace(node, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                          "($|[^A-Za-z0-9_-])");
    for (const auto& finding : at(report, "kernel_log_matches"))
      if (finding.is_string() && std::regex_search(finding.get<std::string>(), word)) {
        out.push_back({node, "node", "kernel log"});
        break;
      }
  }
  return out;
}

std::vector<Named> named_in(const json& report) {
  std::vector<Named> named;
  for (const auto& o : at(at(report, "diagnosis"), "outliers"))
    name_subject(o, at(o, "of_node").is_boolean() && at(o, "of_node").get<bool>(), "diagnosis", named);
  for (const auto& g : at(report, "gates"))
    if (at(g, "outcome") == "failed" && at(g, "subject").is_object())
      name_subject(at(g, "subject"), false, "gate " + text(at(g, "key")).value_or("?"), named);
  for (auto& n : kernel_log_nodes(report)) named.push_back(std::move(n));
  std::sort(named.begin(), named.end(), [](const Named& a, const Named& b) {
    return std::tie(a.subject, a.source) < std::tie(b.subject, b.source);
  });
  named.erase(std::unique(named.begin(), named.end(),
                          [](const Named& a, const Named& b) { return a.subject == b.subject && a.source == b.source; }),
              named.end());
  return named;
}

// "2026-12-05T13:10:21Z" as seconds since the epoch; none for anything else.
std::optional<double> started_seconds(const json& value) {
  if (!value.is_string()) return std::nullopt;
  std::tm utc{};
  std::istringstream in(value.get<std::string>());
  in >> std::get_time(&utc, "%Y-%m-%dT%H:%M:%SZ");
  if (in.fail()) return std::nullopt;
  return static_cast<double>(timegm(&utc));
}

}  // namespace

std::string group_of(std::string_view report_json) {
  return group_key(json::parse(report_json, nullptr, false));
}

Result<RunReport> parse_run_report(std::string_view text_in, const std::string& source) {
  json report;
  try {
    report = json::parse(text_in);
  } catch (const json::exception& e) {
    return Error{ErrorCode::kInvalidInput, std::string("damaged JSON: ") + e.what(), source};
  }
  if (at(at(report, "tool"), "name") != "aorta_suite" || !at(report, "status").is_string())
    return Error{ErrorCode::kInvalidInput, "not an aorta_suite report (no tool.name aorta_suite, no status)", source};
  RunReport run;
  run.group = group_key(report);
  run.passed = at(report, "status") == "completed" && at(report, "validation_passed") == true;
  const json& performance = at(report, "performance");
  for (const auto* spec : headline_metrics())
    if (const json& v = at(performance, spec->key); v.is_number() && std::isfinite(v.get<double>()))
      run.performance[spec->key] = v.get<double>();
  for (const auto& rank : at(report, "per_rank_summary"))
    for (const auto& step : at(rank, "steps"))
      if (const json& ms = at(step, "step_time_ms"); ms.is_number()) run.step_times_ms.push_back(ms.get<double>());
  run.named = named_in(report);
  run.started = started_seconds(at(report, "started_at"));
  return run;
}

namespace {

// The report files one and two levels below root, by path.
std::vector<fs::path> report_files(const fs::path& root, std::error_code& ec) {
  std::vector<fs::path> found;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code sub;
    if (!it->is_directory(sub)) continue;
    if (fs::path report = it->path() / kReportName; fs::exists(fs::symlink_status(report, sub))) {
      found.push_back(report);
      continue;
    }
    for (fs::directory_iterator in(it->path(), sub), stop; !sub && in != stop; in.increment(sub))
      if (std::error_code e; in->is_directory(e))
        if (fs::path report = in->path() / kReportName; fs::exists(fs::symlink_status(report, e))) found.push_back(report);
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::string why_unread(const FileText& file) {
  switch (file.status) {
    case FileText::Status::kCannotOpen: return "cannot open: " + file.detail;
    case FileText::Status::kNotRegular: return "not a regular file (" + file.detail + ")";
    case FileText::Status::kTooLarge: return fmt::format("{} bytes, more than a report's {}", file.size, kMaxReportBytes);
    case FileText::Status::kReadError: return "read error: " + file.detail;
    case FileText::Status::kRead: break;
  }
  return "";
}

}  // namespace

Result<RunReports> read_run_reports(const fs::path& root) {
  std::error_code ec;
  const std::vector<fs::path> files = report_files(root, ec);
  if (ec) return Error{ErrorCode::kNotFound, "cannot list the run folders: " + ec.message(), root.string()};
  RunReports out;
  for (const auto& path : files) {
    const FileText file = read_regular_file(path, kMaxReportBytes, false);
    if (file.status != FileText::Status::kRead) {
      out.unreadable.push_back({path, why_unread(file)});
      continue;
    }
    auto run = parse_run_report(file.text, path.string());
    if (!run) {
      out.unreadable.push_back({path, run.error().message});
      continue;
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) run->written = static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec * 1e-9;
    run->report = path;
    run->run = path.parent_path().lexically_relative(root).string();
    out.runs.push_back(std::move(*run));
  }
  std::stable_sort(out.runs.begin(), out.runs.end(), [](const RunReport& a, const RunReport& b) {
    return std::make_tuple(a.when(), std::cref(a.run)) < std::make_tuple(b.when(), std::cref(b.run));
  });
  if (out.runs.empty())
    return Error{ErrorCode::kNotFound,
                 fmt::format("no readable {} in its run folders ({} found, {} unreadable)", kReportName, files.size(),
                             out.unreadable.size()),
                 root.string()};
  return out;
}

}  // namespace aorta::history
