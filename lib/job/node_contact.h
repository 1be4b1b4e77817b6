// Whether the nodes of a phase still answer its poll (issue 43, 2). As in CVS, a node
// that does not answer is polled again until the phase's timeout: an sshd restart, a
// network blip or a node too loaded to answer must not fail a run of hours. While a
// node is silent the console says so, with how long and the time left; at the timeout
// the error names each silent node. Only an error no later poll can mend ends the
// wait at once: refused credentials or host key, or the transport's proof that the
// node's end is gone (an agent whose port refuses connections).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "cluster/transport.h"
#include "common/result.h"

namespace aorta::job {

using ContactClock = std::chrono::steady_clock;

// A node silent this long is said on the console, and said again this often.
inline constexpr std::chrono::seconds kSilentSaidAfter{20};
inline constexpr std::chrono::seconds kSilentSaidEvery{30};

// "H:MM:SS", the house's progress form.
std::string clock_text(double seconds);

// Whether a failed poll is final: only a node the transport proves gone (an ended
// agent). Anything else, a refused login included, may be a blip and is polled on.
bool ends_the_wait(const cluster::Transport& transport, const Error& error);

class NodeContact {
 public:
  // `label`: the phase ("benchmark"); `answerer`: what must answer on a node ("sshd",
  // "agent"), for the advice; every node counts as heard from at `begin`.
  NodeContact(std::vector<std::string> hosts, std::string label, std::string answerer, ContactClock::time_point begin);

  // The node's poll came back (any exit status) at `now`; a line when it had been
  // said silent.
  std::optional<std::string> answered(size_t node, ContactClock::time_point now);
  // The node's poll did not run: `why` is the transport's error.
  void silent(size_t node, const std::string& why);
  // One line per node silent for kSilentSaidAfter, again every kSilentSaidEvery:
  // which node, for how long, why, and the time left before the timeout.
  std::vector<std::string> lines(ContactClock::time_point now, ContactClock::time_point deadline,
                                 std::chrono::seconds timeout);
  // For the timeout's error: each node whose last poll failed, how long it has been
  // silent, its last error and what to do; empty when every node answers.
  std::string at_timeout(ContactClock::time_point now) const;
  // The first node whose last poll failed (the timeout error's context), or "".
  std::string first_silent() const;
  // The error of a final poll failure (ends_the_wait) of `node`.
  Error final_error(size_t node, const Error& error) const;

 private:
  struct Node {
    ContactClock::time_point heard;  // the last poll that came back
    std::optional<ContactClock::time_point> said;  // when its silence was last said
    std::string why;                 // the last poll's error
  };
  double silent_for(const Node& n, ContactClock::time_point now) const;

  std::vector<std::string> hosts_;
  std::string label_;
  std::string answerer_;
  std::vector<Node> nodes_;
};

}  // namespace aorta::job
