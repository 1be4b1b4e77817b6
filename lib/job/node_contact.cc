#include "job/node_contact.h"

#include <fmt/format.h>

namespace aorta::job {

std::string clock_text(double seconds) {
  long s = static_cast<long>(seconds);
  return fmt::format("{}:{:02d}:{:02d}", s / 3600, (s / 60) % 60, s % 60);
}

bool ends_the_wait(const cluster::Transport& transport, const Error& error) {
  return transport.proves_gone(error);  // a refused login too may be a blip: LDAP down, sshd restarting
}

NodeContact::NodeContact(std::vector<std::string> hosts, std::string label, std::string answerer,
                         ContactClock::time_point begin)
    : hosts_(std::move(hosts)), label_(std::move(label)), answerer_(std::move(answerer)),
      nodes_(hosts_.size(), Node{begin, std::nullopt, ""}) {}

double NodeContact::silent_for(const Node& n, ContactClock::time_point now) const {
  return std::chrono::duration<double>(now - n.heard).count();
}

std::optional<std::string> NodeContact::answered(size_t node, ContactClock::time_point now) {
  Node& n = nodes_[node];
  std::optional<std::string> line;
  if (n.said)
    line = fmt::format("[{}] {} answers again, after {} without an answer", label_, hosts_[node],
                       clock_text(silent_for(n, now)));
  n = Node{now, std::nullopt, ""};
  return line;
}

void NodeContact::silent(size_t node, const std::string& why) { nodes_[node].why = why; }

std::vector<std::string> NodeContact::lines(ContactClock::time_point now, ContactClock::time_point deadline,
                                            std::chrono::seconds timeout) {
  std::vector<std::string> out;
  double left = std::max(0.0, std::chrono::duration<double>(deadline - now).count());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    Node& n = nodes_[i];
    if (n.why.empty() || now - n.heard < kSilentSaidAfter) continue;
    if (n.said && now - *n.said < kSilentSaidEvery) continue;
    n.said = now;
    out.push_back(fmt::format("[{}] {} has not answered for {} ({}); polling on, {} left before the {}s timeout",
                              label_, hosts_[i], clock_text(silent_for(n, now)), n.why, clock_text(left),
                              timeout.count()));
  }
  return out;
}

std::string NodeContact::at_timeout(ContactClock::time_point now) const {
  std::string text;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    if (n.why.empty()) continue;
    text += fmt::format("; {} has not answered for {} (last: {}): check that the node is up and its {} answers; its "
                        "{} processes may still be running there",
                        hosts_[i], clock_text(silent_for(n, now)), n.why, answerer_, label_);
  }
  return text;
}

std::string NodeContact::first_silent() const {
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (!nodes_[i].why.empty()) return hosts_[i];
  return "";
}

Error NodeContact::final_error(size_t node, const Error& error) const {
  return Error{ErrorCode::kCommandFailed,
               fmt::format("lost contact with node {} while waiting for {}: {}. No later poll can mend this; its {} "
                           "processes may still be running there",
                           hosts_[node], label_, error.message, label_),
               hosts_[node]};
}

}  // namespace aorta::job
