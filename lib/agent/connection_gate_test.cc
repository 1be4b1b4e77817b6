// Who makes way for a newcomer at the agent (issue 42): a stranger's own oldest
// connection when its address holds 4 unproven, else the oldest unproven of anyone
// when the agent is full; a proven connection never.
#include "agent/connection_gate.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace aorta::agent {
namespace {

// Connections admitted through make_room, as the agent admits them; which were closed.
struct Gate {
  ConnectionGate gate;
  std::vector<uint64_t> closed;
  // Admitted, or -1 when there was no room.
  int64_t connect(const std::string& peer) {
    if (!gate.make_room(peer)) return -1;
    auto id = std::make_shared<uint64_t>(0);  // known once admitted
    *id = gate.admit(peer, [this, id] { closed.push_back(*id); });
    return static_cast<int64_t>(*id);
  }
};

TEST(ConnectionGate, AnAddressPastFourUnprovenClosesItsOwnOldest) {
  Gate g;
  for (int i = 0; i < 4; ++i) ASSERT_EQ(g.connect("10.0.0.9"), i);
  ASSERT_EQ(g.connect("10.0.0.1"), 4);  // rank 0, before its first request
  EXPECT_TRUE(g.closed.empty());
  EXPECT_EQ(g.connect("10.0.0.9"), 5);
  EXPECT_EQ(g.closed, (std::vector<uint64_t>{0}));
  for (int i = 0; i < 20; ++i) g.connect("10.0.0.9");
  EXPECT_EQ(g.closed.size(), 21u);
  EXPECT_EQ(g.gate.unproven_from("10.0.0.9"), 4u);
  EXPECT_EQ(g.gate.unproven_from("10.0.0.1"), 1u) << "one address never closes another's";
}

TEST(ConnectionGate, AFullAgentClosesTheOldestUnprovenOfAnyone) {
  Gate g;
  // 16 unproven from four addresses, four each: the next from a fifth closes the oldest.
  for (int i = 0; i < 16; ++i) g.connect("10.0.0." + std::to_string(i % 4));
  ASSERT_TRUE(g.closed.empty());
  EXPECT_EQ(g.gate.unproven(), 16u);
  EXPECT_EQ(g.connect("10.0.0.5"), 16);
  EXPECT_EQ(g.closed, (std::vector<uint64_t>{0}));
  // A closed connection is open until its end says gone.
  EXPECT_EQ(g.gate.open(), 17u);
  g.gate.gone(0);
  EXPECT_EQ(g.gate.open(), 16u);
}

TEST(ConnectionGate, ProvenConnectionsNeverMakeWay) {
  Gate g;
  for (uint64_t i = 0; i < kMaxConnections; ++i) {
    ASSERT_EQ(g.connect("10.0.0.1"), static_cast<int64_t>(i));
    g.gate.proven(i);
  }
  EXPECT_EQ(g.gate.unproven(), 0u);
  EXPECT_EQ(g.connect("10.0.0.2"), -1);  // 64 open, every one proven: no room
  EXPECT_TRUE(g.closed.empty());
  g.gate.gone(3);
  EXPECT_EQ(g.connect("10.0.0.2"), 64);
}

}  // namespace
}  // namespace aorta::agent
