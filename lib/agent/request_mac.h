// How a connection proves the job's secret without sending it: HMAC-SHA256 (OpenSSL's
// libcrypto, which libssh2 already brings). The client's hello carries a fresh nonce;
// the agent answers with its own nonce and a proof over both and over who it is, so a
// process squatting on a dead agent's port (or relaying to another agent) learns
// nothing and is found out before any request is sent;
// every request then carries the MAC of the agent's nonce, its sequence number on the
// connection and its fields, so nothing can be replayed on another connection.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "agent/protocol.h"

namespace aorta::agent {

// 16 random bytes, as 32 hex digits; empty when the random source fails.
std::string random_nonce();

// The agent's answer to a hello: it knows the secret of `job` and is `me` (its rank,
// node, address and port), so a proof relayed from another agent of the job is
// found out by rank 0, which checks it against the agent it meant to reach.
std::string agent_proof(std::string_view secret, std::string_view job, std::string_view client_nonce,
                        std::string_view agent_nonce, const AgentEndpoint& me);

// The token of the `seq`-th request on a connection whose agent nonce is `agent_nonce`.
std::string request_token(std::string_view secret, std::string_view agent_nonce, uint64_t seq, const Request& request);

}  // namespace aorta::agent
