// The event scanner's state machine, internal to event_scanner.h: the chunk driver
// (event_scanner.cc) reads, hands out batches and keeps the buffer; the structural
// scan (scan_structure.cc) walks brackets, strings, gaps and top-level keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "common/result.h"
#include "trace/block_masks.h"
#include "trace/byte_source.h"
#include "trace/event_scanner.h"
#include "trace/huge_page_allocator.h"

namespace aorta::trace::scan {

inline constexpr size_t kChunk = 4u << 20;  // 4 MiB reads: large enough to amortise syscalls
// simdjson's padding plus room for the ']' a consumer writes after the last event.
inline constexpr size_t kPadding = simdjson::SIMDJSON_PADDING + 64;

enum class Mode { kStart, kObject, kEvents, kDone };

class Scanner {
 public:
  Scanner(const ScanCallbacks& callbacks, std::initializer_list<std::string_view> keys, uint64_t max_token)
      : callbacks_(callbacks), keys_(keys.begin(), keys.end()), max_token_(max_token) {}

  Result<ScanStats> run(ByteSource& source, const ScanPart& part = {});

 private:
  // The chunk driver (event_scanner.cc).
  void start_at_element(const ScanPart& part);
  Result<ScanStats> end_of_part(const ScanPart& part) const;
  Error with_offset(Error e) const;
  Error token_error() const;
  Status check_trailing(ByteSource& source, size_t from, size_t end);
  Status flush();
  size_t compact(size_t end);

  // The structural scan (scan_structure.cc).
  [[gnu::always_inline]] inline bool gap_bytes_ok(size_t to);
  Status scan_gap(size_t to);
  [[gnu::always_inline]] inline Status end_gap(size_t q, bool closing);
  [[gnu::cold, gnu::noinline]] Error gap_error(size_t q, bool closing) const;
  void begin_events(size_t q);
  Status scan(size_t end);
  [[gnu::always_inline]] inline Result<size_t> fast_block(const char* data, size_t p);
  Result<size_t> exact_block(const char* data, size_t p, size_t end);
  static uint64_t separators(const char* block);
  [[gnu::always_inline]] inline Result<bool> event_bracket(size_t q);
  Status close_events(size_t q);
  Error element_error(size_t pos, const std::string& what) const;
  Status handle(const char* data, size_t q);
  Status open_outside_events(size_t q, char c);
  Status close_outside_events(size_t q, char c);
  Status top_level_key(size_t q);
  Status check_leading(size_t q) const;
  void emit_event(size_t start, size_t stop);
  void finish_value(size_t stop);

  static bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

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

}  // namespace aorta::trace::scan
