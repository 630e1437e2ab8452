/* libprof: GMP's memory.  GMP takes memory through functions global to the
   process, which the program may use as well, and libprof must leave the
   program's heap as the plain build has it (alloc.h).  So libprof puts
   functions of its own in front of the ones it finds: between pp_gmp_enter
   and pp_gmp_leave (alloc.h), around every use of GMP by libprof (the
   interprocedural numbering, a dump), a new block comes from the arena,
   else from the program's functions, and a block goes back to the one
   that owns it.  A signal handler that uses GMP while its thread is inside
   libprof gets arena blocks: they work, but the handler's heap is not the
   plain build's.  */

#include <gmp.h>
#include <stdbool.h>
#include <stddef.h>

#include "alloc.h"
#include "arena.h"
#include "pathprof-abi.h"

static struct
{
  void *(*alloc) (size_t);
  void *(*realloc) (void *, size_t, size_t);
  void (*free) (void *, size_t);
} theirs;
static __thread unsigned gmp_mine PP_TLS_MODEL;

static void *
gmp_alloc (size_t n)
{
  void *p = gmp_mine ? pp_arena_malloc (n) : NULL;
  return p ? p : theirs.alloc (n);
}

static void *
gmp_realloc (void *p, size_t old, size_t n)
{
  if (!pp_arena_owns (p))
    return theirs.realloc (p, old, n);
  void *q = pp_arena_realloc (p, n);
  if (!q && (q = theirs.alloc (n)))
    {
      const unsigned char *from = p;
      unsigned char *to = q;
      for (size_t i = 0; i < old && i < n; i++)
	to[i] = from[i];
      pp_arena_free (p);
    }
  return q;
}

static void
gmp_free (void *p, size_t n)
{
  if (pp_arena_owns (p))
    pp_arena_free (p);
  else
    theirs.free (p, n);
}

/* libprof's functions in front of GMP's (again, if the program put its own
   there since).  */
static void
in_front (void)
{
  void *(*a) (size_t);
  void *(*r) (void *, size_t, size_t);
  void (*f) (void *, size_t);
  mp_get_memory_functions (&a, &r, &f);
  if (a != gmp_alloc)
    {
      theirs.alloc = a;
      theirs.realloc = r;
      theirs.free = f;
      mp_set_memory_functions (gmp_alloc, gmp_realloc, gmp_free);
    }
}

void
pp_gmp_enter (void)
{
  if (gmp_mine++ == 0)
    in_front ();
}

void
pp_gmp_leave (void)
{
  gmp_mine--;
}
