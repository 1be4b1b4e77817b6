// Admission of the agent's connections (connection_gate.h).
#include "agent/connection_gate.h"

#include <algorithm>
#include <utility>

namespace aorta::agent {

bool ConnectionGate::make_room(const std::string& peer) {
  if (unproven_from(peer) >= kMaxUnprovenPerPeer)
    return close_oldest([&](const Entry& e) { return e.peer == peer; });
  if (open_ >= kMaxConnections || unproven_.size() >= kMaxUnproven)
    return close_oldest([](const Entry&) { return true; });
  return true;
}

uint64_t ConnectionGate::admit(const std::string& peer, Close close) {
  ++open_;
  unproven_.push_back({next_id_, peer, std::move(close)});
  return next_id_++;
}

void ConnectionGate::proven(uint64_t id) { forget(id); }

void ConnectionGate::gone(uint64_t id) {
  forget(id);
  if (open_ > 0) --open_;
}

size_t ConnectionGate::unproven_from(const std::string& peer) const {
  return static_cast<size_t>(std::count_if(unproven_.begin(), unproven_.end(), [&](const Entry& e) {
    return e.peer == peer;
  }));
}

bool ConnectionGate::close_oldest(const std::function<bool(const Entry&)>& matches) {
  auto it = std::find_if(unproven_.begin(), unproven_.end(), matches);
  if (it == unproven_.end()) return false;
  Close close = std::move(it->close);
  unproven_.erase(it);  // before closing: it is counted open until its end says gone
  close();
  return true;
}

void ConnectionGate::forget(uint64_t id) {
  unproven_.remove_if([&](const Entry& e) { return e.id == id; });
}

}  // namespace aorta::agent
