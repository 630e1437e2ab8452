/* Where corelib (and libprof) take memory, and how they sort.

   The tool and the plugin take memory from libc.  libprof runs inside the
   program being profiled, whose heap must run exactly as in the plain build:
   a program that compares heap addresses, or prints memory malloc gave it
   uninitialised, would otherwise branch or print differently once the runtime
   had taken blocks of its own.  So libprof and its build of corelib (compiled
   with -DPP_OWN_HEAP) take memory from libprof's arena (libprof/arena.c),
   which maps its own pages and never calls malloc.

   Sorting goes through pp_sort, a stable merge sort, everywhere (or
   pp_sort_keyed, stable too, where the order is by 64-bit keys): glibc's
   qsort takes its merge buffer from malloc, and the plugin and libprof must
   order ties alike (a segments root is numbered by both).  */

#ifndef PATHPROF_ALLOC_H
#define PATHPROF_ALLOC_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#ifdef PP_OWN_HEAP
void *pp_arena_malloc (size_t size);
void *pp_arena_calloc (size_t n, size_t size);
void *pp_arena_realloc (void *p, size_t size);
void pp_arena_free (void *p);
# define pp_malloc pp_arena_malloc
# define pp_calloc pp_arena_calloc
# define pp_realloc pp_arena_realloc
# define pp_free pp_arena_free
/* GMP takes memory through functions global to the process, which the
   program may use too: between pp_gmp_enter and pp_gmp_leave, the calling
   thread's new GMP blocks are libprof's (libprof/gmp-memory.c).  */
void pp_gmp_enter (void);
void pp_gmp_leave (void);
#else
# define pp_malloc malloc
# define pp_calloc calloc
# define pp_realloc realloc
# define pp_free free
# define pp_gmp_enter() ((void) 0)
# define pp_gmp_leave() ((void) 0)
#endif

/* Growable arrays.  PP_RESERVE (array, cap, need, first) makes room for NEED
   elements in ARRAY (a pointer lvalue, from pp_malloc or NULL) of capacity CAP
   (an unsigned lvalue): CAP doubles, from FIRST, until it holds NEED, and the
   array moves.  It evaluates to 0, or to -1 when out of memory or when NEED
   passes what CAP's type holds (ARRAY and CAP unchanged).  */
static inline size_t
pp_grown_capacity (size_t cap, size_t need, size_t first, size_t most, size_t size)
{
  size_t n = cap ? cap : first ? first : 1;
  if (most > SIZE_MAX / size)
    most = SIZE_MAX / size;
  while (n < need && n < most)
    n = n > most / 2 ? most : 2 * n;
  return n < need ? 0 : n;
}
#define PP_RESERVE(array, cap, need, first)				\
  __extension__ ({							\
    int pp_reserve_status_ = 0;						\
    if ((size_t) (need) > (size_t) (cap))				\
      {									\
	size_t pp_reserve_n_						\
	  = pp_grown_capacity ((cap), (need), (first),			\
			       (size_t) (__typeof__ (cap)) -1, sizeof *(array)); \
	__typeof__ (array) pp_reserve_a_ = pp_reserve_n_		\
	  ? (__typeof__ (array)) pp_realloc ((array), pp_reserve_n_ * sizeof *(array)) \
	  : NULL;							\
	if (pp_reserve_a_)						\
	  (array) = pp_reserve_a_, (cap) = (__typeof__ (cap)) pp_reserve_n_; \
	else								\
	  pp_reserve_status_ = -1;					\
      }									\
    pp_reserve_status_;							\
  })

/* qsort's contract, stably (equal elements keep their order).  */
void pp_sort (void *base, size_t n, size_t size,
	      int (*compare) (const void *, const void *));

/* A key and what it sorts: pp_sort_keyed orders N of them by increasing
   key, stably (insertion for a few, a merge sort for hundreds, a radix
   sort from the most significant bits above; pp_sort where there is no
   memory for its buffer), which the dumps of large profiles need
   (libprof's snapshot of a program record, a path table's hottest keys
   first).  */
typedef struct pp_keyed
{
  uint64_t key;
  uint64_t item;
} pp_keyed;
void pp_sort_keyed (pp_keyed *a, size_t n);

/* The first index of A[0 .. N) (sorted, increasing) whose value is not
   below X, or N.  */
uint32_t pp_lower_bound64 (const uint64_t *a, uint32_t n, uint64_t x);

#endif
