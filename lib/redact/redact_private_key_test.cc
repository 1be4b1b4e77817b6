#include <gtest/gtest.h>

#include <string>

#include "tests/redact_rows.h"

namespace aorta::redact {
namespace {

using Row = aorta::testing::RedactRow;

// Issue 42, 8: a private key printed (cat id_ed25519, an env dump, a JSON string with
// the key's lines joined by \n) under no secret key name: its lines go, its markers and
// the log around it stay; a certificate or a public key is no secret.
TEST(RedactPrivateKey, KeyLinesGoMarkersStay) {
  const Row rows[] = {
      {"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE\nQyNTUxOQAAACBPEM+/=\n"
       "-----END OPENSSH PRIVATE KEY-----\nstep 1 loss 2.0\n",
       "-----BEGIN OPENSSH PRIVATE KEY-----\n<redacted>\n<redacted>\n-----END OPENSSH PRIVATE KEY-----\nstep 1 loss 2.0\n"},
      // A log prefix on every line (torchrun's), CRLF, an encrypted PKCS#1 key's headers.
      {"[rank0]: -----BEGIN RSA PRIVATE KEY-----\r\n[rank0]: Proc-Type: 4,ENCRYPTED\r\n[rank0]: DEK-Info: AES-128-CBC,0A1B\r\n"
       "[rank0]:\r\n[rank0]: MIIEowIBAAKCAQEA\r\n[rank0]: -----END RSA PRIVATE KEY-----\r\n",
       "[rank0]: -----BEGIN RSA PRIVATE KEY-----\r\n[rank0]: Proc-Type: 4,ENCRYPTED\r\n[rank0]: DEK-Info: AES-128-CBC,0A1B\r\n"
       "[rank0]:\r\n[rank0]: <redacted>\r\n[rank0]: -----END RSA PRIVATE KEY-----\r\n"},
      // A key cut short: the block ends at the first line that is not a key's.
      {"  -----BEGIN EC PRIVATE KEY-----\n  MHcCAQEEIB\n  step 2 loss 1.9\n  MIIEowIBAAKCAQEA\n",
       "  -----BEGIN EC PRIVATE KEY-----\n  <redacted>\n  step 2 loss 1.9\n  MIIEowIBAAKCAQEA\n"},
      {"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----\n",
       "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n<redacted>\n-----END PGP PRIVATE KEY BLOCK-----\n"},
      // On one line: a JSON string, or the key's text after the marker.
      {R"({"ssh_key_text": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n", "n": 1})",
       R"({"ssh_key_text": "-----BEGIN OPENSSH PRIVATE KEY-----<redacted>-----END OPENSSH PRIVATE KEY-----\n", "n": 1})"},
      {"key: -----BEGIN PRIVATE KEY----- MIIEvQIBADANBg", "key: -----BEGIN PRIVATE KEY-----<redacted>"},
  };
  for (const auto& row : rows) EXPECT_EQ(redact_text(row.input), row.expected) << row.input;
  for (const char* text : {
           "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n",
           "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYI\n-----END PUBLIC KEY-----\n",
           "-----BEGIN private key-----\nabcdefgh\n", "----- BEGIN -----\nMIIBszCCAVmgAwIBAgIU\n",
       })
    EXPECT_EQ(redact_text(text), text);
}

// Read in parts of any size, the block is the same.
TEST(RedactPrivateKey, BlockCarriesAcrossParts) {
  const std::string text = "x\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\nkqhkiG9w0BAQEF\n-----END PRIVATE KEY-----\ny\n";
  const std::string expected = "x\n-----BEGIN PRIVATE KEY-----\n<redacted>\n<redacted>\n-----END PRIVATE KEY-----\ny\n";
  for (size_t part : {1, 2, 5, 64}) EXPECT_EQ(aorta::testing::redact_in_parts(text, part), expected) << part;
}

}  // namespace
}  // namespace aorta::redact
