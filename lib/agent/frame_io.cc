// Frames on a socket (frame_io.h).
#include "agent/frame_io.h"

#include <array>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

namespace aorta::agent {
namespace asio = boost::asio;
namespace {
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

constexpr std::array<std::pair<ErrorCode, const char*>, 6> kCodes{{{ErrorCode::kInvalidInput, "invalid_input"},
                                                                   {ErrorCode::kNotFound, "not_found"},
                                                                   {ErrorCode::kTimeout, "timeout"},
                                                                   {ErrorCode::kCommandFailed, "command_failed"},
                                                                   {ErrorCode::kIo, "io"},
                                                                   {ErrorCode::kUnsupported, "unsupported"}}};
}  // namespace

asio::awaitable<Frame> read_frame(asio::ip::tcp::socket& socket) {
  Frame frame;
  std::array<char, kHeaderSize> header{};
  auto [ec, n] = co_await asio::async_read(socket, asio::buffer(header), kTuple);
  if (ec) {
    frame.problem = ec == asio::error::eof && n == 0 ? "closed" : "read failed: " + ec.message();
    co_return frame;
  }
  auto decoded = decode_header(header);
  if (!decoded) {
    frame.problem = decoded.error().message;
    co_return frame;
  }
  frame.header = *decoded;
  frame.body.resize(frame.header.length);
  auto [body_ec, body_n] = co_await asio::async_read(socket, asio::buffer(frame.body), kTuple);
  if (body_ec) frame.problem = "read failed inside a frame: " + body_ec.message();
  co_return frame;
}

asio::awaitable<bool> write_frame(asio::ip::tcp::socket& socket, FrameType type, std::string_view body) {
  const auto header = encode_header({type, static_cast<uint32_t>(body.size())});
  std::array<asio::const_buffer, 2> buffers{asio::buffer(header), asio::buffer(body.data(), body.size())};
  auto [ec, n] = co_await asio::async_write(socket, buffers, kTuple);
  co_return !ec;
}

asio::awaitable<bool> write_reply(asio::ip::tcp::socket& socket, const nlohmann::json& reply) {
  co_return co_await write_frame(socket, FrameType::kReply,
                                 reply.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

nlohmann::json ok_reply() { return {{"ok", true}}; }

nlohmann::json done_reply(int exit_code, uint64_t bytes, const std::string& errors) {
  return {{"exit_code", exit_code}, {"bytes", bytes}, {"errors", errors}};
}

nlohmann::json error_reply(ErrorCode code, const std::string& message) {
  const char* name = "invalid_input";
  for (const auto& [value, text] : kCodes)
    if (value == code) name = text;
  return {{"error", name}, {"message", message}};
}

std::optional<Error> reply_error(const nlohmann::json& reply, const std::string& host) {
  auto it = reply.find("error");
  if (it == reply.end()) return std::nullopt;
  Error error{ErrorCode::kCommandFailed, "the agent refused the request", host};
  for (const auto& [value, text] : kCodes)
    if (it->is_string() && *it == text) error.code = value;
  if (auto message = reply.find("message"); message != reply.end() && message->is_string())
    error.message = message->get<std::string>();
  return error;
}

}  // namespace aorta::agent
