// pytest's -k semantics, case by case from its documentation (docs.pytest.org,
// "How to invoke pytest": -k 'MyClass and not method' runs TestMyClass.test_something
// but not TestMyClass.test_method_simple; "case-insensitive") and its own tests of the
// grammar (testing/test_mark_expression.py: evaluation, syntax errors with columns,
// valid and invalid identifiers).
#include "app/keyword_expression.h"

#include <gtest/gtest.h>

namespace aorta::cli {
namespace {

KeywordExpression compiled(const std::string& text) {
  auto e = KeywordExpression::compile(text);
  EXPECT_TRUE(e.ok()) << text << ": " << (e.ok() ? "" : e.error().message);
  return e.ok() ? *e : *KeywordExpression::compile("");
}

bool matches(const std::string& text, const std::vector<std::string>& keywords) {
  return compiled(text).matches(keywords);
}

// The error's text after "Wrong expression passed to '-k': EXPR: ".
std::string error_of(const std::string& text) {
  auto e = KeywordExpression::compile(text);
  if (e.ok()) return "compiled";
  const std::string& m = e.error().message;
  EXPECT_EQ(m.rfind("Wrong expression passed to '-k': ", 0), 0u) << m;
  const size_t column = m.find(": at column ");
  return column == std::string::npos ? m : m.substr(column + 2);
}

TEST(KeywordExpression, TheDocumentedExampleCaseInsensitively) {
  const std::vector<std::string> something = {"test_mod.py", "TestMyClass", "test_something"};
  const std::vector<std::string> method = {"test_mod.py", "TestMyClass", "test_method_simple"};
  EXPECT_TRUE(matches("MyClass and not method", something));
  EXPECT_FALSE(matches("MyClass and not method", method));
  EXPECT_TRUE(matches("myclass and not METHOD", something));  // case-insensitive
  EXPECT_TRUE(matches("mod.py", method));                     // a substring of any keyword
  EXPECT_FALSE(matches("mod.py::TestMyClass", method));       // but of one keyword, never across two
}

// pytest's test_basic and test_syntax_oddities, with "true" a keyword and "false" none.
TEST(KeywordExpression, BooleanOperatorsPrecedenceAndParentheses) {
  const std::vector<std::string> keywords = {"true"};
  for (auto [text, expected] : std::vector<std::pair<std::string, bool>>{
           {"true", true}, {"false", false}, {"not true", false}, {"not not true", true},
           {"true and false", false}, {"true and true and not true", false}, {"false or true", true},
           {"true and true or false", true}, {"not true or true", true}, {"(not true) or true", true},
           {"not (true or true)", false}, {"true and true or false and false", true},
           {"true and (true or false) and false", false}, {"true and (true or (not (not false))) and false", false},
           {"               ((((((true))))))           ", true}, {"     (         ((\t  (((true)))))  \t   \t)", true},
           {"not not not not true", true}, {"not not not not not true", false}}) {
    EXPECT_EQ(matches(text, keywords), expected) << text;
  }
}

// pytest strips the -k value and filters nothing when it is empty.
TEST(KeywordExpression, AnEmptyExpressionSelectsEverything) {
  for (const char* blank : {"", "   ", "\t"}) EXPECT_TRUE(matches(blank, {"anything"})) << "'" << blank << "'";
}

TEST(KeywordExpression, SyntaxErrorsNameTheColumnAsPytestDoes) {
  const std::string ident = "expected not OR left parenthesis OR identifier; got ";
  for (auto [text, error] : std::vector<std::pair<std::string, std::string>>{
           {"(", "at column 2: " + ident + "end of input"},
           {" (", "at column 2: " + ident + "end of input"},  // -k strips the leading blank first
           {")", "at column 1: " + ident + "right parenthesis"},
           {"not", "at column 4: " + ident + "end of input"},
           {"not not", "at column 8: " + ident + "end of input"},
           {"(not)", "at column 5: " + ident + "right parenthesis"},
           {"and", "at column 1: " + ident + "and"},
           {"ident and", "at column 10: " + ident + "end of input"},
           {"ident and or", "at column 11: " + ident + "or"},
           {"ident ident", "at column 7: expected end of input; got identifier"},
           {"'str'", "at column 1: " + ident + "string literal"},
           {"a and 'b", "at column 7: closing quote \"'\" is missing"},
           {"test_x(a=1)", "at column 7: Keyword expressions do not support call parameters."},
           {"a | b", "at column 3: unexpected character \"|\""}}) {
    EXPECT_EQ(error_of(text), error) << text;
  }
  EXPECT_EQ(KeywordExpression::compile("ident ident").error().message,
            "Wrong expression passed to '-k': ident ident: at column 7: expected end of input; got identifier");
}

// pytest's test_valid_idents and test_invalid_idents: each valid one matches itself.
TEST(KeywordExpression, IdentifiersAsPytestLexesThem) {
  for (const char* ident : {".", "...", ":::", "a:::c", "a+-b", "a/b", "\xD7\x90\xD7\x91\xD7\x92\xD7\x93" /* אבגד */,
                            "a[bcd]", "1234", "1234and", "notandor", "not_and_or", "not[and]or", "123.232", "True",
                            "None", "if", "while", "\\nfoo\\n"})
    EXPECT_TRUE(matches(ident, {ident})) << ident;
  for (const char* bad : {"^", "*", "=", "&", "%", "$", "#", "@", "!", "~", "{", "}", "\"", "'", "|", ";",
                          "\xE2\x86\x90" /* ← */, "a\nb"})
    EXPECT_NE(error_of(bad), "compiled") << bad;
  // "or", "and" and "not" are operators only as whole words, and only in lower case.
  EXPECT_TRUE(matches("order", {"order"}));
  EXPECT_TRUE(matches("Or", {"or"}));
}

TEST(KeywordExpression, AHostileExpressionIsRefusedNotACrash) {
  std::string deep(100000, '(');
  EXPECT_NE(error_of(deep + "x"), "compiled");
  std::string nots;
  for (int i = 0; i < 50000; ++i) nots += "not ";
  EXPECT_NE(error_of(nots + "x"), "compiled");
  std::string chain = "x";
  for (int i = 0; i < 300000; ++i) chain += " or x";  // as long as a command line can be
  EXPECT_TRUE(matches(chain, {"x"}));
}

}  // namespace
}  // namespace aorta::cli
