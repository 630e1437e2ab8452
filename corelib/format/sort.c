/* pp_sort (alloc.h): a stable merge sort, qsort's contract.  Runs of up to
   SMALL elements are sorted by insertion, then merged pairwise through a
   buffer of the same size (pp_malloc); without one, insertion sorts the
   whole array (quadratic, but stable and in place).  Bytes are moved
   by loops: the element size is known only at run time, and libprof's
   build keeps loops as loops (RUNTIME_CFLAGS).  */

#include <stdint.h>

#include "alloc.h"

#define SMALL 8

static void
copy_bytes (char *to, const char *from, size_t n)
{
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    __builtin_memcpy (to + i, from + i, 8);	/* a load and a store */
  for (; i < n; i++)
    to[i] = from[i];
}

/* Swaps n bytes at x and y, eight at a time.  */
static void
swap_bytes (char *x, char *y, size_t n)
{
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    {
      uint64_t t, u;
      __builtin_memcpy (&t, x + i, 8);
      __builtin_memcpy (&u, y + i, 8);
      __builtin_memcpy (x + i, &u, 8);
      __builtin_memcpy (y + i, &t, 8);
    }
  for (; i < n; i++)
    {
      char t = x[i];
      x[i] = y[i];
      y[i] = t;
    }
}

/* Insertion sort of n elements at a, by swaps of neighbours.  */
static void
insertion (char *a, size_t n, size_t size,
	   int (*compare) (const void *, const void *))
{
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && compare (a + (j - 1) * size, a + j * size) > 0; j--)
      swap_bytes (a + (j - 1) * size, a + j * size, size);
}

void
pp_sort (void *base, size_t n, size_t size,
	 int (*compare) (const void *, const void *))
{
  if (n < 2 || size == 0)
    return;
  char *a = base;
  char *buf = n > SMALL && n <= SIZE_MAX / size ? pp_malloc (n * size) : NULL;
  size_t run = buf ? SMALL : n;
  for (size_t i = 0; i < n; i += run)
    insertion (a + i * size, n - i < run ? n - i : run, size, compare);
  /* Merge runs of width w from src into dst, and swap, until one run.  */
  char *src = a, *dst = buf;
  for (size_t w = run; buf && w < n; w *= 2)
    {
      for (size_t lo = 0; lo < n; lo += 2 * w)
	{
	  size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
	  size_t i = lo, j = mid, o = lo;
	  while (i < mid && j < hi)
	    {
	      /* The left element first on ties: stable.  */
	      if (compare (src + j * size, src + i * size) < 0)
		copy_bytes (dst + o++ * size, src + j++ * size, size);
	      else
		copy_bytes (dst + o++ * size, src + i++ * size, size);
	    }
	  copy_bytes (dst + o * size, src + i * size, (mid - i) * size);
	  o += mid - i;
	  copy_bytes (dst + o * size, src + j * size, (hi - j) * size);
	}
      char *t = src;
      src = dst;
      dst = t;
    }
  if (buf && src != a)
    copy_bytes (a, src, n * size);
  pp_free (buf);
}
