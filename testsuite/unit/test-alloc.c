/* corelib/format/alloc.h: pp_sort against a stable insertion sort (random arrays
   full of ties, element sizes from 1 to 40 bytes), pp_sort_keyed against
   pp_sort (keys that differ in a few random bytes or in any, full of ties;
   sizes around its insertion threshold and up to 200,000, so that the
   radix sort's buckets go many levels down),
   and libprof's arena (libprof/arena.c) against what a heap promises: random malloc, calloc,
   realloc and free, each live block filled with a pattern of its own that
   must survive every other operation (so no two blocks overlap), calloc's
   blocks zero even when reused, realloc keeping the old bytes, and
   pp_arena_owns telling arena blocks from malloc's; also from four threads
   at once.  */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "arena.h"
#include "unit.h"

static size_t key_offset;	/* the byte compared: ties keep the rest */

static int
by_key (const void *a, const void *b)
{
  unsigned char x = ((const unsigned char *) a)[key_offset] % 5;
  unsigned char y = ((const unsigned char *) b)[key_offset] % 5;
  return (x > y) - (x < y);
}

static void
reference_sort (unsigned char *a, size_t n, size_t size)
{
  unsigned char tmp[64];
  for (size_t i = 1; i < n; i++)
    {
      memcpy (tmp, a + i * size, size);
      size_t j = i;
      for (; j > 0 && by_key (a + (j - 1) * size, tmp) > 0; j--)
	memcpy (a + j * size, a + (j - 1) * size, size);
      memcpy (a + j * size, tmp, size);
    }
}

static void
test_sort (void)
{
  struct unit_property p = { .name = "pp_sort: stable, as an insertion sort" };
  unsigned long long seed = 11;
  for (int round = 0; round < 600; round++)
    {
      size_t n = unit_rand (&seed) % (round < 300 ? 20 : 400);
      size_t size = 1 + unit_rand (&seed) % 40;
      key_offset = unit_rand (&seed) % size;
      unsigned char *a = malloc (n * size + 1), *b = malloc (n * size + 1);
      for (size_t i = 0; i < n * size; i++)
	a[i] = (unsigned char) unit_rand (&seed);
      memcpy (b, a, n * size);
      pp_sort (a, n, size, by_key);
      reference_sort (b, n, size);
      unit_check (&p, memcmp (a, b, n * size) == 0,
		  "round %d: %zu elements of %zu bytes differ", round, n, size);
      free (a);
      free (b);
    }
  unit_report (&p);
}

static int
by_key64 (const void *a, const void *b)
{
  uint64_t x = ((const pp_keyed *) a)->key, y = ((const pp_keyed *) b)->key;
  return (x > y) - (x < y);
}

static void
test_sort_keyed (void)
{
  struct unit_property p = { .name = "pp_sort_keyed: stable, as pp_sort" };
  unsigned long long seed = 5;
  for (int round = 0; round < 420; round++)
    {
      /* The last rounds: up to 200,000 keys, every bit free in some
	 (buckets of many levels, a key's top bit set).  */
      size_t n = unit_rand (&seed) % (round < 200 ? 130 : round < 400 ? 5000 : 200000);
      /* Bytes of the key that vary (a mask), the rest one fixed value.  */
      uint64_t mask = round >= 400 && round % 2 ? ~0ull : 0;
      uint64_t fixed = unit_rand (&seed) * 0x9e3779b97f4a7c15ull;
      for (int k = (int) (unit_rand (&seed) % 4); k >= 0; k--)
	mask |= (uint64_t) 0xff << (8 * (unit_rand (&seed) % 8));
      unsigned spread = 1 + (unsigned) (unit_rand (&seed) % 300);
      pp_keyed *a = malloc ((n + 1) * sizeof *a), *b = malloc ((n + 1) * sizeof *b);
      for (size_t i = 0; i < n; i++)
	{
	  uint64_t r = unit_rand (&seed) % spread * 0x0101010101010101ull
		       ^ unit_rand (&seed) << 32;
	  a[i] = (pp_keyed) { (fixed & ~mask) | (r & mask), i };
	}
      memcpy (b, a, n * sizeof *a);
      pp_sort_keyed (a, n);
      pp_sort (b, n, sizeof *b, by_key64);
      unit_check (&p, n == 0 || memcmp (a, b, n * sizeof *a) == 0,
		  "round %d: %zu keys under mask %llx differ", round, n,
		  (unsigned long long) mask);
      free (a);
      free (b);
    }
  unit_report (&p);
}

struct block
{
  unsigned char *p;
  size_t size;
  unsigned char tag;
};

/* One random run over SLOTS blocks; failures into P.  */
static void
churn (struct unit_property *p, unsigned long long seed, int ops)
{
  enum { SLOTS = 64 };
  struct block b[SLOTS] = { { 0 } };
  for (int op = 0; op < ops; op++)
    {
      struct block *x = &b[unit_rand (&seed) % SLOTS];
      unsigned r = (unsigned) (unit_rand (&seed) % 4);
      size_t size = (size_t) 1 << (unit_rand (&seed) % (op % 50 ? 12 : 21));
      size = size + unit_rand (&seed) % size;
      for (size_t i = 0; i < x->size; i++)
	if (x->p[i] != (unsigned char) (x->tag + i))
	  {
	    unit_check (p, 0, "op %d: a block of %zu bytes changed at byte %zu",
			op, x->size, i);
	    return;
	  }
      if (r == 0 || (r == 3 && !x->p))
	{
	  pp_arena_free (x->p);
	  x->p = r == 0 ? pp_arena_malloc (size) : pp_arena_calloc (size, 1);
	  x->size = x->p ? size : 0;
	  if (r == 3)
	    {
	      size_t nonzero = 0;
	      for (size_t i = 0; i < size; i++)
		nonzero += x->p[i] != 0;
	      unit_check (p, nonzero == 0, "op %d: calloc (%zu) gave %zu nonzero bytes",
			  op, size, nonzero);
	    }
	}
      else if (r == 1 && x->p)
	{
	  unsigned char *q = pp_arena_realloc (x->p, size);
	  size_t kept = size < x->size ? size : x->size, bad = 0;
	  for (size_t i = 0; q && i < kept; i++)
	    bad += q[i] != (unsigned char) (x->tag + i);
	  unit_check (p, q && bad == 0, "op %d: realloc to %zu lost %zu bytes", op, size, bad);
	  if (q)
	    {
	      x->p = q;
	      x->size = size;
	    }
	}
      else
	{
	  pp_arena_free (x->p);
	  x->p = NULL;
	  x->size = 0;
	}
      if (x->p)
	{
	  unit_check (p, pp_arena_owns (x->p) && pp_arena_owns (x->p + x->size - 1)
		      && ((uintptr_t) x->p & 15) == 0,
		      "op %d: a block not the arena's, or not aligned", op);
	  x->tag = (unsigned char) unit_rand (&seed);
	  for (size_t i = 0; i < x->size; i++)
	    x->p[i] = (unsigned char) (x->tag + i);
	}
    }
  for (int i = 0; i < SLOTS; i++)
    pp_arena_free (b[i].p);
}

static struct unit_property threaded = { .name = "arena: four threads at once" };

static void *
thread_churn (void *arg)
{
  churn (&threaded, (unsigned long long) (uintptr_t) arg, 20000);
  return NULL;
}

/* PP_RESERVE against a plain array of what was appended: random needs, both
   capacity types, and the refusal past what a uint8_t capacity holds.  */
static void
test_reserve (void)
{
  struct unit_property p = { .name = "PP_RESERVE: room, contents kept, refusals" };
  unsigned long long seed = 7;
  for (int round = 0; round < 200; round++)
    {
      uint32_t *a = NULL, cap32 = 0, n = 0;
      size_t *b = NULL, capz = 0;
      uint32_t want = (uint32_t) (unit_rand (&seed) % 5000);
      while (n < want)
	{
	  size_t need = n + 1 + unit_rand (&seed) % 40;
	  if (PP_RESERVE (a, cap32, need, 1 + unit_rand (&seed) % 9)
	      || PP_RESERVE (b, capz, need, 16))
	    break;
	  unit_check (&p, cap32 >= need && capz >= need,
		      "round %d: capacity %u / %zu below %zu", round, cap32, capz, need);
	  for (; n < need; n++)
	    a[n] = n * 2654435761u, b[n] = n;
	}
      uint32_t bad = 0;
      for (uint32_t i = 0; i < n; i++)
	bad += a[i] != i * 2654435761u || b[i] != i;
      unit_check (&p, n >= want, "round %d: stopped at %u of %u", round, n, want);
      unit_check (&p, bad == 0, "round %d: %u elements changed", round, bad);
      pp_free (a);
      pp_free (b);
    }
  unsigned char *c = NULL;
  uint8_t cap8 = 0;
  unit_check (&p, PP_RESERVE (c, cap8, 200, 16) == 0 && cap8 == 255,
	      "a uint8_t capacity did not reach 255 (%u)", cap8);
  unsigned char *before = c;
  volatile size_t past = 300;	/* not a constant: no "always true" */
  unit_check (&p, PP_RESERVE (c, cap8, past, 16) == -1 && c == before && cap8 >= 200,
	      "a uint8_t capacity took 300");
  pp_free (c);
  unit_report (&p);
}

int
main (void)
{
  test_sort ();
  test_sort_keyed ();
  test_reserve ();

  struct unit_property heap = { .name = "arena: blocks keep their bytes, calloc zeroes" };
  for (unsigned long long seed = 1; seed <= 20; seed++)
    churn (&heap, seed, 3000);
  unit_report (&heap);

  struct unit_property owns = { .name = "arena: owns its blocks only" };
  void *m = malloc (100);
  int local;
  unit_check (&owns, !pp_arena_owns (m) && !pp_arena_owns (&local)
	      && !pp_arena_owns (NULL), "a malloc or stack address is the arena's");
  free (m);
  unit_report (&owns);

  pthread_t t[4];
  for (uintptr_t i = 0; i < 4; i++)
    pthread_create (&t[i], NULL, thread_churn, (void *) (i + 100));
  for (int i = 0; i < 4; i++)
    pthread_join (t[i], NULL);
  unit_report (&threaded);
  return unit_exit_status ();
}
