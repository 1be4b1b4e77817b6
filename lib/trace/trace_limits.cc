#include "trace/trace_limits.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace aorta::trace {

TraceLimits TraceLimits::with_total(uint64_t total_bytes) {
  TraceLimits limits;
  limits.total_bytes = total_bytes;
  limits.max_token_bytes = std::clamp<uint64_t>(total_bytes / 16, 1 << 20, uint64_t{64} << 20);
  limits.max_state_bytes = std::max<uint64_t>(total_bytes / 8 * 3, 1 << 20);
  return limits;
}

std::string TraceLimits::describe() const {
  return std::to_string(total_bytes >> 20) + " MiB (token " + std::to_string(max_token_bytes >> 20) +
         " MiB, event state " + std::to_string(max_state_bytes >> 20) + " MiB)";
}

Result<uint64_t> parse_byte_size(std::string_view text) {
  auto bad = [&] {
    return Error{ErrorCode::kInvalidInput,
                 "'" + std::string(text) + "' is not a byte size (a number with an optional K, M, G or T suffix)",
                 kMemoryLimitVariable};
  };
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 15) return bad();
  uint64_t value = std::stoull(std::string(text.substr(0, digits)));
  std::string_view suffix = text.substr(digits);
  int shift = 0;
  if (suffix.size() == 1 || (suffix.size() == 3 && (suffix.substr(1) == "iB" || suffix.substr(1) == "ib"))) {
    switch (std::toupper(static_cast<unsigned char>(suffix[0]))) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      case 'T': shift = 40; break;
      default: return bad();
    }
  } else if (!suffix.empty()) {
    return bad();
  }
  if (shift > 0 && value > (UINT64_MAX >> shift)) return bad();
  value <<= shift;
  // Below 16 MiB not even one read chunk and its parse fit.
  if (value < (uint64_t{16} << 20))
    return Error{ErrorCode::kInvalidInput, "'" + std::string(text) + "' is below the smallest budget, 16M",
                 kMemoryLimitVariable};
  return value;
}

Result<TraceLimits> trace_limits_from_environment() {
  const char* text = std::getenv(kMemoryLimitVariable);
  if (!text || !*text) return TraceLimits{};
  auto bytes = parse_byte_size(text);
  if (!bytes) return bytes.error();
  return TraceLimits::with_total(*bytes);
}

}  // namespace aorta::trace
