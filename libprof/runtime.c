/* libprof: the runtime linked into instrumented programs.

   Each instrumented unit registers its struct __pathprof_unit from a constructor.
   A dump merges the values of every registered unit into the profile file under
   an exclusive lock, through a temporary file renamed over the original, so that
   concurrent processes never lose a count and a failed write never damages the
   existing file.  The values written are then subtracted from the live counters
   (and from the path tables, path-tables.c), so each count reaches the file
   exactly once.  */

#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "file-names.h"
#include "arena.h"
#include "hash.h"
#include "ip-runtime.h"
#include "path-tables.h"
#include "pathprof-abi.h"
#include "pathprof.h"
#include "profile.h"
#include "trace-buffers.h"



/* Everything below is protected by units_lock, an atomic flag rather than a
   pthread mutex: each libc function libprof calls costs the dynamic linker a
   symbol lookup (about 650 instructions) the first time in each process, and
   such lookups are most of a short run's fixed cost (DESIGN.md, "The cost of
   a short run").  It is held through a dump's file I/O; a waiter (another
   thread dumping at the same time) yields.  */
static int units_lock;

static void
lock_units (void)
{
  while (__atomic_exchange_n (&units_lock, 1, __ATOMIC_ACQUIRE))
    sched_yield ();
}

static void
unlock_units (void)
{
  __atomic_store_n (&units_lock, 0, __ATOMIC_RELEASE);
}

/* Registered units, newest first.  */
static struct __pathprof_unit *units;
static uint32_t nunits;
/* The first uncounted_units units of the list have not had this process's run
   counted in a profile file yet (units are pushed at the head, and a successful
   dump counts them all).  */
static uint32_t uncounted_units;
static bool atfork_installed;

/* Set by ip-program.c when the program links it.  */
const struct pp_ip_hooks *pp_ip;

/* Dumps made by __pathprof_unit_exit: the first one writes everything; after that
   only code that ran since makes another.  */
static bool exit_dumped;
static char last_exit_message[1024];

/* ------------------------------------------------------------------------- */
/* Messages.  */

/* Writes "pathprof: ...\n" with a single write(), so that the lines of concurrent
   processes do not interleave.  An exit dump does not repeat the message of the
   previous exit dump: the following units' exits would hit the same problem.  */
void
pp_report (bool at_exit, const char *fmt, ...)
{
  char buf[1024];
  va_list ap;
  int n = snprintf (buf, sizeof buf, "pathprof: ");
  va_start (ap, fmt);
  vsnprintf (buf + n, sizeof buf - (size_t) n - 1, fmt, ap);
  va_end (ap);
  strcat (buf, "\n");
  if (at_exit)
    {
      if (strcmp (buf, last_exit_message) == 0)
	return;
      strcpy (last_exit_message, buf);
    }
  if (write (STDERR_FILENO, buf, strlen (buf)) < 0)
    return;			/* nowhere left to report to */
}

/* ------------------------------------------------------------------------- */
/* Units.  */

static size_t
value_bytes (const struct __pathprof_unit *u)
{
  return (size_t) u->nvalues * (u->value_kind == PP_VALUES_U8 ? 1 : 8);
}

static void
zero_counters (struct __pathprof_unit *u)
{
  if (u->value_kind == PP_VALUES_U64)
    memset (u->values, 0, value_bytes (u));
  pp_tables_zero (u);
}

static bool
unit_has_counts (const struct __pathprof_unit *u)
{
  if (u->value_kind == PP_VALUES_U8)
    {
      const uint8_t *v = u->values;
      for (uint32_t i = 0; i < u->nvalues; i++)
	if (__atomic_load_n (&v[i], __ATOMIC_RELAXED))
	  return true;
    }
  else
    {
      const uint64_t *v = u->values;
      for (uint32_t i = 0; i < u->nvalues; i++)
	if (__atomic_load_n (&v[i], __ATOMIC_RELAXED))
	  return true;
    }
  return pp_tables_have_counts (u);
}

static void
lock_before_fork (void)
{
  if (pp_ip)
    pp_ip->before_fork (0);
  lock_units ();
  pp_tables_lock ();
  pp_trace_before_fork ();
  if (pp_ip)
    pp_ip->before_fork (1);
  pp_arena_lock ();		/* last: the others' holders may allocate */
}

static void
unlock_after_fork_in_parent (void)
{
  pp_arena_unlock ();
  if (pp_ip)
    pp_ip->after_fork (false);
  pp_trace_after_fork_in_parent ();
  pp_tables_unlock ();
  unlock_units ();
}

/* The child's profile must hold only what the child runs: the parent dumps what
   was counted before the fork.  Coverage bytes can stay, since or-merging them
   again changes nothing.  */
static void
reset_after_fork_in_child (void)
{
  pp_arena_unlock ();
  if (pp_ip)
    pp_ip->after_fork (true);
  pp_trace_after_fork_in_child (getppid ());
  pp_tables_unlock ();		/* the child is the only thread now */
  for (struct __pathprof_unit *u = units; u; u = u->next)
    zero_counters (u);
  uncounted_units = nunits;
  exit_dumped = false;
  last_exit_message[0] = 0;
  unlock_units ();
}

/* Checks a unit before its fields are trusted.  Returns a reason or NULL.  */
static const char *
unit_problem (const struct __pathprof_unit *u)
{
  if (!u->name)
    return "it has no name";
  if (u->value_kind != PP_VALUES_U64 && u->value_kind != PP_VALUES_U8)
    return "its value kind is unknown";
  if (u->nvalues && !u->values)
    return "it has no value array";
  if (u->ntables && !u->tables)
    return "it has no path table array";
  if (u->notes_len && !u->notes)
    return "it has no notes";
  /* The notes are not hashed here: the plugin computed their checksum from the
     same read-only bytes, and hashing megabytes (SQLite's) at every start was
     the largest fixed cost of a short run.  The tool checks them.  */
  return NULL;
}

PP_EXPORT void
__pathprof_register_unit (struct __pathprof_unit *u)
{
  static bool abi_reported;
  int saved_errno = errno;
  lock_units ();
  /* Only abi_version is read from a unit of another ABI: its layout may differ.  */
  if (u->abi_version != PATHPROF_ABI_VERSION)
    {
      if (!abi_reported)
	pp_report (false, "a unit was instrumented for runtime ABI version %u but "
		"this libprof implements version %u; such units are not profiled "
		"(rebuild them with the plugin that matches this libprof)",
		u->abi_version, PATHPROF_ABI_VERSION);
      abi_reported = true;
      goto out;
    }
  const char *problem = unit_problem (u);
  if (problem)
    {
      pp_report (false, "unit '%s' is not profiled: %s", u->name ? u->name : "?",
	      problem);
      goto out;
    }
  for (struct __pathprof_unit *r = units; r; r = r->next)
    if (r == u)
      goto out;
  if (!atfork_installed)
    atfork_installed = pthread_atfork (lock_before_fork,
				       unlock_after_fork_in_parent,
				       reset_after_fork_in_child) == 0;
  bool traced = u->value_kind == PP_VALUES_U8 && u->nvalues == 0
		&& u->ntables == 0;
  if (traced)
    {
      /* Its notes go to the trace file, with the first records: also when
	 none of its code runs, so that reports list it.  */
      unlock_units ();
      pp_trace_register (u);
      errno = saved_errno;
      return;
    }
  u->next = units;
  units = u;
  nunits++;
  uncounted_units++;
out:
  unlock_units ();
  errno = saved_errno;
}

uint32_t
pp_registered_units (struct __pathprof_unit ***out)
{
  lock_units ();
  uint32_t n = 0;
  *out = pp_malloc ((nunits + 1) * sizeof **out);
  for (struct __pathprof_unit *u = units; *out && u; u = u->next)
    (*out)[n++] = u;
  unlock_units ();
  return n;
}

/* ------------------------------------------------------------------------- */
/* The profile file.  */

/* Waits for an exclusive lock on the whole file.  Open-file-description locks
   belong to the descriptor, so two copies of libprof in one process (one static in
   the program, one in a shared library) also exclude each other; kernels without
   them get classic process locks.  */
static int
lock_file (int fd)
{
  struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
#ifdef F_OFD_SETLKW
  for (;;)
    {
      if (fcntl (fd, F_OFD_SETLKW, &fl) == 0)
	return 0;
      if (errno != EINTR)
	break;
    }
  if (errno != EINVAL)
    return -1;
#endif
  for (;;)
    {
      if (fcntl (fd, F_SETLKW, &fl) == 0)
	return 0;
      if (errno != EINTR)
	return -1;
    }
}

/* Whether path still names the file st describes.  Returns 1 if so, 0 if it was
   replaced or removed, -1 on error.  */
static int
still_named (const char *path, const struct stat *st)
{
  struct stat now;
  if (fstatat (AT_FDCWD, path, &now, 0) != 0)
    return errno == ENOENT ? 0 : -1;
  return now.st_dev == st->st_dev && now.st_ino == st->st_ino;
}

/* Opens and locks path, creating it if needed, and makes sure the locked file is
   still the one the path names: another process may have renamed a new file over
   it (or removed it) while we waited.  Returns the descriptor, or -1 with errno set
   and *failed naming the step that failed.  */
static int
open_locked (const char *path, struct stat *st, bool *created, const char **failed)
{
  for (;;)
    {
      *created = false;
      *failed = "cannot open it";
      int fd = open (path, O_RDWR | O_CLOEXEC);
      if (fd < 0 && errno == ENOENT)
	{
	  fd = open (path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	  if (fd < 0 && errno == EEXIST)
	    continue;
	  *created = fd >= 0;
	}
      if (fd < 0)
	return -1;
      int named = -1;
      *failed = "cannot lock it";
      if (lock_file (fd) == 0)
	{
	  *failed = "cannot stat it";
	  if (pp_fstat (fd, st) == 0)
	    named = still_named (path, st);
	}
      if (named == 1)
	return fd;
      int saved = errno;
      close (fd);
      if (named < 0)
	{
	  errno = saved;
	  return -1;
	}
    }
}

typedef enum
{
  MERGE_WRITTEN,
  MERGE_REFUSED,		/* the file is not ours to change */
  MERGE_FAILED,			/* an I/O or memory error */
} merge_result;

/* Merges the file's profile with mine in memory.  The file is refused if it is not
   a valid profile, or if any of mine is stale or incompatible with it.  All units
   are checked before any is added, because units of one program may share a name
   (one source compiled twice) and must not be taken as stale among themselves.
   Notes are borrowed, not copied: from old, or for the units that are mine from
   my own read-only notes, which are written back in place of the file's bytes
   (not hashed: a unit damaged there only in its notes comes back whole).  */
static merge_result
merge_in_memory (const unsigned char *old, size_t old_len, const pp_unit_data *mine,
		 uint32_t nmine, pp_profile *merged, char *why, size_t whylen)
{
  if (pp_profile_decode_borrowing (old, old_len, mine, nmine, merged, why, whylen))
    return MERGE_REFUSED;
  for (uint32_t i = 0; i < nmine; i++)
    if (pp_profile_check_unit (merged, &mine[i], why, whylen))
      return MERGE_REFUSED;
  for (uint32_t i = 0; i < nmine; i++)
    if (pp_profile_add_unit (merged, &mine[i], why, whylen))
      return MERGE_FAILED;
  return MERGE_WRITTEN;
}

/* Writes p to a temporary file next to path and renames it over path.  */
static merge_result
replace_file (const char *path, const struct stat *old, bool created,
	      const pp_profile *p, char *why, size_t whylen)
{
  char *tmp = pp_path_with_suffix (path, ".tmp", false);
  if (!tmp)
    {
      pp_fail (why, whylen, "out of memory");
      return MERGE_FAILED;
    }
  /* Only the holder of the lock of the file path names writes this name, and
     it renames it before unlocking: an existing one was left by a process
     that died while writing it.  */
  int fd = open (tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0 && errno == EEXIST && unlink (tmp) == 0)
    fd = open (tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0)
    {
      pp_fail (why, whylen, "cannot create '%s': %s", tmp, strerror (errno));
      pp_free (tmp);
      return MERGE_FAILED;
    }
  /* Keeping the old file's permissions is a courtesy, not a requirement
     (and usually the umask gives the same ones).  */
  struct stat now;
  if (!created && (pp_fstat (fd, &now) != 0
		   || (now.st_mode & 07777) != (old->st_mode & 07777)))
    (void) fchmod (fd, old->st_mode & 07777);
  const char *failed = "cannot write";
  bool ok = pp_profile_write (fd, p) == 0;
  int saved = errno;
  if (close (fd) != 0 && ok)
    {
      ok = false;
      saved = errno;
    }
  if (ok)
    {
      failed = "cannot rename";
      ok = rename (tmp, path) == 0;
      saved = errno;
    }
  if (!ok)
    {
      unlink (tmp);
      pp_fail (why, whylen, "%s '%s': %s", failed, tmp, strerror (saved));
    }
  pp_free (tmp);
  return ok ? MERGE_WRITTEN : MERGE_FAILED;
}

/* Merges mine into the profile file at path, holding its lock throughout.  On
   failure why says what went wrong, for a message about path.  */
static merge_result
merge_into_file (const char *path, const pp_unit_data *mine, uint32_t nmine,
		 char *why, size_t whylen)
{
  struct stat st;
  bool created;
  const char *failed;
  int fd = open_locked (path, &st, &created, &failed);
  if (fd < 0)
    {
      pp_fail (why, whylen, "%s: %s", failed, strerror (errno));
      return MERGE_FAILED;
    }

  merge_result result;
  unsigned char *old = NULL;
  size_t old_len;
  pp_profile merged = { 0 };
  if (pp_read_all (fd, &old, &old_len) != 0)
    {
      pp_fail (why, whylen, "cannot read it: %s", strerror (errno));
      result = MERGE_FAILED;
    }
  else
    result = merge_in_memory (old, old_len, mine, nmine, &merged, why, whylen);
  if (result == MERGE_WRITTEN)
    result = replace_file (path, &st, created, &merged, why, whylen);
  /* Leave no empty file behind when nothing could be written into it; whoever
     waits for its lock finds it gone and starts over.  */
  if (result == MERGE_FAILED && created)
    unlink (path);
  pp_profile_free (&merged);
  pp_free (old);
  close (fd);
  return result;
}

/* ------------------------------------------------------------------------- */
/* Dumping.  */

/* A snapshot is one block: nunits + 1 unit records (the last for the
   interprocedural program record), then the nunits units' taken path counts.  */
static pp_tables_taken *
taken_of (pp_unit_data *snap)
{
  return (pp_tables_taken *) (snap + nunits + 1);
}

/* Copies the live values and path counts: what is written is exactly what is
   later subtracted.  Returns 1 if there is something to write (a count or a run to
   count), 0 if not, -1 when out of memory.  */
static int
take_snapshot (pp_unit_data *snap)
{
  pp_tables_taken *taken = taken_of (snap);
  bool anything = uncounted_units > 0;
  uint32_t i = 0;
  /* The interprocedural mode's program record goes after the units.  */
  if (pp_ip)
    {
      int ip = pp_ip->snapshot (&snap[nunits]);
      if (ip < 0)
	return -1;
      anything |= ip > 0;
    }
  for (struct __pathprof_unit *u = units; u; u = u->next, i++)
    {
      pp_unit_data *s = &snap[i];
      s->name = (char *) u->name;
      s->checksum = u->checksum;
      s->runs = i < uncounted_units;
      s->notes_len = u->notes_len;
      s->notes = (unsigned char *) u->notes;
      s->value_kind = u->value_kind;
      s->nvalues = u->nvalues;
      s->values = pp_malloc (value_bytes (u) ? value_bytes (u) : 1);
      if (!s->values)
	return -1;
      if (u->value_kind == PP_VALUES_U8)
	{
	  const uint8_t *v = u->values;
	  uint8_t *c = s->values;
	  for (uint32_t k = 0; k < u->nvalues; k++)
	    anything |= (c[k] = __atomic_load_n (&v[k], __ATOMIC_RELAXED)) != 0;
	}
      else
	{
	  const uint64_t *v = u->values;
	  uint64_t *c = s->values;
	  for (uint32_t k = 0; k < u->nvalues; k++)
	    anything |= (c[k] = __atomic_load_n (&v[k], __ATOMIC_RELAXED)) != 0;
	}
      int paths = pp_tables_snapshot (u, s, &taken[i]);
      if (paths < 0)
	return -1;
      anything |= paths;
    }
  return anything;
}

/* Removes what was written from the live values.  Counters are decremented
   atomically so that increments made meanwhile by other threads stay.  Coverage
   bytes that were written are cleared (one set meanwhile only records again what
   the file already has), so that a later exit dump sees only code run since.  */
static void
subtract_snapshot (pp_unit_data *snap)
{
  const pp_tables_taken *taken = taken_of (snap);
  uint32_t i = 0;
  if (pp_ip && snap[nunits].name)
    pp_ip->subtract (&snap[nunits]);
  for (struct __pathprof_unit *u = units; u; u = u->next, i++)
    {
      const pp_unit_data *s = &snap[i];
      pp_tables_subtract (&taken[i]);
      if (u->value_kind == PP_VALUES_U8)
	{
	  uint8_t *v = u->values;
	  const uint8_t *c = s->values;
	  for (uint32_t k = 0; k < u->nvalues; k++)
	    if (c[k])
	      __atomic_store_n (&v[k], 0, __ATOMIC_RELAXED);
	}
      else
	{
	  uint64_t *v = u->values;
	  const uint64_t *c = s->values;
	  for (uint32_t k = 0; k < u->nvalues; k++)
	    if (c[k])
	      __atomic_fetch_sub (&v[k], c[k], __ATOMIC_RELAXED);
	}
    }
}

/* A zeroed snapshot block (taken_of), or NULL; zeroed by loops, not calloc
   (see lock_units).  */
static pp_unit_data *
new_snapshot (void)
{
  pp_unit_data *snap = pp_malloc ((nunits + 1) * sizeof *snap
			       + nunits * sizeof (pp_tables_taken));
  if (snap)
    {
      pp_tables_taken *taken = taken_of (snap);
      for (uint32_t i = 0; i <= nunits; i++)
	snap[i] = (pp_unit_data) { 0 };
      for (uint32_t i = 0; i < nunits; i++)
	taken[i] = (pp_tables_taken) { 0 };
    }
  return snap;
}

static void
free_snapshot (pp_unit_data *snap)
{
  if (!snap)
    return;
  pp_tables_taken *taken = taken_of (snap);
  for (uint32_t i = 0; i <= nunits; i++)
    {
      pp_free (snap[i].values);
      pp_free (snap[i].sparse);
      pp_free (snap[i].wide);
    }
  for (uint32_t i = 0; i < nunits; i++)
    pp_tables_taken_free (&taken[i]);
  pp_free (snap);
}

/* Merges every registered unit into the profile file, or into <file>.<pid> when the
   file is not ours to change.  Returns 0, or -1 with the counts kept.  */
static int
dump_locked (bool at_exit)
{
  if (nunits == 0)
    return 0;
  const char *lost = at_exit ? "this run's profile is lost"
			     : "the counts are kept for the next dump";
  char why[512], why_fallback[512];
  char *path = pp_profile_path (), *fallback = NULL;
  pp_unit_data *snap = path ? new_snapshot () : NULL;
  int ret = -1, snapped = snap ? take_snapshot (snap) : -1;
  if (snapped < 0)
    {
      pp_report (at_exit, "cannot write the profile: out of memory; %s", lost);
      goto out;
    }
  if (snapped == 0)
    {
      ret = 0;			/* nothing ran since the last dump */
      goto out;
    }
  uint32_t nsnap = nunits + (snap[nunits].name != NULL);
  switch (merge_into_file (path, snap, nsnap, why, sizeof why))
    {
    case MERGE_WRITTEN:
      ret = 0;
      break;
    case MERGE_FAILED:
      pp_report (at_exit, "cannot update '%s': %s; it is unchanged and %s", path, why,
	      lost);
      break;
    case MERGE_REFUSED:
      fallback = pp_path_with_suffix (path, ".", true);
      if (!fallback)
	pp_fail (why_fallback, sizeof why_fallback, "out of memory");
      else if (merge_into_file (fallback, snap, nsnap, why_fallback,
				sizeof why_fallback) == MERGE_WRITTEN)
	{
	  pp_report (at_exit, "'%s': %s; it is left unchanged and this run's profile "
		  "was written to '%s' instead", path, why, fallback);
	  ret = 0;
	  break;
	}
      pp_report (at_exit, "'%s': %s; it is left unchanged, and this run's profile "
	      "could not be written to '%s' either (%s); %s", path, why,
	      fallback ? fallback : "<file>.<pid>", why_fallback, lost);
      break;
    }
  if (ret == 0)
    {
      subtract_snapshot (snap);
      uncounted_units = 0;
    }
out:
  free_snapshot (snap);
  pp_free (fallback);
  pp_free (path);
  return ret;
}

PP_EXPORT int
pathprof_dump (void)
{
  int saved_errno = errno;
  lock_units ();
  int ret = dump_locked (false);
  unlock_units ();
  errno = saved_errno;
  return ret;
}

PP_EXPORT void
__pathprof_flush (void)
{
  if (pp_ip)
    pp_ip->end_thread_paths ();
  pp_trace_flush_all ();
  pathprof_dump ();
}

PP_EXPORT void
pathprof_reset (void)
{
  lock_units ();
  for (struct __pathprof_unit *u = units; u; u = u->next)
    {
      memset (u->values, 0, value_bytes (u));
      pp_tables_zero (u);
    }
  if (pp_ip)
    pp_ip->reset ();
  unlock_units ();
}

PP_EXPORT void
__pathprof_unit_exit (struct __pathprof_unit *u)
{
  int saved_errno = errno;
  if (u->trace_id)
    pp_trace_forget (u);	/* before its notes go away */
  if (pp_ip && !exit_dumped)
    pp_ip->end_thread_paths ();	/* the process ends here */
  lock_units ();
  struct __pathprof_unit **link = &units;
  uint32_t position = 0;
  while (*link && *link != u)
    {
      link = &(*link)->next;
      position++;
    }
  if (*link)
    {
      if (!exit_dumped || unit_has_counts (u))
	{
	  exit_dumped = true;
	  dump_locked (true);
	}
      /* The unit's memory goes away with its object (exit or dlclose).  */
      *link = u->next;
      u->next = NULL;
      nunits--;
      if (position < uncounted_units)
	uncounted_units--;
    }
  unlock_units ();
  errno = saved_errno;
}
