// The node agent (issue 30): serves the suite's commands on its node to this job's
// rank 0 alone, over plain TCP on the node's job address, until rank 0 says done or
// is gone. Knows nothing of Slurm: the caller gives the secret, job and address.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"

namespace aorta::agent {

struct AgentOptions {
  std::string secret;        // the per-job token (>= 32 bytes); every request carries it
  std::string job;           // "<job>.<step>": a request naming another job is refused, naming both
  std::string bind_address;  // the node's job address (an IPv4/IPv6 literal); never a wildcard by default
  std::string host;          // the node's name as the job knows it; with rank, address and port, the agent's
  int rank = 0;              // identity, which its answer to every hello proves (request_mac.h)
  uint16_t port = 0;         // 0: the kernel picks; port() says which
  std::vector<std::filesystem::path> allowed_roots;  // download only below these (after resolving links)
  // No heartbeat on the lease this long: rank 0 is gone. Long enough for a network
  // blip or a stalled node (a 45 s silence ended the run at 20 s; issue 43, 2); a
  // killed rank 0 closes the lease at once and is not waited for.
  std::chrono::seconds lease_grace{120};
  std::chrono::seconds first_contact{300};  // no lease opened this long after start: give up
  // A connection's hello, and a first request proving the secret, must arrive within this.
  std::chrono::milliseconds hello_timeout{5000};
};

// serve()'s exit codes besides 0 (rank 0 said done).
constexpr int kLeaseLost = 3;       // rank 0's lease connection closed without done, or went silent
constexpr int kNoFirstContact = 4;  // no lease opened within first_contact
constexpr int kStopped = 5;         // stop() was called (a signal, a test)

class AgentServer {
 public:
  // Bound and listening on return; an error names the address or the option at fault.
  static Result<std::unique_ptr<AgentServer>> start(AgentOptions options);
  ~AgentServer();
  uint16_t port() const;
  // Serves until rank 0 says done (0) or the lease is lost / never came (kLeaseLost,
  // kNoFirstContact; one line on stderr naming the job and what happened). Before
  // returning it kills every process group it started still running and, when the
  // lease was lost, runs rank 0's last will (60 s at most).
  int serve();
  // From any thread: serve() ends as after a lost lease (kStopped; the will runs).
  void stop();

  struct State;

 private:
  explicit AgentServer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace aorta::agent
