// The structural scan of the event scanner (scanner.h): brackets and strings found
// 64 bytes at a time, the gaps between traceEvents elements checked, the top-level
// object's keys and kept values. The per-byte hot path: it stays in this one file.
#include <algorithm>
#include <string>

#include "trace/scanner.h"

namespace aorta::trace::scan {

// The bytes between traceEvents elements, [gap_from_, to): whitespace and commas
// only. The fast path never looks at them, so they are checked here: a few bytes
// per event, inline; building an error is out of line, off the hot path.
bool Scanner::gap_bytes_ok(size_t to) {
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

Status Scanner::scan_gap(size_t to) {
  if (gap_bytes_ok(to)) [[likely]]
    return ok_status();
  return gap_error(to, false);
}

// A gap ends at an element's '{' or at the ']' that closes traceEvents.
Status Scanner::end_gap(size_t q, bool closing) {
  if (!gap_bytes_ok(q) || gap_commas_ != (had_event_ && !closing ? 1u : 0u)) [[unlikely]]
    return gap_error(q, closing);
  gap_from_ = kNone;
  gap_commas_ = 0;
  return ok_status();
}

// gap_from_ is at the offending byte, or the gap ended at q with the wrong commas.
Error Scanner::gap_error(size_t q, bool closing) const {
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

void Scanner::begin_events(size_t q) {
  gap_from_ = q + 1;
  gap_commas_ = 0;
  had_event_ = false;
}

// Scans buf_[pos_, end). Inside traceEvents, 64-byte blocks without backslashes
// take the fast path (fast_block); everything else goes through exact_block, which
// visits every structural byte. Bytes past `end` are readable padding, so blocks
// may overhang.
Status Scanner::scan(size_t end) {
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
Result<size_t> Scanner::fast_block(const char* data, size_t p) {
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
Result<size_t> Scanner::exact_block(const char* data, size_t p, size_t end) {
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
uint64_t Scanner::separators(const char* block) {
  uint64_t mask = 0;
  for (int i = 0; i < 64; ++i)
    if (block[i] == ':' || block[i] == ',') mask |= uint64_t{1} << i;
  return mask;
}

// A bracket outside strings inside traceEvents. False when it closes the array
// itself, which close_events() deals with.
Result<bool> Scanner::event_bracket(size_t q) {
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

Status Scanner::close_events(size_t q) {
  if (buf_[q] != ']')
    return Error{ErrorCode::kInvalidInput, "traceEvents is closed by '}' at byte " + std::to_string(discarded_ + q), ""};
  if (Status s = end_gap(q, true); !s) return s;
  --depth_;
  mode_ = stats_.legacy_array ? Mode::kDone : Mode::kObject;
  value_key_.clear();
  return ok_status();
}

Error Scanner::element_error(size_t pos, const std::string& what) const {
  return Error{ErrorCode::kInvalidInput,
               "traceEvents element at byte " + std::to_string(discarded_ + pos) + " " + what, ""};
}

// One structural byte at q.
Status Scanner::handle(const char* data, size_t q) {
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
        if (Status s = open_outside_events(q, c); !s) return s;
      } else if (Status s = close_outside_events(q, c); !s) {
        return s;
      }
      break;
    case ':':
      if (mode_ == Mode::kObject && depth_ == 1)
        if (Status s = top_level_key(q); !s) return s;
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

// '{' or '[' outside traceEvents: the top-level value's start, traceEvents' own '[', or
// a bracket of another top-level value.
Status Scanner::open_outside_events(size_t q, char c) {
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
  return ok_status();
}

// '}' or ']' outside traceEvents: the top-level object's end finishes its last value.
Status Scanner::close_outside_events(size_t q, char c) {
  if (depth_ == 0) return Error{ErrorCode::kInvalidInput, "unbalanced '" + std::string(1, c) + "'", ""};
  --depth_;
  if (mode_ == Mode::kObject && depth_ == 0) {
    finish_value(q);
    mode_ = Mode::kDone;
  }
  return ok_status();
}

// A top-level key's ':': the value that follows is kept when its key is asked for.
Status Scanner::top_level_key(size_t q) {
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
  return ok_status();
}

// Only whitespace may come before the top-level value. Checked in the first chunk,
// which is where any real file's value starts.
Status Scanner::check_leading(size_t q) const {
  if (discarded_ != static_cast<uint64_t>(-1)) return ok_status();
  for (size_t i = 1; i < q; ++i)
    if (!is_space(buf_[i]))
      return Error{ErrorCode::kInvalidInput, "garbage at byte " + std::to_string(i - 1) + ", before the top-level JSON value", ""};
  return ok_status();
}

void Scanner::emit_event(size_t start, size_t stop) {
  ++stats_.events;
  batch_.push_back({start, stop - start, discarded_ + start});
}

void Scanner::finish_value(size_t stop) {
  if (value_start_ != kNone && callbacks_.on_metadata) {
    std::string_view text(buf_.data() + value_start_, stop - value_start_);
    callbacks_.on_metadata(value_key_, text);
  }
  value_start_ = kNone;
  value_key_.clear();
}

}  // namespace aorta::trace::scan
