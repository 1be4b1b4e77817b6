// Redaction by value (issue 29, 6). Shapes and key names miss a secret the training
// echoes in a form of its own ("logged in with hunter2x"), so every value the run
// knows to be secret (the config's and cluster file's passwords and tokens, the
// environment values it passes on) is redacted wherever it appears, plain or in the
// encodings a log may carry it in: JSON-escaped (once or twice), percent-encoded,
// shell-quoted, hex (xxd -p, bytes.hex(); lower or upper case), base64 (alone or
// inside user:value basic auth). redact_text
// (redact/redact.h) consults the set.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aorta::redact {

// Shorter values are not searched for: "a" or "admin" would blank every word that
// contains them, and such a value is no secret worth the damage.
inline constexpr size_t kMinKnownSecret = 6;
// All known values together, in bytes: the matcher's memory grows with them (about
// fourteen encodings each: about 20 MB at this bound), so a file of megabytes of
// "secrets" cannot exhaust it. Room for many tokens and a few private keys.
inline constexpr size_t kMaxKnownSecretBytes = size_t{16} << 10;

// Adds value (each of its lines, when it has several) to the process-wide set. False
// when the set would pass kMaxKnownSecretBytes: the value is then not added, and is
// redacted only where a shape or key name gives it away. A short value is ignored
// (true: nothing to do).
bool add_known_secret(std::string_view value);

// Empties the set (tests).
void forget_known_secrets();

// Where text holds a known value in any of the encodings above: [begin, end) pairs in
// order, apart from each other (a base64 match with its whole base64 word). One pass
// over text whatever the number of values.
std::vector<std::pair<size_t, size_t>> known_secret_spans(std::string_view text);

}  // namespace aorta::redact
