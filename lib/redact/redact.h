// Secrets never reach a report or a kept log. Key names alone miss too much
// (MY_PASSWD, WANDB_KEY, a token inside a clone URL), so values are also judged by
// their shape, and every value the run knows to be secret is found by value
// (known_secrets.h). Every config, cluster or env value and every line of node output
// that a report or the run's folder keeps goes through redact_value, redact_text or
// StreamRedactor. Here in lib/ so that the copies of the nodes' logs are redacted as
// they arrive (lib/job); report/redact.h adds the report's own uses.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aorta::redact {

inline constexpr std::string_view kRedacted = "<redacted>";

// password, passwd, passphrase, secret, api_key / apikey, access_key, private_key,
// credential, authorization: anywhere in the key, any case (MY_PASSWD,
// AWS_ACCESS_KEY_ID); a word ending in token (HF_TOKEN, authtoken; not num_tokens);
// pass or pwd as the last word of a longer name (DB_PASS, MYSQL_PWD). The value is
// redacted whatever it looks like.
bool is_secret_key(std::string_view key);

// Keys that may hold a secret: a word key, auth, pat, pass, signature, sig, cookie or
// session (WANDB_KEY, GITLAB_PAT). The value is redacted when it looks like one, and
// always as a URL's query parameter (?sig=..., X-Amz-Signature=...).
bool looks_like_secret_key(std::string_view key);

// A well-known token shape, a URL with credentials, a known secret: redact_text
// would change it.
bool is_secret_value(std::string_view value);

// At least 16 characters of one base64/hex-like word, letters and digits mixed, with
// high character entropy: what an API key looks like and a path or name does not.
bool is_high_entropy(std::string_view value);

// Free text (any number of lines) with every secret replaced by <redacted>:
// - every known secret value, in any encoding known_secrets.h lists;
// - token shapes (ghp_..., github_pat_..., hf_..., AKIA..., xox?-..., sk-..., glpat-...,
//   npm_..., pypi-..., a JWT);
// - the userinfo of a URL that carries credentials (https://<redacted>@host), the
//   password of user:pass@host without a scheme (rsync, scp), the secret part of a
//   Slack or Discord webhook URL;
// - the value of NAME=value, NAME: value, NAME = value, "NAME" : "value" and the same
//   inside an escaped JSON string, whose NAME is a secret key (or may be one and the
//   value looks like a secret, or is a URL query parameter: X-Amz-Signature, sig);
// - the argument of --password x, --token x, --api-key x ..., and the password of
//   curl's -u / --user user:pass;
// - the lines of a YAML block under a secret key ("password: |", "token:" followed by
//   indented lines).
std::string redact_text(std::string_view text);

// What a report may show for the value of key: <redacted> for a secret key or a
// secret-looking value under a key that may hold one, else redact_text(value).
std::string redact_value(std::string_view key, std::string_view value);

// The secrets redact_text would cut from text, as they are written there, without
// quotes, and the password of each user:password among them: what a config string
// gives away besides the values of its secret keys ("--hub-token=hf_...", a clone
// URL's credentials).
std::vector<std::string> secrets_in_text(std::string_view text);

// redact_text for a text that arrives in parts (a node's log, copied block by block):
// a YAML block continues from one part to the next, and memory stays bounded however
// long a line is. Whole lines come out as soon as they are complete; of a line longer
// than kLongLine, all but the last kOverlap bytes, which stay as the context the next
// part is read with (a secret, a NAME=value or a token shorter than that is found
// whole wherever the cut falls).
class StreamRedactor {
 public:
  static constexpr size_t kLongLine = size_t{1} << 20;
  static constexpr size_t kOverlap = size_t{256} << 10;

  // The redacted text that is final now.
  std::string feed(std::string_view part);
  // The rest, at the end of the text.
  std::string finish();

  // Between lines: the indentation of the secret YAML key whose block the next lines
  // may belong to (-1: none), and whether the line being read belongs to it; the same
  // for a private key's PEM block (the text its lines start with; none: no block).
  struct LineState {
    long block_indent = -1;
    bool line_in_block = false;
    std::optional<std::string> key_prefix;
    bool line_in_key = false;
  };

 private:
  std::string redact_pending(size_t stop, bool whole);

  std::string pending_;  // read, not yet given out in full
  size_t given_ = 0;     // bytes at the front of pending_ already given out (context)
  bool at_line_start_ = true;
  LineState state_;
};

}  // namespace aorta::redact
