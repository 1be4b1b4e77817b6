// The secret values a config or cluster file holds, for the run to register as known
// secrets (redact/known_secrets.h): whatever form the training echoes them in, they
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
// ("--password", "x"). In an environment block (container.env, its runtime args' env,
// multi_node.extra_env, a cluster's env_vars) every value is a secret whatever the
// variable's name (SSHPASS, REDISCLI_AUTH, a connection string), unless it is plainly a
// setting: no letters (counts, device lists, addresses), a switch or log level word,
// a path or list of paths, a variable of the GPU/communication/threading stack
// (NCCL_*, HIP_*, OMP_*, TORCH_* ...), or a value the config also holds outside its
// environment (the model's name); a variable named like a secret holds one anyway.
std::vector<std::string> secret_values(const json& doc);

}  // namespace aorta::config
