/* libprof: GMP's memory (gmp-memory.h).  */

#include <gmp.h>
#include <stdbool.h>
#include <stddef.h>

#include "alloc.h"
#include "arena.h"
#include "gmp-memory.h"
#include "pathprof-abi.h"

static struct
{
  void *(*alloc) (size_t);
  void *(*realloc) (void *, size_t, size_t);
  void (*free) (void *, size_t);
} theirs;
static bool (*also_inside) (void);
static __thread unsigned gmp_mine PP_TLS_MODEL;

static void *
gmp_alloc (size_t n)
{
  void *p = gmp_mine || (also_inside && also_inside ()) ? pp_arena_malloc (n) : NULL;
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

void
pp_gmp_in_front (bool (*inside) (void))
{
  if (inside)
    also_inside = inside;
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
    pp_gmp_in_front (NULL);
}

void
pp_gmp_leave (void)
{
  gmp_mine--;
}
