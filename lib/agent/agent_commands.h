// What the agent does for run, stream and download requests on one connection. Each
// answers with data frames and then one reply; false when the connection must end
// (the client went away or closed mid-command: the command's group is then killed).
#pragma once

#include <filesystem>
#include <set>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "agent/child_process.h"
#include "agent/protocol.h"

namespace aorta::agent {

// The commands running now, for health and for the agent's end (every group killed).
using RunningSet = std::set<ChildProcess*>;

// run (merge_stderr: stdout and stderr interleaved) or stream (stderr kept apart,
// its first kStreamErrorsKept bytes sent in the reply).
boost::asio::awaitable<bool> run_command(boost::asio::ip::tcp::socket& socket, const Request& request,
                                         bool merge_stderr, RunningSet& running);

// A regular file below one of `roots` (after resolving links), in data frames.
boost::asio::awaitable<bool> send_file(boost::asio::ip::tcp::socket& socket, const std::string& path,
                                       const std::vector<std::filesystem::path>& roots);

// Whether `path` (resolved) lies in or below one of `roots` (each resolved).
bool below_a_root(const std::filesystem::path& path, const std::vector<std::filesystem::path>& roots);

}  // namespace aorta::agent
