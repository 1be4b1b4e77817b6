// One node's agent in a managed run: join rank 0's rendezvous, listen on the node's
// job address, publish it, serve until rank 0 is done or gone.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.h"

namespace aorta::agent {

struct AgentRole {
  std::filesystem::path shared_root;  // where the rendezvous folder is (storage every node sees)
  std::string job;                    // the rendezvous's name: "<job>.<step>"
  int rank = 0;
  std::string node_name;              // as the job knows it; its address is the one listened on
  std::vector<std::filesystem::path> allowed_roots;
  std::chrono::seconds wait{90};      // for rank 0's secret
};

// The exit status: 0 when rank 0 said done, else non-zero with one line on stderr
// naming the rank, the node and what happened.
int serve_as_agent(const AgentRole& role);

// The node's address for `node_name` (its first IPv4 address, else IPv6), never a
// wildcard; an error naming the node when it does not resolve.
Result<std::string> node_address(const std::string& node_name);

}  // namespace aorta::agent
