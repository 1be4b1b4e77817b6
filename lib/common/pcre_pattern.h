// A compiled PCRE2 pattern (JIT where the CPU has it) with a bounded search: kernel
// lines come from the node and may be megabytes long, so no search may backtrack
// without limit or recurse on the C++ stack as std::regex does.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aorta {

struct PatternMatch {
  size_t start = 0;
  size_t end = 0;
  std::vector<std::optional<std::string_view>> groups;  // capture groups 1..n; nothing where unset
};

class PcrePattern {
 public:
  // Throws std::invalid_argument naming the pattern and PCRE2's message when it does not compile.
  explicit PcrePattern(const std::string& pattern, bool ignore_case = false);
  PcrePattern(PcrePattern&&) noexcept;
  PcrePattern& operator=(PcrePattern&&) noexcept;
  ~PcrePattern();

  // The first match at or after `from`; nothing when none or when the search ran past
  // its match limit (then limit_hit() says so, until the next search).
  std::optional<PatternMatch> search(std::string_view subject, size_t from = 0) const;
  bool matches(std::string_view subject) const { return search(subject).has_value(); }
  bool limit_hit() const { return limit_hit_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  mutable bool limit_hit_ = false;
};

}  // namespace aorta
