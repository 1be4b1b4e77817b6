#include "history/headline.h"

namespace aorta::history {

std::vector<const metrics::MetricSpec*> headline_metrics() {
  std::vector<const metrics::MetricSpec*> out;
  for (const metrics::MetricSpec& spec : metrics::metric_catalogue())
    if (spec.gate && (spec.shown_in & metrics::kInCompare)) out.push_back(&spec);
  return out;
}

}  // namespace aorta::history
