/* pp_sort and pp_sort_keyed (alloc.h).  pp_sort is a stable merge sort,
   qsort's contract.  Runs of up to SMALL elements are sorted by insertion,
   then merged pairwise through a buffer of the same size (pp_malloc);
   without one, insertion sorts the whole array (quadratic, but stable and
   in place).  Bytes are moved by loops: the element size is known only at
   run time, and libprof's build keeps loops as loops (RUNTIME_CFLAGS).
   pp_sort_keyed sorts (key, item) pairs by their 64-bit keys (below).  */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

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

static int
by_keyed (const void *a, const void *b)
{
  uint64_t x = ((const pp_keyed *) a)->key, y = ((const pp_keyed *) b)->key;
  return (x > y) - (x < y);
}

/* pp_sort_keyed: up to SMALL_KEYED elements, an insertion sort by the
   keys in place (a snapshot of segments sorts each root's numbers apart:
   SQLite's empty session 409 sorts of a dozen, 0.8 M instructions through
   pp_sort's comparisons, 0.2 M so).  Up to SMALL_MERGE, a merge sort
   through a buffer, of runs of 16 sorted by insertion.  Above, a radix
   sort from the most significant end: the eight highest bits in which the
   keys differ (the OR of each key XOR the first says which) scatter the
   elements stably through the buffer into 256 buckets, and a bucket is
   sorted the same way by the bits below, or by merging when it is small.
   A bucket's keys agree in every bit its pass read, so each level reads
   at least eight bits fewer and the recursion is at most eight deep; the
   counts of each depth are in one block, and the passes alternate
   between the array and the buffer (msd_in, msd_to).  The numbers a dump sorts are
   clustered (the paths of one context share their high bits), and a
   radix pass per byte from the least significant up, or from the most
   significant down to buckets of one, went over a few hundred of them
   seven or eight times at about 17 instructions an element a pass:
   csmith's dump in interproc-ppp sorted 255 numbers in 65 k instructions
   (its two sorts 80 k -> 45 k at depth 1, 57 k -> 29 k at depth 2); xz's
   path tables in interproc-segments, up to 8,823 keys a sort, 9.0 M ->
   7.5 M.  A whole run that sorts 100,000 random keys: 20.7 M -> 12.9 M;
   keys below 100,000: 16.7 M -> 13.5 M.  */
#define SMALL_KEYED 64
#define SMALL_MERGE 256

static void
insert_keyed (pp_keyed *a, size_t n)
{
  for (size_t i = 1; i < n; i++)
    {
      pp_keyed x = a[i];
      size_t j = i;
      for (; j > 0 && a[j - 1].key > x.key; j--)
	a[j] = a[j - 1];
      a[j] = x;
    }
}

/* A stable merge sort of A[0 .. N) through BUF of N.  */
static void
merge_keyed (pp_keyed *a, size_t n, pp_keyed *buf)
{
  enum { RUN = 16 };
  for (size_t i = 0; i < n; i += RUN)
    insert_keyed (a + i, n - i < RUN ? n - i : RUN);
  pp_keyed *src = a, *dst = buf;
  for (size_t w = RUN; w < n; w *= 2)
    {
      for (size_t lo = 0; lo < n; lo += 2 * w)
	{
	  size_t mid = n - lo < w ? n : lo + w, hi = n - lo < 2 * w ? n : lo + 2 * w;
	  size_t i = lo, j = mid, o = lo;
	  while (i < mid && j < hi)	/* the left one first on ties */
	    dst[o++] = src[j].key < src[i].key ? src[j++] : src[i++];
	  while (i < mid)
	    dst[o++] = src[i++];
	  while (j < hi)
	    dst[o++] = src[j++];
	}
      pp_keyed *t = src;
      src = dst;
      dst = t;
    }
  if (src != a)
    memcpy (a, src, n * sizeof *a);
}

/* One radix pass over SRC's N keys into DST: false where they are all
   the same (DST untouched), else true with COUNT[b] the end in DST of
   bucket b.  */
static bool
scatter (const pp_keyed *src, pp_keyed *dst, size_t n, size_t *count)
{
  uint64_t k0 = src[0].key, diff = 0;
  for (size_t i = 1; i < n; i++)
    diff |= src[i].key ^ k0;
  if (!diff)
    return false;
  unsigned top = 63 - (unsigned) __builtin_clzll (diff);
  unsigned shift = top < 8 ? 0 : top - 7;
  memset (count, 0, 256 * sizeof *count);
  for (size_t i = 0; i < n; i++)
    count[(src[i].key >> shift) & 255]++;
  size_t at = 0;
  for (unsigned b = 0; b < 256; b++)
    {
      size_t k = count[b];
      count[b] = at;
      at += k;
    }
  for (size_t i = 0; i < n; i++)
    dst[count[(src[i].key >> shift) & 255]++] = src[i];
  return true;
}

static void msd_to (pp_keyed *src, pp_keyed *dst, size_t n, size_t (*count)[256]);

/* Sorts A[0 .. N) in place, with SCRATCH of N: each pass scatters into
   the other buffer and its buckets come back sorted (msd_to), so that no
   pass copies its elements back.  */
static void
msd_in (pp_keyed *a, pp_keyed *scratch, size_t n, size_t (*count)[256])
{
  if (n <= SMALL_MERGE)
    {
      merge_keyed (a, n, scratch);
      return;
    }
  if (!scatter (a, scratch, n, *count))
    return;			/* all equal: stable as they are */
  size_t lo = 0;
  for (unsigned b = 0; b < 256 && lo < n; b++)
    {
      size_t hi = (*count)[b];
      if (hi - lo == 1)
	a[lo] = scratch[lo];
      else if (hi > lo)
	msd_to (scratch + lo, a + lo, hi - lo, count + 1);
      lo = hi;
    }
}

/* Sorts SRC[0 .. N) into DST[0 .. N) (SRC then holds nothing).  */
static void
msd_to (pp_keyed *src, pp_keyed *dst, size_t n, size_t (*count)[256])
{
  if (n > SMALL_MERGE && scatter (src, dst, n, *count))
    {
      size_t lo = 0;
      for (unsigned b = 0; b < 256 && lo < n; b++)
	{
	  size_t hi = (*count)[b];
	  if (hi - lo > 1)
	    msd_in (dst + lo, src + lo, hi - lo, count + 1);
	  lo = hi;
	}
      return;
    }
  /* Few enough to merge, or all equal.  */
  for (size_t i = 0; i < n; i++)	/* mostly a few: no call */
    dst[i] = src[i];
  if (n <= SMALL_MERGE)
    merge_keyed (dst, n, src);
}

void
pp_sort_keyed (pp_keyed *a, size_t n)
{
  if (n <= SMALL_KEYED)
    {
      insert_keyed (a, n);
      return;
    }
  size_t (*count)[256] = n > SMALL_MERGE ? pp_malloc (8 * sizeof *count) : NULL;
  pp_keyed *buf = count || n <= SMALL_MERGE ? pp_malloc (n * sizeof *buf) : NULL;
  if (!buf)
    {
      pp_free (count);
      pp_sort (a, n, sizeof *a, by_keyed);
      return;
    }
  msd_in (a, buf, n, count);
  pp_free (buf);
  pp_free (count);
}

uint32_t
pp_lower_bound64 (const uint64_t *a, uint32_t n, uint64_t x)
{
  uint32_t lo = 0, hi = n;
  while (lo < hi)
    {
      uint32_t mid = lo + (hi - lo) / 2;
      if (a[mid] < x)
	lo = mid + 1;
      else
	hi = mid;
    }
  return lo;
}
