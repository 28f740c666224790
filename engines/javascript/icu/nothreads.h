/* engines/javascript/icu/nothreads.h: force-included into every ICU source (scripts/engines/icu.sh). Debian's wasm32
 * libc++ is built without threads, so <mutex> declares nothing, and ICU's umutex.h needs std::mutex,
 * std::unique_lock, std::lock_guard and std::condition_variable. The engine is single-threaded: no-op stand-ins. */
#pragma once
#ifdef __cplusplus
#include <mutex>
namespace std {
struct mutex { void lock() {} void unlock() {} bool try_lock() { return true; } };
template <class M> struct unique_lock { explicit unique_lock(M &m) : m_(&m) {} void lock() {} void unlock() {} M *m_; };
template <class M> struct lock_guard { explicit lock_guard(M &) {} };
struct condition_variable { void notify_all() {} void notify_one() {} template <class L> void wait(L &) {} };
}
#endif
