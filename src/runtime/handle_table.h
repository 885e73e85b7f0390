// Opaque handles for the objects the C API hands out. A handle is a number tagged into a
// non-canonical address: it never equals a real pointer and faults at once if anyone dereferences
// it. Looking a handle up takes no lock (every call looks up several). Writers (Add, Remove,
// Replace) claim a slot alone; the free list and new slots are behind a mutex -- except in a table
// made with thread slots, where each thread keeps the slots it frees in a ring of its own, so that
// a thread that makes and releases objects call after call takes no lock.
//
// The number names a slot and that slot's generation. A freed slot is handed out again only after
// at least kReuseDistance - 1 other slots were freed after it (in its thread's ring or the shared
// list), each time with a new generation, so a destroyed handle keeps naming nothing: its number
// comes back only after 2^35 reuses of its slot, years of continuous calls.
#ifndef ACLNN_CPU_RUNTIME_HANDLE_TABLE_H_
#define ACLNN_CPU_RUNTIME_HANDLE_TABLE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <utility>
#include <vector>

namespace aclcpu {

template <typename T>
class HandleTable {
  struct Slot;

 public:
  // A live handle's object, lent for as long as the Borrowed exists: its slot counts it as a
  // reader, so no writer (Remove, Replace) takes the object meanwhile. For what uses an object only
  // within a call: no shared_ptr is copied. A thread must not remove or replace what it borrows.
  class Borrowed {
   public:
    Borrowed() = default;
    Borrowed(Borrowed&& other) noexcept : slot_(other.slot_) { other.slot_ = nullptr; }
    Borrowed& operator=(Borrowed&& other) noexcept {
      if (this != &other) {
        Return();
        slot_ = other.slot_;
        other.slot_ = nullptr;
      }
      return *this;
    }
    Borrowed(const Borrowed&) = delete;
    Borrowed& operator=(const Borrowed&) = delete;
    ~Borrowed() { Return(); }

    explicit operator bool() const { return slot_ != nullptr; }
    T& operator*() const { return *slot_->object; }
    T* operator->() const { return slot_->object.get(); }
    // A reference of one's own, for what must outlive the loan (work queued for later).
    std::shared_ptr<T> Share() const { return slot_->object; }

   private:
    friend class HandleTable;
    explicit Borrowed(const Slot* slot) : slot_(slot) {}
    void Return() {
      if (slot_ != nullptr) slot_->state.fetch_sub(1, std::memory_order_release);
      slot_ = nullptr;
    }
    const Slot* slot_ = nullptr;
  };

  // tag: a few bits that differ per table, so a stream handle is not an event handle.
  // thread_slots: each thread keeps the slots it frees (up to kRingSlots; when its ring is full,
  // the oldest 256 move to the shared list) and hands them out again itself while it holds
  // kReuseDistance. Only for a table that is never destroyed: a thread's ring names it, and goes
  // back to it when the thread ends.
  explicit HandleTable(uint64_t tag, bool thread_slots = false) : tag_(tag << 56), thread_slots_(thread_slots) {}
  ~HandleTable() {
    for (auto& chunk : chunks_) delete[] chunk.load();
  }
  HandleTable(const HandleTable&) = delete;
  HandleTable& operator=(const HandleTable&) = delete;

  // A new handle for object. Throws std::bad_alloc when every one of kMaxSlots slots is live or
  // waiting out the reuse distance.
  void* Add(std::shared_ptr<T> object) {
    uint32_t index;
    ThreadRing* ring = thread_slots_ ? ThisThreadsRing() : nullptr;
    if (ring != nullptr && ring->count >= kReuseDistance) {
      index = ring->Pop();
    } else {
      std::lock_guard<std::mutex> lock(mutex_);
      // Every slot made and none free in the table: this thread's own, nearer than the distance.
      const bool exhausted = slot_count_ == kMaxSlots && free_.count == 0;
      index = exhausted && ring != nullptr && ring->count > 0 ? ring->Pop() : TakeSlotLocked();
    }
    // The slot is this call's alone: free, so no handle names its generation and no writer claims it.
    Slot& slot = SlotAt(index);
    const uint64_t generation = GenerationOf(slot.state.load()) + 1;  // odd: live
    slot.object = std::move(object);
    slot.state.store(generation << kGenerationShift, std::memory_order_release);
    return HandleOf(generation, index);
  }

  // The object a live handle names, or null. Takes no lock.
  std::shared_ptr<T> Find(const void* handle) const {
    Borrowed borrowed = Borrow(handle);
    if (!borrowed) return nullptr;
    return borrowed.slot_->object;  // while counted as a reader, no writer touches it
  }

  // The object a live handle names, lent (empty when the handle is not live). Takes no lock.
  Borrowed Borrow(const void* handle) const {
    uint32_t index;
    uint64_t generation;
    const Slot* slot = Decode(handle, &index, &generation);
    return slot == nullptr ? Borrowed() : BorrowSlot(*slot, generation);
  }

  // Removes the handle; returns its object (null when the handle was not live).
  std::shared_ptr<T> Remove(const void* handle) {
    uint32_t index = 0;
    uint64_t generation = 0;
    Slot* slot = Decode(handle, &index, &generation);
    ThreadRing* ring = thread_slots_ ? ThisThreadsRing() : nullptr;
    if (ring != nullptr) {  // room first: the slot, once claimed, goes into the ring without fail
      if (ring->count == kRingSlots) {
        std::lock_guard<std::mutex> lock(mutex_);
        while (ring->count > kReuseDistance) free_.Push(ring->Pop());  // the oldest 256
      }
      if (slot == nullptr || !BeginWrite(*slot, generation)) return nullptr;
      std::shared_ptr<T> object = Free(*slot, generation);
      ring->Push(index);
      return object;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (slot == nullptr || !BeginWrite(*slot, generation)) return nullptr;
    std::shared_ptr<T> object = Free(*slot, generation);
    free_.Push(index);
    return object;
  }

  // Puts object in place of the one handle names; false when the handle is not live.
  bool Replace(const void* handle, std::shared_ptr<T> object) {
    std::lock_guard<std::mutex> lock(mutex_);
    uint32_t index;
    uint64_t generation;
    Slot* slot = Decode(handle, &index, &generation);
    if (slot == nullptr || !BeginWrite(*slot, generation)) return false;
    std::swap(slot->object, object);
    slot->state.store(generation << kGenerationShift, std::memory_order_release);
    return true;  // the old object is released here, after the slot is open again
  }

  // Removes every handle; visit(object) for each.
  template <typename Visit>
  void RemoveAll(Visit visit) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (uint32_t index = 0; index < slot_count_; ++index) {
      Slot& slot = SlotAt(index);
      const uint64_t generation = GenerationOf(slot.state.load());
      if (!IsLive(generation) || !BeginWrite(slot, generation)) continue;
      std::shared_ptr<T> object = Free(slot, generation);
      free_.Push(index);
      visit(std::move(object));
    }
  }

  // visit(object) for every live handle.
  template <typename Visit>
  void ForEach(Visit visit) const {
    ForEachHandle([&](const void*, const std::shared_ptr<T>& object) { visit(object); });
  }

  // visit(handle, object) for every live handle, each lent while visited.
  template <typename Visit>
  void ForEachHandle(Visit visit) const {
    std::lock_guard<std::mutex> lock(mutex_);  // slot_count_
    for (uint32_t index = 0; index < slot_count_; ++index) {
      const Slot& slot = SlotAt(index);
      const uint64_t generation = GenerationOf(slot.state.load());
      if (!IsLive(generation)) continue;
      Borrowed borrowed = BorrowSlot(slot, generation);
      if (borrowed) visit(HandleOf(generation, index), slot.object);
    }
  }

  // How many handles are live (a count of the slots, for the rare caller).
  size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);  // slot_count_
    size_t live = 0;
    for (uint32_t index = 0; index < slot_count_; ++index)
      live += IsLive(GenerationOf(SlotAt(index).state.load())) ? 1 : 0;
    return live;
  }

 private:
  // A slot's state: its generation (odd while a handle is live there), a writer's bit, and how
  // many readers are copying its object.
  static constexpr int kGenerationShift = 28;
  static constexpr uint64_t kWriting = uint64_t{1} << 27;
  static constexpr uint64_t kReaders = kWriting - 1;
  struct Slot {
    mutable std::atomic<uint64_t> state{0};  // readers count themselves in it
    std::shared_ptr<T> object;
  };

  // A handle's number: its slot's generation (36 bits) over the slot's index (20 bits).
  static constexpr int kIndexBits = 20;
  static constexpr uint32_t kChunkSlots = 1024;
  static constexpr uint32_t kMaxSlots = uint32_t{1} << kIndexBits;
  static constexpr uint32_t kReuseDistance = 1024;  // free slots waiting before one is reused
  static constexpr uint64_t kGenerationMask = (uint64_t{1} << (56 - kIndexBits)) - 1;

  static uint64_t GenerationOf(uint64_t state) { return (state >> kGenerationShift) & kGenerationMask; }
  static bool IsLive(uint64_t generation) { return (generation & 1) != 0; }

  static void Pause(int attempt) {
    if (attempt >= 64) std::this_thread::yield();  // the other side holds the slot for a few instructions
  }

  void* HandleOf(uint64_t generation, uint32_t index) const {
    return reinterpret_cast<void*>(static_cast<uintptr_t>(tag_ | (generation << kIndexBits) | index));
  }

  // The slot a handle of this table names (null for another table's, or a slot never made).
  Slot* Decode(const void* handle, uint32_t* index, uint64_t* generation) const {
    const uint64_t value = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle));
    if ((value & ~((uint64_t{1} << 56) - 1)) != tag_) return nullptr;
    *index = static_cast<uint32_t>(value & (kMaxSlots - 1));
    *generation = (value & ((uint64_t{1} << 56) - 1)) >> kIndexBits;
    if (!IsLive(*generation)) return nullptr;
    Slot* chunk = chunks_[*index / kChunkSlots].load(std::memory_order_acquire);
    return chunk == nullptr ? nullptr : &chunk[*index % kChunkSlots];
  }

  Slot& SlotAt(uint32_t index) const { return chunks_[index / kChunkSlots].load()[index % kChunkSlots]; }

  // Claims a live slot of this generation for a writer, alone: waits until its readers and any
  // other writer are done. False when the generation is no longer the slot's (another writer
  // removed it meanwhile).
  static bool BeginWrite(Slot& slot, uint64_t generation) {
    uint64_t state = slot.state.load(std::memory_order_acquire);
    for (int attempt = 0;; ++attempt) {
      if (GenerationOf(state) != generation) return false;
      if ((state & (kReaders | kWriting)) != 0) {
        Pause(attempt);
        state = slot.state.load(std::memory_order_acquire);
        continue;
      }
      if (slot.state.compare_exchange_weak(state, state | kWriting, std::memory_order_acquire)) return true;
    }
  }

  // Lends a slot's object while the slot holds this live generation (empty otherwise).
  static Borrowed BorrowSlot(const Slot& slot, uint64_t generation) {
    uint64_t state = slot.state.load(std::memory_order_acquire);
    for (int attempt = 0;; ++attempt) {
      if (GenerationOf(state) != generation) return Borrowed();
      if ((state & kWriting) != 0) {  // a writer is replacing or removing it: wait for the outcome
        Pause(attempt);
        state = slot.state.load(std::memory_order_acquire);
        continue;
      }
      if (slot.state.compare_exchange_weak(state, state + 1, std::memory_order_acquire)) return Borrowed(&slot);
    }
  }

  // With the slot claimed: takes its object and frees the slot under the next (dead) generation.
  std::shared_ptr<T> Free(Slot& slot, uint64_t generation) {
    std::shared_ptr<T> object = std::move(slot.object);
    slot.state.store(((generation + 1) & kGenerationMask) << kGenerationShift, std::memory_order_release);
    return object;
  }

  // Free slots, oldest first: a ring that only grows (adding and removing allocate nothing once it
  // is large enough for the most handles ever freed at once).
  struct FreeRing {
    std::vector<uint32_t> ring;
    size_t head = 0;
    size_t count = 0;

    void Push(uint32_t index) {
      if (count == ring.size()) {
        std::vector<uint32_t> larger(ring.empty() ? kReuseDistance * 2 : ring.size() * 2);
        for (size_t k = 0; k < count; ++k) larger[k] = ring[(head + k) % ring.size()];
        ring.swap(larger);
        head = 0;
      }
      ring[(head + count) % ring.size()] = index;
      ++count;
    }
    uint32_t Pop() {
      const uint32_t index = ring[head];
      head = (head + 1) % ring.size();
      --count;
      return index;
    }
  };

  // One thread's freed slots of one table with thread slots, oldest first. Trivially destructible,
  // so that it stays usable to the thread's very end: when the thread ends (RingCloser), its slots
  // go to the shared list and it is closed; a Remove after that (a thread_local or static object
  // destroyed later) takes the shared path.
  static constexpr uint32_t kRingSlots = kReuseDistance + 256;
  struct ThreadRing {
    const HandleTable* table;  // null: an unused entry
    bool closed;
    uint32_t head;
    uint32_t count;
    uint32_t slots[kRingSlots];

    void Push(uint32_t index) { slots[(head + count++) % kRingSlots] = index; }  // count < kRingSlots
    uint32_t Pop() {
      const uint32_t index = slots[head];
      head = (head + 1) % kRingSlots;
      --count;
      return index;
    }
  };
  static constexpr int kRingsPerType = 2;  // tables with thread slots of one object type, per thread

  struct RingCloser {
    ThreadRing* rings;
    ~RingCloser() {
      for (int k = 0; k < kRingsPerType; ++k) {
        ThreadRing& ring = rings[k];
        ring.closed = true;
        if (ring.table == nullptr) continue;
        HandleTable& table = const_cast<HandleTable&>(*ring.table);
        std::lock_guard<std::mutex> lock(table.mutex_);
        while (ring.count > 0) table.free_.Push(ring.Pop());
      }
    }
  };

  // This thread's ring for this table; null when the thread's rings are closed or every entry
  // serves another table (then the shared list serves).
  ThreadRing* ThisThreadsRing() {
    static thread_local ThreadRing rings[kRingsPerType];  // zeroed; nothing to destroy
    if (rings[0].closed) return nullptr;                  // the thread is ending (all close at once)
    for (ThreadRing& ring : rings) {
      if (ring.table == this) return &ring;
      if (ring.table == nullptr) {
        static thread_local RingCloser closer{rings};  // registered with the first ring taken
        (void)closer;
        ring.table = this;
        return &ring;
      }
    }
    return nullptr;
  }

  uint32_t TakeSlotLocked() {
    if (free_.count >= kReuseDistance || (slot_count_ == kMaxSlots && free_.count > 0)) return free_.Pop();
    if (slot_count_ == kMaxSlots) throw std::bad_alloc();
    const uint32_t index = slot_count_;
    std::atomic<Slot*>& chunk = chunks_[index / kChunkSlots];
    if (chunk.load() == nullptr) chunk.store(new Slot[kChunkSlots], std::memory_order_release);
    ++slot_count_;
    return index;
  }

  const uint64_t tag_;
  const bool thread_slots_;
  mutable std::mutex mutex_;  // the free list and new slots; writers other than thread slots' Remove
  std::atomic<Slot*> chunks_[kMaxSlots / kChunkSlots] = {};
  uint32_t slot_count_ = 0;  // slots made so far
  FreeRing free_;
};

}  // namespace aclcpu

#endif  // ACLNN_CPU_RUNTIME_HANDLE_TABLE_H_
