#include <gtest/gtest.h>

#include <string>

#include "tests/redact_rows.h"

namespace aorta::redact {
namespace {

struct Row {
  std::string input, expected;
};

const std::string kEsc = "\x1b";

// Issue 42, 8: coloured output puts terminal escapes around a key name (rich, loguru,
// jq -C, grep --color), so the characters before the '=' are "0m" and the key is not
// seen. Each row a coloured line and what may be shown: the escapes and the text
// around stay, the value goes, whatever form the escapes are written in.
TEST(RedactEscapes, ColouredKeyNamesHideNoValue) {
  const Row rows[] = {
      // An SGR bold key, as a shell's printf or loguru writes it.
      {kEsc + "[1mDB_PASSWORD" + kEsc + "[0m=hunter2x next", kEsc + "[1mDB_PASSWORD" + kEsc + "[0m=<redacted> next"},
      // rich's dict: the key and the value in colours of their own.
      {"{" + kEsc + "[32m'password'" + kEsc + "[0m: " + kEsc + "[33m'hunter2x'" + kEsc + "[0m}",
       "{" + kEsc + "[32m'password'" + kEsc + "[0m: " + kEsc + "[33m<redacted>" + kEsc + "[0m}"},
      // grep --color=always: the match inside the name, with erase-line codes.
      {"MYSQL_ROOT_" + kEsc + "[01;31m" + kEsc + "[KPASS" + kEsc + "[m" + kEsc + "[KWORD=hunter2x",
       "MYSQL_ROOT_" + kEsc + "[01;31m" + kEsc + "[KPASS" + kEsc + "[m" + kEsc + "[KWORD=<redacted>"},
      // jq -C: 256-colour and bold keys in a JSON object.
      {"{" + kEsc + "[1;34m\"api_key\"" + kEsc + "[0m" + kEsc + "[1;39m:" + kEsc + "[0;32m\"k3y-v4lue\"" + kEsc + "[0m}",
       "{" + kEsc + "[1;34m\"api_key\"" + kEsc + "[0m" + kEsc + "[1;39m:" + kEsc + "[0;32m<redacted>" + kEsc + "[0m}"},
      // A hyperlink (OSC 8, ended by ESC \) around the key, a title (OSC 0, ended by BEL).
      {kEsc + "]8;;https://docs/x" + kEsc + "\\HF_TOKEN" + kEsc + "]8;;" + kEsc + "\\=abc123 ok",
       kEsc + "]8;;https://docs/x" + kEsc + "\\HF_TOKEN" + kEsc + "]8;;" + kEsc + "\\=<redacted> ok"},
      // (The value as the line has it runs to the space: its colour codes go with it.)
      {kEsc + "]0;title\x07--password " + kEsc + "[1mhunter2x" + kEsc + "[0m done", kEsc + "]0;title\x07--password <redacted> done"},
      // The escapes written out, as a log escaped once more carries them (printable's
      // \x1b, C's \033, JSON's \u001b).
      {R"(\x1b[1mDB_PASSWORD\x1b[0m=hunter2x next)", R"(\x1b[1mDB_PASSWORD\x1b[0m=<redacted> next)"},
      {R"(\033[1mDB_PASS\033[0m: hunter2x)", R"(\033[1mDB_PASS\033[0m: <redacted>)"},
      {R"({"msg": "\u001b[1mtoken\u001b[0m=abc123"})", R"({"msg": "\u001b[1mtoken\u001b[0m=<redacted>"})"},
      // A secret inside the escape's own text still goes (a credential in a link's URL).
      {kEsc + "]8;;https://alice:s3cr3t@h/x" + kEsc + "\\link", kEsc + "]8;;https://<redacted>@h/x" + kEsc + "\\link"},
  };
  for (const auto& row : rows) EXPECT_EQ(redact_text(row.input), row.expected) << row.input;
}

// Coloured lines with nothing secret stay exactly as they are, and a backslash that
// starts no escape (a Windows path, \e in a word) changes nothing.
TEST(RedactEscapes, OrdinaryColouredLinesStayAsTheyAre) {
  for (const std::string& line : {
           kEsc + "[32mINFO" + kEsc + "[0m step=10 loss=2.31 lr=3e-4",
           kEsc + "[1m" + kEsc + "[31mERROR" + kEsc + "[0m rank 1: NCCL_IB_HCA=mlx5_0 timeout",
           "num_" + kEsc + "[1mtokens" + kEsc + "[0m=4096 key=" + kEsc + "[33mvalue" + kEsc + "[0m",
           std::string(R"(C:\exports\x1bar\033x \e[ ok)"),
           kEsc + "]unterminated title password",
           "pass" + kEsc + "[0m: 12 fail: 0",
       })
    EXPECT_EQ(redact_text(line), line);
}

// In a stream the escapes are read the same, and a YAML block under a coloured key is
// one.
TEST(RedactEscapes, StreamAndYamlBlocksReadThroughColour) {
  const std::string text = kEsc + "[34mpassword" + kEsc + "[0m: |\n  line one\nuser: " + kEsc + "[1mbob" + kEsc + "[0m\n";
  const std::string expected = kEsc + "[34mpassword" + kEsc + "[0m: |\n  <redacted>\nuser: " + kEsc + "[1mbob" + kEsc + "[0m\n";
  EXPECT_EQ(redact_text(text), expected);
  for (size_t part : {1, 3, 7}) EXPECT_EQ(aorta::testing::redact_in_parts(text, part), expected) << part;
}

}  // namespace
}  // namespace aorta::redact
