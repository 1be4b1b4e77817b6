// What a secret looks like on its own, wherever it stands: the token formats
// providers document (ghp_..., AKIA..., a JWT) and random key material (high entropy).
#include <array>
#include <cmath>

#include "redact/redact.h"
#include "redact/redact_scan.h"

namespace aorta::redact {
namespace detail {
namespace {

// A longer value is no key anyone types or pastes: is_high_entropy says no at once.
constexpr size_t kMaxSecretLooking = 4096;

bool is_b64url(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return is_alnum(c) || c == '_' || c == '-'; });
}

int is_upper_or_digit(int c) { return std::isupper(c) || std::isdigit(c); }

// Random key material: high entropy and a long run of letters and digits, unlike a
// host name made of short words (sk-rack-node-0001-compute-a).
bool is_random(std::string_view s) {
  size_t run = 0, longest = 0;
  for (unsigned char c : s) {
    run = is_alnum(c) ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest >= 12 && is_high_entropy(s);
}

// Longer words are no token of any provider; the bound also keeps every token inside
// StreamRedactor's overlap, so a cut never splits one unseen.
constexpr size_t kMaxToken = size_t{16} << 10;

}  // namespace

bool is_token_shape(std::string_view w) {
  while (!w.empty() && w.back() == '.') w.remove_suffix(1);  // a sentence's full stop
  // The shortest shape below is 15 characters: most words of a log stop here.
  if (w.size() < 15 || w.size() > kMaxToken) return false;
  struct Prefixed {
    std::string_view prefix;
    size_t min_rest;
  };
  static constexpr std::array<Prefixed, 11> kPrefixed = {{{"ghp_", 30},
                                                          {"gho_", 30},
                                                          {"ghu_", 30},
                                                          {"ghs_", 30},
                                                          {"ghr_", 30},
                                                          {"github_pat_", 22},
                                                          {"hf_", 20},
                                                          {"glpat-", 20},
                                                          {"sk-", 20},
                                                          {"npm_", 30},
                                                          {"pypi-", 30}}};
  for (const auto& p : kPrefixed)
    if (starts_with(w, p.prefix) && w.size() >= p.prefix.size() + p.min_rest && is_b64url(w.substr(p.prefix.size())) &&
        is_random(w.substr(p.prefix.size())))
      return true;
  // Slack: xoxb-, xoxp-, xoxa-, xoxo-, xoxr-, xoxs-.
  if (w.size() >= 15 && starts_with(w, "xox") && std::string_view("abposr").find(w[3]) != std::string_view::npos &&
      w[4] == '-')
    return true;
  // AWS access key ids: a four-letter kind and 16 upper-case letters or digits.
  static constexpr std::array<std::string_view, 8> kAwsKinds = {"AKIA", "ASIA", "AGPA", "AIDA",
                                                                "AROA", "ANPA", "ANVA", "AIPA"};
  for (std::string_view kind : kAwsKinds)
    if (w.size() == 20 && starts_with(w, kind) && all_of(w.substr(4), is_upper_or_digit)) return true;
  // JWT: base64url of '{"' starts "eyJ"; header.payload.signature.
  if (starts_with(w, "eyJ")) {
    size_t a = w.find('.'), b = a == std::string_view::npos ? a : w.find('.', a + 1);
    if (b != std::string_view::npos && w.find('.', b + 1) == std::string_view::npos && a >= 10 && b - a > 10 &&
        w.size() - b > 10 && is_b64url(w.substr(0, a)) && is_b64url(w.substr(a + 1, b - a - 1)) &&
        is_b64url(w.substr(b + 1)))
      return true;
  }
  return false;
}

}  // namespace detail

bool is_high_entropy(std::string_view value) {
  if (value.size() < 16 || value.size() > detail::kMaxSecretLooking) return false;
  bool letter = false, digit = false;
  std::array<int, 256> counts{};
  for (unsigned char c : value) {
    if (!(detail::is_alnum(c) || c == '_' || c == '-' || c == '+' || c == '/' || c == '=')) return false;
    letter |= std::isalpha(c) != 0;
    digit |= std::isdigit(c) != 0;
    ++counts[c];
  }
  if (!letter || !digit) return false;
  double bits = 0;
  for (int n : counts)
    if (n) bits -= n / static_cast<double>(value.size()) * std::log2(n / static_cast<double>(value.size()));
  // 40 random hex digits carry about 3.7 bits a character, base64 keys about 5; an
  // English identifier of 16+ letters rarely passes 3.5 and has no digits.
  return bits >= 3.3;
}

}  // namespace aorta::redact
