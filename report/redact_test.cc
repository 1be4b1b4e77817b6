#include "report/redact.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "redact/known_secrets.h"
#include "redact/redact.h"
#include "report/run_record.h"
#include "config/secret_values.h"
#include "metrics/trace_set.h"
#include "result_json/benchmark_report.h"
#include "result_json/metrics_json.h"
#include "tests/temp_dir.h"
#include "stages/stage_guard.h"

namespace aorta::report {
namespace {

TEST(Redact, SecretKeysAtAnyDepthAndOnlyThem) {
  EXPECT_TRUE(redact::is_secret_key("password"));
  EXPECT_TRUE(redact::is_secret_key("HF_TOKEN"));
  EXPECT_TRUE(redact::is_secret_key("AWS_SECRET_ACCESS_KEY"));
  EXPECT_TRUE(redact::is_secret_key("wandb_api_key"));
  EXPECT_FALSE(redact::is_secret_key("username"));
  EXPECT_FALSE(redact::is_secret_key("priv_key_file"));  // a path, not the key itself
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

// Realistic shapes (random characters of each provider's alphabet and length); none
// of these is a live credential.
const char* const kGithub = "ghp_8dK2mQ7xLp4Rz9Tb1Vn6Yc3Wf5Hj0Ua2Se7G";
const char* const kHf = "hf_QwErTy7uIoP3aSdF9gHjK2lZxCv5bNm1Q8";
const char* const kAws = "AKIAZ7Q4N2XK5P3MW8RT";
const char* const kWandb = "3f9a1c7e2b8d4f6a0c5e9b1d7f3a8c2e6b4d0f9a";

TEST(Redact, StageTextGoesThroughRedaction) {
  StageResult stage;
  stage.failures = {"git clone https://u:pw@host/r.git: exit 128"};
  stage.log = {std::string("env: WANDB_API_KEY=") + kWandb};
  stage.subtests = {{job::SubTestKind::kTraceCollection, "host", "n1", job::Outcome::kFailed, std::string("token ") + kHf}};
  stage.subtest = stage.subtests[0];
  stages::clean_texts(stage);  // the one cleaning of a stage's texts (lib/stages/stage_guard.h)
  EXPECT_EQ(stage.failures[0], "git clone https://<redacted>@host/r.git: exit 128");
  EXPECT_EQ(stage.log[0], "env: WANDB_API_KEY=<redacted>");
  EXPECT_EQ(stage.subtests[0].message, "token <redacted>");
  EXPECT_EQ(stage.subtest->message, "token <redacted>");
}

// The bundle copies: the old key list let all of these through.
TEST(Redact, InputCopiesRedactByShapeToo) {
  aorta::testing::TempDir dir;
  nlohmann::ordered_json in = {{"aorta_clone_url", "https://bot:s3cr3tvalue@git.example.com/aorta.git"},
                               {"container", {{"env", {{"MY_PASSWD", "x"}, {"WANDB_KEY", kWandb},
                                                       {"AWS_ACCESS_KEY_ID", kAws}, {"NOTE", kGithub},
                                                       {"NPROC", "2"}}}}},
                               {"multi_node", {{"extra_train_args", {std::string("--hub-token=") + kHf, "--steps=8"}}}}};
  auto text = redacted_json(dir.write("c.json", in.dump()));
  ASSERT_TRUE(text);
  for (const char* secret : {"s3cr3tvalue", kWandb, kAws, kGithub, kHf}) EXPECT_EQ(text->find(secret), std::string::npos) << secret;
  auto doc = nlohmann::ordered_json::parse(*text);
  EXPECT_EQ(doc["aorta_clone_url"], "https://<redacted>@git.example.com/aorta.git");
  EXPECT_EQ(doc["container"]["env"]["MY_PASSWD"], "<redacted>");
  EXPECT_EQ(doc["container"]["env"]["WANDB_KEY"], "<redacted>");
  EXPECT_EQ(doc["container"]["env"]["NPROC"], "2");
  EXPECT_EQ(doc["multi_node"]["extra_train_args"][0], "--hub-token=<redacted>");
  EXPECT_EQ(doc["multi_node"]["extra_train_args"][1], "--steps=8");
  // Hostile copies are refused, not crashed on: deep nesting, 1e400.
  EXPECT_FALSE(redacted_json(dir.write("deep.json", std::string(100000, '[') + std::string(100000, ']'))));
  EXPECT_FALSE(redacted_json(dir.write("big.json", R"({"a": 1e400})")));
}

// The JSON report's free-text fields come from node output and config values: a token
// there must not reach aorta_benchmark_report.json.
TEST(Redact, BenchmarkReportTextCarriesNoSecret) {
  job::RunState state;
  state.run_id = std::string(32, 'a');
  state.error_message = "git clone https://me:ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/x failed";
  state.collection_errors.push_back({.host = "node1", .message = "export HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEF"});
  config::Variant v;
  v.rccl.branch = "https://user:s3cr3tPassw0rd@git.example/rccl";
  config::Cluster c;
  c.nodes.push_back({"node1", "10.0.0.1", ""});
  std::string text = result_json::benchmark_report(state, v, c, false).dump();
  for (const char* secret : {"ghp_abcdefghijklmnopqrstuvwxyz0123456789", "hf_abcdefghijklmnopqrstuvwxyzABCDEF",
                             "s3cr3tPassw0rd"})
    EXPECT_EQ(text.find(secret), std::string::npos) << secret << " in " << text;
  EXPECT_NE(text.find("github.com/x failed"), std::string::npos) << "the rest of the text is kept: " << text;
}

// Issue 42, 8: the run registers what the config's environment blocks hold, whatever
// the variable's name, so the bundle's copy of the config shows none of it, nor does a
// trace file name carrying it in the JSON report; the settings stay readable.
TEST(Redact, ConfigCopyAndTraceNamesCarryNoEnvironmentSecret) {
  redact::forget_known_secrets();
  aorta::testing::TempDir dir;
  const std::string cfg = R"({"container": {"env": {"SSHPASS": "SSHPASSenvQ7w2", "REDISCLI_AUTH": "REDISenvZ3x8c1",
    "AZURE_STORAGE_CONNECTION_STRING": "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=AZenvK9+Lm2==",
    "OMP_NUM_THREADS": "1", "NCCL_DEBUG": "VERSION"}}})";
  for (const auto& s : config::secret_values(config::json::parse(cfg))) redact::add_known_secret(s);
  auto text = redacted_json(dir.write("c.json", cfg));
  ASSERT_TRUE(text);
  auto env = nlohmann::json::parse(*text)["container"]["env"];
  for (const char* name : {"SSHPASS", "REDISCLI_AUTH", "AZURE_STORAGE_CONNECTION_STRING"})
    EXPECT_EQ(env[name], "<redacted>") << name;
  EXPECT_EQ(env["OMP_NUM_THREADS"], "1");
  EXPECT_EQ(env["NCCL_DEBUG"], "VERSION");
  metrics::RunMetrics run;
  run.per_rank.emplace_back().source = "/out/rank0/run-SSHPASSenvQ7w2.pt.trace.json";
  EXPECT_EQ(result_json::per_rank_json(run)[0]["source"], "/out/rank0/run-<redacted>.pt.trace.json");
  redact::forget_known_secrets();
}

}  // namespace
}  // namespace aorta::report
