// SPDX-License-Identifier: GPL-2.0
// ChannelState (include/srpt/core/channel_state.h) on its own: the chart's
// edges are taken, every other transition is refused, the first close wins
// and decides who queues the release work.
#include <srpt/core/channel_state.h>

#include "../harness/core_test.h"

namespace {

using srpt::ChannelState;
using srpt::CloseReason;
using State = ChannelState::State;
using Step = ChannelState::CloseStep;

class ChannelStateTest : public CoreTest {};

TEST_F(ChannelStateTest, EstablishMovesConnectingToLiveOnce) {
  ChannelState s;
  EXPECT_EQ(State::Connecting, s.get());
  EXPECT_TRUE(s.establish());
  EXPECT_EQ(State::Live, s.get());
  EXPECT_FALSE(s.establish()) << "a second RTU changes nothing";
  EXPECT_EQ(State::Live, s.get());
}

TEST_F(ChannelStateTest, AClosedChannelIsNeverLiveAgain) {
  for (bool was_live : {false, true}) {
    ChannelState s;
    if (was_live) {
      ASSERT_TRUE(s.establish());
    }
    s.arm();
    EXPECT_EQ(Step::QueueRelease, s.close(CloseReason::CmError));
    EXPECT_FALSE(s.establish()) << "an RTU after the close";
    EXPECT_EQ(State::Closing, s.get());
    EXPECT_TRUE(s.released());
    EXPECT_FALSE(s.establish());
    EXPECT_EQ(Step::None, s.close(CloseReason::Shutdown));
    EXPECT_EQ(State::Released, s.get()) << "states only move forward";
  }
}

TEST_F(ChannelStateTest, TheFirstCloseWins) {
  ChannelState s;
  s.arm();
  EXPECT_EQ(Step::QueueRelease, s.close(CloseReason::PeerDisconnect));
  EXPECT_EQ(Step::None, s.close(CloseReason::QueueError)) << "the release is queued once";
  EXPECT_EQ(CloseReason::PeerDisconnect, s.reason());
  EXPECT_TRUE(s.reply_disconnect());
}

TEST_F(ChannelStateTest, OnlyAPeerDisconnectIsAnswered) {
  ChannelState s;
  s.arm();
  s.close(CloseReason::Logout);
  EXPECT_FALSE(s.reply_disconnect());
}

TEST_F(ChannelStateTest, BeforeArmTheLoginAbortsAndArmQueuesTheRelease) {
  ChannelState s;
  EXPECT_EQ(Step::LoginAborts, s.close(CloseReason::SessionClosed));
  EXPECT_TRUE(s.arm()) << "closed while the login ran: arm() queues the release";
  ChannelState open;
  EXPECT_FALSE(open.arm()) << "not closed: a later close() queues it";
  EXPECT_EQ(Step::QueueRelease, open.close(CloseReason::TpgDisabled));
}

TEST_F(ChannelStateTest, ReleasedOnlyFromClosing) {
  ChannelState s;
  EXPECT_FALSE(s.released()) << "Connecting -> Released skips the close";
  ExpectOneBugReport("advance(State::Released)");
  ASSERT_TRUE(s.establish());
  EXPECT_FALSE(s.released()) << "Live -> Released skips the close";
  ExpectOneBugReport("advance(State::Released)");
  EXPECT_EQ(State::Live, s.get());
  s.close(CloseReason::Logout);
  EXPECT_TRUE(s.released());
  EXPECT_FALSE(s.released()) << "twice";
  ExpectOneBugReport("advance(State::Released)");
}

TEST_F(ChannelStateTest, ArmTwiceIsABug) {
  ChannelState s;
  EXPECT_FALSE(s.arm());
  EXPECT_FALSE(s.arm());
  ExpectOneBugReport("!armed_");
}

TEST_F(ChannelStateTest, EveryReasonHasAName) {
  for (int r = 0; r <= static_cast<int>(CloseReason::SrqSwitched); r++)
    EXPECT_STRNE("?", srpt::close_reason_name(static_cast<CloseReason>(r))) << r;
}

}  // namespace
