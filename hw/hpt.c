/* The Hot Path Table, the complete profile it is judged by, and the overlap
   percentage (hw.h).  */

#include <stdlib.h>
#include <string.h>

#include "hw.h"

int
hw_hpt_init (hw_hpt *h, uint32_t entries, uint32_t ways, int index, int replace)
{
  memset (h, 0, sizeof *h);
  if (ways == 0 || entries == 0 || entries % ways)
    return -1;
  h->entries = entries;
  h->ways = ways;
  h->sets = entries / ways;
  h->index = (uint8_t) index;
  h->replace = (uint8_t) replace;
  h->e = calloc (entries, sizeof *h->e);
  return h->e ? 0 : -1;
}

void
hw_hpt_free (hw_hpt *h)
{
  free (h->e);
  memset (h, 0, sizeof *h);
}

/* The start address from bit 4 up: instructions are not all 4-byte aligned
   (x86), and pathprof trace --branches lays blocks out 16 bytes apart.  */
static uint32_t
set_of (const hw_hpt *h, const hw_path *p)
{
  uint64_t x = p->start >> 4;
  if (h->index == HW_INDEX_XOR)
    x ^= p->length ^ p->outcomes ^ (p->outcomes >> 32);
  return (uint32_t) ((h->sets & (h->sets - 1)) == 0 ? x & (h->sets - 1) : x % h->sets);
}

/* Path p found in e: its count (saturating) and its time.  */
static void
hit (hw_hpt *h, hw_hpt_entry *e, uint32_t count)
{
  e->count = e->count > UINT32_MAX - count ? UINT32_MAX : e->count + count;
  e->used = h->clock;
  h->last = e;
}

void
hw_hpt_add (hw_hpt *h, const hw_path *p, uint32_t count)
{
  h->lookups++;
  h->clock++;
  hw_hpt_entry *e = h->last;
  if (e && e->valid && hw_path_equal (&e->path, p))
    {
      hit (h, e, count);
      return;
    }
  hw_hpt_entry *set = &h->e[(size_t) set_of (h, p) * h->ways];
  hw_hpt_entry *victim = NULL;
  for (uint32_t w = 0; w < h->ways; w++)
    {
      e = &set[w];
      if (e->valid && hw_path_equal (&e->path, p))
	{
	  hit (h, e, count);
	  return;
	}
      if (!e->valid)
	{
	  if (!victim || victim->valid)
	    victim = e;
	}
      else if (!victim
	       || (victim->valid
		   && (h->replace == HW_REPLACE_LFU
		       ? e->count < victim->count
			 || (e->count == victim->count && e->used < victim->used)
		       : e->used < victim->used)))
	victim = e;
    }
  h->misses++;
  if (victim->valid)
    h->replacements++;
  *victim = (hw_hpt_entry) { *p, count, h->clock, true };
  h->last = victim;
}

uint64_t
hw_hpt_bytes (const hw_hpt *h, unsigned address_bits, unsigned max_length)
{
  unsigned length_bits = 0;
  while ((1u << length_bits) <= max_length)
    length_bits++;
  return ((uint64_t) h->entries * (address_bits + length_bits + max_length + 32)
	  + 7) / 8;
}

/* ---- The complete profile: open addressing on the path.  */

#define EMPTY_LENGTH 0xff

static uint64_t
hash_path (const hw_path *p)
{
  uint64_t x = p->start * 0x9e3779b97f4a7c15ull ^ p->outcomes * 0xc2b2ae3d27d4eb4full
	       ^ p->length;
  x ^= x >> 31;
  return x * 0x94d049bb133111ebull;
}

void
hw_profile_init (hw_profile *p)
{
  memset (p, 0, sizeof *p);
}

void
hw_profile_free (hw_profile *p)
{
  for (size_t i = 0; i < p->cap; i++)
    free (p->e[i].targets);
  free (p->e);
  memset (p, 0, sizeof *p);
}

static hw_profile_entry *
slot (const hw_profile *p, const hw_path *path)
{
  size_t i = hash_path (path) & (p->cap - 1);
  while (p->e[i].path.length != EMPTY_LENGTH && !hw_path_equal (&p->e[i].path, path))
    i = (i + 1) & (p->cap - 1);
  return &p->e[i];
}

static int
grow (hw_profile *p)
{
  size_t cap = p->cap ? 2 * p->cap : 1024;
  hw_profile_entry *old = p->e, *e = calloc (cap, sizeof *e);
  if (!e)
    return -1;
  for (size_t i = 0; i < cap; i++)
    e[i].path.length = EMPTY_LENGTH;
  size_t old_cap = p->cap;
  p->e = e;
  p->cap = cap;
  p->last = NULL;
  for (size_t i = 0; i < old_cap; i++)
    if (old[i].path.length != EMPTY_LENGTH)
      *slot (p, &old[i].path) = old[i];
  free (old);
  return 0;
}

hw_profile_entry *
hw_profile_add (hw_profile *p, const hw_path *path, uint64_t count)
{
  if ((p->n + 1) * 2 > p->cap && grow (p))
    return NULL;
  hw_profile_entry *e = p->last;
  if (!e || !hw_path_equal (&e->path, path))
    {
      e = p->last = slot (p, path);
      if (e->path.length == EMPTY_LENGTH)
	{
	  *e = (hw_profile_entry) { *path, 0, 0, NULL };
	  p->n++;
	}
    }
  e->count += count;
  p->total += count;
  return e;
}

hw_profile_entry *
hw_profile_find (const hw_profile *p, const hw_path *path)
{
  if (!p->cap)
    return NULL;
  hw_profile_entry *e = slot (p, path);
  return e->path.length == EMPTY_LENGTH ? NULL : e;
}

double
hw_overlap (const hw_hpt *h, const hw_profile *complete)
{
  uint64_t hpt_total = 0;
  for (uint32_t i = 0; i < h->entries; i++)
    if (h->e[i].valid)
      hpt_total += h->e[i].count;
  if (!hpt_total || !complete->total)
    return 0;
  double overlap = 0;
  for (uint32_t i = 0; i < h->entries; i++)
    if (h->e[i].valid)
      {
	const hw_profile_entry *c = hw_profile_find (complete, &h->e[i].path);
	double mine = (double) h->e[i].count / (double) hpt_total;
	double real = c ? (double) c->count / (double) complete->total : 0;
	overlap += mine < real ? mine : real;
      }
  return 100 * overlap;
}
