// Issue 43 (4): the words bash reads differently from the literal argument, checked
// against bash itself, spliced raw into a line as CVS splices extra launch arguments.
#include "config/shell_meaning.h"

#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/shell_quote.h"
#include "tests/temp_dir.h"

namespace aorta::config {
namespace {

// What bash prints for `printf '%s\0' <word> END` run in a folder holding a1, ab and
// b, with HOME=/home/h: the word spliced raw, as CVS's " ".join splices it.
std::string bash_reads(const aorta::testing::TempDir& dir, const std::string& word) {
  std::string line = "cd " + shell_quote(dir.path().string()) + " && HOME=/home/h && printf '%s\\0' " + word + " END";
  FILE* pipe = popen(("bash -c " + shell_quote(line) + " 2>/dev/null").c_str(), "r");
  if (!pipe) return "<popen failed>";
  std::string out;
  char buffer[256];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  pclose(pipe);
  return out;
}

std::string literal(const std::string& word) { return word + std::string(1, '\0') + "END" + std::string(1, '\0'); }

void add_files(const aorta::testing::TempDir& dir) {
  for (const char* name : {"a1", "ab", "b"}) dir.write(name, "");
}

// Real Aorta and torchrun arguments, and the harmless characters: = , : / % @ + ! ^ ],
// a lone [, a ~ where bash leaves it, braces that form no expansion.
const std::vector<std::string> kLiteral = {
    "--allocator={128}", "{}", "{ab..cd}", "{a..3}", "{1..3..x}", "a{b}c", "-}", "--a=~/x", "x~", "a:~/x",
    "1a=~", "a#b", "x]y", "-[", "a[", "]", "--rdzv_endpoint=10.0.0.1:29500", "--local-ranks-filter=0,1",
    "training.max_steps=15", "model.name=meta/llama-3", "--tee=3", "%", "^x", "!x", "a+b", "@x", "key=val=more",
    "x,y", "--x=y,z", "caf\xc3\xa9", "--log_dir=/tmp/run-1", "-1"};

TEST(ShellMeaning, WordsBashReadsAsWrittenAreAccepted) {
  aorta::testing::TempDir dir;
  add_files(dir);
  for (const auto& word : kLiteral) {
    EXPECT_EQ(bash_reads(dir, word), literal(word)) << word << " is not literal in bash";
    EXPECT_FALSE(shell_meaning(word).has_value()) << word << " refused, but bash reads it as written";
  }
}

struct Refused {
  std::string word;
  size_t position;
  char character;
};

TEST(ShellMeaning, WordsBashReadsDifferentlyAreRefusedNamingTheCharacter) {
  const std::vector<Refused> cases = {
      {"--run_name=$HOSTNAME", 11, '$'}, {"$(echo x)", 0, '$'},   {"`echo x`", 0, '`'},   {"a\\b", 1, '\\'},
      {"'q'", 0, '\''},                  {"--n=\"q\"", 4, '"'},   {"x;echo y", 1, ';'},   {"x|cat", 1, '|'},
      {"x&", 1, '&'},                    {"a>f", 1, '>'},         {"a<b", 1, '<'},        {"(x)", 0, '('},
      {"a)", 1, ')'},                    {"a*", 1, '*'},          {"a?", 1, '?'},         {"a[1]", 1, '['},
      {"#x", 0, '#'},                    {"~/x", 0, '~'},         {"a=~/x", 2, '~'},      {"p=a:~/x", 4, '~'},
      {"a+=~", 3, '~'},                  {"a{1,2}", 1, '{'},      {"{1..3}", 0, '{'},     {"{a..c}", 0, '{'},
      {"x{,}", 1, '{'},                  {"{{a},b}", 0, '{'},     {"{a{b,c}}", 2, '{'},   {"{1..9..2}", 0, '{'},
      {"", 0, 0}};
  aorta::testing::TempDir dir;
  add_files(dir);
  for (const auto& c : cases) {
    EXPECT_NE(bash_reads(dir, c.word), literal(c.word)) << c.word << ": bash reads it as written after all";
    auto meaning = shell_meaning(c.word);
    ASSERT_TRUE(meaning.has_value()) << c.word << " accepted";
    EXPECT_EQ(meaning->position, c.position) << c.word;
    EXPECT_EQ(meaning->character, c.character) << c.word;
    EXPECT_FALSE(meaning->does.empty()) << c.word;
  }
}

}  // namespace
}  // namespace aorta::config
