#include "redact/redact.h"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "redact/known_secrets.h"
#include "redact/redact_scan.h"

// The entry points: key names, the text scan line by line (known values, shapes from
// redact_line.cc, YAML blocks under a secret key), and the streaming redactor.
namespace aorta::redact {
using namespace detail;
namespace {

// The words of a key name, lower case, as snake_case, kebab-case, dotted and camelCase
// write them: DB_PASS -> db, pass; privateKey -> private, key; HFToken -> hf,
// token.
std::vector<std::string> name_parts(std::string_view key) {
  std::vector<std::string> parts;
  std::string part;
  auto is_upper = [](char c) { return c >= 'A' && c <= 'Z'; };
  auto is_lower_or_digit = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  for (size_t k = 0; k <= key.size(); ++k) {
    const char c = k < key.size() ? key[k] : '_';
    const bool separator = c == '_' || c == '-' || c == '.';
    // A capital starts a word after a small letter or digit (accountKey), and ends a
    // run of capitals before a small letter (HFToken).
    const bool camel = k > 0 && is_upper(c) &&
                       (is_lower_or_digit(key[k - 1]) ||
                        (is_upper(key[k - 1]) && k + 1 < key.size() && key[k + 1] >= 'a' && key[k + 1] <= 'z'));
    if ((separator || camel) && !part.empty()) parts.push_back(std::exchange(part, {}));
    if (!separator) part += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return parts;
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

// A line of a private key's block (the prefix in state): its span in body, or the
// block ends (the END marker, other text). seen: the line without its escapes.
bool in_private_key(std::string_view seen, StreamRedactor::LineState& state, Span& body) {
  if (!state.key_prefix) return false;
  const KeyLine kind = private_key_line(seen, *state.key_prefix, body);
  if (kind == KeyLine::kEnd) state.key_prefix.reset();
  return kind == KeyLine::kBody;
}

// The secrets of one line, or of a long line's piece (at_line_start false: not its
// first; complete false: not its last), into spans at start; state carries the YAML
// and private key blocks from line to line. The rules read the line as it is and, when
// it has escape sequences, as a terminal shows it (a coloured key name).
void line_spans(std::string_view line, size_t start, bool at_line_start, bool complete,
                StreamRedactor::LineState& state, std::vector<Span>& spans) {
  const auto view = escape_free(line);
  const std::string_view seen = view ? std::string_view(view->text) : line;
  auto add = [&](Span s) {  // s: in seen
    if (s.second <= s.first) return;
    if (view) s = view->in_line(s);
    spans.emplace_back(start + s.first, start + s.second);
  };
  if (at_line_start) {
    state.line_in_block = state.block_indent >= 0 &&
                          (is_blank(seen) || static_cast<long>(indentation(seen)) > state.block_indent);
    Span body;
    state.line_in_key = !state.line_in_block && in_private_key(seen, state, body);
    if (state.line_in_key) add(body);
  }
  if (state.line_in_block || (state.line_in_key && !at_line_start)) {
    size_t b = at_line_start ? indentation(line) : 0, e = line.size();
    if (e > b && line[e - 1] == '\r') --e;
    if (e > b) spans.emplace_back(start + b, start + e);
  } else if (!state.line_in_key) {
    shape_spans(line, start, spans);
    std::vector<Span> found;
    if (view) shape_spans(seen, 0, found);
    for (const Span& s : found) add(s);
  }
  if (!complete) return;
  if (!state.line_in_block) {
    const bool opens = at_line_start && !state.line_in_key;
    auto key = opens ? secret_block_key(seen) : std::nullopt;
    state.block_indent = key ? static_cast<long>(*key) : -1;
    if (opens && !state.key_prefix) state.key_prefix = private_key_opens(seen);
  }
  state.line_in_block = false;
  state.line_in_key = false;
}

// Every secret in text: known values anywhere, shapes line by line. at_line_start:
// text starts a line (not a long line's later piece). state carries the blocks from
// line to line; it is updated for each line that ends in text.
std::vector<Span> spans_of(std::string_view text, bool at_line_start, StreamRedactor::LineState& state) {
  std::vector<Span> spans = known_secret_spans(text);
  for (size_t start = 0; start < text.size();) {
    const size_t newline = text.find('\n', start);
    const bool complete = newline != std::string_view::npos;
    const size_t end = complete ? newline : text.size();
    line_spans(text.substr(start, end - start), start, at_line_start, complete, state, spans);
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
  const auto parts = name_parts(key);
  // SharedAccessKeyName, secret_name: what names a secret is no secret.
  if (parts.empty() || parts.back() == "name") return false;
  // The words run together, so that every spelling is one: api_key, apiKey, --api-key,
  // wandb.api.key, APIKEY.
  std::string joined;
  for (const auto& p : parts) joined += p;
  static constexpr std::array<std::string_view, 11> kWords = {"password",   "passwd",     "passphrase", "secret",
                                                               "apikey",     "accesskey",  "privatekey", "accountkey",
                                                               "credential", "authorization", "connectionstring"};
  for (std::string_view word : kWords)
    if (joined.find(word) != std::string::npos) return true;
  // The variables programs read their password from: sshpass -e, redis-cli.
  if (joined == "sshpass" || joined == "rediscliauth") return true;
  // A word that ends in token (HF_TOKEN, authtoken, accessToken, X-Amz-Security-Token),
  // not num_tokens or tokenizer: training logs are full of those, and of camelCase
  // metrics (tokenCount, timeToFirstTokenMs), so the words here are only those that
  // separators make.
  for (size_t begin = 0, end; begin <= key.size(); begin = end + 1) {
    end = std::min(key.find_first_of("_-.", begin), key.size());
    if (end - begin >= 5 && lower(key.substr(end - 5, 5)) == "token") return true;
  }
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

}  // namespace aorta::redact
