// SPDX-License-Identifier: GPL-2.0
// RefCounted<T>, RefPtr<T> and make_ref (include/srpt/rt/refptr.h).
#include <srpt/rt/refptr.h>

#include <utility>

#include "../harness/core_test.h"

using srpt::RefPtr;

namespace {

class RefPtrTest : public CoreTest {};

struct Node : srpt::RefCounted<Node> {
  static int destroyed;
  int value = 0;
  Node() = default;
  explicit Node(int v) : value(v) {}
  ~Node() { destroyed++; }
};
int Node::destroyed = 0;

RefPtr<Node> make_node(int v) {
  srpt::Result<RefPtr<Node>> r = srpt::make_ref<Node>(srpt::alloc_sleep, v);
  EXPECT_TRUE(r.ok());
  return r.ok() ? std::move(r).value() : RefPtr<Node>();
}

}  // namespace

TEST_F(RefPtrTest, MakeRefStartsAtOneReference) {
  Node::destroyed = 0;
  RefPtr<Node> a = make_node(5);
  ASSERT_TRUE(a);
  EXPECT_EQ(1, a->ref_count_for_test());
  EXPECT_EQ(5, (*a).value);
  EXPECT_EQ(1u, fake::live_allocations());
}

TEST_F(RefPtrTest, CopiesCountAndTheLastReleaseDestroys) {
  Node::destroyed = 0;
  RefPtr<Node> a = make_node(1);
  Node* raw = a.get();
  {
    RefPtr<Node> b = a;
    EXPECT_EQ(2, raw->ref_count_for_test());
    RefPtr<Node> c;
    c = b;
    EXPECT_EQ(3, raw->ref_count_for_test());
    EXPECT_EQ(raw, c.get());
  }
  EXPECT_EQ(1, raw->ref_count_for_test());
  EXPECT_EQ(0, Node::destroyed);
  a.reset();
  EXPECT_FALSE(a);
  EXPECT_EQ(1, Node::destroyed);
  EXPECT_EQ(0u, fake::live_allocations());
}

TEST_F(RefPtrTest, MoveTransfersTheReference) {
  Node::destroyed = 0;
  RefPtr<Node> a = make_node(1);
  Node* raw = a.get();
  RefPtr<Node> b = std::move(a);
  EXPECT_FALSE(a);
  EXPECT_EQ(raw, b.get());
  EXPECT_EQ(1, raw->ref_count_for_test());

  RefPtr<Node> c = make_node(2);
  c = std::move(b);  // drops c's old node, takes b's
  EXPECT_FALSE(b);
  EXPECT_EQ(1, Node::destroyed);
  EXPECT_EQ(raw, c.get());
  EXPECT_EQ(1, raw->ref_count_for_test());
}

TEST_F(RefPtrTest, RawPointerConstructorTakesANewReference) {
  RefPtr<Node> a = make_node(1);
  RefPtr<Node> b(a.get());
  EXPECT_EQ(2, a->ref_count_for_test());
  RefPtr<Node> null(static_cast<Node*>(nullptr));
  EXPECT_FALSE(null);
}

TEST_F(RefPtrTest, SelfAssignmentKeepsTheCount) {
  Node::destroyed = 0;
  RefPtr<Node> a = make_node(1);
  RefPtr<Node>& self = a;
  a = self;
  EXPECT_EQ(1, a->ref_count_for_test());
  a = std::move(self);
  ASSERT_TRUE(a);
  EXPECT_EQ(1, a->ref_count_for_test());
  EXPECT_EQ(0, Node::destroyed);
}

TEST_F(RefPtrTest, AccessThroughAnEmptyRefPtrIsAReportedBug) {
  RefPtr<Node> empty;
  EXPECT_EQ(nullptr, empty.operator->());
  ExpectOneBugReport("ptr_ != nullptr");
}

TEST_F(RefPtrTest, MakeRefUnderAllocationFailure) {
  Node::destroyed = 0;
  fake::fail_nth_allocation(0);
  srpt::Result<RefPtr<Node>> r = srpt::make_ref<Node>(srpt::alloc_sleep, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(srpt::Error::NoMem, r.error().code());
  EXPECT_EQ(0, Node::destroyed);
  EXPECT_EQ(0u, fake::live_allocations());
}

TEST_F(RefPtrTest, ResurrectingADeadObjectIsAReportedBug) {
  Node n;  // not on the heap: only its count is used
  EXPECT_TRUE(n.release_ref());  // the last reference: count 0
  n.add_ref();
  ExpectOneBugReport("old > 0");
}

TEST_F(RefPtrTest, ReleasingADeadObjectIsAReportedBug) {
  Node n;
  EXPECT_TRUE(n.release_ref());
  (void)n.release_ref();
  ExpectOneBugReport("old > 0");
}
