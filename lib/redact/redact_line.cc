// Where a secret stands in one line of text, found by what is around it: a URL's
// credentials, a webhook's secret, NAME=value under a secret key, a flag's argument,
// user:password@host; and by its own shape (redact_shapes.cc).
#include <array>
#include <optional>

#include "redact/redact.h"
#include "redact/redact_scan.h"

namespace aorta::redact::detail {
namespace {

// Characters of one token as providers write them (base64url, hex, dots of a JWT).
bool is_word_char(unsigned char c) { return is_alnum(c) || c == '_' || c == '-' || c == '.'; }

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

}  // namespace

// Quoted: "..." with backslash escapes, '...', or \"...\" inside an escaped JSON string.
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

void shape_spans(std::string_view line, size_t offset, std::vector<Span>& out) {
  size_t i = 0, floor = 0;
  LineWords words;
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
      if (auto s = c == '-' ? private_key_on_line(line, i) : std::nullopt) {
        take(*s);
        continue;
      }
      if (auto s = password_of_word(line, i, end, words)) {
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
    if (c == '|' || c == ';' || c == '&') words.command = {};  // the next command's flags are its own
    ++i;
  }
}

}  // namespace aorta::redact::detail
