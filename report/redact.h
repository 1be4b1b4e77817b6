// Secrets never reach a report. Input files are copied into the report bundle with
// the values of secret-looking keys replaced; a file that is not JSON is not copied.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace aorta::report {

// password, passphrase, token, secret, api_key / apikey, credential: anywhere in the
// key, any case (HF_TOKEN, db_password, AWS_SECRET_ACCESS_KEY).
bool is_secret_key(std::string_view key);

// The file's JSON with every secret value (at any depth) replaced by "<redacted>";
// nullopt when the file cannot be read or is not JSON.
std::optional<std::string> redacted_json(const std::filesystem::path& file);

}  // namespace aorta::report
