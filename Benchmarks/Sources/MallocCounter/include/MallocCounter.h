#ifndef MALLOC_COUNTER_H
#define MALLOC_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

/// Whether this build counts allocations (glibc only: elsewhere the counter stays at 0).
bool malloc_counter_is_active(void);

/// Calls to malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign so far,
/// on every thread of the process.
uint64_t malloc_counter_read(void);

#endif
