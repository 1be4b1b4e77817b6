#include <gtest/gtest.h>

#include <string>

#include "tests/redact_rows.h"

namespace aorta::redact {
namespace {

using Row = aorta::testing::RedactRow;

// Issue 42, 8: passwords that only the program before them gives away, as a failing
// command's echo or `set -x` prints them, and the lines of the same programs with no
// password, which must stay readable.
TEST(RedactCommands, PasswordFlagsOfTheirPrograms) {
  const Row rows[] = {
      {"docker login -u deploy -p hunter2x registry.example.com", "docker login -u deploy -p <redacted> registry.example.com"},
      {"podman login --password hunter2x quay.io", "podman login --password <redacted> quay.io"},
      {"helm registry login reg.io -u u -p 'two words' --insecure", "helm registry login reg.io -u u -p <redacted> --insecure"},
      {"mysql -u root -phunter2x -h db", "mysql -u root -p<redacted> -h db"},
      {"/usr/bin/mysqldump -u root -p'hunter 2' db > x.sql", "/usr/bin/mysqldump -u root -p<redacted> db > x.sql"},
      {"sshpass -p hunter2x ssh node1", "sshpass -p <redacted> ssh node1"},
      {"sshpass -phunter2x scp f node1:", "sshpass -p<redacted> scp f node1:"},
      {"redis-cli -h cache -a hunter2x ping", "redis-cli -h cache -a <redacted> ping"},
      {"redis-cli --pass hunter2x ping", "redis-cli --pass <redacted> ping"},
      {"ldapsearch -x -D cn=admin -w hunter2x -b dc=x", "ldapsearch -x -D cn=admin -w <redacted> -b dc=x"},
      {"mongosh -u admin -p hunter2x --host db", "mongosh -u admin -p <redacted> --host db"},
      // Only the program's own flag: the next command's -p is a port again.
      {"sshpass -p hunter2x ssh -p 22 node1", "sshpass -p <redacted> ssh -p 22 node1"},
      {"echo x | mysql -phunter2x; ls -p /tmp", "echo x | mysql -p<redacted>; ls -p /tmp"},
  };
  for (const auto& row : rows) EXPECT_EQ(redact_text(row.input), row.expected) << row.input;
  for (const char* line : {
           "mysql -u root -p mydb",  // -p alone asks for the password: mydb is the database
           "ssh -p 2222 node1", "docker run -p 8080:80 img", "redis-cli -h cache -p 6379 ping",
           "torchrun --nproc-per-node 2 -p 29500 train.py", "mkdir -p /tmp/x && cp -a a b", "ls -p; login -p",
       })
    EXPECT_EQ(redact_text(line), line);
}

// .netrc entries: on one line, or the entry's later lines on their own.
TEST(RedactCommands, NetrcPasswords) {
  const Row rows[] = {
      {"machine github.com login deploy password hunter2x", "machine github.com login deploy password <redacted>"},
      {"default login anonymous password user@site.org", "default login anonymous password <redacted>"},
      {"machine h login u password hunter2x machine g login v password s3cr3tpw",
       "machine h login u password <redacted> machine g login v password <redacted>"},
      {"  password hunter2x\r", "  password <redacted>\r"},
  };
  for (const auto& row : rows) EXPECT_EQ(redact_text(row.input), row.expected) << row.input;
  for (const char* line : {"password expired for alice", "Enter password for alice", "machine learning rocks",
                           "the password field is empty", "password"})
    EXPECT_EQ(redact_text(line), line);
}

// Connection strings and camelCase, kebab and run-together spellings of secret words.
TEST(RedactCommands, ConnectionStringsAndEverySpellingOfASecretKey) {
  const Row rows[] = {
      {"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=q8Zr2+Vb7/Xk9Lm3==;EndpointSuffix=core.windows.net",
       "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=<redacted>;EndpointSuffix=core.windows.net"},
      {"Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=k3Jd8Fh2=",
       "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=<redacted>"},
      {"AZURE_STORAGE_CONNECTION_STRING=x;AccountName=a", "AZURE_STORAGE_CONNECTION_STRING=<redacted>;AccountName=a"},
      {R"({"privateKey": "abc", "accountKey": "def", "clientSecret": "ghi", "n": 1})",
       R"({"privateKey": <redacted>, "accountKey": <redacted>, "clientSecret": <redacted>, "n": 1})"},
      {"apiKey=abc APIKey=abc api-key=abc APIKEY=abc dbPass=abc HFToken=abc SSHPASS=abc REDISCLI_AUTH=abc",
       "apiKey=<redacted> APIKey=<redacted> api-key=<redacted> APIKEY=<redacted> dbPass=<redacted> HFToken=<redacted> "
       "SSHPASS=<redacted> REDISCLI_AUTH=<redacted>"},
  };
  for (const auto& row : rows) EXPECT_EQ(redact_text(row.input), row.expected) << row.input;
  // What names a secret, and camelCase metrics, are no secret.
  for (const char* line : {"secretName: my-tls SharedAccessKeyName=Root", "tokenCount=5 timeToFirstTokenMs: 12 numTokens=4",
                           "keyboardLayout=us passRate=0.9 monkeyId=3"})
    EXPECT_EQ(redact_text(line), line);
}

}  // namespace
}  // namespace aorta::redact
