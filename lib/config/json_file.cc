#include "config/json_file.h"

#include <fstream>
#include <vector>

#include "common/utf8.h"

namespace aorta::config {
namespace fs = std::filesystem;
namespace {

// Parser messages quote the text they stopped at, which may be a megabyte of digits or
// bytes that are not UTF-8; the message stays short and printable.
std::string printable(const std::string& text) {
  constexpr std::size_t kMax = 200;
  std::string out = valid_utf8(utf8_prefix(text, kMax));
  return text.size() > kMax ? out + "..." : out;
}

// A first pass over the text that builds nothing: it stops at the first problem and
// knows the dotted key it was reading, which a DOM parse cannot tell. Depth is
// checked here because nlohmann's DOM and our own walks over it recurse.
class Checker : public nlohmann::json_sax<json> {
 public:
  std::string error_key;
  std::string error_message;

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(false); }
  bool key(string_t& name) override {
    if (++frames_.back().members > kMaxConfigMembers) {
      error_key = path();
      error_message = "has more than " + std::to_string(kMaxConfigMembers) + " members";
      return false;
    }
    frames_.back().key = name;
    frames_.back().pending = true;
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_array() override { return close(); }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) override {
    error_key = path();
    // 406: a number beyond double's range; nlohmann reports it as out_of_range, which
    // escaped the old loader's catch of parse_error and aborted the program.
    if (ex.id == 406)
      error_message = "holds a number out of range (beyond ±1.8e308): " + printable(ex.what());
    else
      error_message = "is not valid JSON: " + printable(ex.what());
    return false;
  }

 private:
  struct Frame {
    bool array = false;
    std::size_t index = 0;
    std::string key;
    bool pending = false;  // a key was read and its value is not complete yet
    std::size_t members = 0;
  };
  std::vector<Frame> frames_;

  // The dotted key of the value being read (or of the object whose next key is).
  std::string path() const {
    std::string out;
    for (const auto& f : frames_) {
      if (f.array)
        out += "[" + std::to_string(f.index) + "]";
      else if (f.pending)
        out = join_key(out, f.key);
    }
    return printable(out);
  }
  bool value() {
    if (frames_.empty()) return true;
    if (frames_.back().array) ++frames_.back().index; else frames_.back().pending = false;
    return true;
  }
  bool open(bool array) {
    if (frames_.size() >= kMaxConfigDepth) {
      error_key = path();
      error_message = "nests deeper than " + std::to_string(kMaxConfigDepth) + " levels of objects and arrays";
      return false;
    }
    frames_.push_back({array, 0, "", false, 0});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return value();
  }
};

}  // namespace

std::optional<json> parse_config_json(const std::string& text, ConfigErrors& errors) {
  Checker checker;
  if (!json::sax_parse(text, &checker) || !checker.error_message.empty()) {
    errors.add(checker.error_key, checker.error_message.empty() ? "is not valid JSON" : checker.error_message);
    return std::nullopt;
  }
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {  // the checker accepted it, so this is not expected; still no throw
    errors.add("", "is not valid JSON");
    return std::nullopt;
  }
  if (!doc.is_object()) {
    errors.add("", "must hold a JSON object at the top level");
    return std::nullopt;
  }
  return doc;
}

std::optional<json> read_config_json(const fs::path& file, const std::string& what, ConfigErrors& errors) {
  std::error_code ec;
  fs::file_status status = fs::status(file, ec);  // follows links: a link to /dev/zero is /dev/zero
  if (ec || !fs::exists(status)) {
    errors.add("", what + " cannot be read (does it exist and is it readable?)");
    return std::nullopt;
  }
  // Opening a pipe would block and a device may never end; only a plain file is a config.
  if (!fs::is_regular_file(status)) {
    errors.add("", what + " is not a regular file (" +
                       std::string(fs::is_directory(status) ? "a directory" : "a device, pipe or socket") + ")");
    return std::nullopt;
  }
  std::uintmax_t size = fs::file_size(file, ec);
  auto too_large = [&] {
    errors.add("", what + " is larger than " + std::to_string(kMaxConfigFileBytes >> 20) +
                       " MiB; config files are small JSON documents (is this the right file?)");
    return std::nullopt;
  };
  if (!ec && size > kMaxConfigFileBytes) return too_large();
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    errors.add("", what + " cannot be read (does it exist and is it readable?)");
    return std::nullopt;
  }
  // Read at most one byte past the limit: the size may have changed since the stat.
  std::string text(kMaxConfigFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) {
    errors.add("", what + " cannot be read (I/O error)");
    return std::nullopt;
  }
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxConfigFileBytes) return too_large();
  return parse_config_json(text, errors);
}

}  // namespace aorta::config
