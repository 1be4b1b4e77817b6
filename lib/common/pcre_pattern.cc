#define PCRE2_CODE_UNIT_WIDTH 8
#include "common/pcre_pattern.h"

#include <pcre2.h>

#include <stdexcept>

namespace aorta {
namespace {

// Enough for any real kernel block; a pathological line stops here instead of stalling.
constexpr uint32_t kMatchLimit = 2'000'000;
constexpr uint32_t kDepthLimit = 100'000;

}  // namespace

struct PcrePattern::Impl {
  pcre2_code* code = nullptr;
  pcre2_match_context* context = nullptr;
  pcre2_jit_stack* jit_stack = nullptr;
  ~Impl() {
    pcre2_jit_stack_free(jit_stack);
    pcre2_match_context_free(context);
    pcre2_code_free(code);
  }
};

PcrePattern::PcrePattern(const std::string& pattern, bool ignore_case) : impl_(std::make_unique<Impl>()) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  impl_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                              (ignore_case ? PCRE2_CASELESS : 0u), &error, &offset, nullptr);
  if (!impl_->code) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    throw std::invalid_argument("pattern '" + pattern + "' does not compile at offset " + std::to_string(offset) + ": " +
                                reinterpret_cast<const char*>(message));
  }
  impl_->context = pcre2_match_context_create(nullptr);
  pcre2_set_match_limit(impl_->context, kMatchLimit);
  pcre2_set_depth_limit(impl_->context, kDepthLimit);
  if (pcre2_jit_compile(impl_->code, PCRE2_JIT_COMPLETE) == 0) {
    impl_->jit_stack = pcre2_jit_stack_create(32 * 1024, 4 * 1024 * 1024, nullptr);
    pcre2_jit_stack_assign(impl_->context, nullptr, impl_->jit_stack);
  }
}

PcrePattern::PcrePattern(PcrePattern&&) noexcept = default;
PcrePattern& PcrePattern::operator=(PcrePattern&&) noexcept = default;
PcrePattern::~PcrePattern() = default;

std::optional<PatternMatch> PcrePattern::search(std::string_view subject, size_t from) const {
  limit_hit_ = false;
  if (from > subject.size()) return std::nullopt;
  pcre2_match_data* data = pcre2_match_data_create_from_pattern(impl_->code, nullptr);
  const int rc = pcre2_match(impl_->code, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), from, 0, data,
                             impl_->context);
  std::optional<PatternMatch> found;
  if (rc > 0) {
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data);
    const uint32_t pairs = pcre2_get_ovector_count(data);
    found = PatternMatch{ovector[0], ovector[1], {}};
    for (uint32_t i = 1; i < pairs; ++i) {
      if (static_cast<int>(i) >= rc || ovector[2 * i] == PCRE2_UNSET)
        found->groups.emplace_back(std::nullopt);
      else
        found->groups.emplace_back(subject.substr(ovector[2 * i], ovector[2 * i + 1] - ovector[2 * i]));
    }
  } else if (rc != PCRE2_ERROR_NOMATCH) {
    limit_hit_ = true;  // match, depth or JIT stack limit: the search gave up
  }
  pcre2_match_data_free(data);
  return found;
}

}  // namespace aorta
