#include "common/file_sha256.h"

#include <openssl/evp.h>

#include <fstream>
#include <memory>
#include <vector>

#include <fmt/format.h>

namespace aorta {
namespace {

using Context = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

Context sha256_context() {
  Context ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (ctx && EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) ctx.reset();
  return ctx;
}

std::string hex_digest(EVP_MD_CTX* ctx) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(ctx, digest, &size) != 1) return "";
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace

std::string text_sha256(std::string_view bytes) {
  Context ctx = sha256_context();
  if (!ctx) return "";
  EVP_DigestUpdate(ctx.get(), bytes.data(), bytes.size());
  return hex_digest(ctx.get());
}

Result<std::string> file_sha256(const std::filesystem::path& path) {
  auto cannot = [&](const std::string& why) {
    return Error{ErrorCode::kIo, "cannot hash " + path.string() + ": " + why, ""};
  };
  std::ifstream in(path, std::ios::binary);
  if (!in) return cannot("it cannot be opened");
  Context ctx = sha256_context();
  if (!ctx) return cannot("libcrypto's SHA-256 failed");
  std::vector<char> buffer(1 << 20);
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0)
    EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<size_t>(in.gcount()));
  if (in.bad()) return cannot("reading it failed");
  std::string hex = hex_digest(ctx.get());
  if (hex.empty()) return cannot("libcrypto's SHA-256 failed");
  return hex;
}

}  // namespace aorta
