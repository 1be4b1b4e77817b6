#include "redact/redact.h"

#include <gtest/gtest.h>

#include "tests/redact_rows.h"

namespace aorta::redact {
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
}  // namespace aorta::redact

namespace aorta::redact {
namespace {

struct Row {
  const char* input;
  const char* expected;
};

// Issue 29, 6: the shapes the probe found reaching the console, JUnit, HTML, log and
// zip. Each row a line as a tool or a training prints it, and what may be shown.
TEST(Redact, ShapesTheProbeFound) {
  const Row rows[] = {
      // JSON with a space before the colon, and JSON escaped inside a JSON string.
      {R"({"password" : "hunter2x", "user": "u"})", R"({"password" : <redacted>, "user": "u"})"},
      {R"({"password": "a\"b c", "user": "u"})", R"({"password": <redacted>, "user": "u"})"},
      {R"("cfg": "{\"password\": \"hunter2x\", \"user\": \"u\"}")", R"("cfg": "{\"password\": <redacted>, \"user\": \"u\"}")"},
      {R"(msg={\"db_password\":\"hunter2x\"})", R"(msg={\"db_password\":<redacted>})"},
      // Flags with the secret as the next argument, or after '='.
      {"train.py --password hunter2x --steps 8", "train.py --password <redacted> --steps 8"},
      {"train.py --password=hunter2x --steps 8", "train.py --password=<redacted> --steps 8"},
      {"hub --token abc123def --api-key 'k e y' --steps 8", "hub --token <redacted> --api-key <redacted> --steps 8"},
      {"login --hf-token \"hf_x y\" done", "login --hf-token <redacted> done"},
      // A pass or pwd key part; a key that may hold a secret with a random value.
      {"DB_PASS=hunter2x psql -h db", "DB_PASS=<redacted> psql -h db"},
      {"export MYSQL_PWD=hunter2x;", "export MYSQL_PWD=<redacted>;"},
      {"WANDB_KEY=3f9a1c7e2b8d4f6a0c5e9b1d7f3a8c2e6b4d0f9a wandb login", "WANDB_KEY=<redacted> wandb login"},
      {"wandb_key: 3f9a1c7e2b8d4f6a0c5e9b1d7f3a8c2e6b4d0f9a", "wandb_key: <redacted>"},
      // curl's user:password.
      {"curl -u alice:hunter2x https://api.example.com/x", "curl -u alice:<redacted> https://api.example.com/x"},
      {"curl --user alice:hunter2x -X GET", "curl --user alice:<redacted> -X GET"},
      {"curl --user=alice:hunter2x -X GET", "curl --user=alice:<redacted> -X GET"},
      // An AWS credentials file.
      {"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = <redacted>"},
      {"aws_session_token=IQoJb3JpZ2luX2VjEJr", "aws_session_token=<redacted>"},
      // S3 presigned URLs, new and old style.
      {"GET https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAZ7Q4N2XK5P3MW8RT%2F20240101"
       "%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20240101T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host"
       "&X-Amz-Security-Token=IQoJb3JpZ2luX2Vj%2F%2F&X-Amz-Signature=8f1b2c3d4e5f60718293a4b5c6d7e8f9 200",
       "GET https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=<redacted>"
       "&X-Amz-Date=20240101T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host"
       "&X-Amz-Security-Token=<redacted>&X-Amz-Signature=<redacted> 200"},
      {"https://b.s3.amazonaws.com/k?AWSAccessKeyId=AKIAZ7Q4N2XK5P3MW8RT&Expires=1700000000&Signature=vjbyPxybdZaNmGa%2ByT272YEAiv4%3D#x",
       "https://b.s3.amazonaws.com/k?AWSAccessKeyId=<redacted>&Expires=1700000000&Signature=<redacted>#x"},
      // Azure SAS.
      {"https://acct.blob.core.windows.net/c/b.bin?sv=2022-11-02&ss=b&sp=r&se=2024-01-01T00:00:00Z&sig=abc%2Bdef%2Fghi%3D ok",
       "https://acct.blob.core.windows.net/c/b.bin?sv=2022-11-02&ss=b&sp=r&se=2024-01-01T00:00:00Z&sig=<redacted> ok"},
      // Webhooks: the path is the secret.
      {"notify https://hooks.slack.com/services/T0123ABCD/B0456EFGH/abcdefghijklmnopqrstuvwx failed",
       "notify https://hooks.slack.com/services/<redacted> failed"},
      {"'https://discord.com/api/webhooks/123456/abcDEF-ghi'", "'https://discord.com/api/webhooks/<redacted>'"},
      // user:password@host without a scheme.
      {"rsync -av out/ alice:hunter2x@backup.example.com:/srv/", "rsync -av out/ alice:<redacted>@backup.example.com:/srv/"},
      {"scp f.tar bob:p%40ss@10.0.0.5:", "scp f.tar bob:<redacted>@10.0.0.5:"},
  };
  for (const auto& row : rows) EXPECT_EQ(redact_text(row.input), row.expected) << row.input;
}

// What a config string gives away, for the run to search its output for.
TEST(Redact, SecretsInTextAreWhatRedactionCuts) {
  EXPECT_EQ(secrets_in_text("train --hub-token=hf_abcdef --password 'two words' https://alice:s3cr3tpw@h/r --steps 8"),
            (std::vector<std::string>{"hf_abcdef", "two words", "alice:s3cr3tpw", "s3cr3tpw"}));
  EXPECT_EQ(secrets_in_text(R"({\"api_key\": \"k3y-v4lue\"})"), std::vector<std::string>{"k3y-v4lue"});
  EXPECT_TRUE(secrets_in_text("--steps 8 --lr 3e-4").empty());
}

// YAML blocks: the lines under a secret key are its value.
TEST(Redact, YamlBlocksUnderSecretKeys) {
  const Row rows[] = {
      {"password: |\n  line one\n  line two\nuser: bob\n", "password: |\n  <redacted>\n  <redacted>\nuser: bob\n"},
      {"auth:\n  token:\n    abcdef123456\n  user: bob\n", "auth:\n  token:\n    <redacted>\n  user: bob\n"},
      {"- api_key: >-  # folded\n    part1\n\n    part2\n- name: x\n",
       "- api_key: >-  # folded\n    <redacted>\n\n    <redacted>\n- name: x\n"},
      {"\"private_key\": |\r\n  -----BEGIN KEY-----\r\n  MIIE\r\nnext: 1\r\n",
       "\"private_key\": |\r\n  <redacted>\r\n  <redacted>\r\nnext: 1\r\n"},
      // Not a block: a value on the key's line, or nothing indented after it.
      {"password: hunter2x\n  indented: 1\n", "password: <redacted>\n  indented: 1\n"},
      {"token:\nuser: bob\n", "token:\nuser: bob\n"},
      {"Enter password:\n  then press enter\n", "Enter password:\n  then press enter\n"},
  };
  for (const auto& row : rows) EXPECT_EQ(redact_text(row.input), row.expected) << row.input;
}

// What a training log is full of stays readable: no redaction of every hex word, path,
// host, user@host or uid:gid.
TEST(Redact, OrdinaryLogLinesStayReadable) {
  for (const char* line : {
           "commit 3f2a9c1e7b8d4f6a0c5e9b1d7f3a8c2e6b4d0f9a (HEAD -> main)",
           "image sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 pulled",
           "loading /home/alice/.ssh/id_ed25519 and /scratch/aorta/ckpt/step_100.pt",
           "rendezvous node-01.cluster.example.com:29500 (10.0.0.1:22)",
           "git clone git@github.com:ROCm/aorta.git",
           "scp out.tar alice@node1:/tmp/",
           "docker run -u 1000:1000 --user 0:0 img",
           "python -u train.py --max-steps 8",
           "mailto:a@b and https://h/x?q=a@b",
           "https://hooks.example.com/services/abc",
           "pass: 12 fail: 0",
           "if token == 5:",
           "num_tokens: 4096 tokenizer: gpt2 max_tokens=512 tokens/s: 51234",
           "step 100 loss 2.31 lr=3e-4 key=value session=1",
           "https://b.s3.amazonaws.com/k?X-Amz-Date=20240101T000000Z&X-Amz-Expires=3600",
           "NCCL_IB_HCA=mlx5_0:1,mlx5_1:1",
           "12:30:00 node1 started",
       })
    EXPECT_EQ(redact_text(line), line);
}

// Lines of a megabyte made of what each rule looks back or ahead for. Each rule reads
// each byte a bounded number of times, so these take milliseconds; a rule that scanned
// to the line's start or end at every separator took minutes here (no timed assertion:
// a regression shows as a test that does not finish).
TEST(Redact, MegabyteLinesStayLinear) {
  auto repeat = [](std::string_view unit, size_t times) {
    std::string line;
    for (size_t i = 0; i < times; ++i) line += unit;
    return line;
  };
  const Row units[] = {
      {"x://", "x://"},
      {"key=", "key="},
      {"a=", "a="},
      {"k=a== ", "k=a== "},
      {"ab", "ab"},
      {"u:p@h ", "u:<redacted>@h "},
      {"-u a:b ", "-u a:<redacted> "},
      {"token: x ", "token: <redacted> "},
      {R"(\"password\": \"x\" )", R"(\"password\": <redacted> )"},
      // Issue 42, 8: escapes (raw, written out, an OSC never ended), a coloured key,
      // private key markers, the programs' flags and .netrc words.
      {"\x1b[", "\x1b["},
      {"\x1b]", "\x1b]"},
      {R"(\u001b]8;;)", R"(\u001b]8;;)"},
      {"\x1b[1mpassword\x1b[0m=x ", "\x1b[1mpassword\x1b[0m=<redacted> "},
      {"-----BEGIN ", "-----BEGIN "},
      {"-----BEGIN PRIVATE KEY-----x-----END ", "-----BEGIN PRIVATE KEY-----<redacted>-----END "},
      {"mysql -p ", "mysql -p "},
      {"redis-cli -a x ", "redis-cli -a <redacted> "},
      {"machine password x ", "machine password <redacted> "},
  };
  for (const auto& unit : units) {
    const size_t times = (size_t{1} << 20) / std::string_view(unit.input).size() + 1;
    EXPECT_TRUE(redact_text(repeat(unit.input, times)) == repeat(unit.expected, times)) << unit.input;
  }
  // A secret value (quoted, never closed) that runs to the end of the line goes whole.
  EXPECT_EQ(redact_text("password=\"" + repeat("ab", 1 << 19)), "password=<redacted>");
}

}  // namespace
}  // namespace aorta::redact

namespace aorta::redact {
namespace {

using aorta::testing::redact_in_parts;

// A log read block by block is redacted as the whole text would be, wherever the
// blocks end: in a line, in a secret, in a YAML block.
TEST(StreamRedactor, PartsOfAnySizeGiveTheWholeTextsResult) {
  const Row rows[] = {
      {"step 1\npassword: |\n  line one\n\n  line two\nuser: bob\nexport HF_TOKEN=abc123 && run\n",
       "step 1\npassword: |\n  <redacted>\n\n  <redacted>\nuser: bob\nexport HF_TOKEN=<redacted> && run\n"},
      {"a\n  token:\n    x\n  user: u", "a\n  token:\n    <redacted>\n  user: u"},
      {"clone https://alice:s3cr3t@h/r\r\nno newline at the end: --password hunter2x",
       "clone https://<redacted>@h/r\r\nno newline at the end: --password <redacted>"},
  };
  for (const auto& row : rows)
    for (size_t part : {1, 2, 3, 7, 64, 4096}) EXPECT_EQ(redact_in_parts(row.input, part), row.expected) << part;
}

// A line of megabytes without a newline (a progress bar, a binary dump) is given out
// as it arrives, all but a tail kept as context, and a secret at any cut is found:
// here one just before each place a cut falls, one across it (its name before the cut,
// its value after, or the cut inside the value) and one just after.
TEST(StreamRedactor, LongLineGoesOutInPiecesAndKeepsSecretsWhole) {
  std::string input, expected;
  auto pad_to = [&](size_t size) {
    while (input.size() < size) {
      const std::string word = input.size() + 3 <= size ? "ab " : std::string(size - input.size(), 'c');
      input += word;
      expected += word;
    }
  };
  auto secret = [&] {
    input += "password=hunter2x ";
    expected += "password=<redacted> ";
  };
  const size_t first_cut = StreamRedactor::kLongLine - StreamRedactor::kOverlap;
  bool value_after_cut = true;
  for (size_t cut = first_cut; cut < (size_t{4} << 20); cut += StreamRedactor::kLongLine - 2 * StreamRedactor::kOverlap) {
    pad_to(cut - 60);
    secret();  // ends 42 bytes before the cut
    pad_to(cut - (value_after_cut ? 9 : 12));
    secret();  // "password=" | "hunter2x ", or "password=hun" | "ter2x "
    pad_to(cut + 40);
    secret();  // after it
    value_after_cut = !value_after_cut;
  }
  pad_to(size_t{5} << 20);
  StreamRedactor redactor;
  std::string out = redactor.feed(input);
  // Only the tail that the next part might continue is held back.
  EXPECT_GE(out.size(), input.size() - StreamRedactor::kLongLine);
  out += redactor.finish();
  EXPECT_TRUE(out == expected) << "first difference at " << std::mismatch(out.begin(), out.end(), expected.begin()).first - out.begin();
  EXPECT_TRUE(redact_in_parts(input, 4099) == expected);
}

}  // namespace
}  // namespace aorta::redact
