/*
 * The floor of starting a command from native code: `/bin/sh -c true` started with posix_spawn
 * as the native launcher starts it (a session of its own, stdin on /dev/null, stdout and stderr
 * piped and read to their end, then waited for), CONCURRENCY at a time, TOTAL in all. Prints
 * {"perSecond": N, "cpuMs": {"worker": ms, "commands": ms}}: this process's own CPU per command,
 * and the commands'. The bench compiles it with the system's C compiler for each run.
 *
 *   spawn-reference TOTAL CONCURRENCY
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

typedef struct {
  pid_t pid; /* 0: a free slot */
  int fd[2]; /* stdout, stderr; -1 once at their end */
} slot;

static double ms_of(struct timeval t) { return t.tv_sec * 1000.0 + t.tv_usec / 1000.0; }

static double cpu_ms(int who) {
  struct rusage usage;
  getrusage(who, &usage);
  return ms_of(usage.ru_utime) + ms_of(usage.ru_stime);
}

static void start(slot *s) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) { perror("pipe2"); exit(1); }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID);
  char *argv[] = {"/bin/sh", "-c", "true", NULL};
  int failed = posix_spawn(&s->pid, "/bin/sh", &actions, &attributes, argv, environ);
  if (failed) { errno = failed; perror("posix_spawn"); exit(1); }
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(out[1]);
  close(err[1]);
  s->fd[0] = out[0];
  s->fd[1] = err[0];
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  fcntl(err[0], F_SETFL, O_NONBLOCK);
}

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: %s TOTAL CONCURRENCY\n", argv[0]); return 2; }
  int total = atoi(argv[1]), concurrency = atoi(argv[2]);
  if (total < 1 || concurrency < 1) { fprintf(stderr, "TOTAL and CONCURRENCY must be positive\n"); return 2; }
  slot *slots = calloc((size_t)concurrency, sizeof *slots);
  struct pollfd *fds = calloc((size_t)concurrency * 2, sizeof *fds);
  slot **owner = calloc((size_t)concurrency * 2, sizeof *owner);
  if (!slots || !fds || !owner) return 1;
  char buffer[65536];
  int started = 0, finished = 0;
  double own = cpu_ms(RUSAGE_SELF), reaped = cpu_ms(RUSAGE_CHILDREN);
  struct timespec begin, end;
  clock_gettime(CLOCK_MONOTONIC, &begin);
  while (finished < total) {
    for (int i = 0; i < concurrency && started < total; i++)
      if (!slots[i].pid) { start(&slots[i]); started++; }
    int n = 0;
    for (int i = 0; i < concurrency; i++)
      for (int k = 0; k < 2; k++)
        if (slots[i].pid && slots[i].fd[k] >= 0) {
          fds[n] = (struct pollfd){.fd = slots[i].fd[k], .events = POLLIN};
          owner[n++] = &slots[i];
        }
    if (poll(fds, (nfds_t)n, -1) < 0) { if (errno == EINTR) continue; perror("poll"); return 1; }
    for (int j = 0; j < n; j++) {
      if (!fds[j].revents) continue;
      slot *s = owner[j];
      int k = s->fd[0] == fds[j].fd ? 0 : 1;
      ssize_t got = read(s->fd[k], buffer, sizeof buffer);
      if (got > 0 || (got < 0 && (errno == EAGAIN || errno == EINTR))) continue;
      close(s->fd[k]);
      s->fd[k] = -1;
      if (s->fd[0] < 0 && s->fd[1] < 0) {
        /* both pipes ended: the shell has exited or is about to */
        waitpid(s->pid, NULL, 0);
        s->pid = 0;
        finished++;
      }
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  double seconds = (double)(end.tv_sec - begin.tv_sec) + (double)(end.tv_nsec - begin.tv_nsec) / 1e9;
  printf("{\"perSecond\": %.3f, \"cpuMs\": {\"worker\": %.5f, \"commands\": %.5f}}\n", total / seconds,
         (cpu_ms(RUSAGE_SELF) - own) / total, (cpu_ms(RUSAGE_CHILDREN) - reaped) / total);
  return 0;
}
