// The training's step while the benchmark runs (issue 31, 9): a person watching a long
// stage sees "[benchmark] step 40/120" as well as the nodes done. Read from node 0's
// output lines, where Aorta's trainer ("epoch=0 step=40 loss=...") and the CPU workload
// ("step=40 loss=...") log it every log_interval steps.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "config/variant.h"
#include "job/phase.h"

namespace aorta::app {

class StepProgress {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  // max_steps: the run's training.max_steps when the config sets it (else "step N" alone).
  StepProgress(std::optional<long> max_steps, std::function<void(const std::string&)> print,
               Clock now = std::chrono::steady_clock::now);
  // One line of node 0's output: a new step is shown at most every 10 s, and always
  // the last one (max_steps reached).
  void line(const std::string& text);

 private:
  std::optional<long> max_steps_;
  std::function<void(const std::string&)> print_;
  Clock now_;
  std::optional<std::chrono::steady_clock::time_point> last_shown_;
  long last_step_ = -1;
};

// training.max_steps from the config's training_overrides, when it is a whole number.
std::optional<long> configured_max_steps(const config::Variant& v);

// Node 0's training output, line by line, while the benchmark runs: into the live log
// (`live`, when one is written) and, as "[benchmark] step N/M", onto the console.
job::ProgressFn training_watchers(job::ProgressFn live, std::optional<long> max_steps);

}  // namespace aorta::app
