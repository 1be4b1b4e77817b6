#include "trace/event_scanner.h"

#include <algorithm>
#include <cstring>

#include "trace/scanner.h"

namespace aorta::trace {
namespace scan {

Result<ScanStats> Scanner::run(ByteSource& source, const ScanPart& part) {
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

// The state a scan of the whole file has at the '{' of a traceEvents element that
// follows a ',' (so the gap before it, in the part before, held the one comma).
void Scanner::start_at_element(const ScanPart& part) {
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
Result<ScanStats> Scanner::end_of_part(const ScanPart& part) const {
  if (mode_ == Mode::kEvents && depth_ == events_depth_ && !in_string_ && event_start_ == kNone && had_event_ &&
      gap_commas_ == 1)
    return stats_;
  return Error{ErrorCode::kInvalidInput,
               "byte " + std::to_string(part.end) + " is not the start of a traceEvents element", ""};
}

Error Scanner::with_offset(Error e) const {
  e.message += " (after " + std::to_string(stats_.bytes) + " bytes)";
  return e;
}

Error Scanner::token_error() const {
  std::string what = event_start_ != kNone   ? "traceEvents element at byte " + std::to_string(discarded_ + event_start_)
                     : value_start_ != kNone ? "value of top-level key '" + value_key_ + "'"
                                             : "top-level key at byte " + std::to_string(discarded_ + key_start_);
  return Error{ErrorCode::kInvalidInput,
               "the " + what + " is longer than the longest token the memory budget allows (" +
                   std::to_string(max_token_ >> 20) + " MiB; AORTA_TRACE_MEMORY_LIMIT raises it)",
               ""};
}

// After the top-level value only whitespace may follow, to the end of the file:
// a second document or trailing garbage means the file is not what it claims.
Status Scanner::check_trailing(ByteSource& source, size_t from, size_t end) {
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

// Hands the chunk's complete events to the consumer in one batch.
Status Scanner::flush() {
  if (batch_.empty()) return ok_status();
  Status s = callbacks_.on_events(EventBatch{buf_.data(), buf_.size(), &batch_});
  batch_.clear();
  return s;
}

// Moves the bytes still needed (an unfinished event or metadata value) to the front.
size_t Scanner::compact(size_t end) {
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

}  // namespace scan

Result<ScanStats> scan_trace(const std::filesystem::path& file, const ScanCallbacks& callbacks,
                             std::initializer_list<std::string_view> metadata_keys, uint64_t max_token_bytes) {
  return scan_trace_part(file, callbacks, metadata_keys, max_token_bytes, ScanPart{});
}

Result<ScanStats> scan_trace_part(const std::filesystem::path& file, const ScanCallbacks& callbacks,
                                  std::initializer_list<std::string_view> metadata_keys, uint64_t max_token_bytes,
                                  const ScanPart& part) {
  ByteSource source(file, scan::kChunk, part.begin, part.end);
  if (!source.open()) return Error{ErrorCode::kNotFound, "cannot open trace file", file.string()};
  scan::Scanner scanner(callbacks, metadata_keys, max_token_bytes);
  auto result = scanner.run(source, part);
  if (!result) {
    Error e = result.error();
    e.context = file.string();
    return e;
  }
  return result;
}

}  // namespace aorta::trace
