#include "report/run_figures.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "common/regular_file.h"
#include "common/utf8.h"
#include "metrics/trace_set.h"
#include "report/compare_diagnosis.h"

namespace aorta::report {
namespace fs = std::filesystem;
namespace {

constexpr std::uintmax_t kMaxReportBytes = std::uintmax_t{256} << 20;

// Where a value sits in a report, as far as compare cares: the figures are the numbers
// at performance.<compared metric> and per_rank_summary[*].steps[*].step_time_ms.
// The diagnosis object is kept whole and read by shape afterwards (compare_diagnosis.h),
// in a json whose objects are maps: an nlohmann::ordered_json object finds a key by scanning all
// of them, so a hostile object of a million keys took about an hour.
enum class Place {
  kOther, kRoot, kPerformance, kMetric, kRanks, kRank, kSteps, kStep, kStepTime, kDiagnosis,
  kParse, kParseStatus, kParseErrors,  // parse.status and parse.errors: a partial parse is refused
  kParser, kConfiguration, kSetting     // what ran: per_rank_summary[*].parser, configuration.*, kernel_selection
};

constexpr std::size_t kErrorsNamed = 3;  // a partial input's errors shown in its refusal

// The figures read as the parser goes, with no document built (the tree of a 100 MiB
// `[[],[],...]` took 2.3 GB); the first value past a limit stops the parse.
class FiguresReader : public nlohmann::json_sax<nlohmann::ordered_json> {
 public:
  FiguresReader(const std::string& source, const ReportLimits& limits) : limits_(limits) { figures.source = source; }

  metrics::RunFigures figures;
  bool has_performance = false;
  std::optional<nlohmann::json> diagnosis;  // the top-level "diagnosis" value
  std::string parse_status;                 // parse.status: "success", "partial", "failed"
  std::vector<std::string> parse_errors;    // the first kErrorsNamed of parse.errors
  std::size_t parse_error_count = 0;
  std::string refused;  // the limit passed; empty when none was

  bool null() override { return keep(nullptr, false) && value(); }
  bool boolean(bool v) override { return keep(v, false) && setting(v ? "true" : "false") && value(); }
  bool number_integer(number_integer_t v) override { return keep(v, false) && number(static_cast<double>(v)); }
  bool number_unsigned(number_unsigned_t v) override { return keep(v, false) && number(static_cast<double>(v)); }
  bool number_float(number_float_t v, const string_t&) override { return keep(v, false) && number(v); }
  bool string(string_t& v) override {
    if (!keep(v, false)) return false;
    const Place place = next();
    if (place == Place::kParseStatus) parse_status = v;
    if (place == Place::kParseErrors && ++parse_error_count <= kErrorsNamed) parse_errors.push_back(valid_utf8(v));
    if (place == Place::kParser) figures.rank_parsers.push_back(valid_utf8(v));
    if (place == Place::kSetting) figures.configuration[frames_.back().metric] = valid_utf8(v);
    return value();
  }
  bool binary(binary_t&) override { return keep(nullptr, false) && value(); }
  bool start_object(std::size_t) override {
    if (!keep(nlohmann::json::object(), true)) return false;
    Place place = next();
    if (place != Place::kRoot && place != Place::kPerformance && place != Place::kRank && place != Place::kStep &&
        place != Place::kParse && place != Place::kConfiguration)
      place = Place::kOther;
    has_performance = has_performance || place == Place::kPerformance;
    return open(place);
  }
  bool key(string_t& name) override {
    Frame& f = frames_.back();
    f.metric.clear();
    f.child = Place::kOther;
    key_ = name;
    if (f.place == Place::kRoot && name == "performance") f.child = Place::kPerformance;
    else if (f.place == Place::kRoot && name == "diagnosis") f.child = Place::kDiagnosis;
    else if (f.place == Place::kRoot && name == "per_rank_summary") f.child = Place::kRanks;
    else if (f.place == Place::kRoot && name == "parse") f.child = Place::kParse;
    else if (f.place == Place::kRoot && name == "configuration") f.child = Place::kConfiguration;
    else if ((f.place == Place::kRoot && name == "kernel_selection") || f.place == Place::kConfiguration) {
      f.child = Place::kSetting;
      f.metric = name;
    }
    else if (f.place == Place::kRank && name == "parser") f.child = Place::kParser;
    else if (f.place == Place::kParse && name == "status") f.child = Place::kParseStatus;
    else if (f.place == Place::kParse && name == "errors") f.child = Place::kParseErrors;
    else if (f.place == Place::kRank && name == "steps") f.child = Place::kSteps;
    else if (f.place == Place::kStep && name == "step_time_ms") f.child = Place::kStepTime;
    else if (f.place == Place::kPerformance && std::find(compared_.begin(), compared_.end(), name) != compared_.end()) {
      f.child = Place::kMetric;
      f.metric = name;
    }
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override {
    if (!keep(nlohmann::json::array(), true)) return false;
    const Place place = next();
    return open(place == Place::kRanks || place == Place::kSteps || place == Place::kParseErrors ? place
                                                                                                  : Place::kOther);
  }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  struct Frame {
    Place place;
    Place child = Place::kOther;  // the place of the value being read in it
    std::string metric;           // child kMetric: which
  };
  const ReportLimits& limits_;
  const std::vector<std::string> compared_ = metrics::figure_metrics();
  std::vector<Frame> frames_;
  std::size_t values_ = 0;
  std::vector<nlohmann::json*> tree_;  // the open containers of the diagnosis being kept
  std::string key_;                  // the last key read
  std::size_t kept_ = 0;

  // Keeps a value of the diagnosis (its root or inside it); a container becomes where
  // the values after it go until it closes.
  bool keep(nlohmann::json v, bool container) {
    if (tree_.empty()) {
      if (next() != Place::kDiagnosis) return true;
      diagnosis = std::move(v);
      if (container) tree_.push_back(&*diagnosis);
      return true;
    }
    if (++kept_ > limits_.max_diagnosis_values)
      return refuse("holds more than " + std::to_string(limits_.max_diagnosis_values) +
                    " values in its diagnosis (a report holds about 100 a rank)");
    nlohmann::json& top = *tree_.back();
    nlohmann::json* at = &top;
    if (top.is_object()) {
      at = &(top[key_] = std::move(v));
    } else {
      top.push_back(std::move(v));
      at = &top.back();
    }
    if (container) tree_.push_back(at);
    return true;
  }

  // The place of the value that starts now.
  Place next() const {
    if (frames_.empty()) return Place::kRoot;
    const Frame& f = frames_.back();
    if (f.place == Place::kRanks) return Place::kRank;
    if (f.place == Place::kSteps) return Place::kStep;
    if (f.place == Place::kParseErrors) return Place::kParseErrors;  // each of its strings
    return f.child;
  }
  bool refuse(std::string why) {
    refused = figures.source + ": " + std::move(why);
    return false;
  }
  bool value() {
    if (++values_ > limits_.max_values)
      return refuse("holds more than " + std::to_string(limits_.max_values) +
                    " JSON values (a report holds about 10 a step)");
    return true;
  }
  // A recorded setting's value as text (a string is taken in string()).
  bool setting(const std::string& text) {
    if (next() == Place::kSetting) figures.configuration[frames_.back().metric] = text;
    return true;
  }
  bool number(double v) {
    const Place place = next();
    if (place == Place::kSetting) figures.configuration[frames_.back().metric] = fmt::format("{}", v);
    if (place == Place::kMetric) figures.performance[frames_.back().metric] = v;
    if (place == Place::kStepTime) {
      if (figures.step_times_ms.size() == limits_.max_step_times)
        return refuse("holds more than " + std::to_string(limits_.max_step_times) + " step times");
      figures.step_times_ms.push_back(v);
    }
    return value();
  }
  bool open(Place place) {
    if (frames_.size() == limits_.max_depth)
      return refuse("nests deeper than " + std::to_string(limits_.max_depth) +
                    " levels of arrays and objects (a report nests 5)");
    frames_.push_back(Frame{place, Place::kOther, {}});
    return value();
  }
  bool close() {
    if (!tree_.empty()) tree_.pop_back();
    frames_.pop_back();
    return true;
  }
};

// A run whose traces parsed in part holds only the ranks that did: compare judging it
// would pass a run that lost its slow rank (issue 42, 6). Names the input and why.
Error partial_input(const std::string& source, const std::string& status, const std::vector<std::string>& named,
                    std::size_t errors) {
  std::string why;
  for (const auto& e : named) why += (why.empty() ? "" : "; ") + e;
  if (errors > named.size()) why += "; and " + std::to_string(errors - named.size()) + " more";
  return Error{ErrorCode::kInvalidInput,
               source + ": its traces parsed in part (parse " + status +
                   "), so compare would judge the run by the ranks that did; not compared: " + why,
               source};
}

}  // namespace

metrics::RunFigures run_figures(const metrics::RunMetrics& run, const std::string& source) {
  metrics::RunFigures f;
  f.source = source;
  const nlohmann::ordered_json performance = result_json::performance_json(run);
  for (const auto& key : metrics::figure_metrics())
    if (performance.contains(key) && performance[key].is_number()) f.performance[key] = performance[key].get<double>();
  for (const auto& rank : run.per_rank) {
    for (const auto& step : rank.steps) f.step_times_ms.push_back(step.time_ms);
    f.rank_parsers.push_back(metrics::parser_name(rank.parser));
  }
  f.diagnosis = metrics::diagnosis_figures(run.per_rank);
  if (!f.diagnosis) f.no_diagnosis = kNoRankDiagnosed;
  return f;
}

// A JSON file, a run folder holding aorta_benchmark_report.json, or a trace folder.
Result<metrics::RunFigures> load_run_figures(const fs::path& path) {
  const std::string source = valid_utf8(path.string());
  std::error_code ec;
  fs::path file = path;
  if (fs::is_directory(path, ec)) {
    file = path / "aorta_benchmark_report.json";
    if (!fs::exists(file, ec)) {
      metrics::TraceSet set = metrics::analyze_traces(path, {});
      if (set.ranks.empty())
        return Error{ErrorCode::kInvalidInput,
                     source + ": neither aorta_benchmark_report.json nor traces that parse (" +
                         (set.errors.empty() ? std::string("none found") : set.errors.front()) + ")",
                     source};
      if (set.status != metrics::ParseStatus::kSuccess) {
        const std::size_t named = std::min(set.errors.size(), kErrorsNamed);
        return partial_input(source, metrics::status_name(set.status),
                             {set.errors.begin(), set.errors.begin() + static_cast<std::ptrdiff_t>(named)},
                             set.errors.size());
      }
      auto run = metrics::aggregate(set.ranks);
      if (!run) return Error{ErrorCode::kInvalidInput, source + ": " + run.error().message, source};
      metrics::RunFigures figures = run_figures(*run, source);
      figures.configuration["kernel_selection"] = "linked_only";  // analyze_traces' default, as analyze records it
      return figures;
    }
  }
  // A report is kilobytes; a trace or a device given by mistake must not be read whole,
  // and a FIFO must not block the run.
  FileText read = read_regular_file(file, kMaxReportBytes, true);
  if (read.status == FileText::Status::kTooLarge)
    return Error{ErrorCode::kInvalidInput,
                 valid_utf8(file.string()) + ": " + std::to_string(read.size) + " bytes is too large for a report JSON",
                 source};
  if (read.status != FileText::Status::kRead)
    return Error{ErrorCode::kIo, valid_utf8(file.string()) + ": cannot be read (" + read.detail + ")", source};
  return figures_from_json(read.text, valid_utf8(file.string()));
}

Result<metrics::RunFigures> figures_from_json(std::string_view text, const std::string& source,
                                              const ReportLimits& limits) {
  FiguresReader reader(source, limits);
  if (!nlohmann::ordered_json::sax_parse(text.begin(), text.end(), &reader))
    return Error{ErrorCode::kInvalidInput, reader.refused.empty() ? source + ": not JSON" : reader.refused, source};
  if (!reader.has_performance)
    return Error{ErrorCode::kInvalidInput, source + ": no \"performance\" object: not a report or analyze JSON", source};
  if (reader.parse_status == "partial" || reader.parse_status == "failed")
    return partial_input(source, reader.parse_status, reader.parse_errors, reader.parse_error_count);
  if (reader.diagnosis) read_diagnosis(*reader.diagnosis, reader.figures);
  else reader.figures.no_diagnosis = "no \"diagnosis\" object (a report from before the diagnosis)";
  return std::move(reader.figures);
}

nlohmann::ordered_json comparison_json(const metrics::Comparison& c, const metrics::RunFigures& base,
                             const metrics::RunFigures& cand) {
  auto optional = [](const std::optional<double>& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr); };
  nlohmann::ordered_json doc;
  doc["baseline"] = base.source;
  doc["candidate"] = cand.source;
  doc["metrics"] = nlohmann::ordered_json::array();
  for (const auto& m : c.metrics)
    doc["metrics"].push_back({{"metric", m.key}, {"better", m.lower_is_better ? "lower" : "higher"},
                              {"baseline", m.baseline}, {"candidate", m.candidate}, {"change", m.change},
                              {"ratio", optional(m.ratio)}, {"regression_pct", optional(m.regression_pct)},
                              {"regression_points", optional(m.regression_points)},
                              {"max_regression_pct", optional(m.limit_pct)},
                              {"judged_by", m.judged == metrics::Judged::kSteps    ? "step times (U test)"
                                            : m.judged == metrics::Judged::kPoints ? "points"
                                                                                    : "relative change"},
                              {"verdict", m.verdict}});
  if (c.steps)
    doc["step_times"] = {{"baseline_samples", c.steps->baseline_samples},
                         {"candidate_samples", c.steps->candidate_samples},
                         {"baseline_median_ms", c.steps->baseline_median_ms},
                         {"candidate_median_ms", c.steps->candidate_median_ms},
                         {"mann_whitney_u", c.steps->test.u},
                         {"p_value", c.steps->test.p},
                         {"alpha", metrics::kSignificance},
                         {"verdict", c.steps->verdict}};
  else
    doc["step_times"] = nullptr;
  doc["diagnosis"] = diagnosis_comparison_json(c);
  doc["warnings"] = c.warnings;
  doc["mismatches"] = c.mismatches;  // how the runs differ in kind: each a warning, no verdict changed
  doc["regressed"] = c.regressed;
  return doc;
}

}  // namespace aorta::report
