// Whether two runs are of one kind (issue 45, 6): a CPU run against an H200 run, or a
// run whose ranks partly parsed against a whole one, gave "1057.87 % worse" or every
// row "same" with no word. compare judges them still, and says how they differ.
#pragma once

#include <string>
#include <vector>

#include "metrics/compare.h"

namespace aorta::metrics {

// The device a run's ranks were timed on, from their parsers: "GPU" (a GPU timeline or
// TraceLens's Excel), "CPU" (the CPU timeline), "unknown" (the basic scan, no parser
// recorded), or "mixed".
std::string device_kind(const std::vector<std::string>& rank_parsers);

// One line per difference, in this order: rank count, device, parsers (when the devices
// agree), each setting both runs record with different values. Empty when the runs
// are alike as far as both record.
std::vector<std::string> run_mismatches(const RunFigures& baseline, const RunFigures& candidate);

}  // namespace aorta::metrics
