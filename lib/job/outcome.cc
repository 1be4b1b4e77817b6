#include "job/outcome.h"

#include <cctype>
#include <cmath>

#include <fmt/format.h>

namespace aorta::job {

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPassed: return "passed";
    case Outcome::kFailed: return "failed";
    case Outcome::kSkipped: return "skipped";
  }
  return "failed";
}

std::string SubTest::label() const {
  return fmt::format("[{}] ({}={})", kind == SubTestKind::kThreshold ? "threshold" : "trace collection", key, value);
}

std::string SubTest::unit_text() const { return unit ? metrics::gate_unit_text(*unit) : ""; }

std::string SubTest::figure(double v) const {
  // People read ratios as %, in every human output (the JSON keeps the fraction).
  if (unit == metrics::MetricUnit::kFraction) return fmt::format("{:.6g}%", v * 100);
  return fmt::format("{:.6g}{}", v, unit_text().empty() ? "" : " " + unit_text());
}

std::string SubTest::measured() const {
  if (!actual) return "";
  std::string s = "actual " + figure(*actual);
  if (limit) s += fmt::format(", {} {}", gate == metrics::ThresholdKind::kMin ? "min" : "max", figure(*limit));
  return s;
}

std::optional<double> SubTest::margin() const {
  if (!actual || !limit || !gate) return std::nullopt;
  return *gate == metrics::ThresholdKind::kMax ? *limit - *actual : *actual - *limit;
}

std::string SubTest::measured_with_margin() const {
  auto m = margin();
  if (!m) return measured();
  std::string s = measured() + ", margin " + figure(*m);
  // The share of the limit left, for a gate that holds (a failed one says how far it missed).
  if (*m >= 0 && *limit != 0) s += fmt::format(" ({:.2f}% of the limit)", *m / std::abs(*limit) * 100);
  return s;
}

std::string SubTest::verdict() const { return record_only ? "recorded" : outcome_name(outcome); }

std::string SubTest::summary() const {
  std::string s = label() + ": " + verdict();
  if (actual) s += " (" + measured() + ")";
  if (outcome != Outcome::kPassed && !message.empty()) s += " - " + message;
  return s;
}

std::string SubTest::line() const {
  const char* word = outcome == Outcome::kFailed ? "SUBFAIL " : outcome == Outcome::kSkipped && !record_only ? "SUBSKIP " : "SUBPASS ";
  return word + summary();
}

std::string test_name_part(const std::string& value) {
  std::string out = value;
  for (char& c : out)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) c = '_';
  return out.empty() ? "_" : out;
}

}  // namespace aorta::job
