// Passwords that only the command line around them gives away: short flags whose
// meaning depends on the program (mysql's -p is a password, ssh's -p a port) and the
// bare words of a .netrc entry.
#include <array>
#include <utility>

#include "redact/redact_scan.h"

namespace aorta::redact::detail {
namespace {

// A program's flag that takes a password: written on it (-pSECRET) and/or as the next
// argument (-p SECRET). mysql's -p alone asks for the password: its next word is the
// database.
struct PasswordFlag {
  std::string_view command, flag;
  bool attached, separate;
};
constexpr std::array<PasswordFlag, 19> kPasswordFlags = {{
    {"mysql", "-p", true, false},        {"mysqldump", "-p", true, false},   {"mysqladmin", "-p", true, false},
    {"mariadb", "-p", true, false},      {"mariadb-dump", "-p", true, false}, {"sshpass", "-p", true, true},
    {"redis-cli", "-a", false, true},    {"redis-cli", "--pass", false, true},
    // docker, podman, nerdctl, buildah, skopeo, oras, helm registry ... login
    {"login", "-p", false, true},        {"ldapsearch", "-w", false, true},  {"ldapadd", "-w", false, true},
    {"ldapmodify", "-w", false, true},   {"ldapdelete", "-w", false, true},  {"ldapwhoami", "-w", false, true},
    {"sqlcmd", "-P", false, true},       {"mongo", "-p", false, true},       {"mongosh", "-p", false, true},
    {"mongodump", "-p", false, true},    {"mongorestore", "-p", false, true},
}};

size_t skip_blanks(std::string_view text, size_t pos) {
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
  return pos;
}

// The argument after the word that ends at end; nullopt when there is none or it is
// another flag.
std::optional<Span> next_argument(std::string_view text, size_t end) {
  const size_t start = skip_blanks(text, end);
  if (start == end || start == text.size() || text[start] == '-') return std::nullopt;
  const size_t stop = value_end(text, start, false);
  if (stop == start) return std::nullopt;
  return Span{start, stop};
}

std::optional<Span> flag_password(std::string_view text, size_t begin, size_t end, std::string_view command) {
  const std::string_view word = text.substr(begin, end - begin);
  for (const auto& f : kPasswordFlags) {
    if (f.command != command || !starts_with(word, f.flag)) continue;
    const size_t value = begin + f.flag.size();
    // -pSECRET, -p'two words': the value ends the word or is quoted right after it.
    const bool attached = word.size() > f.flag.size() || (end < text.size() && (text[end] == '\'' || text[end] == '"'));
    if (attached) return f.attached ? std::optional<Span>(Span{value, value_end(text, value, false)}) : std::nullopt;
    return f.separate ? next_argument(text, end) : std::nullopt;
  }
  return std::nullopt;
}

// "password x" in a .netrc entry (machine h login u password x), or alone on its
// line as the entry's later lines are written: x, when nothing follows it there.
std::optional<Span> netrc_password(std::string_view text, size_t end, const LineWords& words) {
  auto value = next_argument(text, end);
  if (!value || words.netrc) return value;
  for (size_t k = value->second; k < text.size(); ++k)
    if (!is_space(text[k])) return std::nullopt;  // "password expired for alice": prose
  return value;
}

}  // namespace

std::optional<Span> password_of_word(std::string_view text, size_t begin, size_t end, LineWords& words) {
  const std::string_view word = text.substr(begin, end - begin);
  const bool first = std::exchange(words.first, false);
  if (word[0] == '-') {
    if (words.command.empty()) return std::nullopt;
    auto found = flag_password(text, begin, end, words.command);
    if (found) words.command = {};  // the rest of the line is the program's own (ssh -p 22)
    return found;
  }
  if (word == "password" && (words.netrc || first)) return netrc_password(text, end, words);
  if (word == "machine" || (first && word == "default")) words.netrc = true;
  for (const auto& f : kPasswordFlags)
    if (f.command == word) words.command = f.command;
  return std::nullopt;
}

}  // namespace aorta::redact::detail
