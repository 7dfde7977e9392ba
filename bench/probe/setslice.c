// setslice NS TID...: EEVDF custom slice (sched_attr.sched_runtime, Linux >= 6.12) for SCHED_OTHER threads, nice kept.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/resource.h>
struct sched_attr { uint32_t size, sched_policy; uint64_t sched_flags; int32_t sched_nice; uint32_t sched_priority;
  uint64_t sched_runtime, sched_deadline, sched_period; uint32_t sched_util_min, sched_util_max; };
int main(int argc, char **argv) {
  uint64_t ns = strtoull(argv[1], 0, 10); int bad = 0;
  for (int i = 2; i < argc; i++) {
    pid_t tid = atoi(argv[i]);
    errno = 0; int nice = getpriority(PRIO_PROCESS, tid);
    if (errno) { perror("getpriority"); bad = 1; continue; }
    struct sched_attr a; memset(&a, 0, sizeof a); a.size = sizeof a; a.sched_policy = 0; a.sched_nice = nice; a.sched_runtime = ns;
    if (syscall(SYS_sched_setattr, tid, &a, 0)) { fprintf(stderr, "tid %d: %s\n", tid, strerror(errno)); bad = 1; }
  }
  return bad;
}
