/* Unit tests of libprof, without the compiler plugin: units are built by hand
   (notes from pp_notes_encode, counters in static arrays, path tables) and
   registered the way the plugin's constructors register them.  Each scenario runs in a child process,
   so that it starts as a fresh process would: runs are counted once per process.  */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hash.h"
#include "notes.h"
#include "pathprof-abi.h"
#include "pathprof.h"
#include "profile.h"
#include "trace.h"
#include "unit.h"

#define NA 6
#define NB 5
#define NC 3
static uint64_t counters_a[NA];
static uint8_t coverage_b[NB];
static uint64_t counters_c[NC];
static struct __pathprof_unit unit_a, unit_b, unit_c;

static char scratch[1024];

/* ------------------------------------------------------------------------- */
/* Units.  */

/* Notes of one function ENTRY -> EXIT whose single edge has value 0.  */
static void
make_unit (struct __pathprof_unit *u, const char *name, uint32_t kind,
	   void *values, uint32_t nvalues)
{
  pp_block_notes blocks[2] = { { 0 } };
  pp_edge_notes edge = { 0, 1, 0, 0 };
  char *files[1] = { (char *) name };
  pp_function_notes f = {
    .asm_name = "f", .name = "f", .decl_line = 1, .nvalues = nvalues,
    .nblocks = 2, .blocks = blocks, .nedges = 1, .edges = &edge };
  pp_unit_notes n = {
    .mode = kind == PP_VALUES_U8 ? PP_MODE_BLOCK_COVER : PP_MODE_EDGE_COUNTS,
    .unit_name = (char *) name, .nfiles = 1, .files = files, .nfunctions = 1,
    .functions = &f };
  unsigned char *notes;
  size_t len;
  if (pp_notes_encode (&n, &notes, &len))
    abort ();
  *u = (struct __pathprof_unit) {
    .abi_version = PATHPROF_ABI_VERSION, .value_kind = kind,
    .checksum = pp_hash64 (notes, len, PP_HASH_SEED), .name = name,
    .notes = notes, .notes_len = (uint32_t) len, .nvalues = nvalues,
    .values = values };
}

static void
set_values (uint64_t a0, uint64_t c0)
{
  for (int i = 0; i < NA; i++)
    counters_a[i] = a0 + (uint64_t) i;
  for (int i = 0; i < NB; i++)
    coverage_b[i] = i % 2 == 0;
  for (int i = 0; i < NC; i++)
    counters_c[i] = c0 + (uint64_t) i;
}

/* The plugin's destructors call __pathprof_unit_exit; this stands for them in
   the processes that test the exit paths.  */
static bool dump_at_exit;

__attribute__ ((destructor)) static void
exit_units (void)
{
  if (!dump_at_exit)
    return;
  __pathprof_unit_exit (&unit_a);
  counters_c[1] += 5;		/* code run by a later destructor */
  __pathprof_unit_exit (&unit_b);
  __pathprof_unit_exit (&unit_c);
}

/* ------------------------------------------------------------------------- */
/* Files and processes.  */

static char *
scratch_path (const char *name)
{
  static char paths[8][1400];
  static int next;
  char *p = paths[next++ % 8];
  snprintf (p, sizeof paths[0], "%s/%s", scratch, name);
  return p;
}

static char *
use_profile (const char *name)
{
  char *path = scratch_path (name);
  setenv ("PATHPROF_FILE", path, 1);
  return path;
}

static unsigned char *
read_bytes (const char *path, size_t *len)
{
  unsigned char *buf = NULL;
  int fd = open (path, O_RDONLY);
  *len = 0;
  if (fd >= 0)
    {
      if (pp_read_all (fd, &buf, len))
	buf = NULL;
      close (fd);
    }
  return buf;
}

static bool
write_bytes (const char *path, const void *buf, size_t len)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  bool ok = fd >= 0 && pp_write_all (fd, buf, len) == 0;
  if (fd >= 0)
    close (fd);
  return ok;
}

static bool
exists (const char *path)
{
  return access (path, F_OK) == 0;
}

/* Reads a profile; on failure it says why and returns false.  */
static bool
read_profile (const char *path, pp_profile *p)
{
  char err[256];
  if (pp_profile_read_file (path, p, NULL, err, sizeof err) == 0)
    return true;
  printf ("note: %s: %s\n", path, err);
  return false;
}

static const pp_unit_data *
find (const pp_profile *p, const struct __pathprof_unit *u)
{
  return pp_profile_find (p, u->name, u->checksum);
}

static uint64_t
u64_value (const pp_profile *p, const struct __pathprof_unit *u, uint32_t i)
{
  const pp_unit_data *d = find (p, u);
  return d ? ((const uint64_t *) d->values)[i] : UINT64_MAX;
}

static uint64_t
runs_of (const pp_profile *p, const struct __pathprof_unit *u)
{
  const pp_unit_data *d = find (p, u);
  return d ? d->runs : UINT64_MAX;
}

/* stderr goes to a pipe while captured: a file would be subject to the file size
   limit of the write-failure test.  */
static int saved_stderr = -1, stderr_pipe = -1;

static void
capture_stderr (void)
{
  int fds[2];
  if (pipe (fds))
    abort ();
  saved_stderr = dup (STDERR_FILENO);
  dup2 (fds[1], STDERR_FILENO);
  close (fds[1]);
  stderr_pipe = fds[0];
}

/* Restores stderr and returns what was written to it (malloc'd, NUL-terminated).  */
static char *
captured_stderr (void)
{
  size_t len;
  dup2 (saved_stderr, STDERR_FILENO);
  close (saved_stderr);
  unsigned char *buf = NULL;
  if (pp_read_all (stderr_pipe, &buf, &len))
    len = 0;
  close (stderr_pipe);
  char *text = malloc (len + 1);
  if (len)
    memcpy (text, buf, len);
  text[len] = 0;
  free (buf);
  return text;
}

/* True if text is exactly one "pathprof: " line mentioning every given string.  */
static bool
one_message (const char *text, const char *a, const char *b, const char *c)
{
  const char *nl = strchr (text, '\n');
  bool ok = strncmp (text, "pathprof: ", 10) == 0 && nl && nl[1] == 0
	    && strstr (text, a) && (!b || strstr (text, b))
	    && (!c || strstr (text, c));
  if (!ok)
    printf ("note: unexpected stderr: '%s'\n", text);
  return ok;
}

/* Runs a scenario in a child process, which prints its own PASS/FAIL lines.  */
static void
in_child (const char *name, void (*scenario) (void))
{
  fflush (stdout);
  pid_t pid = fork ();
  if (pid == 0)
    {
      unit_failures = 0;
      scenario ();
      fflush (stdout);
      _exit (unit_exit_status ());
    }
  int status = 0;
  if (pid < 0 || waitpid (pid, &status, 0) != pid)
    unit_result (0, name, "fork or wait failed");
  else if (WIFSIGNALED (status))
    unit_result (0, name, "killed by signal %d", WTERMSIG (status));
  else if (WEXITSTATUS (status) != 0)
    unit_failures++;
}

/* Forks a process that runs body and exits with its status via _exit.  */
static pid_t
spawn (int (*body) (void *), void *arg)
{
  fflush (stdout);
  pid_t pid = fork ();
  if (pid == 0)
    _exit (body (arg));
  return pid;
}

static bool
wait_ok (pid_t pid)
{
  int status;
  return pid > 0 && waitpid (pid, &status, 0) == pid && WIFEXITED (status)
	 && WEXITSTATUS (status) == 0;
}

/* ------------------------------------------------------------------------- */
/* Scenarios.  */

static void
scenario_dump_exact (void)
{
  const char *path = use_profile ("exact.data");
  pp_profile p;
  set_values (1, UINT64_MAX - 10);
  capture_stderr ();
  int ret = pathprof_dump ();
  char *err = captured_stderr ();
  bool ok = ret == 0 && !*err && read_profile (path, &p);
  if (ok)
    {
      for (int i = 0; i < NA; i++)
	ok &= u64_value (&p, &unit_a, i) == 1 + (uint64_t) i;
      for (int i = 0; i < NC; i++)
	ok &= u64_value (&p, &unit_c, i) == UINT64_MAX - 10 + (uint64_t) i;
      const pp_unit_data *b = find (&p, &unit_b);
      ok &= b && b->value_kind == PP_VALUES_U8 && b->nvalues == NB;
      for (int i = 0; ok && i < NB; i++)
	ok &= ((uint8_t *) b->values)[i] == (i % 2 == 0);
      ok &= runs_of (&p, &unit_a) == 1 && runs_of (&p, &unit_b) == 1
	    && runs_of (&p, &unit_c) == 1 && p.nunits == 3;
      pp_profile_free (&p);
    }
  unit_result (ok, "runtime: dump then read back gives exact values, silently",
	       "stderr '%s'", err);
  free (err);

  ok = counters_a[0] == 0 && counters_c[2] == 0 && coverage_b[0] == 0;
  counters_a[0] = 10;
  coverage_b[1] = 1;
  counters_c[2] = 9;		/* saturates in the file */
  ok &= pathprof_dump () == 0 && read_profile (path, &p);
  if (ok)
    {
      const uint8_t *b = find (&p, &unit_b)->values;
      ok = u64_value (&p, &unit_a, 0) == 11 && u64_value (&p, &unit_a, 5) == 6
	   && u64_value (&p, &unit_c, 2) == UINT64_MAX
	   && b[0] == 1 && b[1] == 1 && b[2] == 1 && b[3] == 0
	   && runs_of (&p, &unit_a) == 1;
      pp_profile_free (&p);
    }
  unit_result (ok, "runtime: a dump resets, the next adds only new counts "
	       "(runs once per process)", "wrong totals");
}


/* The merge writes FILE.tmp and renames it: one left by a process killed
   while writing it is replaced, none is left behind, and the profile keeps
   its permissions (fchmod runs only when the umask gave others).  */
static void
scenario_temporary_file (void)
{
  const char *path = use_profile ("tmp.data");
  char tmp[1100];
  snprintf (tmp, sizeof tmp, "%s.tmp", path);
  set_values (1, 2);
  bool ok = pathprof_dump () == 0 && chmod (path, 0604) == 0
	    && write_bytes (tmp, "garbage", 7);
  set_values (1, 2);
  capture_stderr ();
  int ret = pathprof_dump ();
  char *err = captured_stderr ();
  struct stat st;
  pp_profile p;
  ok &= ret == 0 && !*err && !exists (tmp) && stat (path, &st) == 0
	&& (st.st_mode & 07777) == 0604 && read_profile (path, &p);
  if (ok)
    {
      ok = u64_value (&p, &unit_a, 0) == 2 && u64_value (&p, &unit_c, 0) == 4;
      pp_profile_free (&p);
    }
  unit_result (ok, "runtime: a leftover FILE.tmp is replaced, none is left, "
	       "permissions are kept", "stderr '%s'", err);
  free (err);
}
static int
concurrent_dumper (void *arg)
{
  (void) arg;
  for (int round = 0; round < 50; round++)
    {
      for (int i = 0; i < NA; i++)
	counters_a[i] += (uint64_t) i + 1;
      coverage_b[round % NB] = 1;
      counters_c[0]++;
      if (pathprof_dump () != 0)
	return 1;
    }
  return 0;
}

static void
scenario_concurrent (void)
{
  const char *path = use_profile ("concurrent.data");
  pid_t pids[8];
  bool ok = true;
  set_values (1000, 1000);	/* the children must not see these */
  for (int i = 0; i < 8; i++)
    pids[i] = spawn (concurrent_dumper, NULL);
  for (int i = 0; i < 8; i++)
    ok &= wait_ok (pids[i]);
  pp_profile p;
  ok = ok && read_profile (path, &p);
  if (ok)
    {
      for (int i = 0; i < NA; i++)
	ok &= u64_value (&p, &unit_a, i) == 8 * 50 * ((uint64_t) i + 1);
      ok &= u64_value (&p, &unit_c, 0) == 400 && u64_value (&p, &unit_c, 1) == 0
	    && runs_of (&p, &unit_a) == 8 && runs_of (&p, &unit_b) == 8;
      const uint8_t *b = find (&p, &unit_b)->values;
      for (int i = 0; i < NB; i++)
	ok &= b[i] == 1;
      if (!ok)
	printf ("note: a[0]=%llu c[0]=%llu runs=%llu\n",
		(unsigned long long) u64_value (&p, &unit_a, 0),
		(unsigned long long) u64_value (&p, &unit_c, 0),
		(unsigned long long) runs_of (&p, &unit_a));
      pp_profile_free (&p);
    }
  unit_result (ok, "runtime: 8 processes x 50 dumps into one file lose nothing",
	       "wrong totals");
}

static int
forked_child (void *arg)
{
  (void) arg;
  for (int i = 0; i < NA; i++)
    if (counters_a[i] != 0)
      return 1;
  if (coverage_b[0] != 1)	/* coverage bytes are inherited */
    return 2;
  for (int i = 0; i < NA; i++)
    counters_a[i] += 3;
  return pathprof_dump () == 0 ? 0 : 3;
}

static void
scenario_fork (void)
{
  const char *path = use_profile ("fork.data");
  set_values (10, 0);
  bool ok = wait_ok (spawn (forked_child, NULL)) && pathprof_dump () == 0;
  pp_profile p;
  ok = ok && read_profile (path, &p);
  if (ok)
    {
      for (int i = 0; i < NA; i++)
	ok &= u64_value (&p, &unit_a, i) == 13 + (uint64_t) i;
      ok &= runs_of (&p, &unit_a) == 2;
      pp_profile_free (&p);
    }
  unit_result (ok, "runtime: a forked child starts from zero counters",
	       "parent + child totals wrong");
}

static void
scenario_pid_expansion (void)
{
  char name[64];
  setenv ("PATHPROF_FILE", scratch_path ("pid-%p-%%.data"), 1);
  snprintf (name, sizeof name, "pid-%ld-%%.data", (long) getpid ());
  set_values (1, 1);
  pp_profile p;
  bool ok = pathprof_dump () == 0 && read_profile (scratch_path (name), &p);
  if (ok)
    {
      ok = u64_value (&p, &unit_a, 0) == 1;
      pp_profile_free (&p);
    }
  unit_result (ok, "runtime: %p expands to the pid, %% to %", "no %s", name);
}

/* Writes a profile holding a unit named like unit_a but of another build.  */
static void
write_stale_profile (const char *path)
{
  static const unsigned char other_notes[] = "other build";
  uint64_t values[NA] = { 42 };
  pp_unit_data u = {
    .name = (char *) unit_a.name, .runs = 3, .notes_len = sizeof other_notes,
    .notes = (unsigned char *) other_notes, .value_kind = PP_VALUES_U64,
    .nvalues = NA, .values = values };
  u.checksum = pp_hash64 (other_notes, sizeof other_notes, PP_HASH_SEED);
  pp_profile p = { .nunits = 1, .cap = 1, .units = &u };
  unsigned char *buf;
  size_t len;
  if (pp_profile_encode (&p, &buf, &len) || !write_bytes (path, buf, len))
    abort ();
  free (buf);
}

/* Dumps into a file that must be refused: it must stay byte for byte, the
   profile must go to <file>.<pid>, and one message must say so.  */
static void
check_refused (const char *path, const char *test, const char *reason)
{
  size_t before_len, after_len;
  unsigned char *before = read_bytes (path, &before_len), *after;
  char fallback[1500];
  snprintf (fallback, sizeof fallback, "%s.%ld", path, (long) getpid ());
  set_values (5, 6);
  capture_stderr ();
  int ret = pathprof_dump ();
  char *err = captured_stderr ();
  after = read_bytes (path, &after_len);
  bool ok = ret == 0 && before && after && before_len == after_len
	    && memcmp (before, after, before_len) == 0
	    && one_message (err, path, fallback, reason);
  pp_profile p;
  ok = ok && read_profile (fallback, &p);
  if (ok)
    {
      ok = u64_value (&p, &unit_a, 1) == 6 && runs_of (&p, &unit_a) == 1;
      pp_profile_free (&p);
    }
  /* Later dumps of this process go the same way and add up in <file>.<pid>.  */
  counters_a[1] = 1;
  capture_stderr ();
  ret = pathprof_dump ();
  free (captured_stderr ());
  ok = ok && ret == 0 && read_profile (fallback, &p);
  if (ok)
    {
      ok = u64_value (&p, &unit_a, 1) == 7 && runs_of (&p, &unit_a) == 1;
      pp_profile_free (&p);
    }
  unit_result (ok, test, "file changed, wrong fallback or message");
  free (before);
  free (after);
  free (err);
}

static void
scenario_stale (void)
{
  const char *path = use_profile ("stale.data");
  write_stale_profile (path);
  check_refused (path, "runtime: stale unit: file kept, profile in <file>.<pid>",
		 "stale");
}

/* A valid profile of these units (values from set_values (1, 1), one run), built
   without dumping so that this process's run is still to be counted.  */
static unsigned char *
valid_profile (size_t *len)
{
  struct __pathprof_unit *all[] = { &unit_a, &unit_b, &unit_c };
  pp_profile p = { 0 };
  unsigned char *buf;
  char err[256];
  set_values (1, 1);
  for (int i = 0; i < 3; i++)
    {
      const struct __pathprof_unit *u = all[i];
      pp_unit_data d = {
	.name = (char *) u->name, .checksum = u->checksum, .runs = 1,
	.notes_len = u->notes_len, .notes = (unsigned char *) u->notes,
	.value_kind = u->value_kind, .nvalues = u->nvalues, .values = u->values };
      if (pp_profile_add_unit (&p, &d, err, sizeof err))
	abort ();
    }
  if (pp_profile_encode (&p, &buf, len))
    abort ();
  pp_profile_free (&p);
  return buf;
}

static void
scenario_truncated (void)
{
  size_t len;
  unsigned char *buf = valid_profile (&len);
  const char *path = use_profile ("truncated.data");
  write_bytes (path, buf, len - 9);
  check_refused (path, "runtime: truncated file: kept, profile in <file>.<pid>",
		 "truncated at byte");
  free (buf);
}

static void
scenario_flipped (void)
{
  size_t len;
  unsigned char *buf = valid_profile (&len);
  const char *path = use_profile ("flipped.data");
  buf[len - 16] ^= 0x40;	/* in unit c's last counter */
  write_bytes (path, buf, len);
  check_refused (path, "runtime: flipped byte: kept, profile in <file>.<pid>",
		 "bad trailer checksum");
  free (buf);
}

/* The file's copy of one of my units' notes is damaged (the trailer, which
   leaves notes to their checksums, is intact): the run writes its own notes
   in their place, so the merged file is whole again, counts added.  Damaged
   notes of a unit that is not mine are refused (test-format).  */
static void
scenario_damaged_notes (void)
{
  size_t len;
  unsigned char *buf = valid_profile (&len);
  const char *path = use_profile ("damaged-notes.data");
  /* unit_a is first: its notes start after the header and its head.  */
  size_t notes_at = 16 + 4 + strlen (unit_a.name) + 8 + 8 + 4;
  buf[notes_at + unit_a.notes_len / 2] ^= 0x20;
  write_bytes (path, buf, len);
  pp_profile p;
  char err[256] = "";
  bool damaged = pp_profile_read_file (path, &p, NULL, err, sizeof err) != 0
		 && strstr (err, "do not match its checksum");
  set_values (5, 6);
  capture_stderr ();
  int ret = pathprof_dump ();
  char *msgs = captured_stderr ();
  bool ok = damaged && ret == 0 && !*msgs && read_profile (path, &p);
  if (ok)
    {
      ok = u64_value (&p, &unit_a, 0) == 6 && runs_of (&p, &unit_a) == 2;
      pp_profile_free (&p);
    }
  unit_result (ok, "runtime: damaged notes of my own unit are rewritten whole",
	       damaged ? "not merged" : "the damage was not seen");
  free (msgs);
  free (buf);
}

static void
scenario_foreign (void)
{
  const char *path = use_profile ("foreign.data");
  write_bytes (path, "#!/bin/sh\necho hello\n", 21);
  check_refused (path, "runtime: foreign file: kept, profile in <file>.<pid>",
		 "bad magic");
}

/* No file named like a temporary one may be left in the scratch directory.  */
static bool
no_temporary_files (void)
{
  DIR *d = opendir (scratch);
  bool clean = true;
  for (struct dirent *e; d && (e = readdir (d));)
    if (strstr (e->d_name, ".tmp."))
      {
	printf ("note: left behind: %s\n", e->d_name);
	clean = false;
      }
  if (d)
    closedir (d);
  return clean;
}

static void
scenario_write_failure (void)
{
  size_t before_len, after_len;
  unsigned char *before = valid_profile (&before_len), *after;
  const char *path = use_profile ("full.data"), *fresh;
  write_bytes (path, before, before_len);
  set_values (100, 200);

  struct rlimit old, small;
  getrlimit (RLIMIT_FSIZE, &old);
  small = old;
  small.rlim_cur = 64;
  signal (SIGXFSZ, SIG_IGN);
  setrlimit (RLIMIT_FSIZE, &small);
  capture_stderr ();
  int ret = pathprof_dump ();
  char *err = captured_stderr ();
  fresh = use_profile ("fresh.data");
  capture_stderr ();
  int fresh_ret = pathprof_dump ();
  char *fresh_err = captured_stderr ();
  setrlimit (RLIMIT_FSIZE, &old);

  after = read_bytes (path, &after_len);
  bool ok = ret == -1 && after_len == before_len
	    && memcmp (before, after, before_len) == 0
	    && one_message (err, path, strerror (EFBIG), NULL)
	    && fresh_ret == -1 && !exists (fresh)
	    && one_message (fresh_err, fresh, strerror (EFBIG), NULL)
	    && no_temporary_files ()
	    && counters_a[0] == 100 && counters_c[2] == 202 && coverage_b[0] == 1;
  unit_result (ok, "runtime: write failure: file intact, message, -1, counts "
	       "kept", "ret %d", ret);

  /* The counts kept are written by the next dump that succeeds.  */
  use_profile ("full.data");
  pp_profile p;
  ok = pathprof_dump () == 0 && read_profile (path, &p);
  if (ok)
    {
      ok = u64_value (&p, &unit_a, 0) == 101 && u64_value (&p, &unit_c, 2) == 205
	   && runs_of (&p, &unit_a) == 2;
      pp_profile_free (&p);
    }
  unit_result (ok, "runtime: counts kept after a failure are dumped later",
	       "wrong totals");
  free (before);
  free (after);
  free (err);
  free (fresh_err);
}

static void
scenario_read_only_directory (void)
{
  char dir[1100];
  snprintf (dir, sizeof dir, "%s/ro", scratch);
  mkdir (dir, 0755);
  /* Root ignores directory modes: run this child as nobody.  */
  if (geteuid () == 0
      && (chmod (scratch, 0711) || chown (dir, 65534, 65534) || setgid (65534)
	  || setuid (65534)))
    {
      printf ("note: read-only directory test skipped: cannot drop root\n");
      return;
    }
  char path[1200];
  snprintf (path, sizeof path, "%s/ro.data", dir);
  setenv ("PATHPROF_FILE", path, 1);
  set_values (1, 1);
  bool ok = pathprof_dump () == 0 && chmod (dir, 0555) == 0;
  size_t before_len, after_len;
  unsigned char *before = read_bytes (path, &before_len), *after;
  set_values (2, 2);
  capture_stderr ();
  int ret = pathprof_dump ();
  char *err = captured_stderr ();
  chmod (dir, 0755);
  after = read_bytes (path, &after_len);
  ok = ok && ret == -1 && before_len == after_len
       && memcmp (before, after, before_len) == 0
       && one_message (err, path, strerror (EACCES), NULL) && counters_a[0] == 2;
  unit_result (ok, "runtime: read-only directory: file intact, message, -1",
	       "ret %d", ret);
  unlink (path);
  free (before);
  free (after);
  free (err);
}

static int
exiting_child (void *arg)
{
  (void) arg;
  set_values (7, 70);
  dump_at_exit = true;
  exit (0);
}

static void
check_exit_profile (const char *path, const char *test)
{
  pp_profile p;
  bool ok = read_profile (path, &p);
  if (ok)
    {
      const uint8_t *b = find (&p, &unit_b)->values;
      ok = u64_value (&p, &unit_a, 0) == 7 && u64_value (&p, &unit_a, 5) == 12
	   && u64_value (&p, &unit_c, 0) == 70
	   && u64_value (&p, &unit_c, 1) == 71 + 5 && b[0] == 1 && b[1] == 0
	   && runs_of (&p, &unit_a) == 1 && runs_of (&p, &unit_c) == 1;
      pp_profile_free (&p);
    }
  unit_result (ok, test, "wrong or missing profile");
}

static void
scenario_exit (void)
{
  const char *path = use_profile ("exit.data");
  bool ok = wait_ok (spawn (exiting_child, NULL));
  if (!ok)
    unit_result (0, "runtime: exit() dumps through the unit exits", "child failed");
  else
    check_exit_profile (path, "runtime: exit() dumps through the unit exits "
			"(again for code run by later destructors)");
}

static void
scenario_return_from_main (void)
{
  const char *path = use_profile ("return.data");
  fflush (stdout);
  pid_t pid = fork ();
  if (pid == 0)
    {
      execl ("/proc/self/exe", "test-runtime", "--return-from-main", path,
	     (char *) NULL);
      _exit (127);
    }
  if (!wait_ok (pid))
    unit_result (0, "runtime: return from main dumps", "child failed");
  else
    check_exit_profile (path, "runtime: return from main dumps through the unit "
			"exits");
}

/* A unit that goes away (dlclose) is dumped and then no longer written.  */
static void
scenario_unit_exit_unregisters (void)
{
  const char *path = use_profile ("dlclose.data");
  static uint64_t counters_d[2];
  static struct __pathprof_unit unit_d;
  make_unit (&unit_d, "/test/plugin-d.c", PP_VALUES_U64, counters_d, 2);
  __pathprof_register_unit (&unit_d);
  set_values (1, 1);
  counters_d[0] = 4;
  __pathprof_unit_exit (&unit_d);
  counters_d[0] = 100;
  counters_a[0] = 1;
  pp_profile p;
  bool ok = pathprof_dump () == 0 && read_profile (path, &p);
  if (ok)
    {
      ok = u64_value (&p, &unit_d, 0) == 4 && runs_of (&p, &unit_d) == 1
	   && u64_value (&p, &unit_a, 0) == 2;
      pp_profile_free (&p);
    }
  unit_result (ok, "runtime: unit exit dumps everything, then forgets the unit",
	       "wrong totals");
}

static void
scenario_bad_units (void)
{
  static uint64_t values[2];
  static struct __pathprof_unit future, wrong_sum, future2;
  make_unit (&future, "/test/future.c", PP_VALUES_U64, values, 2);
  future.abi_version = PATHPROF_ABI_VERSION + 1;
  future2 = future;
  make_unit (&wrong_sum, "/test/wrong-sum.c", PP_VALUES_U64, values, 2);
  wrong_sum.checksum ^= 1;
  capture_stderr ();
  __pathprof_register_unit (&future);
  __pathprof_register_unit (&future2);
  char *abi_err = captured_stderr ();
  /* A checksum that does not match the notes (a broken object file) is not
     looked for at start (hashing every unit's notes was the largest fixed
     cost of a short run): the unit is profiled, and the reader names it.  */
  capture_stderr ();
  __pathprof_register_unit (&wrong_sum);
  char *sum_err = captured_stderr ();

  const char *path = use_profile ("bad-units.data");
  values[0] = 1;
  set_values (1, 1);
  pp_profile p;
  char err[256] = "";
  bool ok = one_message (abi_err, "ABI version", NULL, NULL) && !*sum_err
	    && pathprof_dump () == 0
	    && pp_profile_read_file (path, &p, NULL, err, sizeof err) != 0
	    && strstr (err, "/test/wrong-sum.c") && strstr (err, "checksum");
  if (!ok)
    printf ("note: %s\n", err);
  values[0] = values[1] = 0;
  __pathprof_unit_exit (&wrong_sum);	/* forgotten: later dumps stay readable */
  unit_result (ok, "runtime: units of another ABI are refused, once, with a "
	       "message; one whose notes do not match its checksum is named "
	       "by the reader", "wrong");
  free (abi_err);
  free (sum_err);
}

static void *
incrementer (void *arg)
{
  (void) arg;
  for (int i = 0; i < 2000000; i++)
    __atomic_fetch_add (&counters_a[0], 1, __ATOMIC_RELAXED);
  return NULL;
}

static void
scenario_threads (void)
{
  const char *path = use_profile ("threads.data");
  pthread_t t;
  pathprof_reset ();
  bool ok = pthread_create (&t, NULL, incrementer, NULL) == 0;
  for (int i = 0; ok && i < 100; i++)
    ok &= pathprof_dump () == 0;
  if (ok)
    pthread_join (t, NULL);
  ok = ok && pathprof_dump () == 0;
  pp_profile p;
  ok = ok && read_profile (path, &p);
  if (ok)
    {
      ok = u64_value (&p, &unit_a, 0) == 2000000 && counters_a[0] == 0;
      pp_profile_free (&p);
    }
  unit_result (ok, "runtime: increments during dumps are counted exactly once",
	       "wrong total");
}

static void
scenario_reset (void)
{
  const char *path = use_profile ("reset.data");
  set_values (3, 3);
  pathprof_reset ();
  bool ok = counters_a[2] == 0 && coverage_b[0] == 0 && counters_c[0] == 0;
  counters_a[2] = 1;
  pp_profile p;
  ok = ok && pathprof_dump () == 0 && read_profile (path, &p);
  if (ok)
    {
      ok = u64_value (&p, &unit_a, 2) == 1 && u64_value (&p, &unit_a, 0) == 0;
      pp_profile_free (&p);
    }
  unit_result (ok, "runtime: reset discards counters and coverage", "not reset");
}

/* ------------------------------------------------------------------------- */
/* Path tables (paths mode): functions whose path counts live in libprof's hash
   tables, unit_p's functions 0 (2^40 paths) and 1 (1000 paths).  */

static uint64_t counters_p[2];
static struct __pathprof_path_table tables_p[2];
static struct __pathprof_unit unit_p;
/* The unit's empty table, as the plugin makes it (pathprof-abi.h); table 1
   starts at 0, which libprof takes for none too.  */
static const uint64_t no_table_p[PATHPROF_PATH_HASH_NONE_WORDS] = {
  PATHPROF_PATH_HASH_NONE_SHIFT
};

static void
register_paths_unit (void)
{
  make_unit (&unit_p, "/test/unit-p.c", PP_VALUES_U64, counters_p, 2);
  tables_p[0] = (struct __pathprof_path_table) { .function = 0,
						 .npaths = (uint64_t) 1 << 40,
						 .table = (void *) no_table_p };
  tables_p[1] = (struct __pathprof_path_table) { .function = 1, .npaths = 1000 };
  unit_p.ntables = 2;
  unit_p.tables = tables_p;
  __pathprof_register_unit (&unit_p);
}

/* The count of (function, path) in unit_p of a profile: 0 when absent,
   UINT64_MAX without the unit.  */
static uint64_t
path_count (const pp_profile *p, uint32_t function, uint64_t path)
{
  const pp_unit_data *d = find (p, &unit_p);
  if (!d)
    return UINT64_MAX;
  pp_sparse_count key = { function, path, 0 };
  uint32_t lo = 0, hi = d->nsparse;
  while (lo < hi)
    {
      uint32_t mid = lo + (hi - lo) / 2;
      if (pp_sparse_before (&d->sparse[mid], &key))
	lo = mid + 1;
      else
	hi = mid;
    }
  return lo < d->nsparse && !pp_sparse_before (&key, &d->sparse[lo])
	 ? d->sparse[lo].count : 0;
}

static uint32_t
nsparse_of (const pp_profile *p)
{
  const pp_unit_data *d = find (p, &unit_p);
  return d ? d->nsparse : UINT32_MAX;
}

static void
scenario_paths_exact (void)
{
  const char *path = use_profile ("paths.data");
  register_paths_unit ();
  set_values (1, 1);
  counters_p[1] = 3;
  for (int i = 0; i < 5; i++)
    __pathprof_count_path (&tables_p[0], ((uint64_t) 1 << 40) - 1);
  __pathprof_count_path (&tables_p[0], 7);
  __pathprof_count_path (&tables_p[1], 999);
  __pathprof_count_path (&tables_p[1], 7);
  __pathprof_count_path (&tables_p[1], 1000);	/* not a path: ignored */
  __pathprof_count_path (&tables_p[0], (uint64_t) 1 << 40);
  __pathprof_count_path (&tables_p[0], UINT64_MAX);
  errno = 1234;
  __pathprof_count_path (&tables_p[1], 3);
  bool ok = errno == 1234;
  pp_profile p;
  ok = ok && pathprof_dump () == 0 && read_profile (path, &p);
  if (ok)
    {
      ok = nsparse_of (&p) == 5
	   && path_count (&p, 0, ((uint64_t) 1 << 40) - 1) == 5
	   && path_count (&p, 0, 7) == 1 && path_count (&p, 1, 7) == 1
	   && path_count (&p, 1, 999) == 1 && path_count (&p, 1, 3) == 1
	   && u64_value (&p, &unit_p, 1) == 3 && runs_of (&p, &unit_p) == 1;
      pp_profile_free (&p);
    }
  unit_result (ok, "runtime: path tables are dumped exactly, paths out of range "
	       "ignored, errno kept", "wrong sparse counts");

  __pathprof_count_path (&tables_p[1], 7);
  ok = pathprof_dump () == 0 && read_profile (path, &p);
  if (ok)
    {
      ok = nsparse_of (&p) == 5 && path_count (&p, 1, 7) == 2
	   && path_count (&p, 0, 7) == 1;
      pp_profile_free (&p);
    }
  /* A dump with nothing new writes nothing.  */
  struct stat before, after;
  ok = ok && stat (path, &before) == 0 && pathprof_dump () == 0
       && stat (path, &after) == 0 && before.st_ino == after.st_ino;
  unit_result (ok, "runtime: a dump subtracts what it wrote from the path tables",
	       "wrong totals after a second dump");
}

/* A count as the code makes it (pathprof-abi.h, plugin/probes.cc
   expand_table_count): in the key's home slot, read where the ABI says,
   when it is there; else libprof's.  */
static uint64_t code_hits;

static void
code_count (struct __pathprof_path_table *t, uint64_t n)
{
  const unsigned char *h = __atomic_load_n ((unsigned char **) &t->table, __ATOMIC_ACQUIRE);
  uint64_t key = n + 1, shift;
  memcpy (&shift, h, sizeof shift);
  uint64_t *slot = (uint64_t *) (uintptr_t) (h + PATHPROF_PATH_HASH_SLOTS
					     + 16 * ((key * PATHPROF_PATH_HASH_MUL) >> shift));
  if (__atomic_load_n (slot, __ATOMIC_ACQUIRE) == key)
    {
      __atomic_fetch_add (slot + 1, 1, __ATOMIC_RELAXED);
      code_hits++;
      return;
    }
  __pathprof_count_path (t, n);
}

/* Distinct paths of table 0 spread over its range.  */
static uint64_t
spread_path (uint64_t i)
{
  return (i * 0x9e3779b97f4a7c15ull) >> 24;
}

static void
scenario_paths_growth (void)
{
  const char *path = use_profile ("growth.data");
  register_paths_unit ();
  enum { EARLY = 1000, ALL = 200000 };
  /* Path i counts i % 7 + 1 times, the first ones dumped before the table grows
     further.  */
  for (uint64_t i = 0; i < EARLY; i++)
    for (uint64_t k = 0; k <= i % 7; k++)
      __pathprof_count_path (&tables_p[0], spread_path (i));
  bool ok = pathprof_dump () == 0;
  /* Then as the code counts: most of these in place.  */
  code_hits = 0;
  for (uint64_t i = 0; i < ALL; i++)
    for (uint64_t k = 0; k <= i % 7; k++)
      code_count (&tables_p[0], spread_path (i));
  pp_profile p;
  ok = ok && pathprof_dump () == 0 && read_profile (path, &p);
  uint64_t wrong = 0;
  if (ok)
    {
      for (uint64_t i = 0; i < ALL; i++)
	wrong += path_count (&p, 0, spread_path (i)) != (i % 7 + 1) * (1 + (i < EARLY));
      ok = nsparse_of (&p) == ALL && wrong == 0;
      pp_profile_free (&p);
    }
  unit_result (ok, "runtime: a path table grows to 200000 paths without losing a "
	       "count", "%llu paths wrong", (unsigned long long) wrong);
  /* Every path counts once or more after its first: the code's way must
     find most of those in their home slots.  */
  unit_result (code_hits > ALL, "runtime: the code counts a path in its home slot "
	       "where the ABI says it is", "%llu counts in place",
	       (unsigned long long) code_hits);
}

/* Runs nthreads threads of counter (each gets its index as argument) while
   ndumps dumps run pause_us apart, joins them and dumps once more.  Returns
   whether every thread started and every dump succeeded.  */
static bool
count_while_dumping (void *(*counter) (void *), int nthreads, int ndumps,
		     useconds_t pause_us)
{
  pthread_t threads[16];
  bool ok = nthreads <= 16;
  int started = 0;
  for (; ok && started < nthreads; started++)
    ok = pthread_create (&threads[started], NULL, counter,
			 (void *) (uintptr_t) started) == 0;
  for (int dumps = 0; ok && dumps < ndumps; dumps++)
    {
      ok = pathprof_dump () == 0;
      usleep (pause_us);
    }
  for (int i = 0; i < started; i++)
    pthread_join (threads[i], NULL);
  return ok && pathprof_dump () == 0;
}

enum { COUNTING_THREADS = 8, THREAD_PATHS = 1 << 15, THREAD_ROUNDS = 3 };

/* Keys that all want one home slot of the first table (64 slots): libprof's
   fast path finds only the one that got there first, so a table whose keys sit
   away from home is rebuilt, hottest first, and a rebuild must lose nothing.
   COLLIDING keys: one cold, the others hot, counted by REBUILD_THREADS
   threads in different orders while dumps run.  */
enum { COLLIDING = 8, REBUILD_THREADS = 4, REBUILD_ROUNDS = 20000 };
static uint64_t colliding[COLLIDING];

static void
find_colliding_paths (void)
{
  uint64_t want = ((uint64_t) 1 * 0x9e3779b97f4a7c15ull) >> 58;	/* path 0 */
  int n = 0;
  for (uint64_t path = 0; n < COLLIDING; path++)
    if (((path + 1) * 0x9e3779b97f4a7c15ull) >> 58 == want)
      colliding[n++] = path;
}

static void *
colliding_counter (void *arg)
{
  uint64_t t = (uintptr_t) arg;
  /* Thread t takes the hot keys in steps of t + 1 (prime to COLLIDING - 1).  */
  for (uint64_t r = 0; r < REBUILD_ROUNDS; r++)
    for (uint64_t i = 0; i < COLLIDING - 1; i++)
      __pathprof_count_path (&tables_p[0],
			     colliding[1 + (i * (t + 1)) % (COLLIDING - 1)]);
  return NULL;
}

static void
scenario_paths_rebuild (void)
{
  const char *path = use_profile ("rebuild.data");
  register_paths_unit ();
  find_colliding_paths ();
  __pathprof_count_path (&tables_p[0], colliding[0]);	/* cold, but home */
  bool ok = count_while_dumping (colliding_counter, REBUILD_THREADS, 10, 1000);
  pp_profile p;
  ok = ok && read_profile (path, &p);
  uint64_t wrong = 0;
  if (ok)
    {
      wrong += path_count (&p, 0, colliding[0]) != 1;
      for (int i = 1; i < COLLIDING; i++)
	wrong += path_count (&p, 0, colliding[i])
		 != (uint64_t) REBUILD_THREADS * REBUILD_ROUNDS;
      ok = nsparse_of (&p) == COLLIDING && wrong == 0;
      pp_profile_free (&p);
    }
  unit_result (ok, "runtime: colliding paths counted by 4 threads while the "
	       "table is rebuilt hottest first and dumps run: exact totals",
	       "%llu paths wrong", (unsigned long long) wrong);
}

/* Two hot keys with one home slot in the first table (64 slots) but not
   in one of 128: only one of them can be home there, and the other goes
   libprof's slow way at every count; a rebuild at the same size puts the
   same one home again, so libprof doubles a table that has room to part
   them (path-tables.c, Keeping hot keys home), and the code then counts
   nearly every count of both in place.  */
static void
scenario_paths_part (void)
{
  const char *path = use_profile ("part.data");
  register_paths_unit ();
  uint64_t hot[2], n = 0;
  uint64_t want = ((uint64_t) 1 * 0x9e3779b97f4a7c15ull) >> 57;	/* path 0's, 128 slots */
  for (uint64_t p = 1; n < 1; p++)
    if (((p + 1) * 0x9e3779b97f4a7c15ull) >> 57 == (want ^ 1))
      hot[1] = p, n++;
  hot[0] = 0;
  enum { ROUNDS = 100000 };
  code_hits = 0;
  for (uint64_t r = 0; r < ROUNDS; r++)
    {
      code_count (&tables_p[0], hot[0]);
      code_count (&tables_p[0], hot[1]);
    }
  pp_profile p;
  bool ok = pathprof_dump () == 0 && read_profile (path, &p);
  if (ok)
    {
      ok = path_count (&p, 0, hot[0]) == ROUNDS && path_count (&p, 0, hot[1]) == ROUNDS
	   && nsparse_of (&p) == 2;
      pp_profile_free (&p);
    }
  unit_result (ok, "runtime: two hot paths with one home slot: exact counts",
	       "wrong counts");
  unit_result (code_hits > 2 * ROUNDS - ROUNDS / 100,
	       "runtime: two hot paths with one home slot part in a larger table",
	       "%llu of %u counts in place", (unsigned long long) code_hits,
	       2 * ROUNDS);
}

/* Every thread counts every path THREAD_ROUNDS times, each in its own order (an
   odd multiplier permutes 0 .. THREAD_PATHS-1), so that threads claim the same
   new paths and grow the table concurrently.  */
static void *
path_counter (void *arg)
{
  uint64_t t = (uintptr_t) arg;
  for (uint64_t r = 0; r < THREAD_ROUNDS; r++)
    for (uint64_t i = 0; i < THREAD_PATHS; i++)
      __pathprof_count_path (&tables_p[0],
			     spread_path ((i * (2 * t + 1)) % THREAD_PATHS));
  return NULL;
}

static void
scenario_paths_threads (void)
{
  const char *path = use_profile ("paths-threads.data");
  register_paths_unit ();
  bool ok = count_while_dumping (path_counter, COUNTING_THREADS, 30, 2000);
  pp_profile p;
  ok = ok && read_profile (path, &p);
  uint64_t wrong = 0;
  if (ok)
    {
      for (uint64_t i = 0; i < THREAD_PATHS; i++)
	wrong += path_count (&p, 0, spread_path (i))
		 != COUNTING_THREADS * THREAD_ROUNDS;
      ok = nsparse_of (&p) == THREAD_PATHS && wrong == 0;
      pp_profile_free (&p);
    }
  unit_result (ok, "runtime: 8 threads counting paths while the table grows and "
	       "30 dumps run: exact totals", "%llu paths wrong",
	       (unsigned long long) wrong);
}

static int
paths_forked_child (void *arg)
{
  (void) arg;
  __pathprof_count_path (&tables_p[1], 2);
  return pathprof_dump () == 0 ? 0 : 1;
}

static void
scenario_paths_fork_and_reset (void)
{
  const char *path = use_profile ("paths-fork.data");
  register_paths_unit ();
  __pathprof_count_path (&tables_p[1], 1);
  __pathprof_count_path (&tables_p[1], 2);
  bool ok = wait_ok (spawn (paths_forked_child, NULL)) && pathprof_dump () == 0;
  pp_profile p;
  ok = ok && read_profile (path, &p);
  if (ok)
    {
      ok = path_count (&p, 1, 1) == 1 && path_count (&p, 1, 2) == 2
	   && runs_of (&p, &unit_p) == 2;
      pp_profile_free (&p);
    }
  unit_result (ok, "runtime: a forked child starts with empty path tables",
	       "parent + child totals wrong");

  __pathprof_count_path (&tables_p[1], 5);
  pathprof_reset ();
  __pathprof_count_path (&tables_p[1], 6);
  ok = pathprof_dump () == 0 && read_profile (path, &p);
  if (ok)
    {
      ok = path_count (&p, 1, 5) == 0 && path_count (&p, 1, 6) == 1;
      pp_profile_free (&p);
    }
  unit_result (ok, "runtime: reset discards path counts", "not reset");
}

/* After the first exit dump, a unit exit dumps again only for new counts: path
   counts are counts.  */
static void
scenario_paths_exit (void)
{
  const char *path = use_profile ("paths-exit.data");
  register_paths_unit ();
  set_values (1, 1);
  __pathprof_count_path (&tables_p[0], 4);
  __pathprof_unit_exit (&unit_a);
  __pathprof_count_path (&tables_p[0], 4);
  __pathprof_unit_exit (&unit_p);
  pp_profile p;
  bool ok = read_profile (path, &p);
  if (ok)
    {
      ok = path_count (&p, 0, 4) == 2 && runs_of (&p, &unit_p) == 1;
      pp_profile_free (&p);
    }
  unit_result (ok, "runtime: a unit exit dumps path counts made since the last "
	       "dump", "the second count is missing");
}

/* ------------------------------------------------------------------------- */

/* ------------------------------------------------------------------------- */
/* Trace mode: call sites (corelib/trace.h "Announced calls").  */

extern __thread struct __pathprof_trace_thread __pathprof_trace_tls;

static int __attribute__ ((noinline))
site_target (int x)
{
  return x + 1;
}

#define SITE_FUNCTIONS 300
static const void *site_addrs[SITE_FUNCTIONS];
static unsigned char site_info[SITE_FUNCTIONS];

/* A trace-mode unit of N functions whose addresses are ADDRS (NULL:
   one function, site_target's), each INFO (pathprof-abi.h trace_info).  */
static void
make_trace_unit_of (struct __pathprof_unit *u, const char *name, unsigned char info,
		    uint32_t n, const char *const *addrs)
{
  pp_block_notes blocks[2] = { { 0 } };
  pp_edge_notes edge = { 0, 1, 0, -1 };
  char *files[1] = { (char *) name };
  static pp_function_notes f[SITE_FUNCTIONS];
  for (uint32_t i = 0; i < n; i++)
    {
      f[i] = (pp_function_notes) {
	.asm_name = "site_target", .name = "site_target", .decl_line = 1,
	.nblocks = 2, .blocks = blocks, .nedges = 1, .edges = &edge };
      site_addrs[i] = addrs ? (const void *) addrs[i]
		      : (const void *) (uintptr_t) site_target;
      site_info[i] = info;
    }
  pp_unit_notes notes_of = { .mode = PP_MODE_TRACE, .unit_name = (char *) name,
			     .nfiles = 1, .files = files, .nfunctions = n, .functions = f };
  unsigned char *notes;
  size_t len;
  if (pp_notes_encode (&notes_of, &notes, &len))
    abort ();
  *u = (struct __pathprof_unit) {
    .abi_version = PATHPROF_ABI_VERSION, .value_kind = PP_VALUES_U8,
    .checksum = pp_hash64 (notes, len, PP_HASH_SEED), .name = name,
    .notes = notes, .notes_len = (uint32_t) len, .trace_addrs = site_addrs,
    .trace_info = site_info, .trace_nfunctions = n };
}

static void
make_trace_unit (struct __pathprof_unit *u, const char *name, unsigned char info)
{
  make_trace_unit_of (u, name, info, 1, NULL);
}

/* Does the record at bit AT of the thread's buffer hold the bits of R?  */
static bool
record_at (uint64_t at, const pp_trace_record *r)
{
  const uint64_t *buf = __pathprof_trace_tls.buf;
  for (unsigned i = 0; i < r->nbits; i++)
    if ((buf[(at + i) / 64] >> ((at + i) % 64) & 1) != (r->bits[i / 64] >> (i % 64) & 1))
      return false;
  return true;
}

/* The MISS a call site of a function of width 2 wrote at bit AT of the
   thread's buffer: whether announced, and the unit it names (1 + its trace
   id, 0: none traced); false when the bits are no MISS.  */
static bool
read_miss (uint64_t at, bool *announced, uint64_t *unit)
{
  const uint64_t *buf = __pathprof_trace_tls.buf;
  uint64_t bits[3];
  for (unsigned i = 0; i < 3; i++)
    {
      uint64_t pos = at + 64 * i;
      bits[i] = buf[pos / 64] >> (pos % 64);
      if (pos % 64)
	bits[i] |= buf[pos / 64 + 1] << (64 - pos % 64);
    }
  if ((bits[0] & 3) != 1)	/* 1, 0: MISS in width 2 */
    return false;
  *announced = bits[0] >> 2 & 1;
  uint64_t byte = bits[0] >> 3 & 0xff;
  *unit = byte & 0x7f;
  return !(byte & 0x80);
}

static void
scenario_trace_sites (void)
{
  static struct __pathprof_unit trace_a, trace_b;
  use_profile ("sites.data");
  setenv ("PATHPROF_TRACE_FILE", scratch_path ("sites.%p.trace"), 1);
  make_trace_unit (&trace_a, "/test/trace-a.c", 2);
  __pathprof_register_unit (&trace_a);
  uint64_t fp = (uint64_t) (uintptr_t) site_target, slot[2] = { 0, 0 };
  uint64_t at = __pathprof_trace_tls.cursor, unit = 9;
  bool announced = false;
  __pathprof_trace_site (slot, fp, 2);
  bool ok = read_miss (at, &announced, &unit) && announced && unit == trace_a.trace_id
	    && slot[0] == (fp ^ __pathprof_trace_tls.gen) && slot[1] == fp
	    && __pathprof_trace_tls.expect == fp;
  __pathprof_trace_tls.expect = 0;
  unit_result (ok, "runtime: a call site's MISS names the callee and announces it",
	       "unit %llu (%u), announced %d", (unsigned long long) unit,
	       trace_a.trace_id, announced);

  /* The unit goes (dlclose), another comes with a function at the same
     address: the slot no longer matches, and the MISS names the new one.  */
  uint64_t gen = __pathprof_trace_tls.gen;
  __pathprof_unit_exit (&trace_a);
  bool stale = slot[0] != (fp ^ __pathprof_trace_tls.gen) && __pathprof_trace_tls.gen != gen;
  make_trace_unit (&trace_b, "/test/trace-b.c", 2 | PP_TRACE_INFO_LEAF);
  __pathprof_register_unit (&trace_b);
  at = __pathprof_trace_tls.cursor;
  __pathprof_trace_site (slot, fp, 2);
  ok = stale && read_miss (at, &announced, &unit) && announced
       && unit == trace_b.trace_id && trace_b.trace_id != trace_a.trace_id;
  __pathprof_trace_tls.expect = 0;
  unit_result (ok, "runtime: a traced unit that goes makes every call site's slot stale",
	       "stale %d, unit %llu (%u)", stale, (unsigned long long) unit,
	       trace_b.trace_id);

  /* A function without records is not announced where a call with an
     ENTER follows; an address no traced unit has is named as none.  */
  at = __pathprof_trace_tls.cursor;
  slot[0] = 0;
  __pathprof_trace_site (slot, fp, 2 | PP_TRACE_SITE_ENTER_AFTER);
  ok = read_miss (at, &announced, &unit) && !announced && unit == trace_b.trace_id
       && slot[1] == 0 && __pathprof_trace_tls.expect == 0;
  at = __pathprof_trace_tls.cursor;
  __pathprof_trace_site (slot, (uint64_t) (uintptr_t) abort, 2);
  ok = ok && read_miss (at, &announced, &unit) && !announced && unit == 0
       && slot[1] == 0;
  unit_result (ok, "runtime: call sites of a leaf before an ENTER, and of an untraced "
	       "function, announce nothing", "unit %llu, announced %d",
	       (unsigned long long) unit, announced);
  __pathprof_unit_exit (&trace_b);

  /* A unit of many functions at scattered addresses (so that the index's
     hash has collisions among them; consecutive ones it spreads without):
     each one's MISS is corelib's record for it, function number and all;
     an address no function has is none traced.  */
  static struct __pathprof_unit trace_c;
  static char space[1 << 16];
  static const char *targets[SITE_FUNCTIONS + 1];
  static bool taken[1 << 16];
  for (uint32_t i = 0, j = 0; i <= SITE_FUNCTIONS; j++)
    {
      uint32_t off = (uint32_t) (pp_mix64 (j) & 0xffff);
      if (!taken[off])
	{
	  taken[off] = true;
	  targets[i++] = space + off;
	}
    }
  make_trace_unit_of (&trace_c, "/test/trace-c.c", 2, SITE_FUNCTIONS, targets);
  __pathprof_register_unit (&trace_c);
  uint32_t wrong = 0, first_wrong = UINT32_MAX;
  for (uint32_t i = 0; i <= SITE_FUNCTIONS; i++)
    {
      bool traced = i < SITE_FUNCTIONS;
      pp_trace_record r = { { 0 }, 0 };
      pp_trace_miss (&r, 2, traced, traced, trace_c.trace_id - 1, i);
      at = __pathprof_trace_tls.cursor;
      slot[0] = 0;
      __pathprof_trace_site (slot, (uint64_t) (uintptr_t) targets[i], 2);
      __pathprof_trace_tls.expect = 0;
      if (__pathprof_trace_tls.cursor - at != r.nbits || !record_at (at, &r))
	{
	  wrong++;
	  if (first_wrong == UINT32_MAX)
	    first_wrong = i;
	}
    }
  unit_result (wrong == 0, "runtime: each of many functions' call-site MISS is "
	       "corelib's record for it (brute force)", "%u of %u wrong, the first %u",
	       wrong, SITE_FUNCTIONS + 1, first_wrong);
  __pathprof_unit_exit (&trace_c);
}

static void
register_units (void)
{
  make_unit (&unit_a, "/test/unit-a.c", PP_VALUES_U64, counters_a, NA);
  make_unit (&unit_b, "/test/unit-b.c", PP_VALUES_U8, coverage_b, NB);
  make_unit (&unit_c, "/test/unit-c.c", PP_VALUES_U64, counters_c, NC);
  __pathprof_register_unit (&unit_a);
  __pathprof_register_unit (&unit_b);
  __pathprof_register_unit (&unit_c);
}

static void
remove_scratch (void)
{
  DIR *d = opendir (scratch);
  for (struct dirent *e; d && (e = readdir (d));)
    if (strcmp (e->d_name, ".") && strcmp (e->d_name, "..")
	&& unlink (scratch_path (e->d_name)) != 0)
      rmdir (scratch_path (e->d_name));
  if (d)
    closedir (d);
  rmdir (scratch);
}

int
main (int argc, char **argv)
{
  register_units ();
  if (argc == 3 && strcmp (argv[1], "--return-from-main") == 0)
    {
      setenv ("PATHPROF_FILE", argv[2], 1);
      set_values (7, 70);
      dump_at_exit = true;
      return 0;
    }

  const char *tmp = getenv ("TMPDIR");
  snprintf (scratch, sizeof scratch, "%s/pathprof-runtime-XXXXXX",
	    tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp (scratch))
    {
      unit_result (0, "runtime: scratch directory", "%s", strerror (errno));
      return 1;
    }
  in_child ("runtime: exact values", scenario_dump_exact);
  in_child ("runtime: temporary file", scenario_temporary_file);
  in_child ("runtime: concurrent processes", scenario_concurrent);
  in_child ("runtime: fork", scenario_fork);
  in_child ("runtime: %p expansion", scenario_pid_expansion);
  in_child ("runtime: stale unit", scenario_stale);
  in_child ("runtime: truncated file", scenario_truncated);
  in_child ("runtime: flipped byte", scenario_flipped);
  in_child ("runtime: foreign file", scenario_foreign);
  in_child ("runtime: damaged notes", scenario_damaged_notes);
  in_child ("runtime: write failure", scenario_write_failure);
  in_child ("runtime: read-only directory", scenario_read_only_directory);
  in_child ("runtime: exit", scenario_exit);
  in_child ("runtime: return from main", scenario_return_from_main);
  in_child ("runtime: unit exit", scenario_unit_exit_unregisters);
  in_child ("runtime: bad units", scenario_bad_units);
  in_child ("runtime: threads", scenario_threads);
  in_child ("runtime: reset", scenario_reset);
  in_child ("runtime: path tables", scenario_paths_exact);
  in_child ("runtime: path table growth", scenario_paths_growth);
  in_child ("runtime: path tables and threads", scenario_paths_threads);
  in_child ("runtime: path table rebuilds", scenario_paths_rebuild);
  in_child ("runtime: hot path tables part their keys", scenario_paths_part);
  in_child ("runtime: path tables, fork and reset",
	    scenario_paths_fork_and_reset);
  in_child ("runtime: path tables at exit", scenario_paths_exit);
  in_child ("runtime: trace call sites", scenario_trace_sites);
  remove_scratch ();
  return unit_exit_status ();
}
