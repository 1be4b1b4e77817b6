#include "report/zip_writer.h"

#include <zip.h>

#include <memory>

namespace aorta::report {
namespace {

Error zip_error(const std::filesystem::path& zip, const std::string& what) {
  return Error{ErrorCode::kIo, what, zip.string()};
}

// The archive's own error text ("No space left on device", "Read error ...").
std::string archive_error(zip_t* archive) { return zip_error_strerror(zip_get_error(archive)); }

}  // namespace

Status write_zip(const std::filesystem::path& zip,
                 const std::vector<std::pair<std::string, std::filesystem::path>>& entries) {
  int code = 0;
  zip_t* archive = zip_open(zip.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
  if (!archive) {
    zip_error_t error;
    zip_error_init_with_code(&error, code);
    std::string text = zip_error_strerror(&error);
    zip_error_fini(&error);
    return zip_error(zip, "could not create the bundle: " + text);
  }
  // zip_discard leaves no file behind; any earlier bundle of the same name stays.
  std::unique_ptr<zip_t, void (*)(zip_t*)> guard(archive, zip_discard);
  for (const auto& [name, file] : entries) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(file, ec)))
      return zip_error(zip, "not bundled: " + file.string() + " is not a regular file");
    // length -1: to the end of the file, read when the archive is written.
    zip_source_t* source = zip_source_file(archive, file.c_str(), 0, -1);
    if (!source) return zip_error(zip, "could not read " + file.string() + ": " + archive_error(archive));
    zip_int64_t index = zip_file_add(archive, name.c_str(), source, ZIP_FL_ENC_UTF_8 | ZIP_FL_OVERWRITE);
    if (index < 0) {
      zip_source_free(source);
      return zip_error(zip, "could not add " + name + ": " + archive_error(archive));
    }
    if (zip_set_file_compression(archive, static_cast<zip_uint64_t>(index), ZIP_CM_DEFLATE, 9) < 0)
      return zip_error(zip, "could not compress " + name + ": " + archive_error(archive));
  }
  // The files are read and deflated here, one at a time.
  if (zip_close(archive) < 0) return zip_error(zip, "could not write the bundle: " + archive_error(archive));
  guard.release();
  return ok_status();
}

}  // namespace aorta::report
