// Preloaded under valgrind by small_call_profile.sh: Debian's libhwy.so 1.0.3 measures its timer's
// resolution when it loads, with rdtscp, an instruction valgrind 3.19 cannot run (it stops the
// process). This stands in for that one function; nothing of ours calls it.
#include <cstdint>

namespace hwy {
namespace platform {
uint64_t TimerResolution() { return 1; }
}  // namespace platform
}  // namespace hwy
