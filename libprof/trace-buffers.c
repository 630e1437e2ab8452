/* libprof, trace mode: the per-thread record buffers and the trace files
   (corelib/trace.h has the records; this file the runtime side).

   Design.  Each thread appends its records to a buffer of its own (thread-local,
   1 MiB, mapped on first use) at a bit cursor; no lock on that path.  A full
   buffer, thread exit, the exit of a unit, __pathprof_flush (before abort, _exit
   and exec) and fork write it out as one chunk of the trace file, under the
   file's lock, so that chunks of concurrent threads never interleave within
   themselves and each thread's chunks stay in order.  The runtime mirrors the
   regeneration: it keeps the depth and the width of the innermost traced
   activation (the width a callee's ENTER and a LAND are written in) in one
   state word; an activation's frame word (ENTER's result, kept by its code in
   its frame: the new depth and the caller's width) brings it back at RETURN
   and LAND.  A direct call enters without libprof (pathprof-abi.h): the
   caller's `expect` word names the callee.  A signal handler that runs
   between the caller setting it and the callee reading it would clear it or
   put its own there; its ENTER keeps the caller's (`saved`, at most
   MAX_SAVED deep) and its RETURN puts it back.

   Signals.  A record is written at the cursor and the cursor moves last, so a
   write that a signal handler interrupts for good (siglongjmp) leaves nothing
   behind.  While a thread is inside a write (`busy`), a handler's activations
   are not traced (their frame word says so); LAND back into traced code ends
   the interrupted write.  Their number is reported at exit.

   File.  PATHPROF_TRACE_FILE (default pathprof.%p.trace; %p the process id, %t
   the thread's number, one file per thread then, %% a %): a header, then
   chunks: UNIT (a unit's trace id, name and notes; every traced unit has its
   id from its registration, so a file's first records bring every unit's,
   also of units that never run), RECORDS (a thread's next bits), FORK (in a
   child: the parent's trace file and how many bits of the forking thread's
   records precede the child's).  Little-endian; see tools/trace.c for the reader.  */

#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "alloc.h"
#include "file-names.h"
#include "pathprof-abi.h"
#include "trace.h"
#include "trace-buffers.h"

#define BUFFER_BITS ((uint64_t) 8 << 20)	/* 1 MiB */
#define FRAME_UNTRACED ((uint64_t) 1 << 63)
#define FRAME_RESTORE ((uint64_t) 1 << 62)	/* an expect word to put back */
#define FRAME_STATE (FRAME_RESTORE - 1)
#define MAX_SAVED 16

/* Where a thread's chunks go: the process's file, or the thread's own (%t).  */
struct sink
{
  int fd;			/* -1: not open yet */
  bool failed;			/* reported; nothing more is written */
  uint32_t units_written;	/* units [0, units_written) are in the file */
};

/* A thread's state.  Its first fields are struct __pathprof_trace_thread
   (pathprof-abi.h), which the plugin's code reads and writes to put a witness
   in place: it claims the buffer by setting limit to 0, so limit is 0 while
   anyone writes (and before the buffer exists), else BUFFER_BITS.  */
struct tstate
{
  uint64_t *buf;		/* BUFFER_BITS and one spare word */
  uint64_t cursor;		/* bits in buf */
  uint64_t limit;
  volatile uint32_t busy;	/* libprof is writing */
  uint32_t spare;
  uint64_t state;		/* depth << 8 | width */
  uint64_t expect;
  uint64_t gen;			/* traced units gone, as this thread knows */
  /* libprof's own.  */
  uint64_t flushed;		/* bits of this thread written before buf */
  uint32_t thread;		/* 1, 2, ... in order of first record; 0: none */
  uint32_t nsaved;
  bool lost;			/* the thread's records stopped (reported) */
  struct { uint64_t expect, depth; } saved[MAX_SAVED];
  struct sink own;		/* with %t */
  struct tstate *next;
};

_Static_assert (offsetof (struct tstate, buf)
		== offsetof (struct __pathprof_trace_thread, buf)
		&& offsetof (struct tstate, cursor)
		   == offsetof (struct __pathprof_trace_thread, cursor)
		&& offsetof (struct tstate, limit)
		   == offsetof (struct __pathprof_trace_thread, limit)
		&& offsetof (struct tstate, busy)
		   == offsetof (struct __pathprof_trace_thread, busy)
		&& offsetof (struct tstate, state)
		   == offsetof (struct __pathprof_trace_thread, state)
		&& offsetof (struct tstate, expect)
		   == offsetof (struct __pathprof_trace_thread, expect)
		&& offsetof (struct tstate, gen)
		   == offsetof (struct __pathprof_trace_thread, gen),
		"struct tstate starts as struct __pathprof_trace_thread");

_Static_assert (sizeof (struct tstate) <= sizeof (struct __pathprof_trace_thread),
		"PATHPROF_TRACE_PRIVATE_WORDS holds libprof's part of struct tstate");

/* The size pathprof-abi.h says, as the executable's definition.  */
PP_EXPORT __thread union
{
  struct tstate s;
  struct __pathprof_trace_thread abi;
} __pathprof_trace_tls PP_TLS_MODEL;
#define ts __pathprof_trace_tls.s

/* Writes by libprof: nothing else writes meanwhile, and a signal handler's
   records are dropped (write_blocked) rather than mixed in.  */
static inline bool
write_blocked (const struct tstate *t)
{
  return t->busy || (t->buf && t->limit == 0) || t->lost;
}

static inline unsigned
width_of (const struct tstate *t)
{
  return (unsigned) (t->state & 0xff);
}

static inline void
begin_write (struct tstate *t)
{
  /* limit first: while busy is set, limit is 0, so that a handler's code
     never puts a witness in place in the middle of this write.  */
  t->limit = 0;
  __atomic_signal_fence (__ATOMIC_SEQ_CST);
  t->busy = 1;
  __atomic_signal_fence (__ATOMIC_SEQ_CST);
}

static inline void
end_write (struct tstate *t)
{
  __atomic_signal_fence (__ATOMIC_SEQ_CST);
  t->busy = 0;
  __atomic_signal_fence (__ATOMIC_SEQ_CST);
  t->limit = t->buf ? BUFFER_BITS : 0;
}

/* The bits above the cursor are 0 (the code ORs its records in: every write
   keeps them so, and write_records clears what it wrote out), except after
   a write that a signal handler left for good (siglongjmp), which may have
   put up to a record's bits there: the LAND that follows clears them.  */
static void
clear_above_cursor (struct tstate *t)
{
  if (!t->buf)
    return;
  uint64_t c = t->cursor, i = c / 64, last = BUFFER_BITS / 64;
  t->buf[i] &= ((uint64_t) 1 << (c % 64)) - 1;
  for (uint64_t j = i + 1; j <= i + 4 && j <= last; j++)
    t->buf[j] = 0;
}

/* Protects everything below, and the writes to the files.  */
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tstate *threads;	/* with a buffer */
static uint32_t nthreads;
static struct __pathprof_unit **traced_units;	/* by trace id */
static uint32_t ntraced, traced_cap;
static struct sink process_sink = { -1, false, 0 };
static bool per_thread_files, pattern_read;
static const char *pattern;
static pthread_key_t exit_key;
static unsigned long untraced_activations;
/* In a child: where the forking thread's records began.  */
static struct { bool child; uint32_t thread; uint64_t bits; pid_t parent;
		char parent_file[4096]; } fork_origin;
static char prefork_file[4096];	/* the forking thread's file, named before
				   (absolute: the child may chdir) */

static void
trace_report (const char *what, const char *path)
{
  char buf[1200];
  int n = snprintf (buf, sizeof buf, "pathprof: %s%s%s\n", what, path ? ": " : "",
		    path ? path : "");
  if (n > 0 && write (STDERR_FILENO, buf, (size_t) n) < 0)
    return;
}

/* ---- Files.  */

static void
read_pattern (void)
{
  if (pattern_read)
    return;
  pattern = getenv ("PATHPROF_TRACE_FILE");
  if (!pattern || !*pattern)
    pattern = "pathprof.%p.trace";
  per_thread_files = strstr (pattern, "%t") != NULL;
  pattern_read = true;
}

static void
file_name (char *out, size_t size, uint32_t thread)
{
  size_t o = 0;
  for (const char *s = pattern; *s && o + 24 < size; s++)
    if (s[0] == '%' && (s[1] == 'p' || s[1] == 't'))
      {
	if (s[1] == 'p')
	  o += (size_t) pp_pid_digits (out + o);
	else
	  o += (size_t) snprintf (out + o, size - o, "%u", thread);
	s++;
      }
    else if (s[0] == '%' && s[1] == '%')
      out[o++] = *s++;
    else
      out[o++] = *s;
  out[o] = 0;
}

static bool
write_all (int fd, struct iovec *iov, int n)
{
  while (n > 0)
    {
      ssize_t w = writev (fd, iov, n);
      if (w < 0 && errno == EINTR)
	continue;
      if (w <= 0)
	return false;
      while (n > 0 && (size_t) w >= iov->iov_len)
	{
	  w -= (ssize_t) iov->iov_len;
	  iov++;
	  n--;
	}
      if (n > 0)
	{
	  iov->iov_base = (char *) iov->iov_base + w;
	  iov->iov_len -= (size_t) w;
	}
    }
  return true;
}

static bool
write_chunk (struct sink *s, uint32_t kind, struct iovec *parts, int nparts)
{
  uint64_t len = 0;
  for (int i = 0; i < nparts; i++)
    len += parts[i].iov_len;
  unsigned char head[16];
  memcpy (head, &kind, 4);
  memset (head + 4, 0, 4);
  memcpy (head + 8, &len, 8);
  struct iovec iov[8] = { { head, sizeof head } };
  for (int i = 0; i < nparts && i < 7; i++)
    iov[i + 1] = parts[i];
  if (write_all (s->fd, iov, nparts + 1))
    return true;
  s->failed = true;
  trace_report ("the trace could not be written (the rest of it is lost)", NULL);
  return false;
}

/* Opens the sink's file and writes its header; the lock is held.  */
static bool
open_sink (struct sink *s, uint32_t thread)
{
  if (s->fd >= 0 || s->failed)
    return !s->failed;
  char path[4096];
  read_pattern ();
  file_name (path, sizeof path, thread);
  s->fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (s->fd < 0)
    {
      s->failed = true;
      trace_report ("cannot create the trace file", path);
      return false;
    }
  s->units_written = 0;
  unsigned char head[32] = "PPTRACE";
  uint32_t version = PP_TRACE_FILE_VERSION;
  uint64_t pid = (uint64_t) getpid ();
  memcpy (head + 8, &version, 4);
  memcpy (head + 16, &pid, 8);
  struct iovec iov = { head, sizeof head };
  if (!write_all (s->fd, &iov, 1))
    {
      s->failed = true;
      trace_report ("the trace could not be written", path);
      return false;
    }
  if (fork_origin.child && (!per_thread_files || thread == fork_origin.thread))
    {
      uint64_t parent = (uint64_t) fork_origin.parent;
      uint32_t len = (uint32_t) strlen (fork_origin.parent_file);
      struct iovec parts[] = { { &fork_origin.thread, 4 }, { &len, 4 },
			       { &parent, 8 }, { &fork_origin.bits, 8 },
			       { fork_origin.parent_file, len } };
      write_chunk (s, PP_TRACE_CHUNK_FORK, parts, 5);
    }
  return !s->failed;
}

/* trace_lock is taken with every signal blocked: a handler that interrupted
   its holder and left by siglongjmp would leave it locked for good, and the
   thread's next flush would wait for it forever.  held_mask is the holder's
   mask to put back.  */
static sigset_t held_mask;
static void
lock_trace (void)
{
  sigset_t all, old;
  sigfillset (&all);
  pthread_sigmask (SIG_BLOCK, &all, &old);
  pthread_mutex_lock (&trace_lock);
  held_mask = old;
}

static void
unlock_trace (void)
{
  sigset_t old = held_mask;
  pthread_mutex_unlock (&trace_lock);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
}

/* Writes the records of t (and the units they may name first); the lock is
   held.  */
static void
write_records (struct tstate *t)
{
  uint64_t nbits = __atomic_load_n (&t->cursor, __ATOMIC_ACQUIRE);
  if (nbits == 0)
    return;
  read_pattern ();		/* before the sink is chosen by it */
  struct sink *s = per_thread_files ? &t->own : &process_sink;
  if (open_sink (s, t->thread))
    {
      for (; s->units_written < ntraced && !s->failed; s->units_written++)
	{
	  struct __pathprof_unit *u = traced_units[s->units_written];
	  if (!u)
	    continue;		/* gone (pp_trace_forget), named by no record */
	  uint32_t id = s->units_written, name_len = (uint32_t) strlen (u->name);
	  struct iovec parts[] = { { &id, 4 }, { &name_len, 4 },
				   { (void *) u->name, name_len },
				   { &u->notes_len, 4 },
				   { (void *) u->notes, u->notes_len } };
	  write_chunk (s, PP_TRACE_CHUNK_UNIT, parts, 5);
	}
      uint32_t zero = 0;
      struct iovec parts[] = { { &t->thread, 4 }, { &zero, 4 }, { &nbits, 8 },
			       { t->buf, (size_t) ((nbits + 63) / 64) * 8 } };
      if (!s->failed)
	write_chunk (s, PP_TRACE_CHUNK_RECORDS, parts, 4);
    }
  t->flushed += nbits;
  memset (t->buf, 0, (size_t) ((nbits + 63) / 64 + 1) * 8);
  __atomic_store_n (&t->cursor, 0, __ATOMIC_RELEASE);
}

/* ---- Threads.  */

static void
thread_exit (void *arg)
{
  struct tstate *t = arg;
  lock_trace ();
  write_records (t);
  for (struct tstate **p = &threads; *p; p = &(*p)->next)
    if (*p == t)
      {
	*p = t->next;
	break;
      }
  if (t->own.fd >= 0)
    close (t->own.fd);
  munmap (t->buf, BUFFER_BITS / 8 + 8);
  t->buf = NULL;
  t->limit = 0;
  t->cursor = 0;
  unlock_trace ();
}

static void
make_exit_key (void)
{
  if (pthread_key_create (&exit_key, thread_exit) != 0)
    exit_key = 0;
}

/* The calling thread's buffer, mapped and registered on first use.  */
static bool
setup_thread (struct tstate *t)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  void *p = mmap (NULL, BUFFER_BITS / 8 + 8, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return false;
  pthread_once (&once, make_exit_key);
  lock_trace ();
  t->buf = p;
  t->thread = ++nthreads;
  t->own.fd = -1;
  t->next = threads;
  threads = t;
  unlock_trace ();
  pthread_setspecific (exit_key, t);
  return true;
}

/* Up to 64 bits v (the rest 0) at bit pos of t's buffer, where the bits
   above pos are 0 (clear_above_cursor): ORed into its word, the rest in the
   word after (the spare word at the end).  */
static inline void
write_bits (struct tstate *t, uint64_t pos, uint64_t v)
{
  uint64_t i = pos / 64, off = pos % 64;
  t->buf[i] |= v << off;
  t->buf[i + 1] = (v >> 1) >> (63 - off);
}

/* Room for n more bits in t's buffer (a new one, or the full one written
   out); false when there is no buffer.  */
static __attribute__ ((noinline)) bool
make_room (struct tstate *t, unsigned n)
{
  if (!t->buf && !setup_thread (t))
    return false;
  if (t->cursor + n > BUFFER_BITS)
    {
      lock_trace ();
      write_records (t);
      unlock_trace ();
    }
  return true;
}

/* Appends r at t's cursor; the cursor moves last.  */
static inline void
put (struct tstate *t, const pp_trace_record *r)
{
  if (__builtin_expect (!t->buf || t->cursor + r->nbits > BUFFER_BITS, 0)
      && !make_room (t, r->nbits))
    return;
  uint64_t pos = t->cursor;
  for (unsigned i = 0; i < r->nbits; i += 64)
    {
      write_bits (t, pos, r->bits[i / 64]);
      pos += r->nbits - i < 64 ? r->nbits - i : 64;
    }
  __atomic_store_n (&t->cursor, pos, __ATOMIC_RELEASE);
}

/* Appends the n <= 64 low bits of v (the rest 0) at t's cursor.  */
static inline void
put_bits (struct tstate *t, uint64_t v, unsigned n)
{
  uint64_t pos = t->cursor;
  if (__builtin_expect (!t->buf || pos + n > BUFFER_BITS, 0))
    {
      pp_trace_record r = { { v }, n };
      put (t, &r);
      return;
    }
  write_bits (t, pos, v);
  __atomic_store_n (&t->cursor, pos + n, __ATOMIC_RELEASE);
}

/* ---- The probes.  */

static uint32_t
trace_id (struct __pathprof_unit *u)
{
  uint32_t id = __atomic_load_n (&u->trace_id, __ATOMIC_ACQUIRE);
  if (id)
    return id - 1;
  lock_trace ();
  if (!u->trace_id)
    {
      (void) PP_RESERVE (traced_units, traced_cap, (size_t) ntraced + 1, 16);
      if (ntraced < traced_cap)
	{
	  traced_units[ntraced] = u;
	  __atomic_store_n (&ntraced, ntraced + 1, __ATOMIC_RELEASE);
	  __atomic_store_n (&u->trace_id, ntraced, __ATOMIC_RELEASE);
	}
    }
  id = u->trace_id;
  unlock_trace ();
  return id ? id - 1 : UINT32_MAX;
}

/* The announcement the activation of FRAME kept (its ENTER interrupted one)
   back in expect, as its last record is written.  */
static inline void
put_back_announcement (struct tstate *t, uint64_t frame)
{
  if ((frame & FRAME_RESTORE) && t->nsaved)
    t->expect = t->saved[--t->nsaved].expect;
}

/* WIDTH with PP_TRACE_LAST: the function writes no other record (trace.h
   "Returns"), so the state stays the caller's.  */
PP_EXPORT uint64_t
__pathprof_trace_enter (struct __pathprof_unit *u, uint32_t function, uint32_t width)
{
  struct tstate *t = &ts;
  /* A direct call's announcement this activation interrupted (a signal
     handler's) is the interrupted code's: taken first, so that a handler
     of this one finds none.  */
  uint64_t expect = t->expect;
  t->expect = 0;
  uint64_t s = t->state, frame = s + 256;
  if (write_blocked (t))
    {
      t->expect = expect;
      untraced_activations++;
      return frame | FRAME_UNTRACED;
    }
  begin_write (t);
  if (expect)
    {
      if (t->nsaved == MAX_SAVED)
	{
	  /* Handlers interrupting calls MAX_SAVED deep: what follows could
	     not be regenerated.  */
	  t->lost = true;
	  t->expect = expect;
	  trace_report ("signal handlers nested too deep: this thread's trace "
			"ends here", NULL);
	  end_write (t);
	  return frame | FRAME_UNTRACED;
	}
      t->saved[t->nsaved].expect = expect;
      t->saved[t->nsaved++].depth = frame >> 8;
      frame |= FRAME_RESTORE;
    }
  uint32_t id = trace_id (u);
  uint64_t depth = (frame & FRAME_STATE) >> 8;
  /* The ENTER (corelib/trace.h): m + 2 ones, a zero, the depth, unit and
     function numbers.  */
  unsigned w = width_of (t), m = w > PP_TRACE_DIRECT_WIDTH ? w : PP_TRACE_DIRECT_WIDTH;
  if (__builtin_expect (depth < 128 && id < 128 && function < 128, 1))
    /* Each number in one varint group (bit 7 clear): one write of at most
       34 + 1 + 24 bits.  */
    put_bits (t, pp_trace_escape (m + 2)
		 | (depth | (uint64_t) id << 8 | (uint64_t) function << 16) << (m + 3),
	      m + 27);
  else
    {
      /* Larger numbers (SQLite has thousands of functions in one unit).  */
      pp_trace_record r = { { 0 }, 0 };
      pp_trace_enter (&r, w, depth, id, function);
      put (t, &r);
    }
  if (width & PP_TRACE_LAST)
    {
      put_back_announcement (t, frame);
      frame &= ~FRAME_RESTORE;
    }
  else
    t->state = (frame & FRAME_STATE & ~(uint64_t) 0xff) | width;
  end_write (t);
  return frame;
}

/* n <= 64 bits of witnesses that the plugin's code could not put in place
   (the buffer is full or not there yet, or a write is under way), or that
   would pass what a function gathers before it writes them.  */
PP_EXPORT void
__pathprof_trace_witness (uint64_t bits, uint32_t n)
{
  struct tstate *t = &ts;
  if (write_blocked (t) || n == 0)
    return;
  begin_write (t);
  put_bits (t, n < 64 ? bits & (((uint64_t) 1 << n) - 1) : bits, n);
  end_write (t);
}

/* The last n bits of the activation of FRAME (its last record and the
   witnesses before it that it had not written yet), that the plugin's code
   could not put in place (as __pathprof_trace_witness), or whose frame has
   a flag; the caller's state back.  */
PP_EXPORT void
__pathprof_trace_last (uint64_t frame, uint64_t bits, uint32_t n)
{
  struct tstate *t = &ts;
  uint64_t back = (frame & FRAME_STATE) - 256;
  /* Whatever is written: the direct calls of an activation that is not
     traced moved the state too.  */
  if (write_blocked (t) || (frame & FRAME_UNTRACED))
    {
      t->state = back;
      return;
    }
  begin_write (t);
  put_bits (t, n < 64 ? bits & (((uint64_t) 1 << n) - 1) : bits, n);
  put_back_announcement (t, frame);
  t->state = back;
  end_write (t);
}

/* WIDTH with PP_TRACE_LAST: the LAND is the activation's last record.  */
PP_EXPORT void
__pathprof_trace_land (uint64_t frame, uint32_t block, uint32_t width)
{
  struct tstate *t = &ts;
  uint64_t depth = (frame & FRAME_STATE) >> 8;
  bool last = width & PP_TRACE_LAST;
  uint64_t state = last ? (frame & FRAME_STATE) - 256
		   : depth << 8 | (width & ~PP_TRACE_LAST);
  if (frame & FRAME_UNTRACED)
    {
      t->state = state;
      return;
    }
  /* Traced code again: a write the handler left for good is over.  */
  begin_write (t);
  clear_above_cursor (t);
  if (!t->lost)
    {
      pp_trace_record r = { { 0 }, 0 };
      pp_trace_land (&r, width_of (t), depth, block);
      put (t, &r);
    }
  /* No call is under way here, and the handlers deeper down are gone.  */
  t->expect = 0;
  while (t->nsaved && t->saved[t->nsaved - 1].depth > depth)
    t->nsaved--;
  if (last)
    put_back_announcement (t, frame);
  t->state = state;
  end_write (t);
}

/* ---- Call sites (corelib/trace.h "Announced calls").  */

/* Traced units gone (pp_trace_forget): each thread's gen counts them too,
   for its call sites' keys (a thread's own word, so that the code reads it
   from the thread's state; the static library may be linked into a shared
   object, where libprof's code could not address an exported variable).  */
static uint64_t units_gone;

/* The traced functions that code may call by their addresses, hashed by
   address: made again under the lock when a call site misses after units
   came (ntraced) or went (the generation), and never changed after, so that
   a call site reads it without the lock; an older index stays allocated, as
   a reader may still hold it.  Each function keeps the bits of its MISS
   after the head (corelib/trace.h pp_trace_miss_callee) when they fit in a
   word, so that a MISS is a lookup and three puts (a binary search and the
   varints cost SQLite's 255,000 misses about 200 instructions each).  */
struct fn_address
{
  uint64_t addr;
  uint64_t callee_bits;		/* the MISS's callee bits */
  uint32_t unit, function;
  uint8_t info;			/* pathprof-abi.h trace_info */
  uint8_t callee_n;		/* how many (0: more than a word) */
};

struct fn_index
{
  uint64_t gen;
  uint32_t units;
  unsigned shift;		/* 64 - log2 of the slots */
  size_t n;
  uint32_t *slots;		/* index in a + 1, or 0 */
  struct fn_address a[];
};

static struct fn_index *fn_index;

static inline size_t
fn_slot (const struct fn_index *ix, uint64_t addr)
{
  return (size_t) ((addr * UINT64_C (0x9e3779b97f4a7c15)) >> ix->shift);
}

/* The function at address FP, or NULL.  */
static inline const struct fn_address *
fn_at (const struct fn_index *ix, uint64_t fp)
{
  size_t mask = ((size_t) 1 << (64 - ix->shift)) - 1;
  for (size_t h = fn_slot (ix, fp);; h = (h + 1) & mask)
    {
      uint32_t k = ix->slots[h];
      if (!k)
	return NULL;
      if (ix->a[k - 1].addr == fp)
	return &ix->a[k - 1];
    }
}

static const struct fn_index *
current_fn_index (void)
{
  struct fn_index *ix = __atomic_load_n (&fn_index, __ATOMIC_ACQUIRE);
  uint64_t gen = __atomic_load_n (&units_gone, __ATOMIC_ACQUIRE);
  if (ix && ix->gen == gen && ix->units == __atomic_load_n (&ntraced, __ATOMIC_ACQUIRE))
    return ix;
  lock_trace ();
  gen = units_gone;
  ix = fn_index;
  if (!ix || ix->gen != gen || ix->units != ntraced)
    {
      size_t n = 0;
      for (uint32_t u = 0; u < ntraced; u++)
	if (traced_units[u] && traced_units[u]->trace_addrs)
	  for (uint32_t f = 0; f < traced_units[u]->trace_nfunctions; f++)
	    n += traced_units[u]->trace_addrs[f] != NULL;
      /* At most half the slots taken.  */
      unsigned bits = 1;
      while (((size_t) 1 << bits) < 2 * n)
	bits++;
      size_t nslots = (size_t) 1 << bits;
      struct fn_index *nix = pp_calloc (1, sizeof *nix + n * sizeof nix->a[0]
					   + nslots * sizeof *nix->slots);
      if (nix)
	{
	  nix->gen = gen;
	  nix->units = ntraced;
	  nix->shift = 64 - bits;
	  nix->slots = (uint32_t *) (nix->a + n);
	  nix->n = 0;
	  for (uint32_t u = 0; u < ntraced; u++)
	    {
	      const struct __pathprof_unit *unit = traced_units[u];
	      if (!unit || !unit->trace_addrs)
		continue;
	      for (uint32_t f = 0; f < unit->trace_nfunctions; f++)
		if (unit->trace_addrs[f])
		  {
		    uint64_t addr = (uint64_t) (uintptr_t) unit->trace_addrs[f];
		    size_t h = fn_slot (nix, addr);
		    while (nix->slots[h] && nix->a[nix->slots[h] - 1].addr != addr)
		      h = (h + 1) & (nslots - 1);
		    if (nix->slots[h])
		      continue;	/* two units' names for one address: the first */
		    pp_trace_record r = { { 0 }, 0 };
		    pp_trace_miss_callee (&r, true, u, f);
		    nix->a[nix->n] = (struct fn_address) {
		      addr, r.bits[0], u, f, unit->trace_info[f],
		      (uint8_t) (r.nbits <= 64 ? r.nbits : 0) };
		    nix->slots[h] = (uint32_t) ++nix->n;
		  }
	    }
	  __atomic_store_n (&fn_index, nix, __ATOMIC_RELEASE);
	  ix = nix;
	}
    }
  unlock_trace ();
  return ix;
}

/* A call site whose callee changed, or that the plugin's code could not
   write in place: its MISS, and the callee announced if it can be.  */
PP_EXPORT void
__pathprof_trace_site (uint64_t *slot, uint64_t fp, uint32_t width_flags)
{
  struct tstate *t = &ts;
  if (write_blocked (t))
    {
      /* A handler's call while a write is under way: not traced.  */
      t->expect = 0;
      return;
    }
  begin_write (t);
  uint64_t gen = __atomic_load_n (&t->gen, __ATOMIC_RELAXED);
  const struct fn_index *ix = current_fn_index ();
  const struct fn_address *hit = ix ? fn_at (ix, fp) : NULL;
  bool announced = hit && (hit->info & ~PP_TRACE_INFO_LEAF) <= PP_TRACE_DIRECT_WIDTH
		   && !((hit->info & PP_TRACE_INFO_LEAF)
			&& (width_flags & PP_TRACE_SITE_ENTER_AFTER));
  pp_trace_record r = { { 0 }, 0 };
  pp_trace_miss_head (&r, width_flags & 0xff, announced);
  if (hit && hit->callee_n)
    pp_trace_put (&r, hit->callee_bits, hit->callee_n);
  else
    pp_trace_miss_callee (&r, hit, hit ? hit->unit : 0, hit ? hit->function : 0);
  put (t, &r);
  slot[0] = fp ^ gen;
  slot[1] = announced ? fp : 0;
  end_write (t);
  t->expect = slot[1];
}

/* ---- Registration, flushing, exit and fork (runtime.c calls these).  */

void
pp_trace_register (struct __pathprof_unit *u)
{
  (void) trace_id (u);
}

void
pp_trace_forget (struct __pathprof_unit *u)
{
  pp_trace_flush_all ();
  /* A file opened later (a thread's own, a forked child's) still gets the
     unit's notes: from a copy, since the unit's memory may go (dlclose).
     Without memory for one, the unit is left out of those files, which can
     hold no record of it.  */
  size_t name_len = strlen (u->name) + 1;
  struct __pathprof_unit *copy = pp_malloc (sizeof *copy + name_len + u->notes_len);
  if (copy)
    {
      memcpy (copy, u, sizeof *copy);
      char *name = (char *) (copy + 1);
      memcpy (name, u->name, name_len);
      memcpy (name + name_len, u->notes, u->notes_len);
      copy->name = name;
      copy->notes = (const unsigned char *) name + name_len;
      copy->trace_addrs = NULL;
      copy->trace_info = NULL;
    }
  lock_trace ();
  if (u->trace_id)
    traced_units[u->trace_id - 1] = copy;
  /* Its functions' addresses may be another's from now on: every call
     site's slot is stale.  A thread without a buffer has no slot yet.  */
  __atomic_fetch_add (&units_gone, 1, __ATOMIC_RELEASE);
  for (struct tstate *t = threads; t; t = t->next)
    __atomic_fetch_add (&t->gen, 1, __ATOMIC_RELAXED);
  unlock_trace ();
}

void
pp_trace_flush_all (void)
{
  lock_trace ();
  for (struct tstate *t = threads; t; t = t->next)
    write_records (t);
  if (untraced_activations)
    {
      char msg[160];
      snprintf (msg, sizeof msg, "%lu activation(s) of signal handlers that "
		"interrupted a trace write are not in the trace",
		untraced_activations);
      trace_report (msg, NULL);
      untraced_activations = 0;
    }
  unlock_trace ();
}

void
pp_trace_before_fork (void)
{
  lock_trace ();
  write_records (&ts);
  read_pattern ();
  size_t n = 0;
  if (pattern[0] != '/' && getcwd (prefork_file, sizeof prefork_file - 1))
    {
      n = strlen (prefork_file);
      prefork_file[n++] = '/';
    }
  file_name (prefork_file + n, sizeof prefork_file - n, ts.thread);
}

void
pp_trace_after_fork_in_parent (void)
{
  unlock_trace ();
}

/* The child continues the forking thread's records in a file of its own,
   which starts by saying where the earlier ones are.  */
void
pp_trace_after_fork_in_child (pid_t parent)
{
  struct tstate *t = &ts;
  if (t->thread)
    {
      fork_origin.thread = t->thread;
      fork_origin.bits = t->flushed;
      fork_origin.parent = parent;
      memcpy (fork_origin.parent_file, prefork_file, sizeof prefork_file);
    }
  /* Other threads are gone; their buffers stay mapped but unused.  */
  threads = t->buf ? t : NULL;
  t->next = NULL;
  if (process_sink.fd >= 0)
    close (process_sink.fd);
  process_sink = (struct sink) { -1, false, 0 };
  if (t->own.fd >= 0)
    close (t->own.fd);
  t->own = (struct sink) { -1, false, 0 };
  fork_origin.child = fork_origin.child || t->thread;
  t->flushed = 0;
  unlock_trace ();
}
