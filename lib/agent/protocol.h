// The agent's wire format: frames of a fixed 8-byte header (type, 3 zero bytes, a
// 32-bit big-endian length) and a body; requests and replies are small JSON objects,
// command output travels as data frames. Every length is checked before a byte of
// the body is allocated.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace aorta::agent {

enum class FrameType : uint8_t {
  kRequest = 1,  // client -> agent: a JSON request carrying the token
  kReply = 2,    // agent -> client: a JSON answer, or the end of a command
  kData = 3,     // agent -> client: the next bytes of a command's output or a file
};

constexpr size_t kHeaderSize = 8;
constexpr uint32_t kMaxJsonFrame = 1u << 20;  // requests and replies
constexpr uint32_t kMaxDataFrame = 64u << 10;  // output chunks
// Longest command timeout a request may ask for (a week): larger numbers are refused.
constexpr int64_t kMaxTimeoutSeconds = 7 * 24 * 3600;

struct FrameHeader {
  FrameType type = FrameType::kRequest;
  uint32_t length = 0;
};

std::array<char, kHeaderSize> encode_header(FrameHeader header);
// The header, or why it is refused (unknown type, non-zero padding, a length past
// the type's bound).
Result<FrameHeader> decode_header(const std::array<char, kHeaderSize>& bytes);

enum class Op { kHello, kRun, kStream, kDownload, kHealth, kLease, kBeat, kDone, kWill };

struct Request {
  Op op = Op::kHello;
  std::string token{};  // the request's MAC (request_mac.h); empty in a hello
  std::string job{};
  std::string nonce{};  // kHello: the client's fresh nonce
  std::string command{};  // kRun, kStream, kWill
  std::string path{};     // kDownload
  int64_t timeout_s = 0;  // kRun, kStream
};

std::string encode_request(const Request& request);
// A request frame's body, or why it is refused (not JSON, a missing or mistyped
// field, an unknown op, a timeout out of range).
Result<Request> decode_request(std::string_view body);

// Who an agent is: its node, where it listens and its rank. Its answer to a hello
// names all four and its proof binds them to the secret (request_mac.h), so rank 0
// finds out another agent of the job answering on this one's address (a relay).
struct AgentEndpoint {
  std::string host;     // the name the suite uses for the node
  std::string address;  // where its agent listens (an IP literal)
  uint16_t port = 0;
  int rank = 0;
};

// The hello answer's fields naming the agent ("rank", "host", "address", "port").
void put_identity(nlohmann::json& answer, const AgentEndpoint& me);
// The agent a hello answer claims to be, or none when a field is missing or mistyped
// (a stranger, or an agent older than these fields).
std::optional<AgentEndpoint> reply_identity(const nlohmann::json& reply);
bool same_agent(const AgentEndpoint& a, const AgentEndpoint& b);
// "rank 2 on node2 (10.0.0.2:4567)", for errors.
std::string describe_agent(const AgentEndpoint& agent);

// A reply body: a JSON object, or an error for anything else.
Result<nlohmann::json> decode_reply(std::string_view body);

// A reply's field when it has the expected type, else `fallback`: a reply may come
// from a stranger on the agent's port, and nothing in it may throw.
int64_t reply_int(const nlohmann::json& reply, const char* key, int64_t fallback);
double reply_number(const nlohmann::json& reply, const char* key, double fallback);
std::string reply_text(const nlohmann::json& reply, const char* key);

// Whether two secrets are equal, in time that depends on their lengths only: the
// loop never stops at the first differing byte.
bool same_secret(std::string_view a, std::string_view b);

}  // namespace aorta::agent
