// Measurement only: single-threaded stand-ins for what ICU's umutex.h needs (Debian's wasm32 libc++ has no threads).
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
