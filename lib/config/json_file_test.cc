// Hostile config, cluster and threshold files: each one is a configuration error that
// names the file and the dotted key, never an exception, a signal or unbounded memory.
#include "config/json_file.h"

#include <chrono>
#include <functional>

#include <gtest/gtest.h>

#include "common/utf8.h"
#include "config/cluster.h"
#include "config/json_fields.h"
#include "config/variant_loader.h"
#include "tests/temp_dir.h"

namespace aorta::config {
namespace {

const char* const kVariant = R"({
  "schema_version": 1,
  "paths": {"shared_fs": "/scratch/{user-id}", "models_dir": "{shared_fs}/models",
            "log_dir": "{shared_fs}/logs", "hf_token_file": ""},
  "model": {"id": "m", "remote": 0},
  "container": {"name": "c", "image": "img", "runtime": {"name": "none", "args": {}}},
  "aorta_path": "{paths.shared_fs}/repo",
  "gpus_per_node": 2,
  "skip_rccl_build": true
})";
const char* const kThresholds = R"({"expected_results": {"max_avg_iteration_ms": 12000}})";

std::string all(const std::vector<ConfigError>& errors) {
  std::string s;
  for (const auto& e : errors) s += e.describe() + "\n";
  return s;
}

// The one error a hostile file gives: its file, its dotted key, the words that say why.
void expect_one(const std::vector<ConfigError>& errors, const std::string& file, const std::string& key,
                const std::string& words) {
  ASSERT_FALSE(errors.empty());
  bool found = false;
  for (const auto& e : errors) {
    EXPECT_TRUE(is_valid_utf8(e.describe())) << e.describe();
    EXPECT_LT(e.describe().size(), 2000u);
    if (e.file == file && e.key == key && e.message.find(words) != std::string::npos) found = true;
  }
  EXPECT_TRUE(found) << "expected " << file << ": " << key << ": ..." << words << "... in:\n" << all(errors);
}

VariantLoad load_text(const aorta::testing::TempDir& dir, const std::string& variant,
                      const std::string& thresholds = kThresholds, const std::string& user = "alice") {
  auto file = dir.write("v.json", variant);
  dir.write("v_threshold.json", thresholds);
  return load_variant(file, {user, ""});
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  return text.replace(text.find(from), from.size(), to);
}

// 1e400 was an uncaught out_of_range from nlohmann (exit 134).
TEST(HostileConfig, NumberBeyondDoubleNamesFileAndKey) {
  aorta::testing::TempDir dir;
  auto fixture = load_text(dir, kVariant);  // the file every case below spoils in one place
  ASSERT_TRUE(fixture.variant) << all(fixture.errors);
  auto v = load_text(dir, replace(kVariant, "\"gpus_per_node\": 2", "\"gpus_per_node\": 1e400"));
  expect_one(v.errors, (dir.path() / "v.json").string(), "gpus_per_node", "number out of range");
  auto nested = load_text(dir, replace(kVariant, "\"remote\": 0", "\"remote\": [1, -1e400]"));
  expect_one(nested.errors, (dir.path() / "v.json").string(), "model.remote[1]", "number out of range");
  auto t = load_text(dir, kVariant, R"({"expected_results": {"min_compute_ratio": 1e400}})");
  expect_one(t.errors, (dir.path() / "v_threshold.json").string(), "expected_results.min_compute_ratio",
             "number out of range");
  auto c = load_cluster(dir.write("c.json", R"({"username": "u", "password": "p", "ssh": {"port": 1E+999},
                                               "node_dict": {"n": {"vpc_ip": "1"}}})"),
                        "alice");
  expect_one(c.errors, (dir.path() / "c.json").string(), "ssh.port", "number out of range");
}

// 100,000 levels was a segmentation fault in the recursive walks over the document.
TEST(HostileConfig, DeepNestingIsRefusedAtTheLimit) {
  aorta::testing::TempDir dir;
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  auto v = load_text(dir, replace(kVariant, "\"m\"", deep));
  expect_one(v.errors, (dir.path() / "v.json").string(),
             "model.id" + [] { std::string s; for (size_t i = 0; i + 2 < kMaxConfigDepth; ++i) s += "[0]"; return s; }(),
             "nests deeper than 64 levels");
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  auto c = load_cluster(dir.write("c.json", objects), "alice");
  std::string key = "a";
  for (size_t i = 1; i < kMaxConfigDepth; ++i) key += ".a";
  expect_one(c.errors, (dir.path() / "c.json").string(), key, "nests deeper than 64");
  // 64 levels in all are still a document (the rules then reject the value).
  std::string ok = std::string(kMaxConfigDepth - 2, '[') + std::string(kMaxConfigDepth - 2, ']');
  auto fits = load_text(dir, replace(kVariant, "\"m\"", ok));
  expect_one(fits.errors, (dir.path() / "v.json").string(), "model.id", "must be a string");
}

TEST(HostileConfig, InvalidUtf8InKeyOrValueNamesTheKey) {
  aorta::testing::TempDir dir;
  auto value = load_text(dir, replace(kVariant, "\"img\"", "\"im\xff\xfeg\""));
  expect_one(value.errors, (dir.path() / "v.json").string(), "container.image", "ill-formed UTF-8");
  // In a key: the error is placed at the object that holds it.
  auto key = load_text(dir, replace(kVariant, "\"name\": \"c\"", "\"na\xc3\x28me\": \"c\""));
  expect_one(key.errors, (dir.path() / "v.json").string(), "container", "ill-formed UTF-8");
}

TEST(HostileConfig, DirectoryDeviceAndHugeFileAreRefusedUnread) {
  aorta::testing::TempDir dir;
  std::filesystem::create_directories(dir.path() / "d.json");
  expect_one(load_variant(dir.path() / "d.json", {"alice", ""}).errors, (dir.path() / "d.json").string(), "",
             "is not a regular file (a directory)");
  expect_one(load_cluster(dir.path() / "d.json", "alice").errors, (dir.path() / "d.json").string(), "",
             "cluster file is not a regular file (a directory)");
  // /dev/zero never ends; reading it whole was an out-of-memory kill.
  auto start = std::chrono::steady_clock::now();
  expect_one(load_cluster("/dev/zero", "alice").errors, "/dev/zero", "", "not a regular file (a device, pipe or socket)");
  std::filesystem::create_symlink("/dev/zero", dir.path() / "zero.json");
  expect_one(load_variant(dir.path() / "zero.json", {"alice", ""}).errors, (dir.path() / "zero.json").string(), "",
             "not a regular file");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  std::string big = kVariant;
  big.insert(1, kMaxConfigFileBytes, ' ');
  expect_one(load_text(dir, big).errors, (dir.path() / "v.json").string(), "", "is larger than 1 MiB");
  // Exactly at the limit is still read.
  std::string edge = kVariant;
  edge.insert(1, kMaxConfigFileBytes - edge.size(), ' ');
  ASSERT_EQ(edge.size(), kMaxConfigFileBytes);
  auto at_limit = load_text(dir, edge);
  EXPECT_TRUE(at_limit.variant) << all(at_limit.errors);
}

// 80,000 keys in one object took 14 s to load (ordered_json inserts in linear time).
TEST(HostileConfig, ObjectWithTooManyMembersIsRefusedQuickly) {
  aorta::testing::TempDir dir;
  std::string many = "{";
  for (size_t i = 0; i < 80000; ++i) many += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":1";
  auto start = std::chrono::steady_clock::now();
  auto v = load_text(dir, replace(kVariant, "\"skip_rccl_build\": true", "\"training_overrides\": " + many + "}"));
  expect_one(v.errors, (dir.path() / "v.json").string(), "training_overrides", "has more than 10000 members");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  json fits = json::parse(kVariant);
  for (size_t i = 0; i < kMaxConfigMembers; ++i) fits["training_overrides"]["k" + std::to_string(i)] = 1;
  auto ok = load_text(dir, fits.dump());
  EXPECT_TRUE(ok.variant) << all(ok.errors).substr(0, 2000);
}

// Values past int's range were wrapped (2^64-1 read as -1) or cast with undefined
// behaviour (1e300).
TEST(HostileConfig, HugeIntegersIntoIntFieldsAreRangeErrors) {
  EXPECT_EQ(as_integer(json(18446744073709551615ull)), std::nullopt);
  EXPECT_EQ(as_integer(json(9223372036854775807ll)), 9223372036854775807ll);
  EXPECT_EQ(as_integer(json(1e300)), std::nullopt);
  EXPECT_EQ(as_integer(json(-1e19)), std::nullopt);
  EXPECT_EQ(as_integer(json(4.0)), 4);
  EXPECT_EQ(as_integer(json("99999999999999999999999")), std::nullopt);
  aorta::testing::TempDir dir;
  for (const char* huge : {"18446744073709551615", "1e300", "2147483648", "-2147483649", "\"99999999999999999999\""}) {
    auto v = load_text(dir, replace(kVariant, "\"gpus_per_node\": 2", std::string("\"timeout_seconds\": ") + huge +
                                                                       ", \"gpus_per_node\": 2"));
    expect_one(v.errors, (dir.path() / "v.json").string(), "timeout_seconds", "must be an integer");
  }
  auto v = load_text(dir, replace(kVariant, "\"gpus_per_node\": 2", "\"gpus_per_node\": 18446744073709551615"));
  expect_one(v.errors, (dir.path() / "v.json").string(), "gpus_per_node",
             "must be an integer from -2147483648 to 2147483647");
}

// NaN and Infinity are not JSON; a threshold cannot be one.
TEST(HostileConfig, NanAndInfinityAreSyntaxErrorsAtTheirKey) {
  aorta::testing::TempDir dir;
  for (const char* bad : {"NaN", "Infinity", "-Infinity", "nan"}) {
    auto t = load_text(dir, kVariant, std::string(R"({"expected_results": {"max_avg_iteration_ms": )") + bad + "}}");
    expect_one(t.errors, (dir.path() / "v_threshold.json").string(), "expected_results.max_avg_iteration_ms",
               "is not valid JSON");
  }
}

// std::filesystem's throwing overloads aborted the load on a name the OS refuses.
TEST(HostileConfig, ThresholdPathTheOsCannotTakeIsNotFound) {
  aorta::testing::TempDir dir;
  for (std::string bad : {std::string(5000, 'a'), std::string("x\0y", 3)}) {
    json v = json::parse(kVariant);
    v["threshold_json"] = bad;
    auto loaded = load_text(dir, v.dump());
    expect_one(loaded.errors, (dir.path() / "v.json").string(), "threshold_json", "threshold_json not found");
  }
}

// A key or value of a megabyte: the rules that used std::regex recursed once per
// character and overflowed the stack; messages stay short.
TEST(HostileConfig, MegabyteKeysAndValuesAreCheckedWithoutRecursion) {
  aorta::testing::TempDir dir;
  json v = json::parse(kVariant);
  std::string long_key(300000, 'A');
  v["training_overrides"] = {{long_key + "!", 1}};
  v["container"]["env"] = {{long_key + "-", "1"}};
  v["model"]["id"] = "{" + std::string(300000, 'a') + "}";
  auto loaded = load_text(dir, v.dump());
  std::string e = all(loaded.errors);
  EXPECT_NE(e.find("Invalid training override key"), std::string::npos) << e.substr(0, 2000);
  EXPECT_NE(e.find("Invalid environment entry"), std::string::npos) << e.substr(0, 2000);
  expect_one(loaded.errors, (dir.path() / "v.json").string(), "model.id", "Unresolved configuration placeholder");
  EXPECT_LT(e.size(), 10000u);
}

}  // namespace
}  // namespace aorta::config
