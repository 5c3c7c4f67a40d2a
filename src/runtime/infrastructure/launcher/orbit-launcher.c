/*
 * orbit-launcher: starts one worker's commands, speaking PROTOCOL.md on stdin/stdout.
 * It is a child subreaper, so whatever a command leaves behind (a setsid'd or double-forked
 * daemon) is reparented to it and killed when its run ends; when stdin closes (the worker
 * died) it kills every command and every adopted descendant and exits.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "json.h"

#define FLUSH_MS 500
#define SETTLE_MS 1000
#define MAX_LINE (8 * 1024 * 1024)
#define MAX_RUNS 4096

typedef struct {
  unsigned char *data;
  size_t len, limit;
  int truncated;
} tail;

typedef struct run {
  char *id;
  pid_t pid; /* also its process group; 0 before it started */
  int fd[2]; /* stdout, stderr; -1 once closed */
  tail out[2];
  int timed_out, killed, dirty, exited, finished;
  int code, sig;
  long long kill_grace_ms;
  long long deadline, flush_at, kill_at, settle_at, group_kill_at; /* 0: not set */
  struct run *next;
} run;

static run *runs;
static json_out outbox;
static int sigchld_pipe[2];
static pid_t self;

static long long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void on_sigchld(int sig) {
  (void)sig;
  int saved = errno;
  ssize_t ignored = write(sigchld_pipe[1], "x", 1);
  (void)ignored;
  errno = saved;
}

/* ---- answers ---- */

static void begin(const char *type, const char *id) {
  out_raw(&outbox, outbox.len ? "," : "[", 1);
  out_raw(&outbox, "{\"type\":", 8);
  out_str(&outbox, type);
  out_raw(&outbox, ",\"id\":", 6);
  if (id) out_str(&outbox, id);
  else out_raw(&outbox, "null", 4);
}

static void send_error(const char *id, const char *error) {
  begin("error", id);
  out_raw(&outbox, ",\"error\":", 9);
  out_str(&outbox, error);
  out_raw(&outbox, "}", 1);
}

/* How many bytes at the end begin a character that is not complete yet (0 to 3). */
static size_t incomplete_end(const unsigned char *s, size_t n) {
  for (size_t back = 1; back <= 3 && back <= n; back++) {
    unsigned char b = s[n - back];
    if (b >= 0x80 && b <= 0xBF) continue; /* a continuation byte: its lead is further back */
    size_t need = b >= 0xF0 && b <= 0xF4 ? 4 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xC2 && b <= 0xDF ? 2 : 0;
    return need > back ? back : 0;
  }
  return 0;
}

/* A live report (`whole`) leaves out a character still being written: the next report has it whole. */
static void snapshot(run *r, int whole) {
  for (int i = 0; i < 2; i++) {
    out_raw(&outbox, i ? ",\"stderr\":" : ",\"stdout\":", 10);
    size_t len = r->out[i].len;
    out_utf8(&outbox, r->out[i].data, whole ? len - incomplete_end(r->out[i].data, len) : len);
  }
  out_raw(&outbox, r->out[0].truncated || r->out[1].truncated ? ",\"truncated\":true" : ",\"truncated\":false",
          r->out[0].truncated || r->out[1].truncated ? 17 : 18);
}

static void flush_outbox(void) {
  if (!outbox.len) return;
  out_raw(&outbox, "]\n", 2);
  size_t off = 0;
  while (off < outbox.len) {
    ssize_t n = write(STDOUT_FILENO, outbox.data + off, outbox.len - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break; /* the worker is gone: stdin's end will tell */
    off += (size_t)n;
  }
  outbox.len = 0;
}

/* ---- signals by name, as Node names them ---- */

static const struct { int sig; const char *name; } SIGNALS[] = {
  {SIGHUP, "SIGHUP"}, {SIGINT, "SIGINT"}, {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"}, {SIGTRAP, "SIGTRAP"},
  {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"}, {SIGFPE, "SIGFPE"}, {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"},
  {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"}, {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"},
  {SIGSTKFLT, "SIGSTKFLT"}, {SIGCHLD, "SIGCHLD"}, {SIGCONT, "SIGCONT"}, {SIGSTOP, "SIGSTOP"}, {SIGTSTP, "SIGTSTP"},
  {SIGTTIN, "SIGTTIN"}, {SIGTTOU, "SIGTTOU"}, {SIGURG, "SIGURG"}, {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"},
  {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}, {SIGWINCH, "SIGWINCH"}, {SIGIO, "SIGIO"}, {SIGPWR, "SIGPWR"},
  {SIGSYS, "SIGSYS"},
};

static const char *signal_name(int sig) {
  for (size_t i = 0; i < sizeof SIGNALS / sizeof SIGNALS[0]; i++)
    if (SIGNALS[i].sig == sig) return SIGNALS[i].name;
  return NULL;
}

static const char *errno_name(int e) {
  switch (e) {
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case ENOTDIR: return "ENOTDIR";
    case EPERM: return "EPERM";
    case E2BIG: return "E2BIG";
    case ENOMEM: return "ENOMEM";
    case EAGAIN: return "EAGAIN";
    case EMFILE: return "EMFILE";
    case ENFILE: return "ENFILE";
    default: return strerror(e);
  }
}

/* ---- tails ---- */

static void tail_push(tail *t, const unsigned char *chunk, size_t n) {
  if (n >= t->limit) {
    if (n > t->limit || t->len) t->truncated = 1;
    memcpy(t->data, chunk + (n - t->limit), t->limit);
    t->len = t->limit;
    return;
  }
  if (t->len + n > t->limit) {
    size_t drop = t->len + n - t->limit;
    memmove(t->data, t->data + drop, t->len - drop);
    t->len -= drop;
    t->truncated = 1;
  }
  memcpy(t->data + t->len, chunk, n);
  t->len += n;
}

/* ---- process trees ---- */

static pid_t parent_of(pid_t pid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = 0;
  char *p = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
  int ppid;
  if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1) return -1;
  return ppid;
}

/* Whether the process's environment names this run (ORBIT_EXECUTION_ID=<id>), or any run (id NULL). */
static int environ_has_run(pid_t pid, const char *id) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/environ", pid);
  FILE *f = fopen(path, "re");
  if (!f) return 0;
  static char entry[65536];
  int found = 0;
  size_t n = 0;
  int c;
  while (!found && (c = fgetc(f)) != EOF) {
    if (c && n < sizeof entry - 1) { entry[n++] = (char)c; continue; }
    if (c) continue;
    entry[n] = 0;
    n = 0;
    if (strncmp(entry, "ORBIT_EXECUTION_ID=", 19) != 0) continue;
    if (!id) { for (run *r = runs; r; r = r->next) if (!r->finished && strcmp(r->id, entry + 19) == 0) found = 1; }
    else found = strcmp(entry + 19, id) == 0;
  }
  fclose(f);
  return found;
}

static int is_run_leader(pid_t pid) {
  for (run *r = runs; r; r = r->next)
    if (r->pid == pid && !r->exited) return 1;
  return 0;
}

/*
 * Whether the launcher has a child that is not a running command's shell: one read, so the
 * scan of /proc below costs nothing to the commands that leave nothing behind.
 */
static int has_adopted(void) {
  char path[64], buf[4096];
  snprintf(path, sizeof path, "/proc/%d/task/%d/children", self, self);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 1; /* a kernel without the file: scan */
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n < 0 || n == (ssize_t)sizeof buf - 1) return 1;
  buf[n] = 0;
  char *p = buf, *end;
  for (long pid; (pid = strtol(p, &end, 10)) > 0; p = end)
    if (!is_run_leader((pid_t)pid)) return 1;
  return 0;
}

/*
 * SIGKILLs the processes adopted from the run `id` (all adopted ones when id is NULL), and
 * everything below them. Adopted ones that name no live run are killed once no run is live.
 * Returns how many it signalled.
 */
static int kill_adopted(const char *id) {
  if (!has_adopted()) return 0;
  int live = 0;
  for (run *r = runs; r; r = r->next) live += !r->finished;
  size_t cap = 256, count = 0;
  pid_t *pids = malloc(cap * sizeof *pids), *ppids = malloc(cap * sizeof *ppids);
  char *doomed = NULL;
  DIR *d = opendir("/proc");
  struct dirent *e;
  while (d && pids && ppids && (e = readdir(d))) {
    pid_t pid = (pid_t)atoi(e->d_name);
    if (pid <= 0 || pid == self) continue;
    pid_t ppid = parent_of(pid);
    if (ppid < 0) continue;
    if (count == cap) {
      cap *= 2;
      pid_t *a = realloc(pids, cap * sizeof *pids), *b = a ? realloc(ppids, cap * sizeof *ppids) : NULL;
      if (!a || !b) { pids = a ? a : pids; break; }
      pids = a;
      ppids = b;
    }
    pids[count] = pid;
    ppids[count++] = ppid;
  }
  if (d) closedir(d);
  int signalled = 0;
  doomed = calloc(count ? count : 1, 1);
  if (pids && ppids && doomed) {
    for (size_t i = 0; i < count; i++) {
      if (ppids[i] != self || is_run_leader(pids[i])) continue;
      if (id == NULL) doomed[i] = 1;
      else if (environ_has_run(pids[i], id)) doomed[i] = 1;
      else if (live == 0 && !environ_has_run(pids[i], NULL)) doomed[i] = 1;
    }
    for (int changed = 1; changed;) {
      changed = 0;
      for (size_t i = 0; i < count; i++) {
        if (doomed[i]) continue;
        for (size_t j = 0; j < count; j++)
          if (doomed[j] && pids[j] == ppids[i]) { doomed[i] = 1; changed = 1; break; }
      }
    }
    for (size_t i = 0; i < count; i++)
      if (doomed[i] && kill(pids[i], SIGKILL) == 0) signalled++;
  }
  free(pids);
  free(ppids);
  free(doomed);
  return signalled;
}

/* ---- runs ---- */

static int kill_group(run *r, int sig) { return r->pid > 0 && kill(-r->pid, sig) == 0; }

static void free_run(run *r) {
  free(r->id);
  free(r->out[0].data);
  free(r->out[1].data);
  for (int i = 0; i < 2; i++) if (r->fd[i] >= 0) close(r->fd[i]);
  free(r);
}

static void finish(run *r, const char *error) {
  if (r->finished) return;
  r->finished = 1;
  begin("exit", r->id);
  out_raw(&outbox, ",\"code\":", 8);
  if (r->exited && !r->sig && !error) out_int(&outbox, r->code);
  else out_raw(&outbox, "null", 4);
  out_raw(&outbox, ",\"signal\":", 10);
  const char *name = r->exited && r->sig && !error ? signal_name(r->sig) : NULL;
  if (name) out_str(&outbox, name);
  else out_raw(&outbox, "null", 4);
  out_raw(&outbox, ",\"error\":", 9);
  if (error) out_str(&outbox, error);
  else out_raw(&outbox, "null", 4);
  out_raw(&outbox, r->timed_out ? ",\"timedOut\":true" : ",\"timedOut\":false", r->timed_out ? 16 : 17);
  out_raw(&outbox, r->killed ? ",\"killed\":true" : ",\"killed\":false", r->killed ? 14 : 15);
  snapshot(r, 0);
  out_raw(&outbox, "}", 1);
  for (int i = 0; i < 2; i++) if (r->fd[i] >= 0) { close(r->fd[i]); r->fd[i] = -1; }
  r->deadline = r->flush_at = r->kill_at = r->settle_at = 0;
  kill_adopted(r->id);
}

static void stop(run *r, int graceful) {
  if (r->finished || r->pid <= 0) return;
  if (!graceful) r->killed = 1;
  kill_group(r, SIGTERM);
  if (!r->kill_at) r->kill_at = now_ms() + r->kill_grace_ms;
}

typedef struct {
  char *id, *command, *cwd;
  char **env;
  size_t env_count;
  double timeout_ms, kill_grace_ms, output_limit;
  double uid, gid;
  int has_timeout, has_grace, has_limit, has_uid, has_gid;
} request;

static void free_request(request *q) {
  free(q->id);
  free(q->command);
  free(q->cwd);
  for (size_t i = 0; i < q->env_count; i++) free(q->env[i]);
  free(q->env);
}

static int parse_env(json_in *in, request *q) {
  if (!json_expect(in, '{')) return 0;
  if (json_peek(in, '}')) { in->p++; return 1; }
  for (;;) {
    size_t klen, vlen;
    char *k = json_string(in, &klen);
    if (!k) return 0;
    if (!json_expect(in, ':')) { free(k); return 0; }
    char *v = json_string(in, &vlen);
    if (!v) { free(k); in->error = "env values must be strings"; return 0; }
    int bad = klen == 0 || strlen(k) != klen || strchr(k, '=') || strlen(v) != vlen;
    char *entry = bad ? NULL : malloc(klen + vlen + 2);
    char **grown = entry ? realloc(q->env, (q->env_count + 2) * sizeof *q->env) : NULL;
    if (grown) {
      q->env = grown;
      sprintf(entry, "%s=%s", k, v);
      q->env[q->env_count++] = entry;
      q->env[q->env_count] = NULL;
    } else {
      free(entry);
    }
    free(k);
    free(v);
    if (!grown) { in->error = bad ? "env names and values must be non-empty names without '=' or NUL" : "out of memory"; return 0; }
    if (json_peek(in, ',')) { in->p++; continue; }
    return json_expect(in, '}');
  }
}

static int set_number(json_in *in, double *v, int *has) {
  if (json_peek(in, 'n')) return json_skip(in); /* null: as if absent */
  *has = json_number(in, v);
  return *has;
}

/* One request object; its id (when it got that far) is kept for the error answer. */
static int parse_request(json_in *in, request *q, char **type) {
  if (!json_expect(in, '{')) return 0;
  if (json_peek(in, '}')) { in->p++; return 1; }
  for (;;) {
    char *k = json_string(in, NULL);
    if (!k || !json_expect(in, ':')) { free(k); return 0; }
    int ok;
    if (!strcmp(k, "type") && !*type) ok = (*type = json_string(in, NULL)) != NULL;
    else if (!strcmp(k, "id") && !q->id) ok = (q->id = json_string(in, NULL)) != NULL;
    else if (!strcmp(k, "command") && !q->command) ok = (q->command = json_string(in, NULL)) != NULL;
    else if (!strcmp(k, "cwd") && !q->cwd) ok = (q->cwd = json_string(in, NULL)) != NULL;
    else if (!strcmp(k, "env") && !q->env) ok = parse_env(in, q);
    else if (!strcmp(k, "timeoutMs")) ok = set_number(in, &q->timeout_ms, &q->has_timeout);
    else if (!strcmp(k, "killGraceMs")) ok = set_number(in, &q->kill_grace_ms, &q->has_grace);
    else if (!strcmp(k, "outputLimitBytes")) ok = set_number(in, &q->output_limit, &q->has_limit);
    else if (!strcmp(k, "uid")) ok = set_number(in, &q->uid, &q->has_uid);
    else if (!strcmp(k, "gid")) ok = set_number(in, &q->gid, &q->has_gid);
    else ok = json_skip(in);
    free(k);
    if (!ok) return 0;
    if (json_peek(in, ',')) { in->p++; continue; }
    return json_expect(in, '}');
  }
}

static int valid_id(double v) { return v >= 0 && v <= 4294967294.0 && v == (double)(unsigned long long)v; }

/*
 * Starting a command as another user: posix_spawn cannot switch users, so this is what it does
 * inside, by hand: a child that shares the launcher's memory (no page tables to copy) while the
 * launcher waits until it has exec'd. The order is libuv's, so both launchers agree: the
 * directory is entered as the launcher, then the groups, the gid and the uid are dropped.
 */
struct spawn_as {
  const char *cwd;
  char **argv, **envp;
  int out, err;
  int has_uid;
  uid_t uid;
  int has_gid;
  gid_t gid;
  volatile int error; /* set by the child when it cannot exec */
};

static int spawn_as_child(void *arg) {
  struct spawn_as *a = arg;
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; sig++) sigaction(sig, &dfl, NULL); /* some are not ours to set: EINVAL */
  int null = open("/dev/null", O_RDONLY | O_CLOEXEC); /* only its copy on 0 is the command's */
  if (null < 0 || dup2(null, 0) < 0 || dup2(a->out, 1) < 0 || dup2(a->err, 2) < 0) goto fail;
  if (setsid() < 0 || chdir(a->cwd) < 0) goto fail;
  /* raw system calls: glibc's set*id would coordinate with threads this child does not have */
  if (a->has_uid && syscall(SYS_setgroups, 0, NULL) < 0 && errno != EPERM) goto fail;
  if (a->has_gid && syscall(SYS_setresgid, a->gid, a->gid, a->gid) < 0) goto fail;
  if (a->has_uid && syscall(SYS_setresuid, a->uid, a->uid, a->uid) < 0) goto fail;
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  execve("/bin/sh", a->argv, a->envp);
fail:
  a->error = errno ? errno : EINVAL;
  _exit(127);
}

static int spawn_as(pid_t *pid, struct spawn_as *a) {
  static char stack[64 * 1024] __attribute__((aligned(16)));
  sigset_t all, old;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old); /* no handler of the launcher's may run on the child's side */
  pid_t child = clone(spawn_as_child, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, a);
  int err = child < 0 ? errno : a->error;
  sigprocmask(SIG_SETMASK, &old, NULL);
  if (child > 0 && err) waitpid(child, NULL, 0);
  if (!err) *pid = child;
  return err;
}

static run *find_run(const char *id) {
  for (run *r = runs; r; r = r->next)
    if (!r->finished && strcmp(r->id, id) == 0) return r;
  return NULL;
}

static void start(request *q) {
  char problem[256] = "";
  if (!q->command) strcat(problem, "command is required; ");
  if (!q->cwd) strcat(problem, "cwd is required; ");
  if (!q->has_timeout || q->timeout_ms < 0) strcat(problem, "timeoutMs must be a number >= 0; ");
  if (!q->has_grace || q->kill_grace_ms < 0) strcat(problem, "killGraceMs must be a number >= 0; ");
  if (!q->has_limit || q->output_limit < 1 || q->output_limit > 1024.0 * 1024 * 1024)
    strcat(problem, "outputLimitBytes must be a number from 1 to 1 GiB; ");
  if (q->has_uid && !valid_id(q->uid)) strcat(problem, "uid must be an integer from 0 to 4294967294; ");
  if (q->has_gid && !valid_id(q->gid)) strcat(problem, "gid must be an integer from 0 to 4294967294; ");
  if (q->command && strlen(q->command) == 0) strcat(problem, "command is empty; ");
  if (find_run(q->id)) strcat(problem, "a run with this id is still running; ");
  if (problem[0]) {
    problem[strlen(problem) - 2] = 0;
    send_error(q->id, problem);
    return;
  }
  run *r = calloc(1, sizeof *r);
  if (!r) { send_error(q->id, "out of memory"); return; }
  r->id = q->id;
  q->id = NULL;
  r->fd[0] = r->fd[1] = -1;
  r->kill_grace_ms = (long long)q->kill_grace_ms;
  for (int i = 0; i < 2; i++) {
    r->out[i].limit = (size_t)q->output_limit;
    r->out[i].data = malloc(r->out[i].limit);
  }
  r->next = runs;
  runs = r;
  if (!r->out[0].data || !r->out[1].data) { finish(r, "out of memory"); return; }

  int p[2][2] = {{-1, -1}, {-1, -1}};
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&attr);
  int err = 0;
  if (pipe2(p[0], O_CLOEXEC) || pipe2(p[1], O_CLOEXEC)) err = errno;
  if (!err) {
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, p[0][1], 1);
    posix_spawn_file_actions_adddup2(&fa, p[1][1], 2);
    posix_spawn_file_actions_addchdir_np(&fa, q->cwd);
    sigset_t none, all;
    sigemptyset(&none);
    /*
     * The launcher's ignored signals are not the command's. Every bit, not sigfillset: that
     * leaves out glibc's two internal signals (32 and 33), which its posix_spawn then sets to
     * SIG_IGN in the child, and an ignored signal stays ignored across exec.
     */
    memset(&all, 0xff, sizeof all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                        POSIX_SPAWN_USEVFORK);
    char *argv[] = {"/bin/sh", "-c", q->command, NULL};
    char *empty[] = {NULL};
    char **envp = q->env ? q->env : empty;
    pid_t pid = 0;
    if (q->has_uid || q->has_gid) {
      struct spawn_as as = {q->cwd, argv, envp, p[0][1], p[1][1], q->has_uid, (uid_t)q->uid, q->has_gid,
                            (gid_t)q->gid, 0};
      err = spawn_as(&pid, &as);
    } else {
      err = posix_spawn(&pid, "/bin/sh", &fa, &attr, argv, envp);
    }
    if (!err) r->pid = pid;
  }
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  for (int i = 0; i < 2; i++) if (p[i][1] >= 0) close(p[i][1]);
  if (err) {
    for (int i = 0; i < 2; i++) if (p[i][0] >= 0) close(p[i][0]);
    char message[128];
    /* Node emits these as the child's 'error' and throws the others, worded without the file */
    int emitted = err == EACCES || err == EAGAIN || err == EMFILE || err == ENFILE || err == ENOENT;
    snprintf(message, sizeof message, emitted ? "spawn /bin/sh %s" : "spawn %s", errno_name(err));
    finish(r, message);
    return;
  }
  for (int i = 0; i < 2; i++) {
    r->fd[i] = p[i][0];
    fcntl(r->fd[i], F_SETFL, O_NONBLOCK);
  }
  begin("started", r->id);
  out_raw(&outbox, ",\"pgid\":", 8);
  out_int(&outbox, r->pid);
  out_raw(&outbox, "}", 1);
  r->deadline = now_ms() + (long long)q->timeout_ms;
}

static void handle_message(json_in *in) {
  request q = {0};
  char *type = NULL;
  const char *start_at = in->p;
  int ok = parse_request(in, &q, &type);
  if (!ok) {
    char message[160];
    snprintf(message, sizeof message, "malformed message at byte %ld: %s", (long)(in->p - start_at),
             in->error ? in->error : "unexpected input");
    send_error(q.id, message);
  } else if (!type) {
    send_error(q.id, "type is required");
  } else if (!q.id) {
    send_error(NULL, "id is required");
  } else if (!strcmp(type, "run")) {
    start(&q);
  } else if (!strcmp(type, "kill")) {
    run *r = find_run(q.id);
    if (r) stop(r, 0);
  } else {
    send_error(q.id, "unknown type (expected run or kill)");
  }
  free(type);
  free_request(&q);
}

/* A line is an array of request objects (a bare object is taken as one). */
static void handle_line(const char *line, size_t n) {
  json_in in = {line, line + n, NULL};
  json_ws(&in);
  if (in.p == in.end) return;
  if (json_peek(&in, '{')) {
    handle_message(&in);
    return;
  }
  if (json_expect(&in, '[')) {
    if (json_peek(&in, ']')) return;
    for (;;) {
      in.error = NULL;
      handle_message(&in);
      if (in.error) return; /* past a malformed element nothing can be trusted */
      if (json_peek(&in, ',')) { in.p++; continue; }
      if (!json_expect(&in, ']')) break;
      return;
    }
  }
  if (in.error) send_error(NULL, "malformed message: expected a JSON array of requests");
}

/* ---- the end ---- */

static void kill_everything_and_exit(void) {
  for (run *r = runs; r; r = r->next) kill_group(r, SIGKILL);
  long long give_up = now_ms() + 5000;
  for (;;) {
    kill_adopted(NULL);
    for (run *r = runs; r; r = r->next) kill_group(r, SIGKILL);
    pid_t pid;
    while ((pid = waitpid(-1, NULL, WNOHANG)) > 0) {}
    if (pid < 0 && errno == ECHILD) break;
    if (now_ms() > give_up) break;
    usleep(10000);
  }
  exit(0);
}

static void reap(void) {
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    for (run *r = runs; r; r = r->next) {
      if (r->pid != pid || r->exited) continue;
      r->exited = 1;
      if (WIFSIGNALED(status)) r->sig = WTERMSIG(status);
      else r->code = WEXITSTATUS(status);
      /* background processes the command left behind end with it, after the same grace */
      if (kill_group(r, SIGTERM)) r->group_kill_at = now_ms() + r->kill_grace_ms;
      r->settle_at = now_ms() + SETTLE_MS;
    }
  }
}

int main(void) {
  self = getpid();
  prctl(PR_SET_NAME, "orbit-launcher");
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  prctl(PR_SET_PDEATHSIG, 0);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGINT, SIG_IGN); /* Ctrl-C and SIGTERM are the worker's business; stdin's end is ours */
  signal(SIGTERM, SIG_IGN);
  if (pipe2(sigchld_pipe, O_CLOEXEC | O_NONBLOCK)) return 1;
  struct sigaction sa = {0};
  sa.sa_handler = on_sigchld;
  sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  sigaction(SIGCHLD, &sa, NULL);

  size_t in_cap = 65536, in_len = 0;
  char *in_buf = malloc(in_cap);
  int discarding = 0; /* inside an oversized line, until its newline */
  static struct pollfd fds[2 + 2 * MAX_RUNS];
  static run *owner[2 + 2 * MAX_RUNS];
  static unsigned char chunk[65536];
  if (!in_buf) return 1;

  for (;;) {
    long long now = now_ms();
    /* timers */
    for (run *r = runs; r; r = r->next) {
      if (r->deadline && now >= r->deadline) { r->deadline = 0; r->timed_out = 1; stop(r, 1); }
      if (r->kill_at && now >= r->kill_at) { r->kill_at = 0; kill_group(r, SIGKILL); }
      if (r->flush_at && now >= r->flush_at) {
        r->flush_at = 0;
        r->dirty = 0;
        begin("output", r->id);
        snapshot(r, 1);
        out_raw(&outbox, "}", 1);
      }
      if (r->exited && !r->finished && r->fd[0] < 0 && r->fd[1] < 0) finish(r, NULL);
      if (r->settle_at && now >= r->settle_at) finish(r, NULL); /* not waiting for an escaped descendant */
      if (r->group_kill_at && now >= r->group_kill_at) {
        r->group_kill_at = 0;
        kill_group(r, SIGKILL);
        kill_adopted(r->id);
      }
    }
    for (run **link = &runs; *link;) {
      run *r = *link;
      if (r->finished && !r->group_kill_at) { *link = r->next; free_run(r); }
      else link = &r->next;
    }
    flush_outbox();

    long long next = -1;
    for (run *r = runs; r; r = r->next) {
      long long t[] = {r->deadline, r->kill_at, r->flush_at, r->settle_at, r->group_kill_at};
      for (int i = 0; i < 5; i++) if (t[i] && (next < 0 || t[i] < next)) next = t[i];
    }
    int nfds = 0;
    fds[nfds].fd = STDIN_FILENO; fds[nfds++].events = POLLIN;
    fds[nfds].fd = sigchld_pipe[0]; fds[nfds++].events = POLLIN;
    for (run *r = runs; r && nfds < (int)(sizeof fds / sizeof fds[0]) - 1; r = r->next)
      for (int i = 0; i < 2; i++)
        if (r->fd[i] >= 0) { owner[nfds] = r; fds[nfds].fd = r->fd[i]; fds[nfds++].events = POLLIN; }
    int timeout = next < 0 ? -1 : (int)(next > now ? next - now : 0);
    if (poll(fds, (nfds_t)nfds, timeout) < 0) { if (errno == EINTR) continue; return 1; }

    if (fds[1].revents) {
      char drain[64];
      while (read(sigchld_pipe[0], drain, sizeof drain) > 0) {}
      reap();
    }
    for (int k = 2; k < nfds; k++) {
      if (!fds[k].revents) continue;
      run *r = owner[k];
      int i = r->fd[0] == fds[k].fd ? 0 : 1;
      ssize_t n = read(fds[k].fd, chunk, sizeof chunk);
      if (n > 0) {
        tail_push(&r->out[i], chunk, (size_t)n);
        if (!r->dirty) { r->dirty = 1; r->flush_at = now_ms() + FLUSH_MS; }
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        close(r->fd[i]);
        r->fd[i] = -1;
      }
    }
    if (fds[0].revents) {
      if (in_len == in_cap) {
        char *grown = in_cap < MAX_LINE ? realloc(in_buf, in_cap * 2) : NULL;
        if (grown) { in_buf = grown; in_cap *= 2; }
        else {
          if (!discarding) send_error(NULL, "message too long (over 8 MiB): discarded");
          discarding = 1;
          in_len = 0;
        }
      }
      ssize_t n = read(STDIN_FILENO, in_buf + in_len, in_cap - in_len);
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) kill_everything_and_exit();
      if (n > 0) {
        size_t scan = in_len;
        in_len += (size_t)n;
        size_t line_start = 0;
        for (size_t i = scan; i < in_len; i++) {
          if (in_buf[i] != '\n') continue;
          if (!discarding) handle_line(in_buf + line_start, i - line_start);
          discarding = 0;
          line_start = i + 1;
        }
        memmove(in_buf, in_buf + line_start, in_len - line_start);
        in_len -= line_start;
        if (discarding) in_len = 0;
      }
    }
  }
}
