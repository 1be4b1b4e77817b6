// How a trace travels from a node (compressed there, or as it is) and the check
// that the copy on this machine holds every byte of the node's file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/compression.h"
#include "common/result.h"

namespace aorta::job {

// "zstd", "gzip", "none".
std::string compression_name(Compression c);
// The file name ending a copy gets: ".zst", ".gz" or "".
std::string compression_suffix(Compression c);
// The compressor that turns its stdin into a compressed stdout (zstd -1 / gzip -1),
// as words of a command line; empty for kNone (the bytes travel as they are).
std::vector<std::string> compressor_words(Compression c);
// Prints zstd, gzip or none: the best compressor the node has (bash's command -v).
std::string probe_compressor_command();

// Decompresses `file` (its encoding `c`) and returns the byte count, every frame's
// own checksum verified (zstd XXH64, gzip CRC32 and length); a damaged or
// truncated stream is an error naming the file. kNone: the file's size.
// Decompression stops as soon as it passes `max_bytes` (the size the node listed):
// a lying node's 4 MiB could otherwise inflate for hours.
Result<uint64_t> verified_size(const std::filesystem::path& file, Compression c, uint64_t max_bytes);

// The most bytes a compressed copy of a `listed`-byte file may take: zstd and gzip
// grow incompressible data by well under 1/64 plus a header. The copy is stopped there.
uint64_t max_compressed_bytes(uint64_t listed);

}  // namespace aorta::job
