#include "redact/known_secrets.h"

#include <gtest/gtest.h>

#include "redact/redact.h"

namespace aorta::redact {
namespace {

// The set is the process's: each test starts and ends with it empty.
class KnownSecrets : public ::testing::Test {
 protected:
  void SetUp() override { forget_known_secrets(); }
  void TearDown() override { forget_known_secrets(); }
};

struct Row {
  const char* input;
  const char* expected;
};

// A value the config marks secret, echoed by the training in each form the probe
// used. The encodings were made with Python (json.dumps, urllib.parse.quote with
// safe='', shlex-style '\'' quoting, bytes.hex() and its upper case, base64.b64encode /
// urlsafe_b64encode), not with this code.
TEST_F(KnownSecrets, FoundInEveryEncoding) {
  ASSERT_TRUE(add_known_secret(R"(Tr0ub4dor &3"x'y/z)"));
  ASSERT_TRUE(add_known_secret("s3cr?>~t?>~!"));
  const Row rows[] = {
      {R"(login with Tr0ub4dor &3"x'y/z ok)", "login with <redacted> ok"},
      {R"({"msg": "got Tr0ub4dor &3\"x'y/z"})", R"({"msg": "got <redacted>"})"},
      {R"("{\"msg\": \"got Tr0ub4dor &3\\\"x'y/z\"}")", R"("{\"msg\": \"got <redacted>\"}")"},
      {"GET /login?u=a&p=Tr0ub4dor%20%263%22x%27y%2Fz HTTP/1.1", "GET /login?u=a&p=<redacted> HTTP/1.1"},
      {"GET /login?u=a&p=Tr0ub4dor%20%263%22x%27y%2fz HTTP/1.1", "GET /login?u=a&p=<redacted> HTTP/1.1"},
      {R"(+ login 'Tr0ub4dor &3"x'\''y/z' --quiet)", "+ login '<redacted>' --quiet"},
      // hex, as xxd -p or bytes.hex() writes it, in either case, alone or inside the hex
      // of user:value (issue 42, 8).
      {"db password (hex): 547230756234646f72202633227827792f7a", "db password (hex): <redacted>"},
      {"HEX=547230756234646F72202633227827792F7A;", "HEX=<redacted>;"},
      {"616c3a547230756234646f72202633227827792f7a ok", "616c3a<redacted> ok"},
      // base64 of the value, of user:value at each byte alignment, of the value and a
      // newline (echo | base64), and base64url.
      {"header was VHIwdWI0ZG9yICYzIngneS96 ok", "header was <redacted> ok"},
      {"header was YWw6VHIwdWI0ZG9yICYzIngneS96 ok", "header was <redacted> ok"},
      {"header was Ym9iOlRyMHViNGRvciAmMyJ4J3kveg== ok", "header was <redacted> ok"},
      {"header was YWxpYzpUcjB1YjRkb3IgJjMieCd5L3o=, ok", "header was <redacted>, ok"},
      {"header was VHIwdWI0ZG9yICYzIngneS96Cg== ok", "header was <redacted> ok"},
      {"header was Y2k6czNjcj8+fnQ/Pn4h ok", "header was <redacted> ok"},
      {"url-safe Y2k6czNjcj8-fnQ_Pn4h;", "url-safe <redacted>;"},
      // Next to a shape that finds part of it: one <redacted>.
      {R"(MY_PASSWD=Tr0ub4dor &3"x'y/z)", "MY_PASSWD=<redacted>"},
  };
  for (const auto& row : rows) EXPECT_EQ(redact_text(row.input), row.expected) << row.input;
  // Other base64, and the value's words alone, stay.
  for (const char* plain : {"header was YWJjZGVmZ2hpamtsbW5vcA== ok", "Tr0ub4dor and x'y/z", "547230756234646f72 ok"})
    EXPECT_EQ(redact_text(plain), plain);
}

TEST_F(KnownSecrets, ShortValuesAreIgnoredAndLinesOfLongOnesFound) {
  EXPECT_TRUE(add_known_secret("admin"));  // < kMinKnownSecret: would blank every "admin"
  EXPECT_EQ(redact_text("admin logged in as administrator"), "admin logged in as administrator");
  ASSERT_TRUE(add_known_secret("-----BEGIN KEY-----\nMIIEvQIBADANBg\r\nkqhkiG9w0BAQEF\n-----END KEY-----\n"));
  EXPECT_EQ(redact_text("key line MIIEvQIBADANBg printed\nkqhkiG9w0BAQEF"), "key line <redacted> printed\n<redacted>");
  forget_known_secrets();
  EXPECT_EQ(redact_text("key line MIIEvQIBADANBg"), "key line MIIEvQIBADANBg");
}

// Memory grows with the values searched for: a file of megabytes of them is refused
// past the bound, and what was added before stays.
TEST_F(KnownSecrets, TotalSizeIsBounded) {
  ASSERT_TRUE(add_known_secret("hunter2xyz"));
  EXPECT_FALSE(add_known_secret(std::string(kMaxKnownSecretBytes, 'k')));
  EXPECT_TRUE(add_known_secret(std::string(kMaxKnownSecretBytes - 20, 'k')));
  EXPECT_EQ(redact_text("pw hunter2xyz."), "pw <redacted>.");
}

// One pass over the text whatever the number of values: a megabyte line that nearly
// matches everywhere (each needle's prefix repeated) is redacted in milliseconds.
TEST_F(KnownSecrets, MegabyteLineOfNearMatches) {
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(add_known_secret("aaaaaaaaaaaaaaaaaaaaaaaaaaaaab" + std::to_string(i)));
  std::string line(size_t{1} << 20, 'a');
  EXPECT_TRUE(redact_text(line) == line);
  line += "b7";
  EXPECT_EQ(redact_text(line), std::string((size_t{1} << 20) - 29, 'a') + "<redacted>");
}

}  // namespace
}  // namespace aorta::redact
