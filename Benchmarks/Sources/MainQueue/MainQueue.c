// Services the main dispatch queue on the main thread (see MainQueue.h).

#include "MainQueue.h"

#if defined(__linux__)

#include <poll.h>
#include <stdint.h>
#include <unistd.h>

// libdispatch's hooks for a foreign run loop, exported by libdispatch.so and declared in its
// private headers only (`dispatch_runloop_handle_t` is an int, an eventfd, on Linux): the ones
// swift-corelibs-foundation's run loop uses to drain the main queue.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);

void main_queue_serve(void) {
    int handle = _dispatch_get_main_queue_handle_4CF();
    for (;;) {
        struct pollfd ready = { .fd = handle, .events = POLLIN, .revents = 0 };
        if (poll(&ready, 1, -1) < 0) continue;  // EINTR
        // Reset the eventfd before draining: a wake-up written during the drain is kept for
        // the next poll.
        uint64_t wakeups;
        (void)!read(handle, &wakeups, sizeof wakeups);
        _dispatch_main_queue_callback_4CF(0);
    }
}

#else

#include <dispatch/dispatch.h>

void main_queue_serve(void) {
    dispatch_main();
}

#endif
