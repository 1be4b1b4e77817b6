#include "report/zip_writer.h"

#include <zip.h>

#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/atomic_file.h"
#include "common/regular_file.h"

namespace aorta::report {
namespace {

Error zip_error(const std::filesystem::path& zip, const std::string& what) {
  return Error{ErrorCode::kIo, what, zip.string()};
}

// The archive's own error text ("No space left on device", "Read error ...").
std::string archive_error(zip_t* archive) { return zip_error_strerror(zip_get_error(archive)); }

}  // namespace

std::string portable_name_part(const std::string& part) {
  std::string out = part;
  for (char& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || std::string_view("\\:*?\"<>|").find(c) != std::string_view::npos) c = '_';
  }
  if (out.empty() || out == ".") return "_";
  if (out == "..") return "__";
  for (size_t i = out.size(); i > 0 && (out[i - 1] == '.' || out[i - 1] == ' '); --i) out[i - 1] = '_';
  return out;
}

std::string portable_entry_name(const std::string& name) {
  std::string out;
  size_t start = 0;
  while (start <= name.size()) {
    size_t slash = name.find('/', start);
    if (slash == std::string::npos) slash = name.size();
    if (slash > start) out += (out.empty() ? "" : "/") + portable_name_part(name.substr(start, slash - start));
    start = slash + 1;
  }
  return out.empty() ? "_" : out;
}

Status write_zip(const std::filesystem::path& zip,
                 const std::vector<std::pair<std::string, std::filesystem::path>>& entries) {
  // Built in memory and written as any other output (write_file_atomically): libzip's
  // own file writing would rename over whatever is at the name.
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* buffer = zip_source_buffer_create(nullptr, 0, 0, &error);
  if (!buffer) {
    std::string text = zip_error_strerror(&error);
    zip_error_fini(&error);
    return zip_error(zip, "could not create the bundle: " + text);
  }
  zip_t* archive = zip_open_from_source(buffer, ZIP_TRUNCATE, &error);
  if (!archive) {
    zip_source_free(buffer);  // not taken by an archive: still ours
    std::string text = zip_error_strerror(&error);
    zip_error_fini(&error);
    return zip_error(zip, "could not create the bundle: " + text);
  }
  zip_error_fini(&error);
  // The archive holds one reference; this one keeps the bytes to read after zip_close.
  zip_source_keep(buffer);
  std::unique_ptr<zip_source_t, void (*)(zip_source_t*)> keep(buffer, zip_source_free);
  std::unique_ptr<zip_t, void (*)(zip_t*)> guard(archive, zip_discard);
  std::vector<std::string> contents;
  contents.reserve(entries.size());
  for (const auto& [name, file] : entries) {
    // Never through a link, never a FIFO or a device: only a regular file is bundled.
    FileText read = read_regular_file(file, std::numeric_limits<std::uintmax_t>::max(), false);
    if (read.status == FileText::Status::kNotRegular)
      return zip_error(zip, "not bundled: " + file.string() + " is not a regular file (" + read.detail + ")");
    if (read.status != FileText::Status::kRead)
      return zip_error(zip, "could not read " + file.string() + ": " + read.detail);
    const std::string& text = contents.emplace_back(std::move(read.text));
    zip_source_t* source = zip_source_buffer(archive, text.data(), text.size(), 0);
    if (!source) return zip_error(zip, "could not read " + file.string() + ": " + archive_error(archive));
    const std::string entry = portable_entry_name(name);
    zip_int64_t index = zip_file_add(archive, entry.c_str(), source, ZIP_FL_ENC_UTF_8 | ZIP_FL_OVERWRITE);
    if (index < 0) {
      zip_source_free(source);
      return zip_error(zip, "could not add " + name + ": " + archive_error(archive));
    }
    if (zip_set_file_compression(archive, static_cast<zip_uint64_t>(index), ZIP_CM_DEFLATE, 9) < 0)
      return zip_error(zip, "could not compress " + name + ": " + archive_error(archive));
  }
  if (zip_close(archive) < 0) return zip_error(zip, "could not write the bundle: " + archive_error(archive));
  guard.release();
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_source_stat(buffer, &st) < 0 || zip_source_open(buffer) < 0)
    return zip_error(zip, "could not read the bundle back");
  std::string bytes(static_cast<size_t>(st.size), '\0');
  zip_int64_t got = zip_source_read(buffer, bytes.data(), st.size);
  zip_source_close(buffer);
  if (got < 0 || static_cast<zip_uint64_t>(got) != st.size) return zip_error(zip, "could not read the bundle back");
  return write_file_atomically(zip, bytes);
}

}  // namespace aorta::report
