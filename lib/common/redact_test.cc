#include "common/redact.h"

#include <gtest/gtest.h>

namespace aorta {
namespace {

// Realistic shapes (random characters of each provider's alphabet and length); none
// of these is a live credential.
const char* const kGithub = "ghp_8dK2mQ7xLp4Rz9Tb1Vn6Yc3Wf5Hj0Ua2Se7G";
const char* const kHf = "hf_QwErTy7uIoP3aSdF9gHjK2lZxCv5bNm1Q8";
const char* const kAws = "AKIAZ7Q4N2XK5P3MW8RT";
const char* const kSlack = "xoxb-2841937465-5529183746291-Kq8ZpW3xYv7TnR2mLs9Jd4Hc";
const char* const kJwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
const char* const kWandb = "3f9a1c7e2b8d4f6a0c5e9b1d7f3a8c2e6b4d0f9a";

TEST(Redact, KeyNamesTheOldListMissed) {
  EXPECT_TRUE(is_secret_key("MY_PASSWD"));
  EXPECT_TRUE(is_secret_key("AWS_ACCESS_KEY_ID"));
  EXPECT_TRUE(is_secret_key("ssh_private_key"));
  EXPECT_FALSE(is_secret_key("WANDB_KEY"));  // only looks like one: its value decides
  EXPECT_TRUE(looks_like_secret_key("WANDB_KEY"));
  EXPECT_TRUE(looks_like_secret_key("GITLAB_PAT"));
  EXPECT_FALSE(looks_like_secret_key("NCCL_IB_HCA"));
  EXPECT_FALSE(looks_like_secret_key("MONKEY_ID"));  // "key" must be a word of the name
  EXPECT_EQ(redact_value("WANDB_KEY", kWandb), kRedacted);
  EXPECT_EQ(redact_value("MY_PASSWD", "x"), kRedacted);
  EXPECT_EQ(redact_value("AWS_ACCESS_KEY_ID", kAws), kRedacted);
  // A key that may hold a secret keeps a value that does not look like one.
  EXPECT_EQ(redact_value("priv_key_file", "/home/alice/.ssh/id_ed25519"), "/home/alice/.ssh/id_ed25519");
  EXPECT_EQ(redact_value("SSH_KEY_TYPE", "ed25519"), "ed25519");
}

TEST(Redact, TokenShapesUnderAnyKey) {
  for (const char* token : {kGithub, kHf, kAws, kSlack, kJwt, "github_pat_11ABCDEFG0aZ9yX8wV7uT6_sR5qP4oN3mL2kJ1iH0gF9eD8cB7aZ6yX5wV4uT3sR2qP1oN0mL9kJ"}) {
    EXPECT_TRUE(is_secret_value(token)) << token;
    EXPECT_EQ(redact_value("SOME_SETTING", token), kRedacted) << token;
    EXPECT_EQ(redact_text(std::string("export X=") + token + "; echo ok"), "export X=<redacted>; echo ok") << token;
  }
  // Ordinary values of the same alphabets stay as they are.
  for (const char* plain : {"hf_home", "sk-rack-node-0001-compute-a", "ghp_", "AKIA", "eyJ", "xoxo", "aorta_results",
                            "profile_overlap_2gpu", "NCCL_IB_HCA=mlx5_0,mlx5_1", "rocm/pytorch:rocm6.2_ubuntu22.04"})
    EXPECT_EQ(redact_text(plain), plain);
}

TEST(Redact, CredentialsInsideUrls) {
  EXPECT_EQ(redact_text("https://alice:s3cr3t@github.com/org/aorta.git"), "https://<redacted>@github.com/org/aorta.git");
  EXPECT_EQ(redact_text(std::string("clone https://") + kGithub + "@github.com/o/r failed"),
            "clone https://<redacted>@github.com/o/r failed");
  EXPECT_EQ(redact_text("fatal: 'https://oauth2:glpat-xyz@gitlab.example.com/a' not found"),
            "fatal: 'https://<redacted>@gitlab.example.com/a' not found");
  // A user name alone is no credential, and a URL without userinfo is untouched.
  EXPECT_EQ(redact_text("ssh://git@github.com/org/aorta.git"), "ssh://git@github.com/org/aorta.git");
  EXPECT_EQ(redact_text("https://github.com/ROCm/rccl"), "https://github.com/ROCm/rccl");
  EXPECT_EQ(redact_text("mailto:a@b and https://h/x?q=a@b"), "mailto:a@b and https://h/x?q=a@b");
}

TEST(Redact, SecretAssignmentsInFreeText) {
  EXPECT_EQ(redact_text("export HF_TOKEN=abc123 && run"), "export HF_TOKEN=<redacted> && run");
  EXPECT_EQ(redact_text("MY_PASSWD='two words' next"), "MY_PASSWD=<redacted> next");
  EXPECT_EQ(redact_text(R"({"password": "hunter2", "user": "u"})"), R"({"password": <redacted>, "user": "u"})");
  EXPECT_EQ(redact_text("OMP_NUM_THREADS=1"), "OMP_NUM_THREADS=1");
}

// Flags and headers name secrets their own way: --wandb-api-key=..., X-Api-Key: ...,
// Authorization: Bearer ....
TEST(Redact, SecretFlagsAndHeaders) {
  EXPECT_EQ(redact_text("train.py --wandb-api-key=0123456789abcdef0123456789abcdef01234567 --steps 8"),
            "train.py --wandb-api-key=<redacted> --steps 8");
  EXPECT_EQ(redact_text("X-Api-Key: 9f8e7d6c5b4a39281706f5e4d3c2b1a0 sent"), "X-Api-Key: <redacted> sent");
  EXPECT_EQ(redact_text("Authorization: Bearer abc.def-ghi_jkl done"), "Authorization: Bearer <redacted> done");
  EXPECT_TRUE(is_secret_key("wandb.api.key"));
  EXPECT_FALSE(is_secret_key("--max-steps"));
}

}  // namespace
}  // namespace aorta
