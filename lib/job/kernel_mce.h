// Machine-check incidents in the kernel log, as node-scraper's mce_utils reads them
// (github amd/node-scraper, MIT, commit c3934162): a block of "[Hardware Error]:" rows
// is one incident, its MCn_STATUS row the one that names it; the other rows are not
// events of their own, and a block in an ignored bank is not an event at all.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace aorta::job {

// The MCA banks an MCn_STATUS token names in text.
std::set<int> mce_banks_in(std::string_view text);
// The bank of text's first MCn_STATUS token.
std::optional<int> mce_first_bank(std::string_view text);

// Lines (indices into window) where a pattern's match may not start: a block's
// "[Hardware Error]:" rows other than its MCn_STATUS CE/UC rows (and its header when
// the block has one), and every "[Hardware Error]:" row of a block in an ignored bank.
std::set<size_t> mce_known_skip_lines(const std::vector<std::string>& window, const std::set<int>& ignored_banks);

// Lines the unknown-error rule passes over: every line of a block and every
// "[Hardware Error]:" row.
std::set<size_t> mce_unknown_skip_lines(const std::vector<std::string>& window);

}  // namespace aorta::job
