// SPDX-License-Identifier: GPL-2.0
// Own<T> and make_own (include/srpt/rt/own.h).
#include <srpt/rt/own.h>

#include <type_traits>
#include <utility>

#include "../harness/core_test.h"

using srpt::Own;

namespace {

class OwnTest : public CoreTest {};

struct Widget {
  static int constructed;
  static int destroyed;
  int value;
  explicit Widget(int v) : value(v) { constructed++; }
  ~Widget() { destroyed++; }
  static void reset_counts() { constructed = destroyed = 0; }
};
int Widget::constructed = 0;
int Widget::destroyed = 0;

struct Base {
  virtual ~Base() { base_destroyed++; }
  static int base_destroyed;
};
int Base::base_destroyed = 0;

struct Derived : Base {
  ~Derived() override { derived_destroyed++; }
  static int derived_destroyed;
};
int Derived::derived_destroyed = 0;

// release() is only callable on an rvalue: `move(own).release()`.
template <class T, class = void>
struct ReleasableAsLvalue : std::false_type {};
template <class T>
struct ReleasableAsLvalue<T, std::void_t<decltype(std::declval<T&>().release())>>
    : std::true_type {};
template <class T, class = void>
struct ReleasableAsRvalue : std::false_type {};
template <class T>
struct ReleasableAsRvalue<T, std::void_t<decltype(std::declval<T&&>().release())>>
    : std::true_type {};

static_assert(!ReleasableAsLvalue<Own<Widget>>::value,
              "release() on an lvalue Own must not compile");
static_assert(ReleasableAsRvalue<Own<Widget>>::value,
              "move(own).release() must compile");
static_assert(!std::is_copy_constructible_v<Own<Widget>>);
static_assert(!std::is_copy_assignable_v<Own<Widget>>);
static_assert(std::is_nothrow_move_constructible_v<Own<Widget>>);

Own<Widget> make_widget(int v) {
  srpt::Result<Own<Widget>> r = srpt::make_own<Widget>(srpt::alloc_sleep, v);
  EXPECT_TRUE(r.ok());
  return r.ok() ? std::move(r).value() : Own<Widget>();
}

}  // namespace

TEST_F(OwnTest, MakeOwnConstructsOnTheFakeHeap) {
  Widget::reset_counts();
  {
    Own<Widget> w = make_widget(3);
    ASSERT_TRUE(w);
    EXPECT_EQ(3, w->value);
    EXPECT_EQ(3, (*w).value);
    EXPECT_EQ(1, Widget::constructed);
    EXPECT_EQ(1u, fake::live_allocations());
    EXPECT_EQ(sizeof(Widget), fake::live_bytes());
  }
  EXPECT_EQ(1, Widget::destroyed);
  EXPECT_EQ(0u, fake::live_allocations());
}

TEST_F(OwnTest, MoveLeavesTheSourceEmpty) {
  Widget::reset_counts();
  Own<Widget> a = make_widget(1);
  Widget* raw = a.get();
  Own<Widget> b = std::move(a);
  EXPECT_FALSE(a);
  EXPECT_EQ(nullptr, a.get());
  EXPECT_EQ(raw, b.get());

  Own<Widget> c;
  c = std::move(b);
  EXPECT_FALSE(b);
  EXPECT_EQ(raw, c.get());
  EXPECT_EQ(0, Widget::destroyed);
}

TEST_F(OwnTest, AccessThroughAnEmptyOwnIsAReportedBug) {
  Own<Widget> empty;
  // operator-> checks before anyone dereferences the result.
  Widget* p = empty.operator->();
  EXPECT_EQ(nullptr, p);
  ExpectOneBugReport("ptr_ != nullptr");
}

TEST_F(OwnTest, AccessThroughAMovedFromOwnIsAReportedBug) {
  Own<Widget> a = make_widget(1);
  Own<Widget> b = std::move(a);
  EXPECT_EQ(nullptr, a.operator->());
  ExpectOneBugReport("ptr_ != nullptr");
  EXPECT_EQ(1, b->value);  // the new owner is fine
  EXPECT_TRUE(TakeBugReports().empty());
}

TEST_F(OwnTest, ReleaseByMoveHandsOverTheObject) {
  Widget::reset_counts();
  Own<Widget> w = make_widget(8);
  Widget* raw = std::move(w).release();
  EXPECT_FALSE(w);
  ASSERT_NE(nullptr, raw);
  EXPECT_EQ(0, Widget::destroyed);
  EXPECT_EQ(1u, fake::live_allocations());
  srpt::destroy(raw);
  EXPECT_EQ(1, Widget::destroyed);
}

TEST_F(OwnTest, DestructorRunsExactlyOnce) {
  Widget::reset_counts();
  {
    Own<Widget> w = make_widget(1);
    w.reset();
    EXPECT_EQ(1, Widget::destroyed);
    EXPECT_FALSE(w);
    w.reset();  // resetting an empty Own does nothing
  }
  EXPECT_EQ(1, Widget::destroyed);
  EXPECT_EQ(1, Widget::constructed);
}

TEST_F(OwnTest, MoveAssignmentDestroysThePreviousObject) {
  Widget::reset_counts();
  Own<Widget> a = make_widget(1);
  Own<Widget> b = make_widget(2);
  a = std::move(b);
  EXPECT_EQ(1, Widget::destroyed);
  EXPECT_EQ(2, a->value);
  EXPECT_EQ(1u, fake::live_allocations());
  Own<Widget>& self = a;
  a = std::move(self);  // self-move keeps the object
  EXPECT_EQ(1, Widget::destroyed);
  EXPECT_EQ(2, a->value);
}

TEST_F(OwnTest, ConversionToBaseDestroysThroughTheVirtualDestructor) {
  Base::base_destroyed = Derived::derived_destroyed = 0;
  {
    srpt::Result<Own<Derived>> d = srpt::make_own<Derived>(srpt::alloc_sleep);
    ASSERT_TRUE(d.ok());
    Own<Base> b = std::move(d).value();
    EXPECT_TRUE(b);
  }
  EXPECT_EQ(1, Derived::derived_destroyed);
  EXPECT_EQ(1, Base::base_destroyed);
}

TEST_F(OwnTest, AdoptNullIsEmpty) {
  Own<Widget> w = Own<Widget>::adopt(nullptr);
  EXPECT_FALSE(w);
  Own<Widget> n = nullptr;
  EXPECT_FALSE(n);
}

TEST_F(OwnTest, MakeOwnUnderAllocationFailure) {
  Widget::reset_counts();
  fake::fail_nth_allocation(0);
  srpt::Result<Own<Widget>> r = srpt::make_own<Widget>(srpt::alloc_sleep, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(srpt::Error::NoMem, r.error().code());
  EXPECT_EQ(1u, fake::injected_failure_count());
  EXPECT_EQ(0, Widget::constructed);
  EXPECT_EQ(0u, fake::live_allocations());
}

TEST_F(OwnTest, MakeOwnAtomic) {
  srpt::Result<Own<Widget>> r = srpt::make_own<Widget>(srpt::alloc_atomic, 4);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(1u, fake::atomic_allocations());
  EXPECT_EQ(0u, fake::sleeping_allocations());
}
