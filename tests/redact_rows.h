// What the redaction tests share: a row of input and what may be shown of it, and the
// streaming redactor fed a text in parts of one size.
#pragma once

#include <string>
#include <string_view>

#include "redact/redact.h"

namespace aorta::testing {

struct RedactRow {
  const char* input;
  const char* expected;
};

inline std::string redact_in_parts(std::string_view text, size_t part) {
  redact::StreamRedactor redactor;
  std::string out;
  for (size_t at = 0; at < text.size(); at += part) out += redactor.feed(text.substr(at, part));
  return out + redactor.finish();
}

}  // namespace aorta::testing
