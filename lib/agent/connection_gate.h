// Which of the agent's connections have not yet proven the job's secret, and which
// of them makes way for a newcomer: strangers (who may know the job id, and so get
// a hello answered) cannot hold the slots rank 0 needs. A connection is a stranger's
// until its first request carries a valid MAC; from then on it is rank 0's and is
// never closed to make room.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <string>

namespace aorta::agent {

constexpr size_t kMaxConnections = 64;     // open at once
constexpr size_t kMaxUnproven = 16;        // not yet proven, from everyone
constexpr size_t kMaxUnprovenPerPeer = 4;  // not yet proven, from one address

class ConnectionGate {
 public:
  using Close = std::function<void()>;

  // Room for a newcomer from `peer` (its address): the oldest unproven connection of
  // that peer is closed when it already holds kMaxUnprovenPerPeer, else the oldest
  // unproven connection of anyone when the agent is full. False: no room (every slot
  // holds a proven connection). One address can thus never close another's
  // connection, rank 0's before its first request included.
  bool make_room(const std::string& peer);
  // The newcomer counted, unproven; `close` ends it when it must make way. Its id.
  uint64_t admit(const std::string& peer, Close close);
  // It proved the secret: never closed to make way.
  void proven(uint64_t id);
  // It ended (closed here or not).
  void gone(uint64_t id);

  size_t open() const { return open_; }
  size_t unproven() const { return unproven_.size(); }
  size_t unproven_from(const std::string& peer) const;

 private:
  struct Entry {
    uint64_t id;
    std::string peer;
    Close close;
  };
  // Closes the oldest unproven connection that `matches`; false when there is none.
  bool close_oldest(const std::function<bool(const Entry&)>& matches);
  void forget(uint64_t id);

  std::list<Entry> unproven_;  // oldest first
  size_t open_ = 0;
  uint64_t next_id_ = 0;
};

}  // namespace aorta::agent
