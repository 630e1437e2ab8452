/* Path counts in hash tables, for the functions with too many paths for a counter
   array (paths mode): __pathprof_count_path runs at every path end of such a
   function, from any thread.

   Design.  Each function's table is open addressing with linear probing over
   slots (key, count), key = path + 1 so that 0 marks an empty slot, capacity a
   power of two, Fibonacci hashing.  Counting is lock-free: find the key or claim
   an empty slot for it with a compare-and-swap, then add 1 with a relaxed atomic
   add.  Keys are never removed, so a slot once found stays the key's.

   Growth.  When a claim would fill the table beyond half, the table is replaced
   under tables_lock by one twice as large, published first and then filled by
   moving each old slot's count with an atomic exchange to 0.  A thread that read
   the old table before the switch may still add to an old slot afterwards; old
   tables are therefore kept, chained behind the new one, and a key's count is the
   sum of its slots over the chain (modulo 2^64).  No count is ever lost or
   counted twice: every addition lands in some slot, and moving a count is one
   atomic exchange followed by an addition elsewhere, both under the lock.

   Keeping hot keys home.  __pathprof_count_path's fast path only looks at a
   key's home slot, and so does the code, which counts a key found there
   itself (pathprof-abi.h: the shift and the slots are where it reads
   them); a key that another claimed first must go the slow way.  So
   a table that moves counts into a new one inserts the hottest keys first, and
   a table whose slow path has found keys away from home more often than its
   capacity is rebuilt the same way, by the growth code.  Two hot keys with
   one home slot part only in a larger table (the home is the hash's top
   bits), so such a rebuild doubles the table while it has fewer than
   HOME_ROOM slots a key, up to 2^HOME_MAX_LOG2 slots (SQLite's
   sqlite3VdbeExec in the paths mode: 263 keys in 1,024 slots found two of
   its hottest paths away 578 k times a run; in 4,096 slots, 5 k); past
   that it is rebuilt at the same size, the threshold doubled at each such
   rebuild of the chain, which bounds the work.

   Dumps.  A snapshot reads every slot of the chain under tables_lock, so that no
   count moves while it is read, and records the value read per slot; once the
   profile is written, each slot loses exactly that value (an atomic subtraction,
   which needs no lock: a count moved meanwhile leaves the old slot negative and
   the key's sum right).  This is the counters' dump-and-subtract, per slot.  */

#define _GNU_SOURCE 1

#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "path-tables.h"


enum
{
  INITIAL_SLOTS_LOG2 = 6,
  HOME_ROOM = 64,		/* slots a key, below which a rebuild doubles */
  HOME_MAX_LOG2 = 16,		/* nor past this (16-byte slots: 1 MB) */
};

struct slot
{
  uint64_t key;			/* path + 1; 0: empty */
  uint64_t count;		/* modulo 2^64: may be "negative" after a dump
				   subtracted a count that moved */
};

struct hash_table
{
  uint64_t shift;		/* 64 - log2 (capacity); first: the code reads it */
  /* The table this one replaced: threads may still add to it, dumps read it.  */
  struct hash_table *older;
  uint64_t mask;		/* capacity - 1 */
  uint64_t used;		/* slots claimed */
  uint64_t displaced;		/* keys the slow path found away from home */
  uint64_t rebuild_at;		/* the value of displaced that rebuilds */
  uint64_t rebuilds;		/* same-size rebuilds in the chain so far */
  uint64_t unused;
  struct slot slots[];		/* where the code finds them */
};
/* pathprof-abi.h: the code counts a key in its home slot itself.  */
_Static_assert (offsetof (struct hash_table, shift) == 0
		&& offsetof (struct hash_table, slots) == PATHPROF_PATH_HASH_SLOTS
		&& sizeof (struct slot) == 16, "the code's view of a hash table");

/* Serialises growth with snapshots, resets and fork.  */
static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;

/* t's newest table, or NULL before its first count (the unit's empty
   table, pathprof-abi.h, whose shift no table here has).  */
static struct hash_table *
newest (const struct __pathprof_path_table *t)
{
  struct hash_table *h = __atomic_load_n ((struct hash_table *const *) &t->table,
					  __ATOMIC_ACQUIRE);
  return h && h->shift != PATHPROF_PATH_HASH_NONE_SHIFT ? h : NULL;
}

static uint64_t
home_slot (const struct hash_table *h, uint64_t key)
{
  return (key * PATHPROF_PATH_HASH_MUL) >> h->shift;
}

/* The count of key in h, claiming a slot for it if needed.  NULL when key is not
   there and claiming would fill h beyond half (with respect_limit) or h is full.
   *away is set when key was found away from its home slot.  */
static uint64_t *
find_or_claim (struct hash_table *h, uint64_t key, bool respect_limit,
	       bool *away)
{
  uint64_t i = home_slot (h, key);
  *away = false;
  for (uint64_t probes = 0; probes <= h->mask; probes++, i = (i + 1) & h->mask)
    {
      struct slot *s = &h->slots[i];
      uint64_t k = __atomic_load_n (&s->key, __ATOMIC_ACQUIRE);
      *away = probes != 0;
      if (k == key)
	return &s->count;
      if (k != 0)
	continue;
      if (respect_limit
	  && __atomic_load_n (&h->used, __ATOMIC_RELAXED) >= (h->mask + 1) / 2)
	return NULL;
      if (__atomic_compare_exchange_n (&s->key, &k, key, false, __ATOMIC_ACQ_REL,
				       __ATOMIC_ACQUIRE))
	{
	  __atomic_fetch_add (&h->used, 1, __ATOMIC_RELAXED);
	  *away = false;	/* a new key: nothing to learn from it */
	  return &s->count;
	}
      if (k == key)
	return &s->count;
    }
  return NULL;
}

static struct hash_table *
new_table (unsigned log2, unsigned rebuilds)
{
  _Static_assert (64 - PATHPROF_PATH_HASH_NONE_SHIFT < INITIAL_SLOTS_LOG2,
		  "no table of libprof's has the empty table's shift");
  if (log2 >= 58)
    return NULL;
  uint64_t capacity = (uint64_t) 1 << log2;
  struct hash_table *h = pp_calloc (1, sizeof *h + capacity * sizeof (struct slot));
  if (h)
    {
      h->mask = capacity - 1;
      h->shift = 64 - log2;
      h->rebuilds = rebuilds;
      h->rebuild_at = rebuilds < 58 - log2 ? capacity << rebuilds : UINT64_MAX;
    }
  return h;
}

/* Moves the count of old slot s into h.  A key h has no room for (only if
   very many threads claimed at once) keeps its count in old, where it still
   counts.  */
static void
move_slot (struct slot *s, struct hash_table *h)
{
  uint64_t key = __atomic_load_n (&s->key, __ATOMIC_ACQUIRE);
  if (key == 0)
    return;
  bool away;
  uint64_t *to = find_or_claim (h, key, false, &away);
  uint64_t c = to ? __atomic_exchange_n (&s->count, 0, __ATOMIC_RELAXED) : 0;
  if (c)
    __atomic_fetch_add (to, c, __ATOMIC_RELAXED);
}

/* Moves old's counts into its successor h, the hottest keys first so that they
   get their home slots (in slot order when there is no memory to sort).  A
   count is read once, as signed: a "negative" one (after a dump) is cold.  */
static void
move_counts (struct hash_table *old, struct hash_table *h)
{
  pp_keyed *order = pp_malloc ((old->mask + 1) * sizeof *order);
  if (!order)
    {
      for (uint64_t i = 0; i <= old->mask; i++)
	move_slot (&old->slots[i], h);
      return;
    }
  size_t n = 0;
  for (uint64_t i = 0; i <= old->mask; i++)
    if (__atomic_load_n (&old->slots[i].key, __ATOMIC_ACQUIRE))
      {
	/* Hotter first: the signed count's order turned unsigned, then
	   reversed.  */
	uint64_t count = __atomic_load_n (&old->slots[i].count, __ATOMIC_RELAXED);
	order[n++] = (pp_keyed) { ~(count ^ ((uint64_t) 1 << 63)), i };
      }
  pp_sort_keyed (order, n);
  for (size_t i = 0; i < n; i++)
    move_slot (&old->slots[order[i].item], h);
  pp_free (order);
}

static void
report_lost_counts (void)
{
  static bool reported;
  static const char msg[] = "pathprof: out of memory: path counts are lost\n";
  if (!__atomic_exchange_n (&reported, true, __ATOMIC_RELAXED)
      && write (STDERR_FILENO, msg, sizeof msg - 1) < 0)
    return;			/* nowhere left to report to */
}

/* Replaces seen, t's newest table, by one twice as large (or creates the first),
   or with rebuild by one as large, or twice as large while it has room to
   part keys (Keeping hot keys home, above).  Returns false when out of
   memory.  */
static bool
grow (struct __pathprof_path_table *t, struct hash_table *seen, bool rebuild)
{
  int saved_errno = errno;
  bool ok = true;
  pthread_mutex_lock (&tables_lock);
  if (newest (t) == seen)
    {
      unsigned log2 = !seen ? INITIAL_SLOTS_LOG2 : 64 - (unsigned) seen->shift;
      uint64_t used = seen ? __atomic_load_n (&seen->used, __ATOMIC_RELAXED) : 0;
      bool larger = seen && (!rebuild || (log2 < HOME_MAX_LOG2
					  && seen->mask + 1 < HOME_ROOM * used));
      struct hash_table *h = new_table (log2 + larger,
					!seen ? 0 : seen->rebuilds + (rebuild && !larger));
      if (h)
	{
	  h->older = seen;
	  __atomic_store_n ((struct hash_table **) &t->table, h, __ATOMIC_RELEASE);
	  if (seen)
	    move_counts (seen, h);
	}
      else
	ok = false;
    }
  pthread_mutex_unlock (&tables_lock);
  errno = saved_errno;
  return ok;
}

/* Everything but the common case: probing past the home slot, claiming a slot,
   growing.  Kept out of line so that the fast path needs no stack frame.  */
static __attribute__ ((noinline)) void
count_path_slowly (struct __pathprof_path_table *t, uint64_t path)
{
  for (;;)
    {
      struct hash_table *h = newest (t);
      bool away = false;
      uint64_t *count = h ? find_or_claim (h, path + 1, true, &away) : NULL;
      if (count)
	{
	  __atomic_fetch_add (count, 1, __ATOMIC_RELAXED);
	  /* One thread sees the threshold; a rebuild that fails for want of
	     memory changes nothing.  */
	  if (away && __atomic_add_fetch (&h->displaced, 1, __ATOMIC_RELAXED)
		      == h->rebuild_at)
	    grow (t, h, true);
	  return;
	}
      if (!grow (t, h, false))
	{
	  report_lost_counts ();
	  return;
	}
    }
}

PP_EXPORT void
__pathprof_count_path (struct __pathprof_path_table *t, uint64_t path)
{
  if (path >= t->npaths)	/* also keeps key = path + 1 from wrapping to 0 */
    return;
  /* The common case, about a dozen instructions: the key already sits in its
     home slot of the newest table.  */
  struct hash_table *h = newest (t);
  if (__builtin_expect (h != NULL, 1))
    {
      struct slot *s = &h->slots[home_slot (h, path + 1)];
      if (__builtin_expect (__atomic_load_n (&s->key, __ATOMIC_ACQUIRE)
			    == path + 1, 1))
	{
	  __atomic_fetch_add (&s->count, 1, __ATOMIC_RELAXED);
	  return;
	}
    }
  count_path_slowly (t, path);
}

/* ------------------------------------------------------------------------- */
/* What runtime.c does with the tables.  */

void
pp_tables_lock (void)
{
  pthread_mutex_lock (&tables_lock);
}

void
pp_tables_unlock (void)
{
  pthread_mutex_unlock (&tables_lock);
}

static int
compare_sparse (const void *a, const void *b)
{
  const pp_sparse_count *x = a, *y = b;
  return pp_sparse_before (x, y) ? -1 : pp_sparse_before (y, x);
}

/* Sorts the counts read from the slots and adds up those of one key (they may
   sit in several tables of a chain).  Returns how many keys have a count.  */
static uint32_t
combine (pp_sparse_count *sparse, size_t n)
{
  if (n == 0)
    return 0;
  pp_sort (sparse, n, sizeof *sparse, compare_sparse);
  size_t out = 0;
  for (size_t i = 0; i < n;)
    {
      pp_sparse_count c = sparse[i++];
      for (; i < n && !pp_sparse_before (&c, &sparse[i]); i++)
	c.count += sparse[i].count;
      if (c.count)
	sparse[out++] = c;
    }
  return (uint32_t) out;
}

/* Appends a count read from slot to the snapshot's arrays.  Returns false when
   out of memory.  */
static bool
take (pp_sparse_count **sparse, pp_taken_count **counts, size_t *n, size_t *cap,
      pp_sparse_count c, uint64_t *slot)
{
  if (*n == *cap)
    {
      size_t bigger = *cap ? *cap * 2 : 64;
      pp_sparse_count *s = pp_realloc (*sparse, bigger * sizeof **sparse);
      if (s)
	*sparse = s;
      pp_taken_count *t = pp_realloc (*counts, bigger * sizeof **counts);
      if (t)
	*counts = t;
      if (!s || !t)
	return false;
      *cap = bigger;
    }
  (*sparse)[*n] = c;
  (*counts)[(*n)++] = (pp_taken_count) { slot, c.count };
  return true;
}

int
pp_tables_snapshot (const struct __pathprof_unit *u, pp_unit_data *snap,
		    pp_tables_taken *taken)
{
  pp_sparse_count *sparse = NULL;
  pp_taken_count *counts = NULL;
  size_t n = 0, cap = 0;
  bool ok = true;
  /* One pass, under the lock: every slot is read once while no count moves, so
     the counts read of a key add up to what it counted.  (A unit without
     tables takes no lock: a short run's exit need not bind the mutex.)  */
  if (u->ntables)
    {
      pthread_mutex_lock (&tables_lock);
      for (uint32_t i = 0; i < u->ntables && ok; i++)
	for (struct hash_table *h = u->tables[i].flags & PATHPROF_TABLE_COMPILED ? NULL
				    : newest (&u->tables[i]);
	     h && ok; h = h->older)
	  for (uint64_t s = 0; s <= h->mask && ok; s++)
	    {
	      struct slot *slot = &h->slots[s];
	      uint64_t key = __atomic_load_n (&slot->key, __ATOMIC_ACQUIRE);
	      uint64_t value = __atomic_load_n (&slot->count, __ATOMIC_RELAXED);
	      if (key != 0 && value != 0)
		ok = take (&sparse, &counts, &n, &cap,
			   (pp_sparse_count) { u->tables[i].function, key - 1,
					       value }, &slot->count);
	    }
      pthread_mutex_unlock (&tables_lock);
    }
  snap->nsparse = 0;
  snap->sparse = NULL;
  taken->n = 0;
  taken->counts = NULL;
  if (!ok)
    {
      pp_free (sparse);
      pp_free (counts);
      return -1;
    }
  taken->counts = counts;
  taken->n = n;
  snap->nsparse = combine (sparse, n);
  snap->sparse = sparse;
  return snap->nsparse != 0;
}

void
pp_tables_subtract (const pp_tables_taken *taken)
{
  for (size_t i = 0; i < taken->n; i++)
    __atomic_fetch_sub (taken->counts[i].slot, taken->counts[i].value,
			__ATOMIC_RELAXED);
}

void
pp_tables_taken_free (pp_tables_taken *taken)
{
  pp_free (taken->counts);
  taken->counts = NULL;
  taken->n = 0;
}

/* Slots may hold counts whose sum is 0 (a count moved after a dump took it), so
   the counts are added up as for a dump.  Out of memory counts as having counts,
   so that a dump is tried.  */
bool
pp_tables_have_counts (const struct __pathprof_unit *u)
{
  pp_unit_data snap;
  pp_tables_taken taken;
  int rc = pp_tables_snapshot (u, &snap, &taken);
  pp_free (snap.sparse);
  pp_tables_taken_free (&taken);
  return rc != 0;
}

void
pp_table_drain (struct __pathprof_path_table *t,
		void (*add) (uint64_t path, uint64_t count, void *arg), void *arg)
{
  if (!newest (t))
    return;
  pthread_mutex_lock (&tables_lock);
  for (struct hash_table *h = newest (t); h; h = h->older)
    for (uint64_t s = 0; s <= h->mask; s++)
      {
	struct slot *slot = &h->slots[s];
	uint64_t key = __atomic_load_n (&slot->key, __ATOMIC_ACQUIRE);
	if (key != 0 && __atomic_load_n (&slot->count, __ATOMIC_RELAXED))
	  add (key - 1, __atomic_exchange_n (&slot->count, 0, __ATOMIC_RELAXED), arg);
      }
  pthread_mutex_unlock (&tables_lock);
}

void
pp_tables_zero (const struct __pathprof_unit *u)
{
  pthread_mutex_lock (&tables_lock);
  for (uint32_t i = 0; i < u->ntables; i++)
    for (struct hash_table *h = newest (&u->tables[i]); h; h = h->older)
      for (uint64_t s = 0; s <= h->mask; s++)
	__atomic_store_n (&h->slots[s].count, 0, __ATOMIC_RELAXED);
  pthread_mutex_unlock (&tables_lock);
}
