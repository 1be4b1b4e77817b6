// Whom a per-rank gate's figure is about: the rank whose value the gate read (the
// slowest rank's compute, the lowest rank's bus bandwidth), named as the diagnosis
// names a rank, so a failing gate says who is sick wherever CI shows its message.
//
// Only standard headers here: lib/job includes this file (a sub-test carries it).
#pragma once

#include <optional>
#include <string>

namespace aorta::metrics {

struct GateSubject {
  std::optional<std::string> node;  // unknown stays unknown
  std::optional<int> rank;
  std::optional<int> gpu;  // the rank's GPU index on its node, where its trace says
  bool of_gpu = false;     // a GPU's own figure (its telemetry): no rank, named "node3 GPU 3"

  // "node2 rank 3 (GPU 3)", "rank 2", "rank unknown", "node3 GPU 3": the diagnosis lines' words.
  std::string text() const;
};

}  // namespace aorta::metrics
