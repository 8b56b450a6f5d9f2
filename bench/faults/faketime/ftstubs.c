/*
 * Preloaded after libfaketime 0.9.10 so that redis-server (jemalloc) can start under it.
 *
 * libfaketime initialises lazily inside the first clock_gettime(), which jemalloc makes from its
 * own initialisation while holding its lock. Two steps of that initialisation allocate, and an
 * allocation then waits forever on the lock its own thread holds:
 *  - dlsym() of symbols glibc 2.36 no longer exports (__time, __ftime, timer_settime@GLIBC_2.2,
 *    timer_gettime@GLIBC_2.2) builds an error message with malloc: supplied here, so the lookups succeed;
 *  - sem_open("/faketime_sem_<pid>") maps its semaphore with malloc: it fails here instead, which
 *    libfaketime tolerates (the semaphore only serves the `faketime` wrapper program).
 * Built by bench/faults/clock.ts with ftstubs.map; see there for the environment it runs in.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <stdarg.h>
#include <string.h>
#include <sys/timeb.h>
#include <time.h>

time_t __time(time_t *t) { return time(t); }
int __ftime(struct timeb *tp) { return ftime(tp); }

int ft_ts22(timer_t id, int flags, const struct itimerspec *next, struct itimerspec *old) { return timer_settime(id, flags, next, old); }
int ft_tg22(timer_t id, struct itimerspec *current) { return timer_gettime(id, current); }
__asm__(".symver ft_ts22,timer_settime@GLIBC_2.2");
__asm__(".symver ft_tg22,timer_gettime@GLIBC_2.2");

sem_t *sem_open(const char *name, int oflag, ...) {
  static sem_t *(*real)(const char *, int, ...);
  mode_t mode = 0;
  unsigned value = 0;
  if (strncmp(name, "/faketime_sem_", 14) == 0) {
    errno = ENOSYS;
    return SEM_FAILED;
  }
  if (oflag & O_CREAT) {
    va_list ap;
    va_start(ap, oflag);
    mode = va_arg(ap, mode_t);
    value = va_arg(ap, unsigned);
    va_end(ap);
  }
  if (!real) real = (sem_t *(*)(const char *, int, ...))dlsym(RTLD_NEXT, "sem_open");
  return real(name, oflag, mode, value);
}
