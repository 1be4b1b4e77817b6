// Secrets never reach a report or a kept log. Key names alone miss
// too much (MY_PASSWD, WANDB_KEY, a token inside a clone URL), so values are also
// judged by their shape. Every config, cluster or env value and every line of node
// output that a report keeps goes through redact_value or redact_text. Here in lib/
// so that lib/job can redact the copies of the nodes' logs too; report/redact.h adds
// the report's own uses.
#pragma once

#include <string>
#include <string_view>

namespace aorta {

inline constexpr std::string_view kRedacted = "<redacted>";

// password, passwd, passphrase, token, secret, api_key / apikey, access_key,
// private_key, credential: anywhere in the key, any case (HF_TOKEN, MY_PASSWD,
// AWS_ACCESS_KEY_ID). The value is redacted whatever it looks like.
bool is_secret_key(std::string_view key);

// Keys that may hold a secret: a word key, auth, pat, pass, signature, cookie or
// session (WANDB_KEY, GITLAB_PAT). The value is redacted when it looks like one.
bool looks_like_secret_key(std::string_view key);

// A well-known token shape (ghp_..., github_pat_..., hf_..., AKIA..., xox?-..., sk-...,
// glpat-..., a JWT), or a URL with credentials in its userinfo.
bool is_secret_value(std::string_view value);

// At least 16 characters of one base64/hex-like word, letters and digits mixed, with
// high character entropy: what an API key looks like and a path or name does not.
bool is_high_entropy(std::string_view value);

// Free text with every token shape replaced by <redacted>, the userinfo of every URL
// that carries credentials (https://user:token@host -> https://<redacted>@host) and the
// value of every NAME=value whose NAME is a secret key.
std::string redact_text(std::string_view text);

// What a report may show for the value of key: <redacted> for a secret key or a
// secret-looking value under a key that may hold one, else redact_text(value).
std::string redact_value(std::string_view key, std::string_view value);

}  // namespace aorta
