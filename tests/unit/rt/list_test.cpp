// SPDX-License-Identifier: GPL-2.0
// Intrusive List<T, &T::node> and ListNode (include/srpt/rt/list.h).
#include <srpt/rt/list.h>

#include <new>
#include <vector>

#include "../harness/core_test.h"

namespace {

class ListTest : public CoreTest {};

struct Item {
  explicit Item(int v) : value(v) {}
  int value;
  srpt::ListNode node;
};

using ItemList = srpt::List<Item, &Item::node>;

std::vector<int> values(ItemList& list) {
  std::vector<int> out;
  for (Item& i : list) out.push_back(i.value);
  return out;
}

}  // namespace

TEST_F(ListTest, EmptyList) {
  ItemList list;
  EXPECT_TRUE(list.empty());
  EXPECT_EQ(0u, list.size());
  EXPECT_EQ(nullptr, list.front());
  EXPECT_EQ(nullptr, list.pop_front());
  EXPECT_TRUE(values(list).empty());
}

TEST_F(ListTest, PushBackAndFrontKeepOrder) {
  Item a(1), b(2), c(3);
  ItemList list;
  list.push_back(b);
  list.push_back(c);
  list.push_front(a);
  EXPECT_FALSE(list.empty());
  EXPECT_EQ(3u, list.size());
  EXPECT_EQ((std::vector<int>{1, 2, 3}), values(list));
  EXPECT_EQ(&a, list.front());
  EXPECT_TRUE(a.node.linked());

  EXPECT_EQ(&a, list.pop_front());
  EXPECT_FALSE(a.node.linked());
  EXPECT_EQ(&b, list.pop_front());
  EXPECT_EQ(&c, list.pop_front());
  EXPECT_EQ(nullptr, list.pop_front());
  EXPECT_TRUE(list.empty());
}

TEST_F(ListTest, RemoveFromTheMiddle) {
  Item a(1), b(2), c(3);
  ItemList list;
  list.push_back(a);
  list.push_back(b);
  list.push_back(c);
  ItemList::remove(b);
  EXPECT_FALSE(b.node.linked());
  EXPECT_EQ((std::vector<int>{1, 3}), values(list));
  ItemList::remove(b);  // removing an unlinked node is a no-op
  EXPECT_EQ(2u, list.size());
  ItemList::remove(a);
  ItemList::remove(c);
  EXPECT_TRUE(list.empty());
}

TEST_F(ListTest, IterationToleratesRemovalOfTheCurrentElement) {
  Item items[] = {Item(0), Item(1), Item(2), Item(3), Item(4), Item(5)};
  ItemList list;
  for (Item& i : items) list.push_back(i);
  int visited = 0;
  for (Item& i : list) {
    visited++;
    if (i.value % 2 == 0) ItemList::remove(i);
  }
  EXPECT_EQ(6, visited);
  EXPECT_EQ((std::vector<int>{1, 3, 5}), values(list));
  for (Item& i : list) ItemList::remove(i);  // remove every element in turn
  EXPECT_TRUE(list.empty());
}

TEST_F(ListTest, AnElementCanMoveBetweenLists) {
  Item a(1);
  ItemList first, second;
  first.push_back(a);
  ItemList::remove(a);
  second.push_back(a);
  EXPECT_TRUE(first.empty());
  EXPECT_EQ(1u, second.size());
  ItemList::remove(a);
}

TEST_F(ListTest, PushingALinkedElementIsAReportedBugAndIgnored) {
  Item a(1), b(2);
  ItemList list, other;
  list.push_back(a);
  list.push_back(b);
  other.push_back(a);
  ExpectOneBugReport("!n.linked()");
  list.push_front(b);
  ExpectOneBugReport("!n.linked()");
  EXPECT_EQ((std::vector<int>{1, 2}), values(list));
  EXPECT_TRUE(other.empty());
  ItemList::remove(a);
  ItemList::remove(b);
}

TEST_F(ListTest, DestroyingALinkedNodeIsAReportedBug) {
  // Both live in raw storage so that the list, left pointing at the dead
  // node, can be abandoned without running its destructor.
  alignas(ItemList) unsigned char list_storage[sizeof(ItemList)];
  alignas(Item) unsigned char item_storage[sizeof(Item)];
  ItemList* list = new (list_storage) ItemList;
  Item* item = new (item_storage) Item(1);
  list->push_back(*item);
  item->~Item();
  ExpectOneBugReport("!linked()");
}

TEST_F(ListTest, DestroyingANonEmptyListIsAReportedBug) {
  alignas(ItemList) unsigned char list_storage[sizeof(ItemList)];
  alignas(Item) unsigned char item_storage[sizeof(Item)];
  ItemList* list = new (list_storage) ItemList;
  new (item_storage) Item(1);
  list->push_back(*reinterpret_cast<Item*>(item_storage));
  list->~ItemList();
  // The list reports itself, and then its head node reports being linked.
  const std::vector<fake::BugReport> bugs = TakeBugReports();
  ASSERT_EQ(2u, bugs.size());
  EXPECT_EQ("empty()", bugs[0].expr);
  EXPECT_EQ("!linked()", bugs[1].expr);
}
