// A file's SHA-256, as sha256sum prints it: how the head checks that a node holds the
// very bytes it placed there (stages/node_package). OpenSSL's libcrypto, which
// libssh2 already brings.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "common/result.h"

namespace aorta {

// 64 lowercase hex digits; an error naming the file when it cannot be read.
Result<std::string> file_sha256(const std::filesystem::path& path);
// The same of bytes in memory.
std::string text_sha256(std::string_view bytes);

}  // namespace aorta
