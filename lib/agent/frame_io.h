// Reading and writing frames on a socket as coroutines, shared by the agent and its
// client. Nothing here throws: a failure comes back as a value.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <nlohmann/json.hpp>

#include "agent/protocol.h"

namespace aorta::agent {

struct Frame {
  FrameHeader header;
  std::string body;
  std::string problem;  // empty when a frame was read; else why not ("closed", a bad header)
};

// One frame; the body is allocated only after its header passed decode_header.
boost::asio::awaitable<Frame> read_frame(boost::asio::ip::tcp::socket& socket);
// False when the write failed (the peer is gone).
boost::asio::awaitable<bool> write_frame(boost::asio::ip::tcp::socket& socket, FrameType type,
                                         std::string_view body);
boost::asio::awaitable<bool> write_reply(boost::asio::ip::tcp::socket& socket, const nlohmann::json& reply);

// Replies built outside coroutines: g++ 12 cannot compile a braced JSON initializer
// inside one ("array used as initializer").
nlohmann::json ok_reply();
nlohmann::json done_reply(int exit_code, uint64_t bytes, const std::string& errors);
// The reply of a refused or failed request: {"error": code, "message": text}.
nlohmann::json error_reply(ErrorCode code, const std::string& message);
// The Error an error reply stands for (context: host), or none for a reply without "error".
std::optional<Error> reply_error(const nlohmann::json& reply, const std::string& host);

}  // namespace aorta::agent
