#include "app/keyword_expression.h"

#include <locale.h>
#include <wctype.h>

#include <algorithm>
#include <cctype>
#include <string_view>
#include <utility>

namespace aorta::cli {

struct KeywordExpression::Node {
  enum class Kind { kIdent, kNot, kAnd, kOr } kind;
  std::string ident;  // lower-cased, for kIdent
  std::vector<std::shared_ptr<const Node>> operands;
};

namespace {

using Node = KeywordExpression::Node;
using NodePtr = std::shared_ptr<const Node>;

// pytest's token types, named as its messages name them.
enum class Token { kLParen, kRParen, kOr, kAnd, kNot, kIdent, kEof, kEqual, kString, kComma };

const char* token_name(Token t) {
  switch (t) {
    case Token::kLParen: return "left parenthesis";
    case Token::kRParen: return "right parenthesis";
    case Token::kOr: return "or";
    case Token::kAnd: return "and";
    case Token::kNot: return "not";
    case Token::kIdent: return "identifier";
    case Token::kEof: return "end of input";
    case Token::kEqual: return "=";
    case Token::kString: return "string literal";
    case Token::kComma: return ",";
  }
  return "";
}

struct Lexed {
  Token type;
  std::string value;
  size_t pos;
};

// A parse error at a 0-based position; pytest reports the column 1-based.
struct ParseError {
  size_t pos;
  std::string message;
};

// The code point of the UTF-8 sequence at `pos` and its length in bytes; a byte that
// starts no valid sequence is one "character" of its own (never a word character).
std::pair<char32_t, size_t> code_point(const std::string& in, size_t pos) {
  const auto lead = static_cast<unsigned char>(in[pos]);
  const size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
  if (length == 0 || pos + length > in.size()) return {0xFFFD, 1};
  char32_t cp = length == 1 ? lead : lead & (0x7F >> length);
  for (size_t i = 1; i < length; ++i) {
    const auto next = static_cast<unsigned char>(in[pos + i]);
    if ((next & 0xC0) != 0x80) return {0xFFFD, 1};
    cp = (cp << 6) | (next & 0x3F);
  }
  return {cp, length};
}

// Python's \w (Unicode letters and digits, and '_') and the ident's other characters.
bool ident_char(char32_t c) {
  static const locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(0));
  if (c < 0x80)
    return std::isalnum(static_cast<int>(c)) ||
           std::string_view("_:+-.[]\\/").find(static_cast<char>(c)) != std::string_view::npos;
  return c != 0xFFFD && utf8 && iswalnum_l(static_cast<wint_t>(c), utf8);
}

// The length of the ident that starts at `pos` (0: none).
size_t ident_length(const std::string& in, size_t pos) {
  size_t end = pos;
  while (end < in.size()) {
    auto [c, length] = code_point(in, end);
    if (!ident_char(c)) break;
    end += length;
  }
  return end - pos;
}

Result<std::vector<Lexed>> lex(const std::string& in) {
  std::vector<Lexed> out;
  auto fail = [](size_t pos, std::string message) { return Error{ErrorCode::kInvalidInput, std::to_string(pos + 1) + ": " + message, ""}; };
  size_t pos = 0;
  while (pos < in.size()) {
    const char c = in[pos];
    if (c == ' ' || c == '\t') {
      ++pos;
    } else if (c == '(' || c == ')' || c == '=' || c == ',') {
      out.push_back({c == '(' ? Token::kLParen : c == ')' ? Token::kRParen : c == '=' ? Token::kEqual : Token::kComma,
                     std::string(1, c), pos});
      ++pos;
    } else if (c == '\'' || c == '"') {
      const size_t close = in.find(c, pos + 1);
      if (close == std::string::npos) return fail(pos, std::string("closing quote \"") + c + "\" is missing");
      std::string value = in.substr(pos, close - pos + 1);
      if (value.find('\\') != std::string::npos) return fail(pos, "escaping with \"\\\" not supported in marker expression");
      out.push_back({Token::kString, value, pos});
      pos = close + 1;
    } else if (const size_t length = ident_length(in, pos); length > 0) {
      std::string value = in.substr(pos, length);
      const size_t end = pos + length;
      const Token type = value == "or" ? Token::kOr : value == "and" ? Token::kAnd : value == "not" ? Token::kNot : Token::kIdent;
      out.push_back({type, value, pos});
      pos = end;
    } else {
      return fail(pos, "unexpected character \"" + in.substr(pos, code_point(in, pos).second) + "\"");
    }
  }
  out.push_back({Token::kEof, "", pos});
  return out;
}

// Recursive descent over the tokens, as pytest's expression() does.
class Parser {
 public:
  explicit Parser(std::vector<Lexed> tokens) : tokens_(std::move(tokens)) {}

  NodePtr expression() {
    NodePtr root = expr();
    accept(Token::kEof, true);
    return root;
  }

 private:
  const Lexed& current() const { return tokens_[at_]; }

  bool accept(Token type, bool reject = false) {
    if (current().type == type) {
      if (type != Token::kEof) ++at_;
      return true;
    }
    if (reject) fail({type});
    return false;
  }

  [[noreturn]] void fail(const std::vector<Token>& expected) const {
    std::string list;
    for (Token t : expected) list += (list.empty() ? "" : " OR ") + std::string(token_name(t));
    throw ParseError{current().pos, "expected " + list + "; got " + token_name(current().type)};
  }

  // One node for a chain (a or b or c): its depth stays that of the parentheses.
  NodePtr binary(Node::Kind kind, Token op, NodePtr (Parser::*operand)()) {
    std::vector<NodePtr> operands = {(this->*operand)()};
    while (accept(op)) operands.push_back((this->*operand)());
    if (operands.size() == 1) return operands.front();
    return std::make_shared<const Node>(Node{kind, "", std::move(operands)});
  }

  NodePtr expr() { return binary(Node::Kind::kOr, Token::kOr, &Parser::and_expr); }
  NodePtr and_expr() { return binary(Node::Kind::kAnd, Token::kAnd, &Parser::not_expr); }

  NodePtr not_expr() {
    // A command line is short; a bound keeps a hostile one from exhausting the stack.
    if (++depth_ > kMaxDepth) throw ParseError{current().pos, "nested more than 200 deep"};
    struct Leave {
      int& depth;
      ~Leave() { --depth; }
    } leave{depth_};
    if (accept(Token::kNot)) return std::make_shared<const Node>(Node{Node::Kind::kNot, "", {not_expr()}});
    if (accept(Token::kLParen)) {
      NodePtr inner = expr();
      accept(Token::kRParen, true);
      return inner;
    }
    if (current().type == Token::kIdent) {
      std::string ident = current().value;
      ++at_;
      // pytest parses `name(key=value)` for -m; -k's matcher refuses it.
      if (current().type == Token::kLParen)
        throw ParseError{current().pos, "Keyword expressions do not support call parameters."};
      std::transform(ident.begin(), ident.end(), ident.begin(), [](unsigned char c) { return std::tolower(c); });
      return std::make_shared<const Node>(Node{Node::Kind::kIdent, ident, {}});
    }
    fail({Token::kNot, Token::kLParen, Token::kIdent});
  }

  static constexpr int kMaxDepth = 200;
  std::vector<Lexed> tokens_;
  size_t at_ = 0;
  int depth_ = 0;
};

bool evaluate(const Node& node, const std::vector<std::string>& lowered) {
  switch (node.kind) {
    case Node::Kind::kIdent:
      return std::any_of(lowered.begin(), lowered.end(),
                         [&](const std::string& k) { return k.find(node.ident) != std::string::npos; });
    case Node::Kind::kNot: return !evaluate(*node.operands[0], lowered);
    case Node::Kind::kAnd:
      return std::all_of(node.operands.begin(), node.operands.end(), [&](const NodePtr& n) { return evaluate(*n, lowered); });
    case Node::Kind::kOr:
      return std::any_of(node.operands.begin(), node.operands.end(), [&](const NodePtr& n) { return evaluate(*n, lowered); });
  }
  return false;
}

}  // namespace

Result<KeywordExpression> KeywordExpression::compile(const std::string& text) {
  KeywordExpression out;
  out.text_ = text;
  // pytest strips leading whitespace (str.lstrip) and filters nothing when none is left.
  const size_t start = text.find_first_not_of(" \t\n\r\f\v");
  if (start == std::string::npos) return out;
  const std::string body = text.substr(start);
  const std::string wrong = "Wrong expression passed to '-k': " + body + ": at column ";
  auto tokens = lex(body);
  if (!tokens) return Error{ErrorCode::kInvalidInput, wrong + tokens.error().message, ""};
  try {
    out.root_ = Parser(std::move(*tokens)).expression();
  } catch (const ParseError& e) {
    return Error{ErrorCode::kInvalidInput, wrong + std::to_string(e.pos + 1) + ": " + e.message, ""};
  }
  return out;
}

bool KeywordExpression::matches(const std::vector<std::string>& keywords) const {
  if (!root_) return true;
  std::vector<std::string> lowered = keywords;
  for (auto& k : lowered) std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return std::tolower(c); });
  return evaluate(*root_, lowered);
}

}  // namespace aorta::cli
