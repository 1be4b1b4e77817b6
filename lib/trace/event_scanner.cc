#include "trace/event_scanner.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include <simdjson.h>

#include "trace/block_masks.h"
#include "trace/byte_source.h"
#include "trace/huge_page_allocator.h"

namespace aorta::trace {
namespace {

constexpr size_t kChunk = 4u << 20;  // 4 MiB reads: large enough to amortise syscalls
// simdjson's padding plus room for the ']' a consumer writes after the last event.
constexpr size_t kPadding = simdjson::SIMDJSON_PADDING + 64;

enum class Mode { kStart, kObject, kEvents, kDone };

class Scanner {
 public:
  Scanner(const ScanCallbacks& callbacks, std::initializer_list<std::string_view> keys, uint64_t max_token)
      : callbacks_(callbacks), keys_(keys.begin(), keys.end()), max_token_(max_token) {}

  Result<ScanStats> run(ByteSource& source, const ScanPart& part = {}) {
    // A leading space: the first event of the file also has a separator byte before it.
    // Room for a chunk after an unfinished event of up to another chunk: the buffer
    // rarely grows.
    buf_.reserve(2 * kChunk + kPadding);
    buf_.resize(1 + kChunk + kPadding);
    buf_[0] = ' ';
    size_t used = 1;
    discarded_ = static_cast<uint64_t>(-1);  // so that file offsets count from the byte after it
    if (part.begin > 0) start_at_element(part);
    for (;;) {
      // What compaction kept is one unfinished event, key or kept value: past the
      // limit the buffer would grow with the input (a gzip bomb of one string).
      if (used - 1 > max_token_) return token_error();
      if (buf_.size() < used + kChunk + kPadding) buf_.resize(used + kChunk + kPadding);
      auto got = source.read(buf_.data() + used, kChunk);
      if (!got) return with_offset(got.error());
      if (*got == 0) break;
      stats_.bytes += *got;
      size_t end = used + *got;
      if (Status s = scan(end); !s) return s.error();
      if (Status s = flush(); !s) return s.error();
      if (mode_ == Mode::kDone) {
        if (Status s = check_trailing(source, pos_, end); !s) return s.error();
        break;
      }
      if (mode_ == Mode::kEvents && gap_from_ != kNone)
        if (Status s = scan_gap(pos_); !s) return s.error();
      used = compact(end);
    }
    if (part.end != UINT64_MAX) return end_of_part(part);
    if (mode_ == Mode::kStart)
      return Error{ErrorCode::kInvalidInput, "file is empty or holds no JSON value", ""};
    if (mode_ != Mode::kDone)
      return Error{ErrorCode::kInvalidInput,
                   "file is truncated: the JSON ends inside " +
                       std::string(mode_ == Mode::kEvents ? "the traceEvents array" : "the top-level value") +
                       " after " + std::to_string(stats_.bytes) + " bytes and " + std::to_string(stats_.events) +
                       " events",
                   ""};
    return stats_;
  }

 private:
  // The state a scan of the whole file has at the '{' of a traceEvents element that
  // follows a ',' (so the gap before it, in the part before, held the one comma).
  void start_at_element(const ScanPart& part) {
    discarded_ = part.begin - 1;
    mode_ = Mode::kEvents;
    stats_.legacy_array = part.legacy_array;
    events_depth_ = part.legacy_array ? 1 : 2;
    depth_ = events_depth_;
    if (!part.legacy_array) seen_keys_.emplace_back("traceEvents");
    gap_from_ = 1;
    gap_commas_ = 0;
    had_event_ = false;
  }

  // A part before the last must end where the next one starts: between two elements
  // of traceEvents, after the ',' that separates them.
  Result<ScanStats> end_of_part(const ScanPart& part) const {
    if (mode_ == Mode::kEvents && depth_ == events_depth_ && !in_string_ && event_start_ == kNone && had_event_ &&
        gap_commas_ == 1)
      return stats_;
    return Error{ErrorCode::kInvalidInput,
                 "byte " + std::to_string(part.end) + " is not the start of a traceEvents element", ""};
  }

  Error with_offset(Error e) const {
    e.message += " (after " + std::to_string(stats_.bytes) + " bytes)";
    return e;
  }

  Error token_error() const {
    std::string what = event_start_ != kNone   ? "traceEvents element at byte " + std::to_string(discarded_ + event_start_)
                       : value_start_ != kNone ? "value of top-level key '" + value_key_ + "'"
                                               : "top-level key at byte " + std::to_string(discarded_ + key_start_);
    return Error{ErrorCode::kInvalidInput,
                 "the " + what + " is longer than the longest token the memory budget allows (" +
                     std::to_string(max_token_ >> 20) + " MiB; AORTA_TRACE_MEMORY_LIMIT raises it)",
                 ""};
  }

  static bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

  // After the top-level value only whitespace may follow, to the end of the file:
  // a second document or trailing garbage means the file is not what it claims.
  Status check_trailing(ByteSource& source, size_t from, size_t end) {
    for (;;) {
      for (size_t i = from; i < end; ++i) {
        if (is_space(buf_[i])) continue;
        const bool document = buf_[i] == '{' || buf_[i] == '[';
        return Error{ErrorCode::kInvalidInput,
                     std::string(document ? "a second JSON document starts" : "trailing garbage") + " at byte " +
                         std::to_string(discarded_ + i) + ", after the end of the top-level JSON value",
                     ""};
      }
      discarded_ += end;
      auto got = source.read(buf_.data(), kChunk);
      if (!got) return with_offset(got.error());
      if (*got == 0) return ok_status();
      stats_.bytes += *got;
      from = 0;
      end = *got;
    }
  }

  // The bytes between traceEvents elements, [gap_from_, to): whitespace and commas
  // only. The fast path never looks at them, so they are checked here: a few bytes
  // per event, inline; building an error is out of line, off the hot path.
  [[gnu::always_inline]] bool gap_bytes_ok(size_t to) {
    const char* data = buf_.data();
    for (size_t i = gap_from_; i < to; ++i) {
      const char c = data[i];
      if (c == ',') {
        ++gap_commas_;
      } else if (!is_space(c)) [[unlikely]] {
        gap_from_ = i;
        return false;
      }
    }
    gap_from_ = to;
    return true;
  }

  Status scan_gap(size_t to) {
    if (gap_bytes_ok(to)) [[likely]]
      return ok_status();
    return gap_error(to, false);
  }

  // A gap ends at an element's '{' or at the ']' that closes traceEvents.
  [[gnu::always_inline]] Status end_gap(size_t q, bool closing) {
    if (!gap_bytes_ok(q) || gap_commas_ != (had_event_ && !closing ? 1u : 0u)) [[unlikely]]
      return gap_error(q, closing);
    gap_from_ = kNone;
    gap_commas_ = 0;
    return ok_status();
  }

  // gap_from_ is at the offending byte, or the gap ended at q with the wrong commas.
  [[gnu::cold, gnu::noinline]] Error gap_error(size_t q, bool closing) const {
    if (gap_from_ < q && buf_[gap_from_] != ',' && !is_space(buf_[gap_from_]))
      return Error{ErrorCode::kInvalidInput,
                   "garbage between traceEvents elements at byte " + std::to_string(discarded_ + gap_from_) +
                       " (only objects separated by ',' may be there)",
                   ""};
    const std::string at = " at byte " + std::to_string(discarded_ + q);
    return Error{ErrorCode::kInvalidInput,
                 gap_commas_ == 0 ? "missing ',' before the traceEvents element" + at
                 : closing        ? "',' after the last traceEvents element, before the ']'" + at
                 : !had_event_    ? "',' before the first traceEvents element" + at
                                  : "more than one ',' before the traceEvents element" + at,
                 ""};
  }

  void begin_events(size_t q) {
    gap_from_ = q + 1;
    gap_commas_ = 0;
    had_event_ = false;
  }

  // Scans buf_[pos_, end). Inside traceEvents, 64-byte blocks without backslashes
  // take the fast path (fast_block); everything else goes through exact_block, which
  // visits every structural byte. Bytes past `end` are readable padding, so blocks
  // may overhang.
  Status scan(size_t end) {
    const char* data = buf_.data();
    size_t p = std::max(pos_, skip_to_);
    while (p < end && mode_ != Mode::kDone) {
      if (mode_ == Mode::kEvents && p + 64 <= end && skip_to_ <= p) {
        auto next = fast_block(data, p);
        if (!next) return next.error();
        if (*next != p) {
          p = *next;
          continue;
        }
      }
      auto next = exact_block(data, p, end);
      if (!next) return next.error();
      p = *next;
    }
    pos_ = std::min(p, end);
    return ok_status();
  }

  // The quotes of a 64-byte block without backslashes delimit its strings: their
  // prefix XOR marks the bytes inside them (simdjson's stage-1 trick), so only the
  // brackets outside strings are visited. Returns p unchanged when the block needs
  // the exact path.
  [[gnu::always_inline]] Result<size_t> fast_block(const char* data, size_t p) {
    const BlockMasks m = masks_.fn(data + p);
    if (m.backslashes) return p;
    const uint64_t inside = in_string_ ? ~m.quote_parity : m.quote_parity;
    uint64_t brackets = m.brackets & ~inside;
    in_string_ = false;  // every bracket left is outside strings
    while (brackets) {
      size_t q = p + static_cast<size_t>(__builtin_ctzll(brackets));
      brackets &= brackets - 1;
      auto inside_events = event_bracket(q);
      if (!inside_events) return inside_events.error();
      if (!*inside_events) {  // traceEvents ends here; go on exactly
        if (Status s = close_events(q); !s) return s.error();
        return q + 1;
      }
    }
    in_string_ = (inside >> 63) & 1;
    return p + 64;
  }

  // Up to 64 bytes, one structural byte at a time.
  Result<size_t> exact_block(const char* data, size_t p, size_t end) {
    const BlockMasks m = masks_.fn(data + p);
    uint64_t mask = m.quotes | m.backslashes | m.brackets;
    // Inside traceEvents only strings and nesting matter; ':' and ',' are needed for
    // the keys of the top-level object.
    if (mode_ != Mode::kEvents) mask |= separators(data + p);
    if (end - p < 64) mask &= (uint64_t{1} << (end - p)) - 1;
    while (mask) {
      size_t q = p + static_cast<size_t>(__builtin_ctzll(mask));
      mask &= mask - 1;
      if (q < skip_to_) continue;  // the byte after a backslash
      Mode before = mode_;
      if (Status s = handle(data, q); !s) return s.error();
      // Leaving traceEvents makes ':' and ',' matter again: recompute the mask.
      if (mode_ == Mode::kDone || (before == Mode::kEvents && mode_ != Mode::kEvents)) return q + 1;
    }
    return std::max(p + 64, skip_to_);
  }

  // ':' and ',' in 64 bytes; only the top-level object needs them, so no SIMD.
  static uint64_t separators(const char* block) {
    uint64_t mask = 0;
    for (int i = 0; i < 64; ++i)
      if (block[i] == ':' || block[i] == ',') mask |= uint64_t{1} << i;
    return mask;
  }

  // A bracket outside strings inside traceEvents. False when it closes the array
  // itself, which close_events() deals with.
  [[gnu::always_inline]] Result<bool> event_bracket(size_t q) {
    const char c = buf_[q];
    if (c == '{' || c == '[') {
      if (depth_ == events_depth_) {
        if (c == '[') return element_error(q, "is an array, not an event object");
        if (Status s = end_gap(q, false); !s) return s.error();
        event_start_ = q;
      }
      ++depth_;
      return true;
    }
    if (depth_ == events_depth_) return false;
    if (--depth_ == events_depth_) {
      if (c != '}') return element_error(event_start_, "is an object closed by ']'");
      emit_event(event_start_, q + 1);
      event_start_ = kNone;
      gap_from_ = q + 1;
      had_event_ = true;
    }
    return true;
  }

  Status close_events(size_t q) {
    if (buf_[q] != ']')
      return Error{ErrorCode::kInvalidInput, "traceEvents is closed by '}' at byte " + std::to_string(discarded_ + q), ""};
    if (Status s = end_gap(q, true); !s) return s;
    --depth_;
    mode_ = stats_.legacy_array ? Mode::kDone : Mode::kObject;
    value_key_.clear();
    return ok_status();
  }

  Error element_error(size_t pos, const std::string& what) const {
    return Error{ErrorCode::kInvalidInput,
                 "traceEvents element at byte " + std::to_string(discarded_ + pos) + " " + what, ""};
  }

  // One structural byte at q.
  Status handle(const char* data, size_t q) {
    char c = data[q];
    if (in_string_) {
      if (c == '\\') {
        skip_to_ = q + 2;
      } else if (c == '"') {
        in_string_ = false;
        if (key_start_ != kNone) {
          key_.assign(data + key_start_, q - key_start_);
          key_start_ = kNone;
        }
      }
      return ok_status();
    }
    switch (c) {
      case '"':
        in_string_ = true;
        if (mode_ == Mode::kObject && depth_ == 1 && expect_key_) {
          key_start_ = q + 1;
          expect_key_ = false;
        }
        break;
      case '{':
      case '[':
      case '}':
      case ']':
        if (mode_ == Mode::kEvents) {
          auto inside_events = event_bracket(q);
          if (!inside_events) return inside_events.error();
          if (!*inside_events) return close_events(q);
        } else if (c == '{' || c == '[') {
          if (mode_ == Mode::kStart) {
            if (Status s = check_leading(q); !s) return s;
            if (c == '[') begin_events(q);
            mode_ = c == '[' ? Mode::kEvents : Mode::kObject;
            stats_.legacy_array = c == '[';
            events_depth_ = 1;
            expect_key_ = true;
          } else if (mode_ == Mode::kObject && depth_ == 1 && c == '[' && value_key_ == "traceEvents") {
            mode_ = Mode::kEvents;
            events_depth_ = 2;
            begin_events(q);
          }
          ++depth_;
        } else {
          if (depth_ == 0) return Error{ErrorCode::kInvalidInput, "unbalanced '" + std::string(1, c) + "'", ""};
          --depth_;
          if (mode_ == Mode::kObject && depth_ == 0) {
            finish_value(q);
            mode_ = Mode::kDone;
          }
        }
        break;
      case ':':
        if (mode_ == Mode::kObject && depth_ == 1) {
          value_key_ = key_;
          const bool kept = std::find(keys_.begin(), keys_.end(), value_key_) != keys_.end();
          // A second traceEvents (or kept key) would be read twice or override the first.
          if (kept || value_key_ == "traceEvents") {
            if (std::find(seen_keys_.begin(), seen_keys_.end(), value_key_) != seen_keys_.end())
              return Error{ErrorCode::kInvalidInput,
                           "duplicate top-level key '" + value_key_ + "' at byte " + std::to_string(discarded_ + q), ""};
            seen_keys_.push_back(value_key_);
          }
          if (kept) value_start_ = q + 1;
        }
        break;
      case ',':
        if (mode_ == Mode::kObject && depth_ == 1) {
          finish_value(q);
          expect_key_ = true;
        }
        break;
      default:
        break;
    }
    return ok_status();
  }

  // Only whitespace may come before the top-level value. Checked in the first chunk,
  // which is where any real file's value starts.
  Status check_leading(size_t q) const {
    if (discarded_ != static_cast<uint64_t>(-1)) return ok_status();
    for (size_t i = 1; i < q; ++i)
      if (!is_space(buf_[i]))
        return Error{ErrorCode::kInvalidInput, "garbage at byte " + std::to_string(i - 1) + ", before the top-level JSON value", ""};
    return ok_status();
  }

  void emit_event(size_t start, size_t stop) {
    ++stats_.events;
    batch_.push_back({start, stop - start, discarded_ + start});
  }

  // Hands the chunk's complete events to the consumer in one batch.
  Status flush() {
    if (batch_.empty()) return ok_status();
    Status s = callbacks_.on_events(EventBatch{buf_.data(), buf_.size(), &batch_});
    batch_.clear();
    return s;
  }

  void finish_value(size_t stop) {
    if (value_start_ != kNone && callbacks_.on_metadata) {
      std::string_view text(buf_.data() + value_start_, stop - value_start_);
      callbacks_.on_metadata(value_key_, text);
    }
    value_start_ = kNone;
    value_key_.clear();
  }

  // Moves the bytes still needed (an unfinished event or metadata value) to the front.
  size_t compact(size_t end) {
    size_t keep = std::min({pos_, event_start_, value_start_, key_start_});
    if (keep > 0) --keep;  // the separator byte before an unfinished event (see EventBatch)
    if (keep == 0) return end;
    std::memmove(buf_.data(), buf_.data() + keep, end - keep);
    auto shift = [keep](size_t& v) {
      if (v != kNone) v -= keep;
    };
    shift(event_start_);
    shift(value_start_);
    shift(key_start_);
    shift(gap_from_);
    if (skip_to_ != 0) skip_to_ = skip_to_ > keep ? skip_to_ - keep : 0;
    pos_ -= keep;
    discarded_ += keep;
    return end - keep;
  }

  static constexpr size_t kNone = static_cast<size_t>(-1);
  const ScanCallbacks& callbacks_;
  const BlockMasksImpl masks_ = block_masks_for_this_cpu();
  std::vector<std::string_view> keys_;
  const uint64_t max_token_;
  std::vector<std::string> seen_keys_;  // traceEvents and kept keys, for duplicates
  // Huge pages: a buffer of 4 KiB pages took three thousand page faults to fill and
  // grow once, a cost paid again by every part of a split file.
  LargeVector<char> buf_;
  std::vector<EventRef> batch_;
  ScanStats stats_;
  Mode mode_ = Mode::kStart;
  size_t pos_ = 0;
  uint64_t discarded_ = 0;  // bytes dropped from the front of buf_, for file offsets
  size_t depth_ = 0;
  size_t events_depth_ = 0;
  bool in_string_ = false;
  size_t skip_to_ = 0;  // positions before this are an escaped byte
  bool expect_key_ = false;
  size_t key_start_ = kNone;
  size_t event_start_ = kNone;
  size_t value_start_ = kNone;
  size_t gap_from_ = kNone;  // start of the unchecked bytes after the last element (or '[')
  size_t gap_commas_ = 0;    // commas seen in the current gap
  bool had_event_ = false;   // an element came before the current gap
  std::string key_;
  std::string value_key_;
};

}  // namespace

Result<ScanStats> scan_trace(const std::filesystem::path& file, const ScanCallbacks& callbacks,
                             std::initializer_list<std::string_view> metadata_keys, uint64_t max_token_bytes) {
  ByteSource source(file, kChunk);
  if (!source.open()) return Error{ErrorCode::kNotFound, "cannot open trace file", file.string()};
  Scanner scanner(callbacks, metadata_keys, max_token_bytes);
  auto result = scanner.run(source);
  if (!result) {
    Error e = result.error();
    e.context = file.string();
    return e;
  }
  return result;
}

Result<ScanStats> scan_trace_part(const std::filesystem::path& file, const ScanCallbacks& callbacks,
                                  std::initializer_list<std::string_view> metadata_keys, uint64_t max_token_bytes,
                                  const ScanPart& part) {
  ByteSource source(file, kChunk, part.begin, part.end);
  if (!source.open()) return Error{ErrorCode::kNotFound, "cannot open trace file", file.string()};
  Scanner scanner(callbacks, metadata_keys, max_token_bytes);
  auto result = scanner.run(source, part);
  if (!result) {
    Error e = result.error();
    e.context = file.string();
    return e;
  }
  return result;
}

}  // namespace aorta::trace
