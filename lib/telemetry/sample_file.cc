#include "telemetry/sample_file.h"

#include <sstream>

#include "telemetry/value_text.h"

namespace aorta::telemetry {
namespace {

constexpr std::string_view kHeader = "#aorta-telemetry v1 ";

std::string field(std::string_view line, std::string_view key) {
  const std::string needle = " " + std::string(key) + "=";
  const size_t at = (" " + std::string(line)).find(needle);
  if (at == std::string::npos) return {};
  const size_t from = at + needle.size() - 1;
  return std::string(line.substr(from, line.find(' ', from) - from));
}

void read_header(std::string_view line, SampleFile& out) {
  out.host = field(line, "host");
  out.tool = field(line, "tool");
  out.interval = leading_number(field(line, "interval")).value_or(0);
}

// "#sample <epoch> tick|edge": false when the line is not that.
bool read_sample_line(std::string_view line, SampleRecord& r) {
  std::istringstream in{std::string(line)};
  std::string word, time, kind, rest;
  in >> word >> time >> kind;
  if (in >> rest || (kind != "tick" && kind != "edge")) return false;
  auto t = leading_number(time);
  if (!t || time.find_first_not_of("0123456789.") != std::string::npos) return false;
  r.time = *t;
  r.edge = kind == "edge";
  return true;
}

}  // namespace

SampleFile read_sample_file(std::string_view text) {
  SampleFile out;
  SampleRecord* open = nullptr;  // the record whose body the next lines are
  size_t number = 0;
  for (const std::string_view line : text_lines(text)) {
    ++number;
    if (line.empty() || line[0] != '#') {
      if (open) open->body.append(line).push_back('\n');
      else if (!line.empty()) out.errors.push_back("line " + std::to_string(number) + ": text outside any record");
      continue;
    }
    open = nullptr;
    const std::string where = "line " + std::to_string(number) + ": ";
    if (number == 1 && line.starts_with(kHeader)) {
      read_header(line, out);
    } else if (line.starts_with("#sample ")) {
      SampleRecord r;
      r.line = number;
      if (!read_sample_line(line, r)) {
        out.errors.push_back(where + "not a #sample line");
        continue;
      }
      open = &out.records.emplace_back(std::move(r));
    } else if (line.starts_with("#error ")) {
      out.errors.push_back(where + std::string(line.substr(1)));
    } else if (line.starts_with("#truncated")) {
      out.truncated = true;
    } else if (!line.starts_with("#end")) {
      out.errors.push_back(where + "unknown record");
    }
  }
  if (out.tool.empty()) out.errors.insert(out.errors.begin(), "line 1: no #aorta-telemetry v1 header");
  return out;
}

}  // namespace aorta::telemetry
