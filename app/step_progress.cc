#include "app/step_progress.h"

#include <charconv>
#include <cctype>
#include <iostream>
#include <memory>

namespace aorta::app {
namespace {

constexpr std::chrono::seconds kEvery{10};

std::optional<long> whole_number(const char* begin, const char* end) {
  long n = 0;
  auto [at, ec] = std::from_chars(begin, end, n);
  if (ec != std::errc() || at == begin) return std::nullopt;
  return n;
}

// N of the first "step=N" that starts a word ("global_step=" is not it).
std::optional<long> step_in(const std::string& text) {
  for (size_t at = text.find("step="); at != std::string::npos; at = text.find("step=", at + 1)) {
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_')) continue;
    const char* digits = text.c_str() + at + 5;
    return whole_number(digits, text.c_str() + text.size());
  }
  return std::nullopt;
}

}  // namespace

StepProgress::StepProgress(std::optional<long> max_steps, std::function<void(const std::string&)> print, Clock now)
    : max_steps_(max_steps), print_(std::move(print)), now_(std::move(now)) {}

void StepProgress::line(const std::string& text) {
  const auto step = step_in(text);
  if (!step || *step == last_step_) return;
  last_step_ = *step;
  // Steps count from 0 in both trainers: step N is the (N+1)th.
  const long done = *step + 1;
  const bool last = max_steps_ && done >= *max_steps_;
  const auto now = now_();
  if (!last && last_shown_ && now - *last_shown_ < kEvery) return;
  last_shown_ = now;
  print_("[benchmark] step " + std::to_string(done) + (max_steps_ ? "/" + std::to_string(*max_steps_) : "") +
         " (node 0's training log)");
}

std::optional<long> configured_max_steps(const config::Variant& v) {
  for (const auto& [key, value] : v.training_overrides)
    if (key == "training.max_steps") return whole_number(value.data(), value.data() + value.size());
  return std::nullopt;
}

job::ProgressFn training_watchers(job::ProgressFn live, std::optional<long> max_steps) {
  auto progress =
      std::make_shared<StepProgress>(max_steps, [](const std::string& line) { std::cout << line << std::endl; });
  return [live = std::move(live), progress](const std::string& line) {
    if (live) live(line);
    progress->line(line);
  };
}

}  // namespace aorta::app
