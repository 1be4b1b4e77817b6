// pytest's -k keyword expression (src/_pytest/mark/expression.py, pytest 8), so a
// CVS user's `cvs run aorta_single -k 'benchmark or teardown'` selects here what it
// selects there. The grammar:
//   expression: expr? EOF
//   expr:       and_expr ('or' and_expr)*
//   and_expr:   not_expr ('and' not_expr)*
//   not_expr:   'not' not_expr | '(' expr ')' | ident
//   ident:      (\w|:|\+|-|\.|\[|\]|\\|/)+
// An ident is true when it is a case-insensitive substring of one of the test's
// keywords (pytest's KeywordMatcher). Quotes and call arguments (`name(x=1)`) are
// -m's, refused here as pytest refuses them for -k.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/result.h"

namespace aorta::cli {

class KeywordExpression {
 public:
  // The expression, or the error pytest gives for it ("Wrong expression passed to
  // '-k': EXPR: at column N: expected ...", column 1-based). An empty (or blank)
  // expression selects everything: pytest then does not filter at all.
  static Result<KeywordExpression> compile(const std::string& text);

  // Whether a test with these keywords (its name, its module's ...) is selected.
  bool matches(const std::vector<std::string>& keywords) const;
  const std::string& text() const { return text_; }

  struct Node;  // the parsed expression (keyword_expression.cc)

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;  // null: empty expression
};

}  // namespace aorta::cli
