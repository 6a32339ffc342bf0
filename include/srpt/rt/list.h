// SPDX-License-Identifier: GPL-2.0
// Intrusive doubly linked lists: the element carries its ListNode, so putting
// an object on a list never allocates and never fails.
//
// A ListNode is on at most one list. Unlinking a node that is on no list is a
// no-op; destroying a node that is still linked is a reported bug. The list
// does not own its elements and needs whatever lock guards them.
#pragma once

#include <srpt/rt/assert.h>
#include <srpt/rt/types.h>
#include <srpt/rt/utility.h>

namespace srpt {

class ListNode : Pinned {
 public:
  ListNode() = default;
  ~ListNode() { SRPT_ASSERT(!linked()); }

  bool linked() const { return next_ != this; }
  void unlink() {
    prev_->next_ = next_;
    next_->prev_ = prev_;
    next_ = prev_ = this;
  }

 private:
  template <class T, ListNode T::*> friend class List;
  void insert_before(ListNode* pos) {
    next_ = pos;
    prev_ = pos->prev_;
    pos->prev_->next_ = this;
    pos->prev_ = this;
  }
  ListNode* next_ = this;
  ListNode* prev_ = this;
};

template <class T, ListNode T::*Node>
class List : Pinned {
 public:
  List() = default;
  ~List() { SRPT_ASSERT(empty()); }

  bool empty() const { return !head_.linked(); }
  usize size() const {
    usize n = 0;
    for (const ListNode* p = head_.next_; p != &head_; p = p->next_) n++;
    return n;
  }

  void push_back(T& elem) {
    ListNode& n = elem.*Node;
    if (SRPT_CHECK_FAILED(!n.linked())) return;
    n.insert_before(&head_);
  }
  void push_front(T& elem) {
    ListNode& n = elem.*Node;
    if (SRPT_CHECK_FAILED(!n.linked())) return;
    n.insert_before(head_.next_);
  }
  static void remove(T& elem) { (elem.*Node).unlink(); }

  T* front() { return empty() ? nullptr : owner(head_.next_); }
  T* pop_front() {
    T* e = front();
    if (e) remove(*e);
    return e;
  }

  class Iterator {
   public:
    T& operator*() const { return *owner(node_); }
    T* operator->() const { return owner(node_); }
    // Steps before the caller may unlink the current element.
    Iterator& operator++() {
      node_ = next_;
      next_ = node_->next_;
      return *this;
    }
    bool operator!=(const Iterator& o) const { return node_ != o.node_; }

   private:
    friend class List;
    explicit Iterator(ListNode* n) : node_(n), next_(n->next_) {}
    ListNode* node_;
    ListNode* next_;
  };
  // Iteration tolerates removal of the current element (and only that one).
  Iterator begin() { return Iterator(head_.next_); }
  Iterator end() { return Iterator(&head_); }

 private:
  static T* owner(ListNode* n) {
    // The offset of the member node inside T, computed on a fake, suitably
    // aligned, non-null address that is never dereferenced.
    T* const fake = reinterpret_cast<T*>(uptr{4096});
    const uptr offset = reinterpret_cast<uptr>(&(fake->*Node)) - uptr{4096};
    return reinterpret_cast<T*>(reinterpret_cast<uptr>(n) - offset);
  }
  ListNode head_;
};

}  // namespace srpt
