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

// Issue 42, 8: in an environment block a value is a secret whatever its variable's
// name (SSHPASS, REDISCLI_AUTH, a connection string, DOCKER_AUTH_CONFIG's JSON), in the
// container's env, its runtime args' env, multi_node.extra_env and a cluster's
// env_vars; what is plainly a setting is not (the probe's OMP_NUM_THREADS and NPROC,
// NCCL_DEBUG=VERSION, paths, a *_NAME, the model's id used again).
TEST(SecretValues, EnvironmentValuesAreSecretsUnlessPlainlySettings) {
  const json doc = json::parse(R"({
    "model": {"id": "llama-3-8b-instruct"},
    "container": {"env": {"SSHPASS": "hunter2x", "OMP_NUM_THREADS": "1", "NPROC": "2", "NCCL_DEBUG": "VERSION",
                          "NCCL_SOCKET_IFNAME": "ens50f0np0", "MODEL": "llama-3-8b-instruct", "RUN_NAME": "nightly-42",
                          "HIP_VISIBLE_DEVICES": "0,1,2,3", "PYTHONPATH": "/opt/aorta:./src:$HOME/lib",
                          "WANDB_MODE": "offline", "MASTER_ADDR": "head-node-01", "MY_SETTING": "plainword"},
                  "runtime": {"args": {"env": {"REDISCLI_AUTH": "r3dis-pw"}}}},
    "multi_node": {"extra_env": {"AZURE_STORAGE_CONNECTION_STRING": "DefaultEndpointsProtocol=https;AccountKey=abc==",
                                 "DOCKER_AUTH_CONFIG": "{\"auths\": {\"r.io\": {\"auth\": \"ZGVwbG95OnB3\"}}}",
                                 "BUFFSIZE": 4194304, "GITLAB_PAT": 12345678}},
    "env_vars": {"DEPLOY_KEY_FILE": "/home/u/.ssh/deploy", "CI_CRED": "c1-cred"}
  })");
  EXPECT_EQ(secret_values(doc), (std::vector<std::string>{
                                    "hunter2x", "plainword", "r3dis-pw", "DefaultEndpointsProtocol=https;AccountKey=abc==",
                                    "{\"auths\": {\"r.io\": {\"auth\": \"ZGVwbG95OnB3\"}}}", "12345678", "c1-cred"}));
}

}  // namespace
}  // namespace aorta::config
