// The secret values a config or cluster file holds, for the run to register as known
// secrets (common/known_secrets.h): whatever form the training echoes them in, they
// are then redacted in every report and kept log.
#pragma once

#include <string>
#include <vector>

#include "config/json_fields.h"

namespace aorta::config {

// In file order: every value under a secret key at any depth (is_secret_key, or
// looks_like_secret_key with a secret-looking value; numbers too) but a key that names
// where a secret is kept (hf_token_file, key_passphrase_env: ends in file, path, dir or
// env), and every secret a string gives away by its shape (secrets_in_text:
// "--hub-token=hf_...", a clone URL's password), also across the elements of a list
// ("--password", "x").
std::vector<std::string> secret_values(const json& doc);

}  // namespace aorta::config
