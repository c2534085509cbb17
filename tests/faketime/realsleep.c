/* With FAKETIME_DONT_FAKE_MONOTONIC=1 libfaketime still rewrites clock_nanosleep, and
 * CPython's time.sleep then fails with EINVAL: send it straight to the kernel, whose monotonic
 * clock is the one this mode leaves alone. */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int clock_nanosleep(clockid_t clock, int flags, const struct timespec *request,
                    struct timespec *remain) {
    return syscall(SYS_clock_nanosleep, clock, flags, request, remain) == -1 ? errno : 0;
}
