#include "common/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/output_path.h"

namespace aorta {

RegularFileReader::RegularFileReader(const std::filesystem::path& path, bool follow_links) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | (follow_links ? 0 : O_NOFOLLOW));
  if (fd_ < 0) {
    open_error_ = errno;
    // O_NOFOLLOW on a link fails with ELOOP: say what is there, not "too many levels".
    struct stat st{};
    const bool link = open_error_ == ELOOP && ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
    status_ = link ? FileText::Status::kNotRegular : FileText::Status::kCannotOpen;
    detail_ = link ? file_kind(st.st_mode) : std::strerror(open_error_);
    return;
  }
  struct stat st{};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    status_ = FileText::Status::kNotRegular;
    detail_ = file_kind(st.st_mode);
    return;
  }
  size_ = static_cast<std::uintmax_t>(st.st_size);
}

RegularFileReader::~RegularFileReader() {
  if (fd_ >= 0) ::close(fd_);
}

int RegularFileReader::read_all(std::span<char> buffer, const std::function<bool(const char*, size_t)>& take) {
  for (;;) {
    const ssize_t n = ::read(fd_, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0 || !take(buffer.data(), static_cast<size_t>(n))) return 0;
  }
}

FileText read_regular_file(const std::filesystem::path& path, std::uintmax_t max_bytes, bool follow_links) {
  FileText out;
  RegularFileReader file(path, follow_links);
  out.status = file.status();
  out.detail = file.detail();
  if (out.status != FileText::Status::kRead) return out;
  if (file.size() > max_bytes) {
    out.status = FileText::Status::kTooLarge;
    out.size = file.size();
    return out;
  }
  char chunk[65536];
  const int error = file.read_all(chunk, [&](const char* bytes, size_t size) {
    out.text.append(bytes, size);
    return out.text.size() <= max_bytes;
  });
  if (error != 0) {
    out.status = FileText::Status::kReadError;
    out.detail = std::strerror(error);
  } else if (out.text.size() > max_bytes) {  // it grew since the stat
    out.status = FileText::Status::kTooLarge;
    out.size = out.text.size();
  }
  if (out.status != FileText::Status::kRead) out.text.clear();
  return out;
}

}  // namespace aorta
