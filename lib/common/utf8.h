// The one boundary where bytes become report text. Traces, file names and node
// output are bytes: one invalid UTF-8 sequence makes nlohmann::json throw
// (type_error.316) and XML consumers reject the whole file, so every string bound
// for a report passes through valid_utf8 first.
#pragma once

#include <string>
#include <string_view>

namespace aorta {

// The text with each invalid sequence replaced by U+FFFD, one replacement per
// maximal ill-formed subpart (Unicode 15, §3.9, as WHATWG decoders do).
std::string valid_utf8(std::string_view text);

// True when text is well-formed UTF-8.
bool is_valid_utf8(std::string_view text);

// For a terminal or a log: valid UTF-8 with every control character (C0 but tab,
// DEL, C1) shown as \xNN, so a name or a line from a node cannot move the cursor,
// set a title or write the clipboard.
std::string printable(std::string_view text);

// The same with line breaks kept, for a multi-line note or failure, and at most
// max_bytes of the text, the cut said (" [cut: N bytes in all]"): one 256 MiB line
// from a node must not be copied whole into the console and every report.
std::string printable_text(std::string_view text, size_t max_bytes);

// The longest prefix of text of at most max_bytes that does not end inside a
// character: for snippets cut from longer output.
std::string_view utf8_prefix(std::string_view text, size_t max_bytes);

}  // namespace aorta
