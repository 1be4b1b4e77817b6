#include "redact/known_secrets.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "common/shell_quote.h"

namespace aorta::redact {
namespace {

// Base64 needles shorter than this would turn up by chance in unrelated base64.
constexpr size_t kMinEncodedNeedle = 6;

std::string json_escaped(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

std::string percent_encoded(std::string_view text, bool upper) {
  const char* hex = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// xxd -p, bytes.hex(), od -tx1 without the spaces; %02X.
std::string hex(std::string_view bytes, bool upper) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

// Without padding: the needle must match whatever follows the value.
std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (unsigned char c : bytes) {
    bits = (bits << 8) | c;
    count += 8;
    while (count >= 6) {
      count -= 6;
      out += kAlphabet[(bits >> count) & 63];
    }
  }
  if (count > 0) out += kAlphabet[(bits << (6 - count)) & 63];
  return out;
}

bool is_base64_char(unsigned char c) { return std::isalnum(c) || c == '+' || c == '/' || c == '-' || c == '_'; }

struct Needle {
  std::string text;
  bool encoded;  // base64: the whole base64 word around a match goes
};

// The forms value takes in a log. Base64 of text that has value inside it (user:value
// for basic auth) encodes value differently at each of the three byte alignments, and
// the characters next to it also carry bits of the bytes around: so each alignment
// gets a needle for the groups made only of value's bytes (value followed by more
// text) and one that runs to value's end (value ends the encoded text), and a match
// takes the whole base64 word with it.
std::vector<Needle> needles_of(const std::string& value) {
  std::vector<Needle> out;
  auto add = [&](std::string text, bool encoded) {
    if (text.size() < (encoded ? kMinEncodedNeedle : kMinKnownSecret)) return;
    for (const auto& n : out)
      if (n.text == text) return;
    out.push_back({std::move(text), encoded});
  };
  add(value, false);
  add(json_escaped(value), false);
  add(json_escaped(json_escaped(value)), false);  // a JSON document inside a JSON string
  add(percent_encoded(value, true), false);
  add(percent_encoded(value, false), false);
  std::string quoted = shell_quote(value);
  if (quoted.size() >= 2 && quoted.front() == '\'') add(quoted.substr(1, quoted.size() - 2), false);
  add(hex(value, false), false);
  add(hex(value, true), false);
  for (size_t skip = 0; skip < 3 && skip < value.size(); ++skip) {
    const std::string_view rest = std::string_view(value).substr(skip);
    for (std::string text : {base64(rest.substr(0, rest.size() / 3 * 3)), base64(rest)}) {
      std::string url = text;
      std::replace(url.begin(), url.end(), '+', '-');
      std::replace(url.begin(), url.end(), '/', '_');
      add(std::move(text), true);
      add(std::move(url), true);
    }
  }
  return out;
}

// Aho-Corasick over every needle: one pass over the text finds them all, so a long
// line costs the same whatever the number of secrets (string_view::find per needle
// would be a pass each, and worse on repetitive text).
class Matcher {
 public:
  explicit Matcher(const std::vector<Needle>& needles) {
    nodes_.emplace_back();
    root_.fill(0);
    for (const auto& needle : needles) {
      int state = 0;
      for (unsigned char c : needle.text) {
        int next = child(state, c);
        if (next == 0) {
          next = static_cast<int>(nodes_.size());
          nodes_.emplace_back();
          if (state == 0)
            root_[c] = next;
          else
            nodes_[state].next.emplace_back(c, next);
        }
        state = next;
      }
      uint32_t& longest = needle.encoded ? nodes_[state].encoded : nodes_[state].plain;
      longest = std::max<uint32_t>(longest, static_cast<uint32_t>(needle.text.size()));
    }
    // Breadth first, so a node's failure link is complete before its children's.
    std::vector<int> queue;
    for (int c = 0; c < 256; ++c)
      if (root_[c]) queue.push_back(root_[c]);
    for (size_t head = 0; head < queue.size(); ++head) {
      const int node = queue[head];
      for (auto [c, next] : nodes_[node].next) {
        int fail = nodes_[node].fail;
        int target = step(fail, c);
        nodes_[next].fail = target;
        // The longest needle ending here, this node's own or one ending in its suffix.
        nodes_[next].plain = std::max(nodes_[next].plain, nodes_[target].plain);
        nodes_[next].encoded = std::max(nodes_[next].encoded, nodes_[target].encoded);
        queue.push_back(next);
      }
    }
  }

  std::vector<std::pair<size_t, size_t>> spans(std::string_view text) const {
    std::vector<std::pair<size_t, size_t>> cut;  // in order and apart
    int state = 0;
    for (size_t i = 0; i < text.size(); ++i) {
      state = step(state, static_cast<unsigned char>(text[i]));
      const Node& n = nodes_[state];
      if (!n.plain && !n.encoded) continue;
      const size_t end = i + 1;
      if (!cut.empty() && end <= cut.back().second) continue;  // inside what already goes
      const size_t floor = cut.empty() ? 0 : cut.back().second;
      size_t begin = end - std::max(n.plain, n.encoded), stop = end;
      if (n.encoded >= n.plain) {
        // The whole base64 word, to its padding; never back into what already goes,
        // so a long run of matches costs one pass.
        while (begin > floor && is_base64_char(static_cast<unsigned char>(text[begin - 1]))) --begin;
        while (stop < text.size() && is_base64_char(static_cast<unsigned char>(text[stop]))) ++stop;
        while (stop < text.size() && text[stop] == '=') ++stop;
      }
      while (!cut.empty() && begin <= cut.back().second) {
        begin = std::min(begin, cut.back().first);
        cut.pop_back();
      }
      cut.emplace_back(begin, stop);
    }
    return cut;
  }

 private:
  struct Node {
    std::vector<std::pair<unsigned char, int>> next;  // few children below the root
    int fail = 0;
    uint32_t plain = 0, encoded = 0;  // longest needle of each kind ending here
  };

  int child(int state, unsigned char c) const {
    if (state == 0) return root_[c];
    for (auto [ch, next] : nodes_[state].next)
      if (ch == c) return next;
    return 0;
  }

  int step(int state, unsigned char c) const {
    while (state != 0) {
      if (int next = child(state, c)) return next;
      state = nodes_[state].fail;
    }
    return root_[c];
  }

  std::vector<Node> nodes_;
  std::array<int, 256> root_;
};

struct Registry {
  std::mutex mutex;
  std::set<std::string> values;
  size_t bytes = 0;
  std::shared_ptr<const Matcher> matcher;  // null: rebuilt at the next use
};

Registry& registry() {
  static Registry r;
  return r;
}

std::shared_ptr<const Matcher> current_matcher() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (r.values.empty()) return nullptr;
  if (!r.matcher) {
    std::vector<Needle> needles;
    for (const auto& value : r.values)
      for (auto& n : needles_of(value)) needles.push_back(std::move(n));
    r.matcher = std::make_shared<const Matcher>(needles);
  }
  return r.matcher;
}

}  // namespace

bool add_known_secret(std::string_view value) {
  // A multi-line value (a key file) is also found line by line: logs are redacted a
  // line at a time.
  std::vector<std::string_view> parts = {value};
  for (size_t start = 0; value.find('\n') != std::string_view::npos && start <= value.size();) {
    size_t end = std::min(value.find('\n', start), value.size());
    std::string_view line = value.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    parts.push_back(line);
    start = end + 1;
  }
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  size_t adding = 0;
  for (auto part : parts)
    if (part.size() >= kMinKnownSecret && !r.values.count(std::string(part))) adding += part.size();
  if (r.bytes + adding > kMaxKnownSecretBytes) return false;
  for (auto part : parts)
    if (part.size() >= kMinKnownSecret && r.values.emplace(part).second) {
      r.bytes += part.size();
      r.matcher = nullptr;
    }
  return true;
}

void forget_known_secrets() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.values.clear();
  r.bytes = 0;
  r.matcher = nullptr;
}

std::vector<std::pair<size_t, size_t>> known_secret_spans(std::string_view text) {
  auto matcher = current_matcher();
  return matcher ? matcher->spans(text) : std::vector<std::pair<size_t, size_t>>{};
}

}  // namespace aorta::redact
