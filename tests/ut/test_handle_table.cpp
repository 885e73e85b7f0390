// The handle table behind every C handle: handles name nothing once removed (also after their slot
// is reused), lookups take no lock and stay correct while other threads add, replace and remove.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "runtime/handle_table.h"

namespace {

using aclcpu::HandleTable;

TEST(HandleTable, FindsWhatWasAddedAndNothingAfterRemove) {
  HandleTable<int> table(0xc1);
  void* a = table.Add(std::make_shared<int>(1));
  void* b = table.Add(std::make_shared<int>(2));
  ASSERT_NE(a, b);
  EXPECT_EQ(*table.Find(a), 1);
  EXPECT_EQ(*table.Find(b), 2);
  EXPECT_EQ(table.size(), 2u);
  std::shared_ptr<int> removed = table.Remove(a);
  ASSERT_TRUE(removed);
  EXPECT_EQ(*removed, 1);
  EXPECT_EQ(table.Find(a), nullptr);
  EXPECT_EQ(table.Remove(a), nullptr);  // twice: not live any more
  EXPECT_EQ(*table.Find(b), 2);
  EXPECT_EQ(table.size(), 1u);
}

TEST(HandleTable, ForeignAndMadeUpHandlesNameNothing) {
  HandleTable<int> table(0xc1);
  HandleTable<int> other(0xc2);
  void* mine = table.Add(std::make_shared<int>(7));
  EXPECT_EQ(other.Find(mine), nullptr);  // another table's tag
  EXPECT_EQ(table.Find(nullptr), nullptr);
  int local = 0;
  EXPECT_EQ(table.Find(&local), nullptr);  // a real pointer is never a handle
  const uintptr_t value = reinterpret_cast<uintptr_t>(mine);
  EXPECT_EQ(table.Find(reinterpret_cast<void*>(value + (uintptr_t{1} << 20))),
            nullptr);  // same slot, a free generation
  EXPECT_EQ(table.Find(reinterpret_cast<void*>(value + (uintptr_t{2} << 20))), nullptr);  // same slot, a later one
  EXPECT_EQ(table.Find(reinterpret_cast<void*>(value + 5)), nullptr);                     // a slot never made
  EXPECT_FALSE(table.Replace(reinterpret_cast<void*>(value + 5), std::make_shared<int>(1)));
}

// A removed handle's slot is reused only after 1024 others were freed, and under a new number: no
// handle ever names a later object.
TEST(HandleTable, HandlesAreNeverReusedAcrossManyAddsAndRemoves) {
  HandleTable<int> table(0xc1);
  std::set<void*> seen;
  std::vector<void*> removed;
  for (int i = 0; i < 20000; ++i) {
    void* handle = table.Add(std::make_shared<int>(i));
    EXPECT_TRUE(seen.insert(handle).second) << "handle " << handle << " came back at add " << i;
    ASSERT_EQ(*table.Remove(handle), i);
    removed.push_back(handle);
  }
  for (void* handle : removed) ASSERT_EQ(table.Find(handle), nullptr);
  EXPECT_EQ(table.size(), 0u);
}

TEST(HandleTable, ReplaceKeepsTheHandleAndHandsOutTheNewObject) {
  HandleTable<int> table(0xc1);
  void* handle = table.Add(std::make_shared<int>(1));
  std::shared_ptr<int> before = table.Find(handle);
  EXPECT_TRUE(table.Replace(handle, std::make_shared<int>(2)));
  EXPECT_EQ(*table.Find(handle), 2);
  EXPECT_EQ(*before, 1);  // what a reader already holds stays as it was
}

TEST(HandleTable, RemoveAllAndVisits) {
  HandleTable<int> table(0xc1);
  std::vector<void*> handles;
  for (int i = 0; i < 5; ++i) handles.push_back(table.Add(std::make_shared<int>(i)));
  table.Remove(handles[2]);
  int sum = 0;
  table.ForEach([&](const std::shared_ptr<int>& object) { sum += *object; });
  EXPECT_EQ(sum, 0 + 1 + 3 + 4);
  std::set<void*> visited;
  table.ForEachHandle(
      [&](const void* handle, const std::shared_ptr<int>&) { visited.insert(const_cast<void*>(handle)); });
  EXPECT_EQ(visited, (std::set<void*>{handles[0], handles[1], handles[3], handles[4]}));
  int removed = 0;
  table.RemoveAll([&](std::shared_ptr<int> object) { removed += object ? 1 : 0; });
  EXPECT_EQ(removed, 4);
  EXPECT_EQ(table.size(), 0u);
  for (void* handle : handles) EXPECT_EQ(table.Find(handle), nullptr);
}

// Readers look up a handle while writers replace its object and add and remove others: a reader
// sees one of the objects that handle held, never a torn or freed one. (ThreadSanitizer checks
// the order of the slot's accesses in its build.)
TEST(HandleTable, LookupsStayCorrectWhileOthersWrite) {
  HandleTable<int> table(0xc1);
  void* watched = table.Add(std::make_shared<int>(0));
  std::atomic<bool> stop{false};
  std::atomic<int64_t> found{0};
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&] {
      while (!stop.load()) {
        std::shared_ptr<int> object = table.Find(watched);
        ASSERT_TRUE(object);
        ASSERT_GE(*object, 0);
        ASSERT_LT(*object, 1000);
        found.fetch_add(1);
      }
    });
  }
  // The writers start once a reader has looked (on a busy host the readers may otherwise get no
  // turn before the writers are done).
  auto await_reader = [&] {
    while (found.load() == 0) std::this_thread::yield();
  };
  threads.emplace_back([&] {
    await_reader();
    for (int i = 1; i < 1000; ++i) ASSERT_TRUE(table.Replace(watched, std::make_shared<int>(i)));
  });
  threads.emplace_back([&] {
    await_reader();
    for (int i = 0; i < 3000; ++i) {
      void* handle = table.Add(std::make_shared<int>(i));
      ASSERT_EQ(*table.Find(handle), i);
      ASSERT_TRUE(table.Remove(handle));
      ASSERT_EQ(table.Find(handle), nullptr);
    }
  });
  threads[3].join();
  threads[2].join();
  stop = true;
  threads[1].join();
  threads[0].join();
  EXPECT_GT(found.load(), 0);
  EXPECT_EQ(*table.Find(watched), 999);
  ASSERT_TRUE(table.Remove(watched));
  EXPECT_EQ(table.size(), 0u);
}

// A borrowed object stays: Remove waits until it is returned, then the handle names nothing.
TEST(HandleTable, RemoveWaitsForABorrowedObject) {
  HandleTable<int> table(0xc2);
  void* handle = table.Add(std::make_shared<int>(7));
  HandleTable<int>::Borrowed borrowed = table.Borrow(handle);
  ASSERT_TRUE(borrowed);
  EXPECT_EQ(*borrowed, 7);
  EXPECT_FALSE(table.Borrow(reinterpret_cast<void*>(uintptr_t{0xc2} << 56)));  // a slot never made
  std::atomic<bool> removed{false};
  std::thread remover([&] { removed = table.Remove(handle) != nullptr; });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(removed.load());  // still lent
  EXPECT_EQ(*borrowed, 7);
  borrowed = HandleTable<int>::Borrowed();  // returned
  remover.join();
  EXPECT_TRUE(removed.load());
  EXPECT_FALSE(table.Borrow(handle));
  EXPECT_EQ(table.Find(handle), nullptr);
}

// Tables with thread slots must outlive their threads: these are never destroyed, as the
// library's own are. One per test (each its tag), so no test sees another's slots.
HandleTable<int>& ThreadSlotTable(uint64_t tag) {
  static auto* tables = new std::vector<std::unique_ptr<HandleTable<int>>>();  // reachable to the end
  tables->push_back(std::make_unique<HandleTable<int>>(tag, /*thread_slots=*/true));
  return *tables->back();
}

// With thread slots a thread hands out again only what it freed itself, after 1024 of its own:
// no handle comes back, and once the thread has freed 1024 the same few slots serve it (no new
// slot, so no lock).
TEST(HandleTableThreadSlots, HandlesAreNeverReusedAndSlotsComeBackToTheirThread) {
  HandleTable<int>& table = ThreadSlotTable(0xd1);
  std::set<void*> seen;
  std::set<uintptr_t> slots;
  for (int i = 0; i < 5000; ++i) {
    void* handle = table.Add(std::make_shared<int>(i));
    EXPECT_TRUE(seen.insert(handle).second) << "handle " << handle << " came back at add " << i;
    slots.insert(reinterpret_cast<uintptr_t>(handle) & ((uintptr_t{1} << 20) - 1));
    ASSERT_EQ(*table.Remove(handle), i);
    ASSERT_EQ(table.Find(handle), nullptr);
  }
  EXPECT_EQ(slots.size(), 1024u);  // reused once 1024 wait: 1023 waiting while one is in use
  EXPECT_EQ(table.size(), 0u);
}

// A thread's freed slots go back to the table when it ends: another thread is handed one of them
// first, not a new slot.
TEST(HandleTableThreadSlots, AnEndedThreadsSlotsGoBackToTheTable) {
  HandleTable<int>& table = ThreadSlotTable(0xd2);
  std::set<uintptr_t> first_slots;
  std::thread([&] {
    for (int i = 0; i < 1500; ++i) {
      void* handle = table.Add(std::make_shared<int>(i));
      first_slots.insert(reinterpret_cast<uintptr_t>(handle) & ((uintptr_t{1} << 20) - 1));
      table.Remove(handle);
    }
  }).join();
  ASSERT_EQ(first_slots.size(), 1024u);
  uintptr_t second_slot = 0;
  std::thread([&] {
    void* handle = table.Add(std::make_shared<int>(1));
    second_slot = reinterpret_cast<uintptr_t>(handle) & ((uintptr_t{1} << 20) - 1);
    table.Remove(handle);
  }).join();
  EXPECT_EQ(first_slots.count(second_slot), 1u) << "a new slot: " << second_slot;
}

// Threads add and remove at once, some removing what others added, and two threads remove every
// other handle at the same time: each handle is removed once, its object given to one of them.
TEST(HandleTableThreadSlots, ConcurrentAddsAndRemovesRemoveEachHandleOnce) {
  HandleTable<int>& table = ThreadSlotTable(0xd3);
  constexpr int kPerThread = 3000;
  std::vector<void*> handles(2 * kPerThread);
  std::vector<std::thread> adders;
  for (int t = 0; t < 2; ++t) {
    adders.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const int value = t * kPerThread + i;
        handles[value] = table.Add(std::make_shared<int>(value));
        void* own = table.Add(std::make_shared<int>(-1));  // one of its own, added and removed here
        ASSERT_EQ(*table.Remove(own), -1);
      }
    });
  }
  for (std::thread& adder : adders) adder.join();
  std::set<void*> distinct(handles.begin(), handles.end());
  ASSERT_EQ(distinct.size(), handles.size());
  std::atomic<int> removed{0};
  std::atomic<int64_t> sum{0};
  std::vector<std::thread> removers;
  for (int t = 0; t < 2; ++t) {
    removers.emplace_back([&] {
      for (void* handle : handles) {
        if (std::shared_ptr<int> object = table.Remove(handle)) {
          removed.fetch_add(1);
          sum.fetch_add(*object);
        }
      }
    });
  }
  for (std::thread& remover : removers) remover.join();
  EXPECT_EQ(removed.load(), 2 * kPerThread);
  EXPECT_EQ(sum.load(), int64_t{2 * kPerThread} * (2 * kPerThread - 1) / 2);
  EXPECT_EQ(table.size(), 0u);
}

// One thread only adds, another only removes what it added: the remover's freed slots reach the
// adder through the shared list (its ring hands the oldest on when full), so the slots stay few.
TEST(HandleTableThreadSlots, SlotsFreedOnOneThreadServeAnotherThatOnlyAdds) {
  HandleTable<int>& table = ThreadSlotTable(0xd4);
  constexpr int kHandles = 20000;
  std::vector<std::atomic<void*>> handles(kHandles);
  std::atomic<int> removed{0};
  std::set<uintptr_t> slots;
  std::thread adder([&] {
    for (int i = 0; i < kHandles; ++i) {
      while (i - removed.load() > 64) std::this_thread::yield();  // at most 64 live
      void* handle = table.Add(std::make_shared<int>(i));
      slots.insert(reinterpret_cast<uintptr_t>(handle) & ((uintptr_t{1} << 20) - 1));
      handles[i].store(handle);
    }
  });
  std::thread remover([&] {
    for (int i = 0; i < kHandles; ++i) {
      void* handle;
      while ((handle = handles[i].load()) == nullptr) std::this_thread::yield();
      ASSERT_EQ(*table.Remove(handle), i);
      removed.fetch_add(1);
    }
  });
  adder.join();
  remover.join();
  EXPECT_LT(slots.size(), 4096u) << "the remover's slots never came back";
  EXPECT_EQ(table.size(), 0u);
}

// An object destroyed after the thread's ring was closed (a thread_local made before the ring)
// still removes its handle: the slot goes to the shared list. (AddressSanitizer would report a
// ring used after its thread gave it back.)
TEST(HandleTableThreadSlots, ARemoveAfterTheThreadsRingClosedTakesTheSharedPath) {
  static HandleTable<int>* table = &ThreadSlotTable(0xd5);
  static std::atomic<int> removed{-1};
  struct RemovesAtThreadEnd {
    void* handle = nullptr;
    ~RemovesAtThreadEnd() {
      if (std::shared_ptr<int> object = table->Remove(handle)) removed = *object;
    }
  };
  std::thread([] {
    static thread_local RemovesAtThreadEnd late;          // made first, so destroyed after the ring closes
    table->Remove(table->Add(std::make_shared<int>(0)));  // the thread's ring, and its closer
    late.handle = table->Add(std::make_shared<int>(42));
  }).join();
  EXPECT_EQ(removed.load(), 42);
  EXPECT_EQ(table->size(), 0u);
}

}  // namespace
