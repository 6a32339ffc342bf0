// SPDX-License-Identifier: GPL-2.0
// Error, Status, Result<T> and SRPT_TRY (include/srpt/rt/status.h).
#include <srpt/rt/own.h>
#include <srpt/rt/status.h>

#include <utility>

#include "../harness/core_test.h"

using srpt::Error;
using srpt::Result;
using srpt::Status;

namespace {

class StatusTest : public CoreTest {};

// Counts its live instances, so tests can see Result construct and destroy
// its value exactly once.
struct Tracked {
  static int live;
  int value;
  explicit Tracked(int v) : value(v) { live++; }
  Tracked(Tracked&& o) : value(o.value) { live++; }
  ~Tracked() { live--; }
};
int Tracked::live = 0;

Result<int> parse_digit(char c) {
  if (c < '0' || c > '9') return Error::Inval;
  return c - '0';
}

// Statements after a failed SRPT_TRY must not run.
int g_after_try = 0;

Result<int> sum_of_digits(char a, char b) {
  int x = SRPT_TRY(parse_digit(a));
  g_after_try++;
  int y = SRPT_TRY(parse_digit(b));
  g_after_try++;
  return x + y;
}

Status check_even(int v) {
  if (v % 2) return Error::Range;
  return Status::ok_status();
}

Status check_digit_is_even(char c) {
  int v = SRPT_TRY(parse_digit(c));  // Result in a function returning Status
  SRPT_TRY(check_even(v));            // Status: yields nothing
  g_after_try++;
  return Status::ok_status();
}

Result<srpt::Own<Tracked>> make_tracked(int v) {
  srpt::Own<Tracked> t = SRPT_TRY(srpt::make_own<Tracked>(srpt::alloc_sleep, v));
  return t;
}

}  // namespace

TEST_F(StatusTest, ErrorCodesAreLinuxErrnos) {
  EXPECT_EQ(12, Error(Error::NoMem).code());
  EXPECT_EQ(-12, Error(Error::NoMem).to_kernel());
  EXPECT_EQ(-22, Error(Error::Inval).to_kernel());
  EXPECT_EQ(-17, Error(Error::Exist).to_kernel());
  EXPECT_EQ(-19, Error(Error::NoDev).to_kernel());
  EXPECT_EQ(-34, Error(Error::Range).to_kernel());
}

TEST_F(StatusTest, ErrorFromKernelRoundTrips) {
  const Error::Code codes[] = {
      Error::Perm,  Error::NoEnt, Error::Io,       Error::NoMem,
      Error::Busy,  Error::Exist, Error::NoDev,    Error::Inval,
      Error::NoSpc, Error::Range, Error::NameTooLong, Error::OpNotSupp,
      Error::TimedOut, Error::ConnRefused};
  for (Error::Code c : codes) {
    const Error e(c);
    EXPECT_LT(e.to_kernel(), 0);
    EXPECT_EQ(e, Error::from_kernel(e.to_kernel()));
  }
  EXPECT_EQ(Error::NoMem, Error::from_kernel(-SRPT_ENOMEM).code());
}

TEST_F(StatusTest, ErrorFromNonNegativeKernelValueIsIo) {
  // A non-negative "error" is a caller bug; it must still be an error.
  EXPECT_EQ(Error::Io, Error::from_kernel(0).code());
  EXPECT_EQ(Error::Io, Error::from_kernel(12).code());
}

TEST_F(StatusTest, ErrorComparison) {
  EXPECT_TRUE(Error(Error::Inval) == Error::Inval);
  EXPECT_TRUE(Error(Error::Inval) != Error::NoMem);
  EXPECT_FALSE(Error(Error::Inval) != Error::Inval);
}

TEST_F(StatusTest, StatusOkAndError) {
  const Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(0, ok.to_kernel());
  EXPECT_TRUE(Status::ok_status().ok());

  const Status bad = Error::Busy;
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(Error::Busy, bad.error().code());
  EXPECT_EQ(-SRPT_EBUSY, bad.to_kernel());
}

TEST_F(StatusTest, ResultValuePath) {
  Result<int> r = parse_digit('7');
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(7, r.value());
  EXPECT_TRUE(r.status().ok());
}

TEST_F(StatusTest, ResultErrorPath) {
  Result<int> r = parse_digit('x');
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(Error::Inval, r.error().code());
  EXPECT_FALSE(r.status().ok());
  EXPECT_EQ(-SRPT_EINVAL, r.status().to_kernel());
}

TEST_F(StatusTest, ResultOwnsItsValueExactlyOnce) {
  Tracked::live = 0;
  {
    Result<Tracked> r = Tracked(5);
    EXPECT_EQ(1, Tracked::live);
    Result<Tracked> moved = std::move(r);
    ASSERT_TRUE(moved.ok());
    EXPECT_EQ(5, moved.value().value);
    EXPECT_EQ(2, Tracked::live);  // the moved-from value still exists
  }
  EXPECT_EQ(0, Tracked::live);
  {
    Result<Tracked> err = Error::NoDev;
    EXPECT_EQ(0, Tracked::live);  // an error holds no value
    Result<Tracked> moved = std::move(err);
    EXPECT_FALSE(moved.ok());
    EXPECT_EQ(Error::NoDev, moved.error().code());
  }
  EXPECT_EQ(0, Tracked::live);
}

TEST_F(StatusTest, TryYieldsValues) {
  g_after_try = 0;
  Result<int> r = sum_of_digits('3', '4');
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(7, r.value());
  EXPECT_EQ(2, g_after_try);
}

TEST_F(StatusTest, TryPropagatesTheFirstError) {
  g_after_try = 0;
  Result<int> first = sum_of_digits('a', '4');
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(Error::Inval, first.error().code());
  EXPECT_EQ(0, g_after_try);

  Result<int> second = sum_of_digits('1', '?');
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(Error::Inval, second.error().code());
  EXPECT_EQ(1, g_after_try);
}

TEST_F(StatusTest, TryOnStatusAndIntoStatus) {
  g_after_try = 0;
  EXPECT_TRUE(check_digit_is_even('4').ok());
  EXPECT_EQ(1, g_after_try);

  const Status odd = check_digit_is_even('3');
  EXPECT_EQ(Error::Range, odd.error().code());
  const Status bad = check_digit_is_even('z');
  EXPECT_EQ(Error::Inval, bad.error().code());
  EXPECT_EQ(1, g_after_try);
}

TEST_F(StatusTest, TryMovesOwnershipOut) {
  Tracked::live = 0;
  {
    Result<srpt::Own<Tracked>> r = make_tracked(9);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(9, r.value()->value);
    EXPECT_EQ(1, Tracked::live);
    EXPECT_EQ(1u, fake::live_allocations());
  }
  EXPECT_EQ(0, Tracked::live);
}

TEST_F(StatusTest, TryPropagatesAllocationFailure) {
  Tracked::live = 0;
  fake::fail_nth_allocation(0);
  Result<srpt::Own<Tracked>> r = make_tracked(9);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(Error::NoMem, r.error().code());
  EXPECT_EQ(0, Tracked::live);
}
