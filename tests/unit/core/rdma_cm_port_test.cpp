// SPDX-License-Identifier: GPL-2.0
// discovery_auth/rdma_cm_port (srpt_core_rdma_cm_port_store): the in-tree
// driver parses it with kstrtou16(page, 0, &val), so the core must accept and
// refuse exactly what that accepts and refuses: an optional "+", hex after
// "0x", octal after a leading "0", decimal otherwise, one trailing newline.
#include <cstring>
#include <string>

#include "../harness/target_test.h"

namespace {

class RdmaCmPortTest : public TargetTest {
 protected:
  static int Store(const std::string& text) {
    return srpt_core_rdma_cm_port_store(text.data(), text.size());
  }
  // Stores `text`, expecting it accepted as `want`.
  void ExpectAccepted(const std::string& text, uint16_t want) {
    EXPECT_EQ(0, Store(text)) << "\"" << text << "\"";
    EXPECT_EQ(want, srpt_core_rdma_cm_port()) << "\"" << text << "\"";
  }
  // Stores `text`, expecting `err` and the previous value kept.
  void ExpectRefused(const std::string& text, int err) {
    const uint16_t before = srpt_core_rdma_cm_port();
    EXPECT_EQ(err, Store(text)) << "\"" << text << "\"";
    EXPECT_EQ(before, srpt_core_rdma_cm_port()) << "\"" << text << "\"";
  }
};

}  // namespace

// A review finding: two writes of the same port at once (two scripts
// configuring one target) both found the port not yet in use, both
// listened on it, and the second got EADDRINUSE although the port it asked
// for was being served. Writes of the attribute take turns.
TEST_F(RdmaCmPortTest, TwoWritesOfTheSamePortAtOnceBothSucceed) {
  int second = 1;
  int other = -1;
  fake::before_next_rdma_listen([&] {
    other = fake::spawn_thread([&] { second = Store("5555"); });
  });
  EXPECT_EQ(0, Store("5555"));
  EXPECT_EQ(0u, fake::run_threads());
  ASSERT_TRUE(fake::thread_finished(other));
  EXPECT_EQ(0, second);
  EXPECT_EQ(5555, srpt_core_rdma_cm_port());
  EXPECT_EQ(1u, fake::live_listeners());
}

TEST_F(RdmaCmPortTest, StartsAtZero) { EXPECT_EQ(0, srpt_core_rdma_cm_port()); }

TEST_F(RdmaCmPortTest, AcceptsDecimalHexAndANewline) {
  ExpectAccepted("5555\n", 5555);
  ExpectAccepted("0", 0);
  ExpectAccepted("0x15b3", 0x15b3);
  ExpectAccepted("65535", 65535);
  ExpectAccepted("0X15B3\n", 0x15b3);
  ExpectAccepted("0xffff", 0xffff);
  ExpectAccepted("1", 1);
  ExpectAccepted("00000000000000000000000001", 1);
}

TEST_F(RdmaCmPortTest, AcceptsWhatKstrtou16AcceptsBeyondThat) {
  ExpectAccepted("+5555", 5555);   // kstrtoull skips one leading '+'
  ExpectAccepted("010", 8);        // a leading 0 means octal
  ExpectAccepted("0177777", 0xffff);
  ExpectAccepted("00", 0);
}

TEST_F(RdmaCmPortTest, RefusesOutOfRange) {
  ASSERT_EQ(0, Store("5555"));
  ExpectRefused("65536", -SRPT_ERANGE);
  ExpectRefused("65536\n", -SRPT_ERANGE);
  ExpectRefused("0x10000", -SRPT_ERANGE);
  ExpectRefused("0200000", -SRPT_ERANGE);
  ExpectRefused("99999999999999999999999", -SRPT_ERANGE);
}

TEST_F(RdmaCmPortTest, RefusesMalformedText) {
  ASSERT_EQ(0, Store("5555"));
  for (const char* bad : {"", "abc", "-1", "12 34", " 5", "5 ", "\n", "5\n\n",
                          "\n5", "0x", "0x\n", "0xg", "08", "09", "++5", "+",
                          "+-5", "5x", "1e3", "0b101", "65536x"}) {
    ExpectRefused(bad, -SRPT_EINVAL);
  }
}

TEST_F(RdmaCmPortTest, OnlyTheGivenLengthIsRead) {
  // configfs hands over a buffer and a length; nothing past it counts.
  const char buf[] = "123456";
  EXPECT_EQ(0, srpt_core_rdma_cm_port_store(buf, 3));
  EXPECT_EQ(123, srpt_core_rdma_cm_port());
  EXPECT_EQ(-SRPT_EINVAL, srpt_core_rdma_cm_port_store(buf, 0));
}

TEST_F(RdmaCmPortTest, StopsAtAnEmbeddedNulAsTheKernelParserDoes) {
  // The kernel parses configfs's NUL-terminated page, so text after a NUL in
  // the written bytes is never seen.
  const std::string text("4242\0junk", 9);
  ExpectAccepted(text, 4242);
  ExpectRefused(std::string("\0" "42", 3), -SRPT_EINVAL);
}

// A review finding: at module unload the RDMA/CM listener lived on until
// srpt_core_exit(), after ib_unregister_client(); a REQ in between looked
// its device up under the IB client's id, which unregistration frees (and
// another client may be given). The shim now stops it first
// (tests/unit/abi/exit_order_check.sh); after that no write may start
// another.
TEST_F(RdmaCmPortTest, UnloadStopsTheListenerAndRefusesLaterWrites) {
  ASSERT_EQ(0, Store("5555"));
  ASSERT_EQ(1u, fake::live_listeners());
  srpt_core_stop_rdma_cm();
  EXPECT_EQ(0u, fake::live_listeners());
  EXPECT_EQ(0, srpt_core_rdma_cm_port());
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "RDMA/CM listener on port 5555 stopped: the module is unloading"))
      << fake::log_dump();
  EXPECT_EQ(-SRPT_ESHUTDOWN, Store("6000"));
  EXPECT_EQ(0u, fake::live_listeners());
  EXPECT_EQ(0, srpt_core_rdma_cm_port());
  EXPECT_TRUE(fake::logged(SRPT_LOG_ERR, "cannot listen for RDMA/CM on port 6000: the module is unloading"))
      << fake::log_dump();
}

TEST_F(RdmaCmPortTest, UnloadWithoutAListenerStopsNothing) {
  srpt_core_stop_rdma_cm();
  EXPECT_EQ(0u, fake::count_calls("srpt_k_listener_destroy"));
  EXPECT_EQ(-SRPT_ESHUTDOWN, Store("5555"));
  EXPECT_EQ(0u, fake::live_listeners());
}
