// The frame header's bounds, request decoding and the secret comparison.
#include "agent/protocol.h"

#include <gtest/gtest.h>

namespace aorta::agent {
namespace {

TEST(AgentProtocol, HeaderRoundTripsAndIsBigEndian) {
  auto bytes = encode_header({FrameType::kData, 0x0102});
  EXPECT_EQ(std::string(bytes.data(), 8), std::string("\x03\0\0\0\0\0\x01\x02", 8));
  auto back = decode_header(bytes);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->type, FrameType::kData);
  EXPECT_EQ(back->length, 0x0102u);
}

TEST(AgentProtocol, LengthsPastEachTypesBoundAreRefused) {
  EXPECT_TRUE(decode_header(encode_header({FrameType::kRequest, 1u << 20})).ok());
  EXPECT_FALSE(decode_header(encode_header({FrameType::kRequest, (1u << 20) + 1})).ok());
  EXPECT_TRUE(decode_header(encode_header({FrameType::kData, 65536})).ok());
  auto data = decode_header(encode_header({FrameType::kData, 65537}));
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.error().message, "frame of 65537 bytes, over the 65536-byte limit");
  std::array<char, kHeaderSize> bad{9, 0, 0, 0, 0, 0, 0, 1};
  EXPECT_EQ(decode_header(bad).error().message, "unknown frame type 9");
  std::array<char, kHeaderSize> padded{1, 0, 1, 0, 0, 0, 0, 1};
  EXPECT_FALSE(decode_header(padded).ok());
}

TEST(AgentProtocol, RequestsRoundTripAndBadOnesAreNamed) {
  Request run{.op = Op::kRun, .token = "t", .job = "1.0", .command = "ls", .timeout_s = 30};
  auto back = decode_request(encode_request(run));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->op, Op::kRun);
  EXPECT_EQ(back->command, "ls");
  EXPECT_EQ(back->timeout_s, 30);
  EXPECT_EQ(decode_request("[1]").error().message, "a request that is not a JSON object");
  EXPECT_EQ(decode_request(R"({"op":"rm","token":"t","job":"j"})").error().message, "unknown op \"rm\"");
  EXPECT_EQ(decode_request(R"({"op":"run","job":"j"})").error().message, "no \"token\"");
  EXPECT_EQ(decode_request(R"({"op":"run","token":1,"job":"j"})").error().message, "\"token\" is not a string");
  EXPECT_EQ(decode_request(R"({"op":"run","token":"t","job":"j","timeout":5})").error().message,
            "run without a \"command\"");
  EXPECT_FALSE(decode_request(R"({"op":"run","token":"t","job":"j","command":"x","timeout":-1})").ok());
  EXPECT_FALSE(decode_request(R"({"op":"run","token":"t","job":"j","command":"x","timeout":1e9})").ok());
  EXPECT_EQ(decode_request(R"({"op":"download","token":"t","job":"j"})").error().message,
            "download without a \"path\"");
}

// What a hello answer claims about its agent is read by type: a field missing, of
// another type or out of range is no identity at all (issue 42).
TEST(AgentProtocol, AnAgentsIdentityRoundTripsAndAMalformedOneIsNone) {
  nlohmann::json answer;
  put_identity(answer, {"node2", "10.0.0.2", 4567, 2});
  EXPECT_EQ(answer.dump(), R"({"address":"10.0.0.2","host":"node2","port":4567,"rank":2})");
  auto back = reply_identity(answer);
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(same_agent(*back, {"node2", "10.0.0.2", 4567, 2}));
  EXPECT_EQ(describe_agent(*back), "rank 2 on node2 (10.0.0.2:4567)");
  for (const char* broken : {R"({"address":"10.0.0.2","host":"node2","port":4567})",
                             R"({"address":"10.0.0.2","host":"node2","port":4567,"rank":"2"})",
                             R"({"address":"10.0.0.2","host":"node2","port":65536,"rank":2})",
                             R"({"address":"10.0.0.2","host":"node2","port":0,"rank":2})",
                             R"({"address":"10.0.0.2","host":"node2","port":4567,"rank":-1})",
                             R"({"address":"10.0.0.2","host":"","port":4567,"rank":2})",
                             R"({"host":"node2","port":4567,"rank":2})"})
    EXPECT_FALSE(reply_identity(nlohmann::json::parse(broken)).has_value()) << broken;
  for (auto differs : {AgentEndpoint{"node1", "10.0.0.2", 4567, 2}, AgentEndpoint{"node2", "10.0.0.1", 4567, 2},
                       AgentEndpoint{"node2", "10.0.0.2", 4568, 2}, AgentEndpoint{"node2", "10.0.0.2", 4567, 1}})
    EXPECT_FALSE(same_agent(*back, differs)) << describe_agent(differs);
}

TEST(AgentProtocol, SecretsCompareWhole) {
  const std::string secret(40, 'a');
  EXPECT_TRUE(same_secret(secret, secret));
  EXPECT_FALSE(same_secret(secret, std::string(39, 'a') + "b"));  // last byte
  EXPECT_FALSE(same_secret(secret, "b" + std::string(39, 'a')));  // first byte
  EXPECT_FALSE(same_secret(secret, std::string(39, 'a')));        // a prefix
  EXPECT_FALSE(same_secret(secret, secret + '\0'));               // padded with a zero byte
  EXPECT_FALSE(same_secret("", secret));
}

}  // namespace
}  // namespace aorta::agent
