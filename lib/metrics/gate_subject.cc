#include "metrics/gate_subject.h"

namespace aorta::metrics {

std::string GateSubject::text() const {
  if (of_gpu) return node.value_or("node unknown") + " GPU " + (gpu ? std::to_string(*gpu) : "unknown");
  std::string out = rank ? "rank " + std::to_string(*rank) : "rank unknown";
  if (gpu) out += " (GPU " + std::to_string(*gpu) + ")";
  return node ? *node + " " + out : out;
}

}  // namespace aorta::metrics
