#include "report/redact.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/temp_dir.h"

namespace aorta::report {
namespace {

TEST(Redact, SecretKeysAtAnyDepthAndOnlyThem) {
  EXPECT_TRUE(is_secret_key("password"));
  EXPECT_TRUE(is_secret_key("HF_TOKEN"));
  EXPECT_TRUE(is_secret_key("AWS_SECRET_ACCESS_KEY"));
  EXPECT_TRUE(is_secret_key("wandb_api_key"));
  EXPECT_FALSE(is_secret_key("username"));
  EXPECT_FALSE(is_secret_key("priv_key_file"));  // a path, not the key itself
  aorta::testing::TempDir dir;
  auto file = dir.write("c.json", R"({"username": "u", "password": "hunter2",
    "container": {"env": {"HF_TOKEN": "hf_abc", "OMP_NUM_THREADS": "1"}}, "list": [{"api_key": 7}]})");
  auto text = redacted_json(file);
  ASSERT_TRUE(text);
  EXPECT_EQ(text->find("hunter2"), std::string::npos);
  EXPECT_EQ(text->find("hf_abc"), std::string::npos);
  auto doc = nlohmann::json::parse(*text);
  EXPECT_EQ(doc["password"], "<redacted>");
  EXPECT_EQ(doc["container"]["env"]["HF_TOKEN"], "<redacted>");
  EXPECT_EQ(doc["container"]["env"]["OMP_NUM_THREADS"], "1");
  EXPECT_EQ(doc["list"][0]["api_key"], "<redacted>");
  EXPECT_EQ(doc["username"], "u");
}

TEST(Redact, NonJsonIsNotCopied) {
  aorta::testing::TempDir dir;
  EXPECT_FALSE(redacted_json(dir.write("x.json", "password=hunter2")));
  EXPECT_FALSE(redacted_json(dir.path() / "missing.json"));
}

}  // namespace
}  // namespace aorta::report
