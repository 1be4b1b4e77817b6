// Frame headers, request decoding and the secret comparison (protocol.h).
#include "agent/protocol.h"

#include <algorithm>
#include <array>
#include <utility>

namespace aorta::agent {
namespace {

using json = nlohmann::json;

constexpr std::array<std::pair<Op, std::string_view>, 9> kOps{{{Op::kHello, "hello"},
                                                               {Op::kRun, "run"},
                                                               {Op::kStream, "stream"},
                                                               {Op::kDownload, "download"},
                                                               {Op::kHealth, "health"},
                                                               {Op::kLease, "lease"},
                                                               {Op::kBeat, "beat"},
                                                               {Op::kDone, "done"},
                                                               {Op::kWill, "will"}}};

std::string_view op_name(Op op) {
  for (const auto& [value, name] : kOps)
    if (value == op) return name;
  return "?";
}

Error refused(const std::string& why) { return Error{ErrorCode::kInvalidInput, why, "agent protocol"}; }

// The string field `key`, or an error naming it; absent and not required: empty.
Result<std::string> string_field(const json& object, const char* key, bool required) {
  auto it = object.find(key);
  if (it == object.end()) {
    if (required) return refused(std::string("no \"") + key + "\"");
    return std::string();
  }
  if (!it->is_string()) return refused(std::string("\"") + key + "\" is not a string");
  return it->get<std::string>();
}

}  // namespace

std::array<char, kHeaderSize> encode_header(FrameHeader header) {
  std::array<char, kHeaderSize> bytes{};
  bytes[0] = static_cast<char>(header.type);
  for (int i = 0; i < 4; ++i) bytes[4 + i] = static_cast<char>((header.length >> (24 - 8 * i)) & 0xff);
  return bytes;
}

Result<FrameHeader> decode_header(const std::array<char, kHeaderSize>& bytes) {
  FrameHeader header;
  const auto type = static_cast<uint8_t>(bytes[0]);
  if (type < 1 || type > 3) return refused("unknown frame type " + std::to_string(type));
  if (bytes[1] != 0 || bytes[2] != 0 || bytes[3] != 0) return refused("non-zero header padding");
  header.type = static_cast<FrameType>(type);
  for (int i = 0; i < 4; ++i) header.length = (header.length << 8) | static_cast<uint8_t>(bytes[4 + i]);
  const uint32_t bound = header.type == FrameType::kData ? kMaxDataFrame : kMaxJsonFrame;
  if (header.length > bound)
    return refused("frame of " + std::to_string(header.length) + " bytes, over the " + std::to_string(bound) +
                   "-byte limit");
  return header;
}

std::string encode_request(const Request& request) {
  json body{{"op", op_name(request.op)}, {"token", request.token}, {"job", request.job}};
  if (!request.nonce.empty()) body["nonce"] = request.nonce;
  if (!request.command.empty()) body["command"] = request.command;
  if (!request.path.empty()) body["path"] = request.path;
  if (request.timeout_s > 0) body["timeout"] = request.timeout_s;
  // Replacement, not an exception, for bytes that are not UTF-8 in a command.
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<Request> decode_request(std::string_view body) {
  const json object = json::parse(body, nullptr, false);
  if (object.is_discarded() || !object.is_object()) return refused("a request that is not a JSON object");
  auto op = string_field(object, "op", true);
  if (!op) return op.error();
  Request request;
  auto known = std::find_if(kOps.begin(), kOps.end(), [&](const auto& entry) { return entry.second == *op; });
  if (known == kOps.end()) return refused("unknown op \"" + op->substr(0, 40) + "\"");
  request.op = known->first;
  auto token = string_field(object, "token", true);
  auto job = string_field(object, "job", true);
  auto command = string_field(object, "command", false);
  auto path = string_field(object, "path", false);
  auto nonce = string_field(object, "nonce", false);
  for (const auto* field : {&token, &job, &command, &path, &nonce})
    if (!*field) return field->error();
  request.nonce = std::move(*nonce);
  request.token = std::move(*token);
  request.job = std::move(*job);
  request.command = std::move(*command);
  request.path = std::move(*path);
  if (auto it = object.find("timeout"); it != object.end()) {
    if (!it->is_number_integer() || it->get<int64_t>() < 1 || it->get<int64_t>() > kMaxTimeoutSeconds)
      return refused("\"timeout\" is not a whole number of seconds from 1 to " + std::to_string(kMaxTimeoutSeconds));
    request.timeout_s = it->get<int64_t>();
  }
  const bool needs_command = request.op == Op::kRun || request.op == Op::kStream || request.op == Op::kWill;
  if (needs_command && request.command.empty()) return refused(std::string(*op) + " without a \"command\"");
  if ((request.op == Op::kRun || request.op == Op::kStream) && request.timeout_s == 0)
    return refused(std::string(*op) + " without a \"timeout\"");
  if (request.op == Op::kDownload && request.path.empty()) return refused("download without a \"path\"");
  if (request.op == Op::kHello && (request.nonce.size() < 32 || request.nonce.size() > 64))
    return refused("hello without a nonce of 32 to 64 characters");
  return request;
}

Result<json> decode_reply(std::string_view body) {
  json object = json::parse(body, nullptr, false);
  if (object.is_discarded() || !object.is_object()) return refused("a reply that is not a JSON object");
  return object;
}

int64_t reply_int(const json& reply, const char* key, int64_t fallback) {
  auto it = reply.find(key);
  return it != reply.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}

double reply_number(const json& reply, const char* key, double fallback) {
  auto it = reply.find(key);
  return it != reply.end() && it->is_number() ? it->get<double>() : fallback;
}

std::string reply_text(const json& reply, const char* key) {
  auto it = reply.find(key);
  return it != reply.end() && it->is_string() ? it->get<std::string>() : "";
}

void put_identity(json& answer, const AgentEndpoint& me) {
  answer["rank"] = me.rank;
  answer["host"] = me.host;
  answer["address"] = me.address;
  answer["port"] = me.port;
}

std::optional<AgentEndpoint> reply_identity(const json& reply) {
  const int64_t rank = reply_int(reply, "rank", -1);
  const int64_t port = reply_int(reply, "port", -1);
  AgentEndpoint claimed{reply_text(reply, "host"), reply_text(reply, "address"), 0, 0};
  if (rank < 0 || rank > INT32_MAX || port < 1 || port > UINT16_MAX || claimed.host.empty() || claimed.address.empty())
    return std::nullopt;
  claimed.port = static_cast<uint16_t>(port);
  claimed.rank = static_cast<int>(rank);
  return claimed;
}

bool same_agent(const AgentEndpoint& a, const AgentEndpoint& b) {
  return a.rank == b.rank && a.host == b.host && a.address == b.address && a.port == b.port;
}

std::string describe_agent(const AgentEndpoint& agent) {
  return "rank " + std::to_string(agent.rank) + " on " + agent.host + " (" + agent.address + ":" +
         std::to_string(agent.port) + ")";
}

bool same_secret(std::string_view a, std::string_view b) {
  // Every byte of the longer one is visited and differences are OR-ed together, so
  // how long this takes tells nothing about where the first difference is.
  const size_t n = std::max(a.size(), b.size());
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    const auto x = static_cast<unsigned char>(i < a.size() ? a[i] : 0);
    const auto y = static_cast<unsigned char>(i < b.size() ? b[i] : 0);
    diff |= static_cast<unsigned char>(x ^ y);
  }
  return diff == 0;
}

}  // namespace aorta::agent
