#include "common/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/output_path.h"

namespace aorta {

FileText read_regular_file(const std::filesystem::path& path, std::uintmax_t max_bytes, bool follow_links) {
  FileText out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | (follow_links ? 0 : O_NOFOLLOW));
  if (fd < 0) {
    // O_NOFOLLOW on a link fails with ELOOP: say what is there, not "too many levels".
    struct stat st{};
    const bool link = errno == ELOOP && ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
    out.status = link ? FileText::Status::kNotRegular : FileText::Status::kCannotOpen;
    out.detail = link ? file_kind(st.st_mode) : std::strerror(errno);
    return out;
  }
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    out.status = FileText::Status::kNotRegular;
    out.detail = file_kind(st.st_mode);
  } else if (static_cast<std::uintmax_t>(st.st_size) > max_bytes) {
    out.status = FileText::Status::kTooLarge;
    out.size = static_cast<std::uintmax_t>(st.st_size);
  } else {
    char chunk[65536];
    for (ssize_t n; (n = ::read(fd, chunk, sizeof chunk)) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        out.status = FileText::Status::kReadError;
        out.detail = std::strerror(errno);
        break;
      }
      out.text.append(chunk, static_cast<size_t>(n));
      if (out.text.size() > max_bytes) {  // it grew since the stat
        out.status = FileText::Status::kTooLarge;
        out.size = out.text.size();
        break;
      }
    }
  }
  ::close(fd);
  if (out.status != FileText::Status::kRead) out.text.clear();
  return out;
}

}  // namespace aorta
