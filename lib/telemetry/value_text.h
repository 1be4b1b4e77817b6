// The numbers of the tools' outputs: amd-smi's {"value": .., "unit": ..} objects,
// bare numbers, strings with units ("35.0", "(1980Mhz)", "16.0GT/s x16") and the
// "N/A" / "[Not Supported]" of a value the GPU does not report.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace aorta::telemetry {

// The first number in `text` ("(1980Mhz)" -> 1980), or nothing when there is none
// or it is not finite (a huge exponent is not a reading).
std::optional<double> leading_number(std::string_view text);

// A JSON value as a number: a number, {"value": x}, or a string holding one; nothing
// for "N/A", null, or anything else.
std::optional<double> json_number(const nlohmann::json& v);

// Top-level JSON documents printed one after another (amd-smi's edge command runs
// two); each as text, in order. Text outside any document is skipped.
std::vector<std::string_view> json_documents(std::string_view body);

// The lines of `text`, without their '\n' (a last line without one included).
std::vector<std::string_view> text_lines(std::string_view text);

}  // namespace aorta::telemetry
