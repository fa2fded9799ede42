#ifndef MAIN_QUEUE_H
#define MAIN_QUEUE_H

/// Runs the main dispatch queue on the calling thread, which must be the main thread, and
/// never returns (the process ends with `exit`).
///
/// On Linux it waits on the main queue's eventfd and drains the queue, as CoreFoundation's run
/// loop does, instead of calling `dispatch_main()`: that ends the main thread with
/// `pthread_exit`, which valgrind does not survive. Elsewhere it is `dispatch_main()`.
void main_queue_serve(void) __attribute__((noreturn));

#endif
