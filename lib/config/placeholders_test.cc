// Placeholder expansion under hostile input: bounded in size, depth and time.
#include "config/placeholders.h"

#include <chrono>

#include <gtest/gtest.h>

#include "config/json_file.h"

namespace aorta::config {
namespace {

std::string all(const ConfigErrors& errors) {
  std::string s;
  for (const auto& e : errors.list()) s += e.describe() + "\n";
  return s;
}

TEST(Placeholders, ReferencesResolveInAnyOrderAndCyclesStayUnresolved) {
  json doc = json::parse(R"({"paths": {"log_dir": "{models_dir}/logs", "models_dir": "{shared_fs}/models",
    "shared_fs": "/s/{user-id}", "self": "{self}/x", "a": "{b}", "b": "{a}"}, "x": ["{paths.log_dir}", "{{user-id}"]})");
  ConfigErrors errors("f.json");
  resolve_placeholders(doc, {"alice", ""}, errors);
  EXPECT_TRUE(errors.empty()) << all(errors);
  EXPECT_EQ(doc["paths"]["log_dir"], "/s/alice/models/logs");
  EXPECT_EQ(doc["x"][0], "/s/alice/models/logs");
  EXPECT_EQ(doc["x"][1], "{alice");
  EXPECT_EQ(doc["paths"]["self"], "{self}/x");
  check_unresolved(doc, "", errors);
  std::string e = all(errors);
  EXPECT_NE(e.find("f.json: paths.self: Unresolved configuration placeholder"), std::string::npos) << e;
  EXPECT_NE(e.find("f.json: paths.a: Unresolved configuration placeholder"), std::string::npos) << e;
}

// "a0": "{a1}{a1}", "a1": "{a2}{a2}", ...: each step doubles; 40 steps were 1 TB.
TEST(Placeholders, DoublingBombStopsAtTheStringLimit) {
  json doc = json::parse(R"({"paths": {}})");
  for (int i = 0; i < 40; ++i) doc["paths"]["a" + std::to_string(i)] = "{a" + std::to_string(i + 1) + "}{a" + std::to_string(i + 1) + "}";
  doc["paths"]["a40"] = "x";
  ConfigErrors errors("f.json");
  auto start = std::chrono::steady_clock::now();
  resolve_placeholders(doc, {"alice", ""}, errors);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  ASSERT_EQ(errors.list().size(), 1u) << all(errors);
  // a40 is 1 byte, a(40-k) 2^k bytes: a23 (128 KiB) is the first past 64 KiB.
  EXPECT_EQ(errors.list()[0].key, "paths.a23");
  EXPECT_NE(errors.list()[0].message.find("placeholders expand it past 64 KiB"), std::string::npos) << all(errors);
  for (auto& [name, value] : doc["paths"].items()) EXPECT_LE(value.get<std::string>().size(), kMaxExpandedString);
}

// Many strings that each expand a long entry: the per-string bound holds, the
// file-wide one stops it (90,000 copies of 60 KB would be 5.4 GB).
TEST(Placeholders, ManyExpansionsStopAtTheFileLimit) {
  json doc = json::parse(R"({"paths": {"big": ""}, "list": []})");
  doc["paths"]["big"] = std::string(60000, 'x');
  for (int i = 0; i < 90000; ++i) doc["list"].push_back("{paths.big}");
  ConfigErrors errors("f.json");
  resolve_placeholders(doc, {"alice", ""}, errors);
  ASSERT_EQ(errors.list().size(), 1u) << all(errors);
  // 4 MiB / 59,989 added bytes per copy: the 70th copy (index 69) passes it.
  EXPECT_EQ(errors.list()[0].key, "list[69]");
  EXPECT_NE(errors.list()[0].message.find("more than 4 MiB in all"), std::string::npos) << all(errors);
  size_t total = 0;
  for (const auto& s : doc["list"]) total += s.get<std::string>().size();
  EXPECT_LE(total, kMaxExpansionTotal + 90000 * 11);
}

// A chain of entries each naming the next would recurse once per link.
TEST(Placeholders, LongReferenceChainIsRefusedNotRecursed) {
  json doc = json::parse(R"({"paths": {}})");
  for (int i = 0; i < 1000; ++i) doc["paths"]["p" + std::to_string(i)] = "{p" + std::to_string(i + 1) + "}";
  ConfigErrors errors("f.json");
  resolve_placeholders(doc, {"alice", ""}, errors);
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors.list()[0].key, "paths.p" + std::to_string(kMaxConfigDepth + 1));
  EXPECT_NE(errors.list()[0].message.find("chain longer than 64 entries"), std::string::npos) << all(errors);
}

// $USER is bytes; a report quoting a value made from it must stay writable.
TEST(Placeholders, UserIdThatIsNotUtf8IsAnError) {
  json doc = json::parse(R"({"container": {"name": "{user-id}_aorta"}, "gpus_per_node": ["{user-id}"]})");
  ConfigErrors errors("f.json");
  resolve_placeholders(doc, {"al\xffice", ""}, errors);
  ASSERT_EQ(errors.list().size(), 1u) << all(errors);
  EXPECT_EQ(errors.list()[0].key, "container.name");
  EXPECT_NE(errors.list()[0].message.find("not valid UTF-8"), std::string::npos);
  EXPECT_EQ(doc["container"]["name"], "al\xef\xbf\xbd" "ice_aorta");
  EXPECT_NO_THROW(doc.dump());
}

}  // namespace
}  // namespace aorta::config
