#include "config/secret_values.h"

#include <gtest/gtest.h>

namespace aorta::config {
namespace {

// A variant config's shapes of secrets, each found once in file order (the list's
// joined command line finds its --hub-token again: duplicates are harmless, the
// registry keeps one); ordinary values are not taken.
TEST(SecretValues, EveryValueUnderASecretKeyAndEverySecretAStringGivesAway) {
  const json doc = json::parse(R"({
    "model_id": "llama-8b",
    "aorta_clone_url": "https://bot:cl0ne-pw@git.example.com/aorta.git",
    "container": {"env": {"HF_TOKEN": "hf-value-1", "WANDB_KEY": "3f9a1c7e2b8d4f6a0c5e9b1d7f3a8c2e6b4d0f9a",
                          "SESSION_NAME": "nightly", "OMP_NUM_THREADS": "1"}},
    "multi_node": {"extra_train_args": ["--hub-token=hf-value-2", "--password", "two words", "--steps", "8"],
                   "extra_env": {"DB_PASS": 123456}},
    "training_overrides": {"wandb.api_key": "k3y-v4lue", "training.max_steps": 8},
    "secrets": [{"name": "s3", "secret_access_key": "s3-secret-v4lue"}]
  })");
  EXPECT_EQ(secret_values(doc), (std::vector<std::string>{"bot:cl0ne-pw", "cl0ne-pw", "hf-value-1",
                                                          "3f9a1c7e2b8d4f6a0c5e9b1d7f3a8c2e6b4d0f9a", "hf-value-2",
                                                          "hf-value-2", "two words", "123456", "k3y-v4lue",
                                                          "s3-secret-v4lue"}));
  EXPECT_TRUE(secret_values(json::parse(R"({"paths": {"home": "/home/u", "hf_token_file": "/home/u/.hf/token"},
    "ssh": {"key_passphrase_env": "MY_KEY_PASSPHRASE"}, "nproc": 2, "on": true, "n": null})")).empty());
  // A key file's path looks random enough to pass for a key, but it names a place: the
  // wrong-key error must still say which file it tried.
  EXPECT_TRUE(secret_values(json::parse(R"({"priv_key_file": "/tmp/aorta-tc/keys/stranger_ed25519",
    "jump_host": {"priv_key_file": "/root/.ssh/id_ed25519_9f3a"}})")).empty());
}

}  // namespace
}  // namespace aorta::config
