// Issue 31, 9: the training's step on the console while the benchmark runs.
#include "app/step_progress.h"

#include <gtest/gtest.h>

namespace aorta::app {
namespace {

using namespace std::chrono_literals;

TEST(StepProgress, ShowsTheStepAtMostEveryTenSecondsAndAlwaysTheLast) {
  std::vector<std::string> shown;
  auto t = std::chrono::steady_clock::time_point{};
  StepProgress p(12, [&](const std::string& l) { shown.push_back(l); }, [&] { return t; });
  p.line("INFO epoch=0 step=0 loss=2.30000 lr=0.000100 overlap=1.000ms compute=2.000ms");  // Aorta's trainer
  t += 3s;
  p.line("step=2 loss=2.1");       // the CPU workload's; within 10 s: not shown
  p.line("global_step=9 loss=1");  // not a step= word
  t += 8s;
  p.line("step=4 loss=2.0");
  p.line("step=4 loss=2.0");  // the same step again
  t += 1s;
  p.line("epoch=0 step=11 loss=1.9");  // the last step: shown at once
  EXPECT_EQ(shown, (std::vector<std::string>{"[benchmark] step 1/12 (node 0's training log)",
                                             "[benchmark] step 5/12 (node 0's training log)",
                                             "[benchmark] step 12/12 (node 0's training log)"}));
}

TEST(StepProgress, WithoutMaxStepsTheStepAlone) {
  std::vector<std::string> shown;
  StepProgress p(std::nullopt, [&](const std::string& l) { shown.push_back(l); });
  p.line("nothing here");
  p.line("step=x");
  p.line("step=7 loss=1");
  EXPECT_EQ(shown, std::vector<std::string>{"[benchmark] step 8 (node 0's training log)"});
  config::Variant v;
  v.training_overrides = {{"training.output_dir", "out"}, {"training.max_steps", "15"}};
  EXPECT_EQ(configured_max_steps(v), 15);
  v.training_overrides = {{"training.max_steps", "many"}};
  EXPECT_EQ(configured_max_steps(v), std::nullopt);
}

}  // namespace
}  // namespace aorta::app
