#include "config/shell_meaning.h"

#include <cctype>
#include <cstring>

namespace aorta::config {
namespace {

// Characters bash gives a meaning wherever they stand in an unquoted word.
const char* anywhere(char c) {
  switch (c) {
    case '$': return "starts a variable, command or arithmetic substitution";
    case '`': return "starts a command substitution";
    case '\\': return "escapes the next character and is removed";
    case '\'':
    case '"': return "is a quote the shell removes";
    case ';':
    case '&': return "ends the command (the rest runs as another)";
    case '|': return "pipes the command into another";
    case '<':
    case '>': return "is a redirection";
    case '(':
    case ')': return "is shell syntax (a subshell or process substitution)";
    case '*':
    case '?': return "is a file-name pattern the shell expands against the node's files";
    default: return nullptr;
  }
}

// [ opens a pattern only when a ] closes it later in the word.
bool opens_bracket_pattern(const std::string& w, size_t i) { return w.find(']', i + 1) != std::string::npos; }

bool is_name(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (unsigned char c : s)
    if (!std::isalnum(c) && c != '_') return false;
  return true;
}

// ~ expands at the start of a word and, in a word shaped like an assignment (NAME= or
// NAME+=, which bash expands even as an argument), right after its first = or a :.
bool expands_tilde(const std::string& w, size_t i) {
  if (i == 0) return true;
  size_t eq = w.find('=');
  if (eq == std::string::npos || i <= eq) return false;
  std::string name = w.substr(0, eq);
  if (!name.empty() && name.back() == '+') name.pop_back();
  return is_name(name) && (i == eq + 1 || w[i - 1] == ':');
}

// {a..z} or {1..9} (with an optional ..step): bash's sequence expression.
bool is_sequence(const std::string& inner) {
  size_t dots = inner.find("..");
  if (dots == std::string::npos) return false;
  auto is_int = [](const std::string& s) {
    size_t start = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (start >= s.size()) return false;
    for (size_t k = start; k < s.size(); ++k)
      if (!std::isdigit(static_cast<unsigned char>(s[k]))) return false;
    return true;
  };
  auto is_letter = [](const std::string& s) { return s.size() == 1 && std::isalpha(static_cast<unsigned char>(s[0])); };
  std::string from = inner.substr(0, dots), rest = inner.substr(dots + 2);
  size_t step_at = rest.find("..");
  std::string to = rest.substr(0, step_at);
  if (step_at != std::string::npos && !is_int(rest.substr(step_at + 2))) return false;
  return (is_int(from) && is_int(to)) || (is_letter(from) && is_letter(to));
}

// { expands when its matching } closes a comma list at its own depth or a sequence
// ({128} and {} stay literal, as CVS's own loader test requires of --allocator={128}).
bool opens_brace_expansion(const std::string& w, size_t i) {
  int depth = 0;
  bool comma = false;
  for (size_t k = i + 1; k < w.size(); ++k) {
    if (w[k] == '{') ++depth;
    else if (w[k] == '}' && depth > 0) --depth;
    else if (w[k] == ',' && depth == 0) comma = true;
    else if (w[k] == '}') return comma || is_sequence(w.substr(i + 1, k - i - 1));
  }
  return false;
}

}  // namespace

std::optional<ShellMeaning> shell_meaning(const std::string& word) {
  if (word.empty()) return ShellMeaning{0, 0, "is empty and vanishes"};
  for (size_t i = 0; i < word.size(); ++i) {
    char c = word[i];
    if (const char* does = anywhere(c)) return ShellMeaning{i, c, does};
    if (c == '[' && opens_bracket_pattern(word, i))
      return ShellMeaning{i, c, "opens a file-name pattern the shell expands against the node's files"};
    if (c == '#' && i == 0) return ShellMeaning{i, c, "starts a comment that drops the rest of the line"};
    if (c == '~' && expands_tilde(word, i)) return ShellMeaning{i, c, "expands to a home folder"};
    if (c == '{' && opens_brace_expansion(word, i))
      return ShellMeaning{i, c, "starts a brace expansion that makes several words"};
  }
  return std::nullopt;
}

}  // namespace aorta::config
