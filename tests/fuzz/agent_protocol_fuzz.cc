// Any bytes as what a client sends the agent: the first 8 as a frame header, the rest
// as a request body (and as a reply body, as the client reads one). Decoding never
// crashes, a header accepted is within its type's bound, a request accepted encodes
// back to the same request, and the agent a hello answer claims to be reads back the same.
#include <array>
#include <cstring>

#include "agent/protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace aorta::agent;
  if (size >= kHeaderSize) {
    std::array<char, kHeaderSize> bytes{};
    std::memcpy(bytes.data(), data, kHeaderSize);
    auto header = decode_header(bytes);
    if (header && header->length > (header->type == FrameType::kData ? kMaxDataFrame : kMaxJsonFrame))
      __builtin_trap();
    if (header && encode_header(*header) != bytes) __builtin_trap();
  }
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  auto request = decode_request(body);
  if (request) {
    auto again = decode_request(encode_request(*request));
    if (!again || again->op != request->op || again->timeout_s != request->timeout_s) __builtin_trap();
  }
  if (auto reply = decode_reply(body)) {
    if (auto claimed = reply_identity(*reply)) {
      nlohmann::json again;
      put_identity(again, *claimed);
      auto back = reply_identity(again);
      if (!back || !same_agent(*back, *claimed)) __builtin_trap();
    }
  }
  (void)same_secret(body, body.substr(size / 2));
  return 0;
}
