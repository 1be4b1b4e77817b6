// The words every human output uses for the run's times and ratios, chosen once
// (issue 45, 5): the console, analyze's table, the gates' failure texts. Machine
// outputs (the JSON, metrics.txt) keep their keys and fractions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace aorta::metrics {

struct RunMetrics;

// A rank's whole profiled window, every profiled step together: CVS's "iteration
// time", what max_avg_iteration_ms gates (not one step's time).
inline constexpr const char* kIterationTime = "iteration time";
// One step's (ProfilerStep#N's) time, what max_avg_step_time_ms gates.
inline constexpr const char* kPerStepTime = "per-step time";
// CVS's comm ratio: exposed communication on the GPU and CPU timeline paths, total
// communication on the basic scan. Named apart from the "exposed comm" column beside it.
inline constexpr const char* kCvsComm = "comm (CVS)";

// "iteration time (the profiled window of 5 steps)"; "(the whole profiled window)"
// when the number of steps is unknown (no ProfilerStep annotations).
std::string iteration_time_label(std::optional<std::uint64_t> steps);
// The label with the steps as given: "iteration time (the profiled window of 5 vs 6 steps)".
std::string iteration_time_label(const std::string& steps);
// The label with `run`'s number of profiled steps.
std::string iteration_time_label(const RunMetrics& run);

// What an iteration time is of, after a gate's failure text: "the profiled window of 5
// steps; per-step time 166.970 ms", or "the whole profiled window".
std::string iteration_time_note(const RunMetrics& run);

}  // namespace aorta::metrics
