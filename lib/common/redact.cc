#include "common/redact.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <optional>
#include <utility>

#include "common/known_secrets.h"


namespace aorta {
namespace {

using Span = std::pair<size_t, size_t>;  // [begin, end) of a secret in the text

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

bool is_one_of(char c, std::string_view set) { return set.find(c) != std::string_view::npos; }

// ASCII only, and inline: the scan asks this of every byte of every log.
bool is_alnum(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// A longer value is no key anyone types or pastes: is_high_entropy says no at once.
constexpr size_t kMaxSecretLooking = 4096;

// Characters of one token as providers write them (base64url, hex, dots of a JWT).
bool is_word_char(unsigned char c) { return is_alnum(c) || c == '_' || c == '-' || c == '.'; }

// Characters of a key name: HF_TOKEN, --api-key, wandb.api.key.
bool is_name_char(unsigned char c) { return is_alnum(c) || c == '_' || c == '-' || c == '.'; }

bool all_of(std::string_view s, int (*pred)(int)) {
  return std::all_of(s.begin(), s.end(), [pred](unsigned char c) { return pred(c) != 0; });
}

bool is_b64url(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return is_alnum(c) || c == '_' || c == '-'; });
}

int is_upper_or_digit(int c) { return std::isupper(c) || std::isdigit(c); }

// The words of a key name, lower case: DB_PASS -> db, pass.
std::vector<std::string> name_parts(std::string_view key) {
  std::vector<std::string> parts;
  std::string part;
  for (char c : lower(key) + "_") {
    if (c == '_' || c == '-' || c == '.') {
      if (!part.empty()) parts.push_back(part);
      part.clear();
    } else {
      part += c;
    }
  }
  return parts;
}

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

// One word (a maximal run of is_word_char) against the token formats providers
// document; lengths are the documented minimums, so ordinary names do not match.
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

// userinfo of a URL is a credential when it has a password part or is itself a
// token (https://ghp_...@github.com); "git@" of an ssh URL is only a user name.
bool is_credential_userinfo(std::string_view userinfo) {
  return userinfo.find(':') != std::string_view::npos || is_token_shape(userinfo) || is_high_entropy(userinfo);
}

// Where a URL's text ends: white space, a quote or a bracket of the text around it.
size_t url_end(std::string_view text, size_t pos) {
  while (pos < text.size() && !is_space(text[pos]) && !is_one_of(text[pos], "\"'<>`")) ++pos;
  return pos;
}

// The userinfo of the URL whose "://" is at scheme_end, when it is a credential. Only
// the authority is searched (it ends at the next '/', so at the next URL's "://"):
// a line of many URLs costs one pass.
std::optional<Span> url_userinfo(std::string_view text, size_t scheme_end) {
  const size_t begin = scheme_end + 3;
  size_t end = begin;
  while (end < text.size() && !is_space(text[end]) && !is_one_of(text[end], "/?#\"'<>`")) ++end;
  const size_t at = text.substr(begin, end - begin).rfind('@');
  if (at == std::string_view::npos || !is_credential_userinfo(text.substr(begin, at))) return std::nullopt;
  return Span{begin, begin + at};
}

// The secret part of a webhook URL: whoever has it may post to the channel.
std::optional<Span> webhook_secret(std::string_view text, size_t scheme_end) {
  static constexpr std::array<std::string_view, 3> kHooks = {"hooks.slack.com/services/", "hooks.slack.com/workflows/",
                                                             "discord.com/api/webhooks/"};
  const size_t host = scheme_end + 3;
  for (auto hook : kHooks) {
    if (!starts_with(text.substr(host), hook)) continue;
    const size_t begin = host + hook.size(), end = url_end(text, begin);
    if (end > begin) return Span{begin, end};
  }
  return std::nullopt;
}

// The key name that ends right before the separator at text[pos] ('=' or ':'), past
// spaces and a closing quote, escaped or not: password=, "password" :, \"password\":.
struct Name {
  size_t begin;
  std::string_view text;
};
std::optional<Name> name_before(std::string_view text, size_t pos) {
  size_t end = pos;
  while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t')) --end;
  if (end > 0 && (text[end - 1] == '"' || text[end - 1] == '\'')) {
    --end;
    while (end > 0 && text[end - 1] == '\\') --end;
  }
  size_t begin = end;
  while (begin > 0 && is_name_char(static_cast<unsigned char>(text[begin - 1]))) --begin;
  if (begin == end) return std::nullopt;
  return Name{begin, text.substr(begin, end - begin)};
}

// Where a value that is not quoted ends: white space, a quote, ',' or ';' (and in a
// URL's query, '&' or '#'), or an escaped quote (the end of an escaped JSON string).
bool ends_value(std::string_view text, size_t pos, bool query) {
  const char c = text[pos];
  if (is_space(c) || c == '"' || c == '\'' || c == ',' || c == ';' || (query && (c == '&' || c == '#'))) return true;
  return c == '\\' && pos + 1 < text.size() && (text[pos + 1] == '"' || text[pos + 1] == '\'');
}

// Escaping deeper than this is no quoting anyone writes (a JSON string inside a JSON
// string inside one more is 7 backslashes); the bound keeps the search linear.
constexpr size_t kMaxQuoteEscapes = 7;

// The end of the value that starts at pos: a quoted string with its quotes ("..." with
// backslash escapes, '...', or \"...\" inside an escaped JSON string), else up to
// white space, a quote, ',' or ';' (and in a URL's query, '&' or '#').
size_t value_end(std::string_view text, size_t pos, bool query) {
  size_t quote = pos;
  while (quote < text.size() && text[quote] == '\\' && quote - pos < kMaxQuoteEscapes) ++quote;
  if (quote < text.size() && (text[quote] == '"' || text[quote] == '\'')) {
    if (quote == pos && text[pos] == '"') {
      for (size_t k = pos + 1; k < text.size(); ++k) {
        if (text[k] == '\\')
          ++k;
        else if (text[k] == '"')
          return k + 1;
      }
      return text.size();
    }
    const std::string_view closing = text.substr(pos, quote - pos + 1);
    const size_t close = text.find(closing, quote + 1);
    return close == std::string_view::npos ? text.size() : close + closing.size();
  }
  size_t end = pos;
  while (end < text.size() && !ends_value(text, end, query)) ++end;
  return end;
}

// The one word of key characters (is_high_entropy's alphabet, '=' only as padding)
// that the value at pos is, past its opening quote; empty when the value is more than
// that word. A value judged by its look is read only this far: a line of
// key=key=key=... is then read once, not to its end at every '='.
std::string_view key_word_at(std::string_view text, size_t pos) {
  size_t begin = pos;
  while (begin < text.size() && begin - pos <= kMaxQuoteEscapes && is_one_of(text[begin], "\\\"'")) ++begin;
  size_t end = begin;
  while (end < text.size() && (is_alnum(static_cast<unsigned char>(text[end])) || is_one_of(text[end], "_-+/"))) ++end;
  while (end < text.size() && text[end] == '=') ++end;
  const bool whole = end == text.size() || ends_value(text, end, false) || text[end] == '\\';
  return whole ? text.substr(begin, end - begin) : std::string_view();
}

std::string_view unquoted(std::string_view value) {
  while (!value.empty() && is_one_of(value.front(), "\\\"'")) value.remove_prefix(1);
  while (!value.empty() && is_one_of(value.back(), "\\\"'")) value.remove_suffix(1);
  return value;
}

// Flags whose argument is user:password (curl -u, --user, --proxy-user).
bool is_credential_flag(std::string_view flag) {
  using namespace std::string_view_literals;
  return !flag.empty() && flag[0] == '-' &&
         (flag == "-u"sv || flag == "--user"sv || flag == "-U"sv || flag == "--proxy-user"sv);
}

// The password of a user:password argument; not of uid:gid (docker run -u 1000:1000).
std::optional<Span> credential_password(std::string_view text, size_t begin, size_t end) {
  const std::string_view pair = text.substr(begin, end - begin);
  const size_t colon = pair.find(':');
  if (colon == std::string_view::npos || colon + 1 == pair.size()) return std::nullopt;
  if (all_of(unquoted(pair.substr(0, colon)), ::isdigit) && all_of(unquoted(pair.substr(colon + 1)), ::isdigit))
    return std::nullopt;
  return Span{begin + colon + 1, end};
}

// "|", ">-", "|2": a YAML block scalar's indicator, when nothing but a comment follows.
bool is_block_indicator(std::string_view value, std::string_view rest_of_line) {
  if (value.empty() || (value[0] != '|' && value[0] != '>')) return false;
  for (char c : value.substr(1))
    if (c != '-' && c != '+' && !std::isdigit(static_cast<unsigned char>(c))) return false;
  for (char c : rest_of_line) {
    if (c == '#') return true;
    if (!is_space(c)) return false;
  }
  return true;
}

// The secret value at the separator text[pos] of NAME=value, NAME: value,
// NAME = value, "NAME": "value", \"NAME\": \"value\", --user=user:password.
std::optional<Span> assigned_secret(std::string_view text, size_t pos) {
  if (text[pos] == '=' && pos + 1 < text.size() && text[pos + 1] == '=') return std::nullopt;  // a comparison
  auto name = name_before(text, pos);
  if (!name || !(looks_like_secret_key(name->text) || is_credential_flag(name->text))) return std::nullopt;
  const bool query = name->begin > 0 && (text[name->begin - 1] == '?' || text[name->begin - 1] == '&');
  size_t start = pos + 1;
  while (start < text.size() && (text[start] == ' ' || text[start] == '\t')) ++start;
  // A URL's query parameter named like a secret is one (?sig=..., X-Amz-Signature=...):
  // signatures are percent-encoded and need not look random. Other names that may
  // hold a secret (WANDB_KEY) hold one when the value looks random.
  if (!is_secret_key(name->text) && !is_credential_flag(name->text) && !query &&
      !is_high_entropy(key_word_at(text, start)))
    return std::nullopt;
  size_t end = value_end(text, start, query);
  if (end == start) return std::nullopt;
  if (is_credential_flag(name->text)) return credential_password(text, start, end);
  const std::string_view value = text.substr(start, end - start);
  if (text[pos] == ':' && is_block_indicator(value, text.substr(end))) return std::nullopt;  // its lines follow
  // "Authorization: Bearer <token>": the scheme is a word, the secret is the next one.
  const std::string scheme = lower(value);
  if ((scheme == "bearer" || scheme == "basic" || scheme == "token") && end + 1 < text.size() && text[end] == ' ') {
    start = end + 1;
    end = value_end(text, start, query);
    if (end == start) return std::nullopt;
  }
  return Span{start, end};
}

// The argument of the flag text[begin, end) when the flag names a secret: --password x,
// --api-key x, --token x; curl -u user:password.
std::optional<Span> flag_argument(std::string_view text, size_t begin, size_t end) {
  const std::string_view flag = text.substr(begin, end - begin);
  const bool pair = is_credential_flag(flag);
  if (!pair && !(starts_with(flag, "--") && is_secret_key(flag))) return std::nullopt;
  size_t start = end;
  while (start < text.size() && (text[start] == ' ' || text[start] == '\t')) ++start;
  if (start == end || start == text.size() || text[start] == '-') return std::nullopt;  // --password=x, or no argument
  const size_t stop = value_end(text, start, false);
  if (pair) return credential_password(text, start, stop);
  return Span{start, stop};
}

bool is_user_char(unsigned char c) { return is_alnum(c) || c == '_' || c == '-' || c == '.'; }
bool is_password_char(char c) { return !is_space(c) && !is_one_of(c, "\"'@:/`<>"); }

// The password of user:password@host written without a scheme (rsync, scp), at the
// '@' text[at]; floor: where the last secret found on the line ended (the scan back
// stops there, so each byte is looked at once).
std::optional<Span> bare_userinfo_password(std::string_view text, size_t at, size_t floor) {
  if (at + 1 >= text.size() || !is_alnum(static_cast<unsigned char>(text[at + 1]))) return std::nullopt;
  size_t colon = at;
  while (colon > floor && is_password_char(text[colon - 1])) --colon;
  if (colon == at || colon <= floor || text[colon - 1] != ':') return std::nullopt;
  size_t user = colon - 1;
  while (user > floor && is_user_char(static_cast<unsigned char>(text[user - 1]))) --user;
  if (user == colon - 1 || (user > 0 && (text[user - 1] == ':' || text[user - 1] == '@'))) return std::nullopt;
  if (lower(text.substr(user, colon - 1 - user)) == "mailto") return std::nullopt;
  return Span{colon, at};
}

// Every secret in one line (no '\n') by its shape; offset: the line's place in the text.
void shape_spans(std::string_view line, size_t offset, std::vector<Span>& out) {
  size_t i = 0, floor = 0;
  auto take = [&](Span s) {
    out.emplace_back(offset + s.first, offset + s.second);
    floor = s.second;
    i = std::max(s.second, i + 1);
  };
  while (i < line.size()) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if (c == ':' && line.substr(i, 3) == "://") {
      if (auto s = webhook_secret(line, i)) {
        take(*s);
        continue;
      }
      if (auto s = url_userinfo(line, i)) {  // https://user:token@host: the userinfo goes, the rest stays readable
        take(*s);
        continue;
      }
    }
    if (c == '=' || c == ':') {
      if (auto s = assigned_secret(line, i)) {
        take(*s);
        continue;
      }
    }
    if (c == '@') {
      if (auto s = bare_userinfo_password(line, i, floor)) {
        take(*s);
        continue;
      }
    }
    if (is_word_char(c) && (i == 0 || !is_word_char(static_cast<unsigned char>(line[i - 1])))) {
      size_t end = i;
      while (end < line.size() && is_word_char(static_cast<unsigned char>(line[end]))) ++end;
      if (auto s = flag_argument(line, i, end)) {
        take(*s);
        continue;
      }
      if (is_token_shape(line.substr(i, end - i))) {
        size_t stop = end;
        while (line[stop - 1] == '.') --stop;  // the sentence's full stop stays
        take({i, stop});
      }
      i = end;
      continue;
    }
    ++i;
  }
}

size_t indentation(std::string_view line) {
  size_t n = 0;
  while (n < line.size() && (line[n] == ' ' || line[n] == '\t')) ++n;
  return n;
}

bool is_blank(std::string_view line) {
  return std::all_of(line.begin(), line.end(), [](char c) { return is_space(c); });
}

// "password: |", "  token:", "- api_key: >-": a secret key with nothing after the
// colon but a block indicator or a comment. Its column: the lines indented deeper are
// its value.
std::optional<size_t> secret_block_key(std::string_view line) {
  size_t p = indentation(line);
  if (line.substr(p, 2) == "- ") p = p + 2 + indentation(line.substr(p + 2));
  const size_t column = p;
  char quote = 0;
  if (p < line.size() && (line[p] == '"' || line[p] == '\'')) quote = line[p++];
  const size_t name = p;
  while (p < line.size() && is_name_char(static_cast<unsigned char>(line[p]))) ++p;
  if (p == name || !is_secret_key(line.substr(name, p - name))) return std::nullopt;
  if (quote && (p == line.size() || line[p++] != quote)) return std::nullopt;
  p += indentation(line.substr(p));
  if (p == line.size() || line[p] != ':') return std::nullopt;
  std::string_view rest = line.substr(p + 1);
  rest.remove_prefix(indentation(rest));
  size_t indicator = 0;
  while (indicator < rest.size() && !is_space(rest[indicator])) ++indicator;
  if (indicator > 0 && !is_block_indicator(rest.substr(0, indicator), rest.substr(indicator))) return std::nullopt;
  if (indicator == 0 && !is_block_indicator("|", rest)) return std::nullopt;  // only a comment may follow
  return column;
}

// Every secret in text: known values anywhere, shapes line by line. at_line_start:
// text starts a line (not a long line's later piece). state carries a secret YAML
// block from line to line; it is updated for each line that ends in text.
std::vector<Span> spans_of(std::string_view text, bool at_line_start, StreamRedactor::LineState& state) {
  std::vector<Span> spans = known_secret_spans(text);
  for (size_t start = 0; start < text.size();) {
    const size_t newline = text.find('\n', start);
    const bool complete = newline != std::string_view::npos;
    const size_t end = complete ? newline : text.size();
    const std::string_view line = text.substr(start, end - start);
    if (at_line_start)
      state.line_in_block = state.block_indent >= 0 &&
                            (is_blank(line) || static_cast<long>(indentation(line)) > state.block_indent);
    if (state.line_in_block) {
      size_t b = at_line_start ? indentation(line) : 0, e = line.size();
      if (e > b && line[e - 1] == '\r') --e;
      if (e > b) spans.emplace_back(start + b, start + e);
    } else {
      shape_spans(line, start, spans);
    }
    if (complete) {
      if (!state.line_in_block) {
        auto key = at_line_start ? secret_block_key(line) : std::nullopt;
        state.block_indent = key ? static_cast<long>(*key) : -1;
      }
      state.line_in_block = false;
    }
    at_line_start = complete;
    start = end + 1;
  }
  return spans;
}

// Sorted, with overlapping and touching spans joined: one <redacted> each.
std::vector<Span> merged(std::vector<Span> spans) {
  std::sort(spans.begin(), spans.end());
  std::vector<Span> out;
  for (const auto& s : spans) {
    if (!out.empty() && s.first <= out.back().second)
      out.back().second = std::max(out.back().second, s.second);
    else
      out.push_back(s);
  }
  return out;
}

// text[from, to) with each span replaced by <redacted>. A span that began before from
// was shown as <redacted> already (a long line's earlier piece): no second one.
std::string render(std::string_view text, const std::vector<Span>& spans, size_t from, size_t to) {
  std::string out;
  out.reserve(to - from);
  size_t pos = from;
  for (const auto& [begin, end] : spans) {
    if (end <= pos) continue;
    if (begin >= to) break;
    if (begin > pos) out.append(text.substr(pos, begin - pos));
    if (begin >= from) out.append(kRedacted);
    pos = end;
  }
  if (pos < to) out.append(text.substr(pos, to - pos));
  return out;
}

}  // namespace

bool is_secret_key(std::string_view key) {
  // --wandb-api-key and wandb.api.key name the same secret as WANDB_API_KEY.
  std::string k = lower(key);
  std::replace(k.begin(), k.end(), '-', '_');
  std::replace(k.begin(), k.end(), '.', '_');
  static constexpr std::array<std::string_view, 10> kWords = {"password",   "passwd",      "passphrase", "secret",
                                                               "api_key",    "apikey",      "access_key", "private_key",
                                                               "credential", "authorization"};
  for (std::string_view word : kWords)
    if (k.find(word) != std::string::npos) return true;
  // A word that ends in token (HF_TOKEN, authtoken, X-Amz-Security-Token), not
  // num_tokens or tokenizer: training logs are full of those.
  auto parts = name_parts(key);
  for (const auto& p : parts)
    if (p.size() >= 5 && p.compare(p.size() - 5, 5, "token") == 0) return true;
  // DB_PASS, MYSQL_PWD; "pass" alone is too often a count ("pass: 12 fail: 0").
  return parts.size() >= 2 && (parts.back() == "pass" || parts.back() == "pwd");
}

bool looks_like_secret_key(std::string_view key) {
  if (is_secret_key(key)) return true;
  for (const auto& p : name_parts(key))
    for (const char* word : {"key", "keys", "auth", "pat", "pass", "pw", "signature", "sig", "cookie", "session",
                             "bearer", "license"})
      if (p == word) return true;
  return false;
}

bool is_high_entropy(std::string_view value) {
  if (value.size() < 16 || value.size() > kMaxSecretLooking) return false;
  bool letter = false, digit = false;
  std::array<int, 256> counts{};
  for (unsigned char c : value) {
    if (!(is_alnum(c) || c == '_' || c == '-' || c == '+' || c == '/' || c == '=')) return false;
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
  StreamRedactor::LineState state;
  return render(text, merged(spans_of(text, true, state)), 0, text.size());
}

std::string redact_value(std::string_view key, std::string_view value) {
  if (!value.empty() && is_secret_key(key)) return std::string(kRedacted);
  if (looks_like_secret_key(key) && is_high_entropy(value)) return std::string(kRedacted);
  return redact_text(value);
}

std::vector<std::string> secrets_in_text(std::string_view text) {
  StreamRedactor::LineState state;
  std::vector<std::string> out;
  for (const auto& [begin, end] : merged(spans_of(text, true, state))) {
    std::string_view secret = unquoted(text.substr(begin, end - begin));
    if (secret.empty()) continue;
    out.emplace_back(secret);
    // user:password (a URL's userinfo): the password may turn up alone.
    if (size_t colon = secret.find(':'); colon != std::string_view::npos && colon + 1 < secret.size())
      out.emplace_back(secret.substr(colon + 1));
  }
  return out;
}

// A known value's longest encoding (a control character JSON-escaped twice: 7 bytes)
// fits in the context kept at a cut, so it is found whole there.
static_assert(7 * kMaxKnownSecretBytes < StreamRedactor::kOverlap);

std::string StreamRedactor::feed(std::string_view part) {
  std::string out;
  while (!part.empty()) {
    // pending_ holds no newline between calls: one search of what is added finds the
    // last one, and pending_ never outgrows kLongLine.
    const std::string_view slice = part.substr(0, kLongLine - pending_.size());
    part.remove_prefix(slice.size());
    const size_t newline = slice.rfind('\n');
    const size_t old_size = pending_.size();
    pending_.append(slice);
    if (newline != std::string_view::npos) {
      out += redact_pending(old_size + newline + 1, true);
    } else if (pending_.size() >= kLongLine) {
      // One line longer than kLongLine: all but the last kOverlap bytes go out, a
      // secret found across that cut whole.
      out += redact_pending(pending_.size() - kOverlap, false);
    }
  }
  return out;
}

std::string StreamRedactor::finish() {
  std::string out = redact_pending(pending_.size(), true);
  pending_.clear();
  given_ = 0;
  at_line_start_ = true;
  state_ = {};
  return out;
}

// Gives out pending_ up to stop (whole: stop ends a line or the text, and all before
// it is dropped; else a long line's piece, and kOverlap bytes before the piece's end
// stay as the next piece's context).
std::string StreamRedactor::redact_pending(size_t stop, bool whole) {
  const std::string_view text = whole ? std::string_view(pending_).substr(0, stop) : std::string_view(pending_);
  std::vector<Span> spans = merged(spans_of(text, at_line_start_, state_));
  if (!whole)
    for (const auto& [begin, end] : spans)
      if (begin < stop && end > stop) stop = end;  // never cut through a secret
  std::string out = render(text, spans, given_, stop);
  if (whole) {
    pending_.erase(0, stop);
    given_ = 0;
    at_line_start_ = true;
  } else {
    const size_t keep_from = stop - std::min(stop, kOverlap);
    pending_.erase(0, keep_from);
    given_ = stop - keep_from;
    at_line_start_ = false;
  }
  return out;
}

}  // namespace aorta
