/* libprof's thread table of segments (libprof/ip-tables.c), the one the
   context paths' code counts in place at a segment's home slot
   (pathprof-abi.h __pathprof_ip_home): against a plain tally of every
   count, over random runs of keys where a few hot segments hash to the
   home slot of a colder one that came first.  Asked for home slots, the
   table must move each hot segment into its home (else the code misses it
   on every turn), and keep every count, each key in one slot that linear
   probing finds; not asked (the segments modes), it moves nothing.  */

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ip-tables.h"
#include "unit.h"

#define NKEYS 68			/* 60 cold, up to 8 hot */
#define NCOLD 60
#define PREFILL 2100		/* the table grows to 8,192 slots first, and no
				   more while the cases run (16 x 68 keys) */
#define ROUNDS 200

struct key
{
  uint64_t ctx, a, b;
  uint64_t count;		/* the tally */
};

/* The slot of key k linear probing finds from its home, or NULL.  */
static const struct __pathprof_ip_slot *
probe (const struct __pathprof_ip_table *t, const struct key *k)
{
  for (uint64_t j = __pathprof_ip_home (t, k->ctx + 1, k->a, k->b), n = 0; n <= t->mask;
       j = (j + 1) & t->mask, n++)
    {
      const struct __pathprof_ip_slot *s = &t->slots[j];
      if (!s->ctx1)
	return NULL;
      if (s->ctx1 == k->ctx + 1 && s->a == k->a && s->b == k->b)
	return s;
    }
  return NULL;
}

static bool
at_home (const struct __pathprof_ip_table *t, const struct key *k)
{
  const struct __pathprof_ip_slot *s = &t->slots[__pathprof_ip_home (t, k->ctx + 1, k->a, k->b)];
  return s->ctx1 == k->ctx + 1 && s->a == k->a && s->b == k->b;
}

int
main (void)
{
  struct unit_property exact = { .name = "ip-tables: every count kept, each segment in the one slot probing finds, moved home or not" };
  struct unit_property homes = { .name = "ip-tables: asked for home slots, a segment counting more than twice the one in its home takes it; not asked, nothing moves" };
  static struct key keys[NKEYS];
  unsigned long long rng = 0x51ab;
  unsigned moved = 0, stayed = 0;
  /* One table per thread: each case runs in the same table, with its own
     contexts (the keys of earlier cases stay, as in a long run).  */
  const struct __pathprof_ip_table *t = pp_ipt_segment_table ();
  for (uint64_t i = 0; i < PREFILL; i++)
    pp_ipt_count_segment (1u << 30, i, 0, false);
  uint64_t mask = t->mask, ctx0 = 0;
  for (int home = 0; home < 2; home++)
    for (int c = 0; c < 8; c++, ctx0 += 1000)
      {
	/* Cold keys first, counted once each; then hot ones, each chosen to
	   share the home slot of a cold one (no two the same), counted many
	   times.  */
	uint32_t ncold = NCOLD, n = 0;
	for (; n < ncold; n++)
	  keys[n] = (struct key) { ctx0 + unit_rand (&rng) % 50, unit_rand (&rng) % 64, 0, 0 };
	for (uint32_t i = 0; i < n; i++)
	  for (uint32_t j = 0; j < i; j++)
	    if (keys[i].ctx == keys[j].ctx && keys[i].a == keys[j].a)
	      keys[i].a += 64 * (i + 1);	/* distinct keys */
	for (uint32_t i = 0; i < n; i++)
	  {
	    keys[i].count++;
	    unit_check (&exact, pp_ipt_count_segment (keys[i].ctx, keys[i].a, keys[i].b, home),
			"out of memory");
	  }
	uint32_t nhot = 0;
	uint64_t used[8];
	for (uint32_t i = 0; i < ncold && n < NKEYS && nhot < 8; i++)
	  {
	    uint64_t h = __pathprof_ip_home (t, keys[i].ctx + 1, keys[i].a, keys[i].b);
	    bool taken = false;
	    for (uint32_t j = 0; j < nhot; j++)
	      taken |= used[j] == h;
	    if (taken)
	      continue;
	    used[nhot] = h;
	    for (uint64_t a = 1000000 + unit_rand (&rng) % 1000; n < NKEYS; a++)
	      if (__pathprof_ip_home (t, keys[i].ctx + 1, a, 0) == h)
		{
		  keys[n++] = (struct key) { keys[i].ctx, a, 0, 0 };
		  nhot++;
		  break;
		}
	  }
	for (int r = 0; r < ROUNDS; r++)
	  for (uint32_t i = ncold; i < n; i++)
	    {
	      keys[i].count++;
	      pp_ipt_count_segment (keys[i].ctx, keys[i].a, keys[i].b, home);
	    }
	for (uint32_t i = 0; i < n; i++)
	  {
	    const struct __pathprof_ip_slot *s = probe (t, &keys[i]);
	    unit_check (&exact, s && s->count == keys[i].count,
			"case %d/%d: key (%llu, %llu) %s (want %llu)", home, c,
			(unsigned long long) keys[i].ctx, (unsigned long long) keys[i].a,
			s ? "counted wrong" : "not found", (unsigned long long) keys[i].count);
	  }
	/* Each key is in one slot.  */
	uint64_t taken = 0;
	for (uint64_t j = 0; j <= t->mask; j++)
	  for (uint32_t i = 0; i < n; i++)
	    taken += t->slots[j].ctx1 == keys[i].ctx + 1 && t->slots[j].a == keys[i].a
		     && t->slots[j].b == keys[i].b;
	unit_check (&exact, taken == n, "case %d/%d: %llu slots hold %u keys", home, c,
		    (unsigned long long) taken, n);
	for (uint32_t i = ncold; i < n; i++)
	  {
	    bool there = at_home (t, &keys[i]);
	    moved += home && there;
	    stayed += !home && !there;
	    unit_check (&homes, home ? there : !there,
			"case %d/%d: hot key (%llu, %llu) %s its home slot", home, c,
			(unsigned long long) keys[i].ctx, (unsigned long long) keys[i].a,
			there ? "in" : "not in");
	  }
	/* The keys stay in the table with their counts; the next case's
	   are new (their contexts differ).  */
	for (uint32_t i = 0; i < n; i++)
	  keys[i].count = 0;
      }
  unit_check (&exact, t->mask == mask, "the table grew while the cases ran");
  unit_report (&exact);
  unit_report (&homes);
  printf ("note: %u hot segments moved to their home slots, %u left where they were "
	  "(segments modes)\n", moved, stayed);
  return unit_exit_status ();
}
