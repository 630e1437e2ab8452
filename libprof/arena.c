/* libprof's heap (corelib/format/alloc.h): every block the runtime and its build of
   corelib take, from pages it maps itself, so that the program's malloc
   heap runs exactly as in the plain build.

   Design.  A block is 2^k bytes (k from 5), its first 16 bytes a header
   holding k and whether its memory is still as mmap gave it (zero), so
   that calloc clears only reused blocks.  Freed blocks wait on a list per
   k and are reused as they are; nothing is returned to the system (libprof
   frees little before the process ends: tables that grew, a dump's
   snapshot).  Blocks are carved from chunks mapped with mmap, each twice
   the previous one (the first 1 MiB; a block larger than that gets a chunk
   of its own size), the rest of a chunk carved into free blocks when the
   next is mapped.  A spin lock (an atomic flag, as runtime.c's units_lock,
   for the same reason: no libc call on the way) serialises it; the fork
   handlers hold it across fork, so a child never inherits it taken.

   Growth.  A chunk per doubling of the total: at most CHUNKS of them, which
   pp_arena_owns searches to tell libprof's blocks from the program's
   (gmp-memory.c hands GMP's frees to the one that owns the block).  Memory
   kept is at most about four times the peak that was asked for (a block
   rounds up to the next power of two; a freed block waits for its size).  */

#define _GNU_SOURCE 1

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>

#include "alloc.h"
#include "arena.h"

#define HEADER 16
#define MIN_K 5
#define MAX_K 47
#define CHUNKS 40
#define FIRST_CHUNK ((size_t) 1 << 20)

struct header
{
  uint32_t k;
  uint32_t zero;		/* the block is as mmap gave it */
  uint64_t pad;
};

/* A free block: its header, then the link.  */
struct free_block
{
  struct header h;
  struct free_block *next;
};

static struct
{
  int lock;
  struct free_block *free[MAX_K + 1];
  char *next, *end;		/* the last chunk's uncarved bytes */
  uint32_t nchunks;
  struct
  {
    char *base;
    size_t size;
  } chunk[CHUNKS];
} arena;

void
pp_arena_lock (void)
{
  while (__atomic_exchange_n (&arena.lock, 1, __ATOMIC_ACQUIRE))
    sched_yield ();
}

void
pp_arena_unlock (void)
{
  __atomic_store_n (&arena.lock, 0, __ATOMIC_RELEASE);
}

static uint32_t
class_of (size_t size)
{
  size_t total = size + HEADER;
  uint32_t k = MIN_K;
  while (k <= MAX_K && ((size_t) 1 << k) < total)
    k++;
  return k;
}

static void
push_free (char *p, uint32_t k, bool zero)
{
  struct free_block *b = (struct free_block *) p;
  b->h.k = k;
  b->h.zero = zero;
  b->next = arena.free[k];
  arena.free[k] = b;
}

/* The uncarved rest of the last chunk (a multiple of 32 bytes, as every
   block is) to the free lists, biggest blocks first.  */
static void
carve_rest (void)
{
  while (arena.end - arena.next >= ((ptrdiff_t) 1 << MIN_K))
    {
      uint32_t k = MIN_K;
      while (k < MAX_K && arena.end - arena.next >= ((ptrdiff_t) 2 << k))
	k++;
      push_free (arena.next, k, true);
      arena.next += (size_t) 1 << k;
    }
}

/* A fresh block of 2^k bytes, or NULL.  */
static char *
carve (uint32_t k)
{
  size_t size = (size_t) 1 << k;
  if (arena.end - arena.next < (ptrdiff_t) size)
    {
      if (arena.nchunks == CHUNKS)
	return NULL;
      size_t want = arena.nchunks ? 2 * arena.chunk[arena.nchunks - 1].size : FIRST_CHUNK;
      if (want < size)
	want = size;
      void *m = mmap (NULL, want, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (m == MAP_FAILED)
	return NULL;
      carve_rest ();
      arena.chunk[arena.nchunks].base = m;
      arena.chunk[arena.nchunks].size = want;
      __atomic_store_n (&arena.nchunks, arena.nchunks + 1, __ATOMIC_RELEASE);
      arena.next = m;
      arena.end = (char *) m + want;
    }
  char *p = arena.next;
  arena.next += size;
  return p;
}

/* A block of class k (its header filled), or NULL.  */
static struct header *
take (uint32_t k)
{
  if (k > MAX_K)
    return NULL;
  pp_arena_lock ();
  struct header *h;
  struct free_block *b = arena.free[k];
  if (b)
    {
      arena.free[k] = b->next;
      b->next = NULL;		/* a zero block is zero again */
      h = &b->h;
    }
  else
    {
      h = (struct header *) carve (k);
      if (h)
	{
	  h->k = k;
	  h->zero = true;
	}
    }
  pp_arena_unlock ();
  return h;
}

void *
pp_arena_malloc (size_t size)
{
  struct header *h = take (class_of (size));
  return h ? (char *) h + HEADER : NULL;
}

/* Word loops rather than memset and memcpy calls (RUNTIME_CFLAGS keeps
   them loops): a libc function's first call costs a symbol binding.  */
static void
clear_words (uint64_t *w, size_t n)
{
  for (size_t i = 0; i < n; i++)
    w[i] = 0;
}

void *
pp_arena_calloc (size_t n, size_t size)
{
  if (size && n > SIZE_MAX / size)
    return NULL;
  struct header *h = take (class_of (n * size));
  if (!h)
    return NULL;
  /* The bytes asked for, not the whole class (up to twice as many).  */
  if (!h->zero)
    clear_words ((uint64_t *) ((char *) h + HEADER), (n * size + 7) / 8);
  return (char *) h + HEADER;
}

void
pp_arena_free (void *p)
{
  if (!p)
    return;
  struct header *h = (struct header *) ((char *) p - HEADER);
  pp_arena_lock ();
  push_free ((char *) h, h->k, false);
  pp_arena_unlock ();
}

void *
pp_arena_realloc (void *p, size_t size)
{
  if (!p)
    return pp_arena_malloc (size);
  struct header *h = (struct header *) ((char *) p - HEADER);
  size_t have = ((size_t) 1 << h->k) - HEADER;
  if (size <= have)
    return p;
  void *q = pp_arena_malloc (size);
  if (!q)
    return NULL;
  const uint64_t *from = p;
  uint64_t *to = q;
  for (size_t i = 0; i < have / 8; i++)
    to[i] = from[i];
  pp_arena_free (p);
  return q;
}

bool
pp_arena_owns (const void *p)
{
  /* Newest first: the last chunk is as big as all the others.  */
  for (uint32_t i = __atomic_load_n (&arena.nchunks, __ATOMIC_ACQUIRE); i-- > 0;)
    if ((const char *) p >= arena.chunk[i].base
	&& (const char *) p < arena.chunk[i].base + arena.chunk[i].size)
      return true;
  return false;
}
