#include "common/file_sha256.h"

#include <openssl/evp.h>

#include <fstream>
#include <memory>
#include <vector>

#include <fmt/format.h>

namespace aorta {

Result<std::string> file_sha256(const std::filesystem::path& path) {
  auto cannot = [&](const std::string& why) {
    return Error{ErrorCode::kIo, "cannot hash " + path.string() + ": " + why, ""};
  };
  std::ifstream in(path, std::ios::binary);
  if (!in) return cannot("it cannot be opened");
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) return cannot("libcrypto's SHA-256 failed");
  std::vector<char> buffer(1 << 20);
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0)
    EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<size_t>(in.gcount()));
  if (in.bad()) return cannot("reading it failed");
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(ctx.get(), digest, &size) != 1) return cannot("libcrypto's SHA-256 failed");
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace aorta
