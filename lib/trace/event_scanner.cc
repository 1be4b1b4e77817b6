#include "trace/event_scanner.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include <simdjson.h>

namespace aorta::trace {
namespace {

constexpr size_t kChunk = 4u << 20;  // 4 MiB reads: large enough to amortise syscalls

// zlib's gz* functions read gzip and plain files alike.
class ByteSource {
 public:
  explicit ByteSource(const std::filesystem::path& file) : gz_(gzopen(file.c_str(), "rb")) {
    if (gz_) gzbuffer(gz_, 1u << 20);
  }
  ~ByteSource() {
    if (gz_) gzclose(gz_);
  }
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;
  bool open() const { return gz_ != nullptr; }
  // Bytes read, 0 at the end; an error for a damaged gzip stream.
  Result<size_t> read(char* into, size_t size) {
    int n = gzread(gz_, into, static_cast<unsigned>(size));
    if (n < 0) {
      int code = 0;
      const char* message = gzerror(gz_, &code);
      return Error{ErrorCode::kInvalidInput, std::string("gzip stream is damaged: ") + message, ""};
    }
    return static_cast<size_t>(n);
  }

 private:
  gzFile gz_;
};

enum class Mode { kStart, kObject, kEvents, kDone };

class Scanner {
 public:
  Scanner(const ScanCallbacks& callbacks, std::initializer_list<std::string_view> keys)
      : callbacks_(callbacks), keys_(keys.begin(), keys.end()) {}

  Result<ScanStats> run(ByteSource& source) {
    buf_.resize(kChunk + simdjson::SIMDJSON_PADDING);
    size_t used = 0;
    for (;;) {
      if (buf_.size() < used + kChunk + simdjson::SIMDJSON_PADDING) buf_.resize(used + kChunk + simdjson::SIMDJSON_PADDING);
      auto got = source.read(buf_.data() + used, kChunk);
      if (!got) return with_offset(got.error());
      if (*got == 0) break;
      stats_.bytes += *got;
      size_t end = used + *got;
      if (Status s = scan(end); !s) return s.error();
      if (mode_ == Mode::kDone) break;
      used = compact(end);
    }
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
  Error with_offset(Error e) const {
    e.message += " (after " + std::to_string(stats_.bytes) + " bytes)";
    return e;
  }

  // Scans buf_[pos_, end); positions saved in the state survive compaction.
  Status scan(size_t end) {
    char* data = buf_.data();
    size_t p = pos_;
    while (p < end && mode_ != Mode::kDone) {
      if (in_string_) {
        if (escape_) {
          escape_ = false;
          ++p;
          continue;
        }
        const char* q = data + p;
        const char* stop = data + end;
        while (q < stop && *q != '"' && *q != '\\') ++q;
        p = static_cast<size_t>(q - data);
        if (p == end) break;
        if (*q == '\\') {
          escape_ = true;
          ++p;
          continue;
        }
        in_string_ = false;
        if (key_start_ != kNone) {
          key_.assign(data + key_start_, p - key_start_);
          key_start_ = kNone;
        }
        ++p;
        continue;
      }
      char c = data[p];
      switch (c) {
        case '"':
          in_string_ = true;
          if (mode_ == Mode::kObject && depth_ == 1 && expect_key_) {
            key_start_ = p + 1;
            expect_key_ = false;
          }
          break;
        case '{':
        case '[':
          if (mode_ == Mode::kStart) {
            mode_ = c == '[' ? Mode::kEvents : Mode::kObject;
            stats_.legacy_array = c == '[';
            events_depth_ = 1;
            expect_key_ = true;
          } else if (mode_ == Mode::kObject && depth_ == 1 && c == '[' && value_key_ == "traceEvents") {
            mode_ = Mode::kEvents;
            events_depth_ = 2;
          } else if (mode_ == Mode::kEvents && depth_ == events_depth_ && c == '{') {
            event_start_ = p;
          }
          ++depth_;
          break;
        case '}':
        case ']':
          if (depth_ == 0) return Error{ErrorCode::kInvalidInput, "unbalanced '" + std::string(1, c) + "'", ""};
          --depth_;
          if (mode_ == Mode::kEvents && depth_ == events_depth_ && event_start_ != kNone && c == '}') {
            if (Status s = emit_event(event_start_, p + 1); !s) return s;
            event_start_ = kNone;
          } else if (mode_ == Mode::kEvents && depth_ == events_depth_ - 1) {
            mode_ = stats_.legacy_array ? Mode::kDone : Mode::kObject;
            value_key_.clear();
          } else if (mode_ == Mode::kObject && depth_ == 0) {
            finish_value(p);
            mode_ = Mode::kDone;
          }
          break;
        case ':':
          if (mode_ == Mode::kObject && depth_ == 1) {
            value_key_ = key_;
            if (std::find(keys_.begin(), keys_.end(), value_key_) != keys_.end()) value_start_ = p + 1;
          }
          break;
        case ',':
          if (mode_ == Mode::kObject && depth_ == 1) {
            finish_value(p);
            expect_key_ = true;
          }
          break;
        default:
          break;
      }
      ++p;
    }
    pos_ = p;
    return ok_status();
  }

  Status emit_event(size_t start, size_t stop) {
    ++stats_.events;
    return callbacks_.on_event(buf_.data() + start, stop - start, buf_.size() - start, discarded_ + start);
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
    if (keep == 0) return end;
    std::memmove(buf_.data(), buf_.data() + keep, end - keep);
    auto shift = [keep](size_t& v) {
      if (v != kNone) v -= keep;
    };
    shift(event_start_);
    shift(value_start_);
    shift(key_start_);
    pos_ -= keep;
    discarded_ += keep;
    return end - keep;
  }

  static constexpr size_t kNone = static_cast<size_t>(-1);
  const ScanCallbacks& callbacks_;
  std::vector<std::string_view> keys_;
  std::vector<char> buf_;
  ScanStats stats_;
  Mode mode_ = Mode::kStart;
  size_t pos_ = 0;
  uint64_t discarded_ = 0;  // bytes dropped from the front of buf_, for file offsets
  size_t depth_ = 0;
  size_t events_depth_ = 0;
  bool in_string_ = false;
  bool escape_ = false;
  bool expect_key_ = false;
  size_t key_start_ = kNone;
  size_t event_start_ = kNone;
  size_t value_start_ = kNone;
  std::string key_;
  std::string value_key_;
};

}  // namespace

Result<ScanStats> scan_trace(const std::filesystem::path& file, const ScanCallbacks& callbacks,
                             std::initializer_list<std::string_view> metadata_keys) {
  ByteSource source(file);
  if (!source.open()) return Error{ErrorCode::kNotFound, "cannot open trace file", file.string()};
  Scanner scanner(callbacks, metadata_keys);
  auto result = scanner.run(source);
  if (!result) {
    Error e = result.error();
    e.context = file.string();
    return e;
  }
  return result;
}

}  // namespace aorta::trace
