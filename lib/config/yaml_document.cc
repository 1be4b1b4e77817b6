#include "config/yaml_document.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>
#include <vector>

#include "common/regular_file.h"
#include "common/utf8.h"
#include "config/json_file.h"

namespace aorta::config {
namespace {

std::string fmt_byte(unsigned char c) {
  static const char* const kHex = "0123456789abcdef";
  return std::string("0x") + kHex[c >> 4] + kHex[c & 15];
}

bool all_of(const std::string& s, size_t from, bool (*ok)(char)) {
  if (from >= s.size()) return false;
  for (size_t i = from; i < s.size(); ++i)
    if (!ok(s[i])) return false;
  return true;
}

bool is_dec(char c) { return c >= '0' && c <= '9'; }
bool is_dec_(char c) { return is_dec(c) || c == '_'; }
bool is_oct_(char c) { return (c >= '0' && c <= '7') || c == '_'; }
bool is_bin_(char c) { return c == '0' || c == '1' || c == '_'; }
bool is_hex_(char c) { return std::isxdigit(static_cast<unsigned char>(c)) || c == '_'; }

std::string without_underscores(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != '_') out += c;
  return out;
}

// PyYAML's YAML 1.1 integer forms: 0b..., 0..., decimal, 0x... (sexagesimal is refused
// by the caller). nullopt: not an integer; a value past 64 bits is an error.
std::optional<std::optional<long long>> yaml_int(const std::string& text) {
  size_t at = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
  std::string body = text.substr(at);
  int base = 0;
  size_t digits = 0;
  if (body.rfind("0b", 0) == 0 && all_of(body, 2, is_bin_)) base = 2, digits = 2;
  else if (body.rfind("0x", 0) == 0 && all_of(body, 2, is_hex_)) base = 16, digits = 2;
  else if (body.size() > 1 && body[0] == '0' && all_of(body, 1, is_oct_)) base = 8, digits = 1;
  else if (body == "0" || (!body.empty() && body[0] >= '1' && body[0] <= '9' && all_of(body, 0, is_dec_))) base = 10;
  if (base == 0) return std::nullopt;
  std::string clean = without_underscores(body.substr(digits));
  if (clean.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  unsigned long long u = std::strtoull(clean.c_str(), &end, base);
  bool negative = at == 1 && text[0] == '-';
  unsigned long long limit = negative ? 9223372036854775808ULL : 9223372036854775807ULL;
  if (errno == ERANGE || *end != '\0' || u > limit) return std::optional<long long>{};
  long long value = negative ? static_cast<long long>(0 - u) : static_cast<long long>(u);
  return std::optional<long long>{value};
}

// PyYAML's float: [-+]?digits.digits?([eE][-+]digits)?, or .digits(...): a dot is required.
bool is_yaml_float(const std::string& text) {
  size_t i = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
  size_t start = i;
  while (i < text.size() && is_dec_(text[i])) ++i;
  if (i >= text.size() || text[i] != '.') return false;
  if (i == start && (start == 1 || i + 1 >= text.size() || !is_dec(text[i + 1]))) return false;
  ++i;
  while (i < text.size() && is_dec_(text[i])) ++i;
  if (i == text.size()) return true;
  if (text[i] != 'e' && text[i] != 'E') return false;
  if (++i >= text.size() || (text[i] != '-' && text[i] != '+')) return false;
  return all_of(text, i + 1, is_dec);
}

bool is_sexagesimal(const std::string& text) {
  if (text.find(':') == std::string::npos) return false;
  size_t i = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
  if (i >= text.size() || !is_dec(text[i])) return false;
  for (; i < text.size(); ++i)
    if (!is_dec_(text[i]) && text[i] != ':' && text[i] != '.') return false;
  return true;
}

bool one_of(const std::string& text, std::initializer_list<const char*> words) {
  for (const char* w : words)
    if (text == w) return true;
  return false;
}

// Checked after yaml-cpp too: what it decodes must still be text.
constexpr const char* kEscapeNotUtf8 = "holds text that is not UTF-8 once yaml-cpp has read it";

struct Walk {
  ConfigErrors& errors;
  std::size_t values = 0;
  std::size_t text_bytes = 0;

  static std::string where(const YAML::Node& node) {
    const YAML::Mark m = node.Mark();
    return m.is_null() ? "" : " (line " + std::to_string(m.line + 1) + ")";
  }

  bool fail(const std::string& key, const std::string& message, const YAML::Node& node) {
    errors.add(key, message + where(node));
    return false;
  }

  bool tag_allowed(const std::string& tag) {
    static const std::set<std::string> kCore = {"?", "!", "", "tag:yaml.org,2002:str", "tag:yaml.org,2002:int",
                                                "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool",
                                                "tag:yaml.org,2002:null", "tag:yaml.org,2002:map",
                                                "tag:yaml.org,2002:seq"};
    return kCore.count(tag) > 0;
  }

  bool scalar(const YAML::Node& node, const std::string& key, json& out) {
    const std::string& text = node.Scalar();
    if ((text_bytes += text.size()) > kMaxYamlTextBytes)
      return fail(key, "the document's text expands to more than " + std::to_string(kMaxYamlTextBytes >> 20) +
                           " MiB (a long value repeated by aliases?)", node);
    if (!is_valid_utf8(text)) return fail(key, kEscapeNotUtf8, node);
    if (node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str") {
      out = text;
      return true;
    }
    if (is_sexagesimal(text) && !is_yaml_float(text) && yaml_int(text) == std::nullopt)
      return fail(key, "holds '" + printable(text) + "', which PyYAML reads as a base-60 number; quote it", node);
    auto typed = plain_scalar(text);
    if (!typed) return fail(key, "holds " + printable(text) + ", which JSON cannot hold (an infinity, NaN or an integer past 64 bits)", node);
    out = std::move(*typed);
    return true;
  }

  bool value(const YAML::Node& node, const std::string& key, std::size_t depth, json& out) {
    if (++values > kMaxYamlValues)
      return fail(key, "the document expands to more than " + std::to_string(kMaxYamlValues) +
                           " values (aliases that repeat each other?)", node);
    if (!tag_allowed(node.Tag())) return fail(key, "has the tag " + printable(node.Tag()) + ", which a config may not use", node);
    switch (node.Type()) {
      case YAML::NodeType::Null: out = nullptr; return true;
      case YAML::NodeType::Scalar: return scalar(node, key, out);
      case YAML::NodeType::Sequence: return sequence(node, key, depth, out);
      case YAML::NodeType::Map: return mapping(node, key, depth, out);
      default: return fail(key, "holds no value", node);
    }
  }

  bool sequence(const YAML::Node& node, const std::string& key, std::size_t depth, json& out) {
    if (depth >= kMaxConfigDepth) return fail(key, "nests deeper than " + std::to_string(kMaxConfigDepth) + " levels", node);
    out = json::array();
    std::size_t i = 0;
    for (const auto& item : node) {
      json v;
      if (!value(item, key + "[" + std::to_string(i++) + "]", depth + 1, v)) return false;
      out.push_back(std::move(v));
    }
    return true;
  }

  bool mapping(const YAML::Node& node, const std::string& key, std::size_t depth, json& out) {
    if (depth >= kMaxConfigDepth) return fail(key, "nests deeper than " + std::to_string(kMaxConfigDepth) + " levels", node);
    if (node.size() > kMaxConfigMembers)
      return fail(key, "has more than " + std::to_string(kMaxConfigMembers) + " members", node);
    out = json::object();
    for (const auto& member : node) {
      const YAML::Node& k = member.first;
      if (!k.IsScalar()) return fail(key, "has a key that is not a plain word (a mapping or a list)", k);
      const std::string name = k.Scalar();
      if (!is_valid_utf8(name)) return fail(key, kEscapeNotUtf8, k);
      const std::string dotted = join_key(key, printable(name));
      if (name == "<<" && k.Tag() == "?") return fail(dotted, "is a merge key, which is not supported; write the keys out", k);
      if (out.contains(name)) return fail(dotted, "appears twice in the same mapping (CVS kept the last silently); keep one", k);
      json v;
      if (!value(member.second, dotted, depth + 1, v)) return false;
      out[name] = std::move(v);
    }
    return true;
  }
};

// Builds nothing: parses documents only to count them.
class NoEvents : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// One document, or two for "more than one". Never YAML::LoadAll: on a stray ','
// yaml-cpp 0.7 makes empty documents without end (1.5 GB in 5 s), found by fuzz_cvs_yaml.
std::size_t documents_up_to_two(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  NoEvents none;
  std::size_t n = 0;
  while (n < 2 && parser.HandleNextDocument(none)) ++n;
  return n;
}

}  // namespace

std::optional<json> plain_scalar(const std::string& text) {
  if (one_of(text, {"", "~", "null", "Null", "NULL"})) return json(nullptr);
  if (one_of(text, {"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})) return json(true);
  if (one_of(text, {"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})) return json(false);
  if (auto i = yaml_int(text)) {
    if (!*i) return std::nullopt;
    return json(**i);
  }
  if (one_of(text, {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN"}))
    return std::nullopt;
  if (is_yaml_float(text)) {
    double d = std::strtod(without_underscores(text).c_str(), nullptr);
    if (!std::isfinite(d)) return std::nullopt;
    return json(d);
  }
  return json(text);
}

std::optional<json> parse_yaml_text(const std::string& text, ConfigErrors& errors) {
  if (!is_valid_utf8(text)) {
    errors.add("", "is not UTF-8 text (save it as UTF-8)");
    return std::nullopt;
  }
  // YAML allows no C0 control but tab and line breaks (PyYAML refused them too); yaml-cpp
  // reads a NUL as the start of an escape.
  for (std::size_t i = 0, line = 1; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') ++line;
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
      errors.add("", "holds the control character " + fmt_byte(c) + " at line " + std::to_string(line) +
                         ", which YAML does not allow");
      return std::nullopt;
    }
  }
  YAML::Node doc;
  std::size_t documents = 0;
  try {
    doc = YAML::Load(text);
    documents = documents_up_to_two(text);
  } catch (const YAML::DeepRecursion& e) {  // yaml-cpp's own guard (500 levels), which says only "bad file"
    errors.add("", "nests deeper than " + std::to_string(kMaxConfigDepth) + " levels (line " +
                       std::to_string(e.mark.line + 1) + ")");
    return std::nullopt;
  } catch (const YAML::Exception& e) {
    errors.add("", "is not valid YAML: line " + std::to_string(e.mark.line + 1) + ": " + printable(e.msg));
    return std::nullopt;
  }
  if (!doc.IsMap() || documents > 1) {
    errors.add("", doc.IsMap() ? "holds more than one YAML document; a config is one"
                               : "must hold a YAML mapping (key: value lines) at the top level");
    return std::nullopt;
  }
  Walk walk{errors};
  json out;
  try {
    if (!walk.value(doc, "", 0, out)) return std::nullopt;
  } catch (const YAML::Exception& e) {
    errors.add("", "is not valid YAML: " + printable(e.msg));
    return std::nullopt;
  }
  return out;
}

std::optional<json> read_yaml_file(const std::filesystem::path& file, ConfigErrors& errors) {
  FileText read = read_regular_file(file, kMaxConfigFileBytes, /*follow_links=*/true);
  switch (read.status) {
    case FileText::Status::kRead: return parse_yaml_text(read.text, errors);
    case FileText::Status::kTooLarge:
      errors.add("", "is larger than " + std::to_string(kMaxConfigFileBytes >> 20) +
                         " MiB; a CVS config is a small YAML file (is this the right file?)");
      break;
    case FileText::Status::kNotRegular: errors.add("", "is not a regular file (" + read.detail + ")"); break;
    default: errors.add("", "cannot be read: " + read.detail); break;
  }
  return std::nullopt;
}

}  // namespace aorta::config
