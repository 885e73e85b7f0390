// A callable kept inside the object, never on the heap: what an executor holds of an operator's
// launch (its tiling and plan), so that creating one allocates nothing. A callable larger than
// Capacity does not compile.
#ifndef ACLNN_CPU_NNOPBASE_INLINE_FUNCTION_H_
#define ACLNN_CPU_NNOPBASE_INLINE_FUNCTION_H_

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace aclcpu {

template <typename Signature, size_t Capacity>
class InlineFunction;

template <typename R, typename... Args, size_t Capacity>
class InlineFunction<R(Args...), Capacity> {
 public:
  // User-provided: a value-initialized InlineFunction leaves its storage unset (nothing reads it
  // before Emplace) rather than zeroing Capacity bytes.
  InlineFunction() {}  // NOLINT(modernize-use-equals-default)

  // Replaces the callable with a Stored made in place from args (no copy of it afterwards);
  // returns it, for the caller to finish in place.
  template <typename Stored, typename... CtorArgs>
  Stored& Emplace(CtorArgs&&... args) {
    static_assert(sizeof(Stored) <= Capacity, "the callable is larger than the InlineFunction's capacity");
    static_assert(alignof(Stored) <= alignof(std::max_align_t), "the callable is over-aligned");
    static_assert(std::is_nothrow_move_constructible<Stored>::value, "the callable must move without throwing");
    Reset();
    Stored* stored = new (storage_) Stored{std::forward<CtorArgs>(args)...};
    ops_ = &kOps<Stored>;
    return *stored;
  }

  InlineFunction(InlineFunction&& other) noexcept { MoveFrom(other); }
  InlineFunction& operator=(InlineFunction&& other) noexcept {
    if (this != &other) {
      Reset();
      MoveFrom(other);
    }
    return *this;
  }
  InlineFunction(const InlineFunction&) = delete;
  InlineFunction& operator=(const InlineFunction&) = delete;
  ~InlineFunction() { Reset(); }

  explicit operator bool() const { return ops_ != nullptr; }
  R operator()(Args... args) const { return ops_->call(storage_, std::forward<Args>(args)...); }

  // Whether the callable can be copied (CopyTo): it is copy-constructible (or there is none).
  bool Copyable() const { return ops_ == nullptr || ops_->copy_to != nullptr; }
  // Makes *to a copy of this one (for a Copyable one).
  void CopyTo(InlineFunction* to) const {
    to->Reset();
    if (ops_ == nullptr) return;
    ops_->copy_to(storage_, to->storage_);
    to->ops_ = ops_;
  }

 private:
  using Copier = void (*)(const void* from, void* to);
  struct Ops {
    R (*call)(const void* storage, Args&&... args);
    void (*move_to)(void* from, void* to);  // move-constructs at `to`, destroys `from`
    Copier copy_to;                         // copy-constructs at `to`; null when Stored has no copy
    void (*destroy)(void* storage);
  };
  template <typename Stored>
  static constexpr Copier CopierFor() {
    if constexpr (std::is_copy_constructible<Stored>::value) {
      return [](const void* from, void* to) { new (to) Stored(*static_cast<const Stored*>(from)); };
    } else {
      return nullptr;
    }
  }
  template <typename Stored>
  static constexpr Ops kOps = {
      [](const void* storage, Args&&... args) -> R {
        return (*static_cast<Stored*>(const_cast<void*>(storage)))(std::forward<Args>(args)...);
      },
      [](void* from, void* to) {
        new (to) Stored(std::move(*static_cast<Stored*>(from)));
        static_cast<Stored*>(from)->~Stored();
      },
      CopierFor<Stored>(), [](void* storage) { static_cast<Stored*>(storage)->~Stored(); }};

  void MoveFrom(InlineFunction& other) {
    if (other.ops_ == nullptr) return;
    other.ops_->move_to(other.storage_, storage_);
    ops_ = other.ops_;
    other.ops_ = nullptr;
  }
  void Reset() {
    if (ops_ != nullptr) ops_->destroy(storage_);
    ops_ = nullptr;
  }

  const Ops* ops_ = nullptr;
  alignas(std::max_align_t) unsigned char storage_[Capacity];
};

}  // namespace aclcpu

#endif  // ACLNN_CPU_NNOPBASE_INLINE_FUNCTION_H_
