#include "agent/request_mac.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <nlohmann/json.hpp>

namespace aorta::agent {

namespace {

std::string hex(const unsigned char* bytes, size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) out += {kHex[bytes[i] >> 4], kHex[bytes[i] & 15]};
  return out;
}

std::string hmac_hex(std::string_view key, const std::string& message) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(message.data()),
            message.size(), mac, &length))
    return "";
  return hex(mac, length);
}

}  // namespace

std::string random_nonce() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) return "";
  return hex(bytes, sizeof bytes);
}

std::string agent_proof(std::string_view secret, std::string_view job, std::string_view client_nonce,
                        std::string_view agent_nonce, const AgentEndpoint& me) {
  // A JSON array: each part keeps its bounds, so no two inputs make the same message
  // (bytes that are not UTF-8 replaced, on both sides alike, rather than thrown on).
  const auto message = nlohmann::json::array({"agent", job, client_nonce, agent_nonce, me.rank, me.host, me.address,
                                               me.port});
  return hmac_hex(secret, message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::string request_token(std::string_view secret, std::string_view agent_nonce, uint64_t seq, const Request& request) {
  Request fields = request;
  fields.token.clear();
  return hmac_hex(secret, nlohmann::json::array({"request", agent_nonce, seq, encode_request(fields)}).dump());
}

}  // namespace aorta::agent
