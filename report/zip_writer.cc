#include "report/zip_writer.h"

#include <zlib.h>

#include <ctime>
#include <fstream>
#include <sstream>

#include "common/atomic_file.h"

namespace aorta::report {
namespace {

void put16(std::string& out, uint32_t v) {
  out += static_cast<char>(v & 0xff);
  out += static_cast<char>((v >> 8) & 0xff);
}

void put32(std::string& out, uint32_t v) {
  put16(out, v & 0xffff);
  put16(out, v >> 16);
}

struct Entry {
  std::string name;
  uint32_t crc = 0;
  uint32_t size = 0;
  uint32_t offset = 0;
};

}  // namespace

Status write_zip(const std::filesystem::path& zip,
                 const std::vector<std::pair<std::string, std::filesystem::path>>& entries) {
  std::time_t now = std::time(nullptr);
  std::tm tm = *std::localtime(&now);
  uint32_t dos_time = (tm.tm_hour << 11) | (tm.tm_min << 5) | (tm.tm_sec / 2);
  uint32_t dos_date = ((tm.tm_year - 80) << 9) | ((tm.tm_mon + 1) << 5) | tm.tm_mday;
  std::string out;
  std::vector<Entry> written;
  for (const auto& [name, file] : entries) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return Error{ErrorCode::kIo, "cannot read " + file.string() + " for the bundle", zip.string()};
    std::stringstream data;
    data << in.rdbuf();
    std::string bytes = data.str();
    if (bytes.size() >= 0xffffffffu || out.size() >= 0xffffffffu - bytes.size())
      return Error{ErrorCode::kUnsupported, "bundle over 4 GB (no zip64 support): " + file.string(), zip.string()};
    Entry e{name, static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(bytes.data()), bytes.size())),
            static_cast<uint32_t>(bytes.size()), static_cast<uint32_t>(out.size())};
    put32(out, 0x04034b50);
    put16(out, 20);      // version needed: 2.0
    put16(out, 0x0800);  // flags: names are UTF-8
    put16(out, 0);       // stored
    put16(out, dos_time);
    put16(out, dos_date);
    put32(out, e.crc);
    put32(out, e.size);
    put32(out, e.size);
    put16(out, static_cast<uint32_t>(name.size()));
    put16(out, 0);
    out += name;
    out += bytes;
    written.push_back(e);
  }
  uint32_t directory = static_cast<uint32_t>(out.size());
  for (const auto& e : written) {
    put32(out, 0x02014b50);
    put16(out, 20);  // made by
    put16(out, 20);
    put16(out, 0x0800);
    put16(out, 0);
    put16(out, dos_time);
    put16(out, dos_date);
    put32(out, e.crc);
    put32(out, e.size);
    put32(out, e.size);
    put16(out, static_cast<uint32_t>(e.name.size()));
    put16(out, 0);  // extra
    put16(out, 0);  // comment
    put16(out, 0);  // disk
    put16(out, 0);  // internal attributes
    put32(out, 0);  // external attributes
    put32(out, e.offset);
    out += e.name;
  }
  uint32_t directory_size = static_cast<uint32_t>(out.size()) - directory;
  put32(out, 0x06054b50);
  put16(out, 0);
  put16(out, 0);
  put16(out, static_cast<uint32_t>(written.size()));
  put16(out, static_cast<uint32_t>(written.size()));
  put32(out, directory_size);
  put32(out, directory);
  put16(out, 0);
  return write_file_atomically(zip, out);
}

}  // namespace aorta::report
