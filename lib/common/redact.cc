#include "common/redact.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <optional>
#include <vector>

namespace aorta {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

// Characters of one token as providers write them (base64url, hex, dots of a JWT).
bool is_word_char(unsigned char c) { return std::isalnum(c) || c == '_' || c == '-' || c == '.'; }

bool all_of(std::string_view s, int (*pred)(int)) {
  return std::all_of(s.begin(), s.end(), [pred](unsigned char c) { return pred(c) != 0; });
}

bool is_b64url(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '-'; });
}

int is_upper_or_digit(int c) { return std::isupper(c) || std::isdigit(c); }

// Random key material: high entropy and a long run of letters and digits, unlike a
// host name made of short words (sk-rack-node-0001-compute-a).
bool is_random(std::string_view s) {
  size_t run = 0, longest = 0;
  for (unsigned char c : s) {
    run = std::isalnum(c) ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest >= 12 && is_high_entropy(s);
}

// One word (a maximal run of is_word_char) against the token formats providers
// document; lengths are the documented minimums, so ordinary names do not match.
bool is_token_shape(std::string_view w) {
  while (!w.empty() && w.back() == '.') w.remove_suffix(1);  // a sentence's full stop
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
  for (std::string_view kind : {"AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA"})
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

// userinfo of a URL is a credential when it has a password part or is itself a
// token (https://ghp_...@github.com); "git@" of an ssh URL is only a user name.
bool is_credential_userinfo(std::string_view userinfo) {
  return userinfo.find(':') != std::string_view::npos || is_token_shape(userinfo) || is_high_entropy(userinfo);
}

// Where the URL starting at scheme_end ("://") has its userinfo: [begin, at) or nothing.
std::optional<std::pair<size_t, size_t>> url_userinfo(std::string_view text, size_t scheme_end) {
  size_t begin = scheme_end + 3;
  size_t end = begin;
  while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) &&
         std::string_view("/?#\"'<>`").find(text[end]) == std::string_view::npos)
    ++end;
  size_t at = text.substr(0, end).rfind('@');
  if (at == std::string_view::npos || at < begin) return std::nullopt;
  if (!is_credential_userinfo(text.substr(begin, at - begin))) return std::nullopt;
  return std::make_pair(begin, at);
}

// The secret-key name that ends right before text[pos] ('=' or ':'), if any.
bool secret_name_before(std::string_view text, size_t pos) {
  if (pos > 0 && (text[pos - 1] == '"' || text[pos - 1] == '\'')) --pos;  // "password": "..."
  size_t begin = pos;
  while (begin > 0 && (std::isalnum(static_cast<unsigned char>(text[begin - 1])) || text[begin - 1] == '_' ||
                       text[begin - 1] == '-'))
    --begin;
  return begin < pos && is_secret_key(text.substr(begin, pos - begin));
}

// The end of the value that starts at pos: a quoted string, or up to white space.
size_t value_end(std::string_view text, size_t pos) {
  if (pos < text.size() && (text[pos] == '\'' || text[pos] == '"')) {
    size_t close = text.find(text[pos], pos + 1);
    return close == std::string_view::npos ? text.size() : close + 1;
  }
  size_t end = pos;
  while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) && text[end] != '"' &&
         text[end] != '\'' && text[end] != ',' && text[end] != ';')
    ++end;
  return end;
}

}  // namespace

bool is_secret_key(std::string_view key) {
  // --wandb-api-key and wandb.api.key name the same secret as WANDB_API_KEY.
  std::string k = lower(key);
  std::replace(k.begin(), k.end(), '-', '_');
  std::replace(k.begin(), k.end(), '.', '_');
  for (const char* word : {"password", "passwd", "passphrase", "token", "secret", "api_key", "apikey", "access_key",
                           "private_key", "credential", "authorization"})
    if (k.find(word) != std::string::npos) return true;
  return false;
}

bool looks_like_secret_key(std::string_view key) {
  if (is_secret_key(key)) return true;
  // Split on _ - . and case changes is overkill for env names; the parts are enough.
  std::string k = lower(key);
  std::vector<std::string> parts;
  std::string part;
  for (char c : k + "_") {
    if (c == '_' || c == '-' || c == '.') {
      if (!part.empty()) parts.push_back(part);
      part.clear();
    } else {
      part += c;
    }
  }
  for (const auto& p : parts)
    for (const char* word : {"key", "keys", "auth", "pat", "pass", "pw", "signature", "sig", "cookie", "session",
                             "bearer", "license"})
      if (p == word) return true;
  return false;
}

bool is_high_entropy(std::string_view value) {
  if (value.size() < 16 || value.size() > 4096) return false;
  bool letter = false, digit = false;
  std::array<int, 256> counts{};
  for (unsigned char c : value) {
    if (!(std::isalnum(c) || c == '_' || c == '-' || c == '+' || c == '/' || c == '=')) return false;
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

bool is_secret_value(std::string_view value) { return redact_text(value) != value; }

std::string redact_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    // https://user:token@host: the userinfo goes, the rest of the URL stays readable.
    if (c == ':' && text.substr(i, 3) == "://") {
      if (auto info = url_userinfo(text, i)) {
        out.append("://");
        out.append(kRedacted);
        i = info->second;  // the '@'
        continue;
      }
    }
    // NAME=value or NAME: value with a secret NAME (export HF_TOKEN=..., password: ...).
    if ((c == '=' || c == ':') && secret_name_before(text, i)) {
      size_t start = i + 1;
      while (c == ':' && start < text.size() && text[start] == ' ') ++start;
      size_t end = value_end(text, start);
      // "Authorization: Bearer <token>": the scheme is a word, the secret is the next one.
      std::string scheme = lower(text.substr(start, end - start));
      if ((scheme == "bearer" || scheme == "basic" || scheme == "token") && end + 1 < text.size() && text[end] == ' ') {
        start = end + 1;
        end = value_end(text, start);
      }
      if (end > start) {
        out.append(text.substr(i, start - i));
        out.append(kRedacted);
        i = end;
        continue;
      }
    }
    if (is_word_char(c) && (i == 0 || !is_word_char(static_cast<unsigned char>(text[i - 1])))) {
      size_t end = i;
      while (end < text.size() && is_word_char(static_cast<unsigned char>(text[end]))) ++end;
      std::string_view word = text.substr(i, end - i);
      if (is_token_shape(word)) {
        out.append(kRedacted);
        if (word.back() == '.') out.push_back('.');
        i = end;
        continue;
      }
      out.append(word);
      i = end;
      continue;
    }
    out.push_back(static_cast<char>(c));
    ++i;
  }
  return out;
}

std::string redact_value(std::string_view key, std::string_view value) {
  if (!value.empty() && is_secret_key(key)) return std::string(kRedacted);
  if (looks_like_secret_key(key) && is_high_entropy(value)) return std::string(kRedacted);
  return redact_text(value);
}

}  // namespace aorta
