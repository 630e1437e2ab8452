/* libprof, the interprocedural mode's count tables (ip-tables.h).

   Numbers.  A path is counted by its number, WORDS 64-bit words, in one table
   of the process (a wide-key table: open addressing over slots of key, value
   and a used word), under count_lock.

   Segments.  Most paths a program runs begin and end in one activation with
   no call between (a loop's iterations).  ctx-runtime.c counts those by three
   words (ctx, A, B) that give the number N0 + A x + B, without GMP and
   without a lock: each thread has a table of its own, which only that thread
   inserts into or grows, under the table's lock, so that a dump, which takes
   the lock, reads a whole table; the thread finds its slot and adds to it
   without the lock, with an atomic add, since a dump subtracts atomically what
   it wrote.  A thread's table outlives the thread: its counts are the
   profile's; an ending thread hands it on to the next that starts
   ("Threads that end").  The hottest of them, a loop's paths from one start, are
   counted by the code in an array of that start instead (start arrays),
   which the thread makes where libprof counted them often (ctx-runtime.c
   "In place") and which belong to its table.

   Dumps.  A snapshot reads every slot and every array's counts under the
   locks, turns segments into numbers (ctx-runtime.c knows the contexts),
   merges equal numbers and records per slot what it read; subtract takes
   exactly that off each slot, so what ran meanwhile stays.  */

#define _GNU_SOURCE 1

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "ip-tables.h"
#include "pathprof-abi.h"

static uint32_t words;

static inline uint64_t
mix (uint64_t h, uint64_t w)
{
  h = (h ^ w) * 0x9e3779b97f4a7c15u;
  return h ^ (h >> 29);
}

/* ---- Wide keys: open addressing with linear probing over slots of KW
   words of key, one of value and one that is 1 when the slot is used.  */

struct wide_table
{
  uint32_t kw;
  uint64_t *slots;
  size_t cap, n;
};

#define SLOT(t, slots, i) ((slots) + (i) * (size_t) ((t)->kw + 2))

/* Keys are a few words (a dump's numbers mostly 2): loops, where memcmp
   and memcpy were calls into libc of about 20 instructions each.  */
static inline bool
same_words (const uint64_t *a, const uint64_t *b, uint32_t n)
{
  for (uint32_t i = 0; i < n; i++)
    if (a[i] != b[i])
      return false;
  return true;
}

static inline void
copy_words (uint64_t *to, const uint64_t *from, uint32_t n)
{
  for (uint32_t i = 0; i < n; i++)
    to[i] = from[i];
}

/* The slot of KEY in SLOTS of CAP (used, or the empty one where it goes).  */
static uint64_t *
wide_slot (const struct wide_table *t, uint64_t *slots, size_t cap,
	   const uint64_t *key)
{
  uint64_t h = 0;
  for (uint32_t i = 0; i < t->kw; i++)
    h = mix (h, key[i]);
  for (size_t j = h & (cap - 1);; j = (j + 1) & (cap - 1))
    {
      uint64_t *s = SLOT (t, slots, j);
      if (!s[t->kw + 1] || same_words (s, key, t->kw))
	return s;
    }
}

/* KEY's slot, claimed (value 0) if new; NULL when out of memory.  */
static uint64_t *
wide_claim (struct wide_table *t, const uint64_t *key)
{
  if ((t->n + 1) * 2 > t->cap)
    {
      size_t cap = t->cap ? 2 * t->cap : 1024;
      uint64_t *slots = pp_calloc (cap, (t->kw + 2) * sizeof *slots);
      if (!slots)
	return NULL;
      for (size_t i = 0; i < t->cap; i++)
	{
	  const uint64_t *s = SLOT (t, t->slots, i);
	  if (s[t->kw + 1])
	    copy_words (wide_slot (t, slots, cap, s), s, t->kw + 2);
	}
      pp_free (t->slots);
      t->slots = slots;
      t->cap = cap;
    }
  uint64_t *s = wide_slot (t, t->slots, t->cap, key);
  if (!s[t->kw + 1])
    {
      copy_words (s, key, t->kw);
      s[t->kw + 1] = 1;
      t->n++;
    }
  return s;
}

/* ---- Numbers.  */

static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static struct
{
  struct wide_table table;	/* value: the count */
  uint64_t lost, paths;		/* paths: those counted in this table */
} numbers;

void
pp_ipt_init (uint32_t w)
{
  words = w;
  numbers.table.kw = w;
}

static void
add_number_locked (const uint64_t *key, uint64_t n)
{
  uint64_t *s = wide_claim (&numbers.table, key);
  if (s)
    {
      s[words] += n;
      numbers.paths += n;
    }
  else
    numbers.lost += n;
}

void
pp_ipt_add_number (const uint64_t *key, uint64_t n)
{
  pthread_mutex_lock (&count_lock);
  add_number_locked (key, n);
  pthread_mutex_unlock (&count_lock);
}

void
pp_ipt_add_numbers (const uint64_t *keys, const uint64_t *counts, size_t k)
{
  pthread_mutex_lock (&count_lock);
  for (size_t i = 0; i < k; i++)
    add_number_locked (keys + i * words, counts[i]);
  pthread_mutex_unlock (&count_lock);
}

void
pp_ipt_count_number (const uint64_t *key)
{
  pp_ipt_add_number (key, 1);
}

void
pp_ipt_count_lost (void)
{
  pthread_mutex_lock (&count_lock);
  numbers.lost++;
  pthread_mutex_unlock (&count_lock);
}

/* ---- Segments.  */

/* A slot's key is ctx + 1 (0: empty), a, b; its count is modulo 2^64 (a
   dump subtracts).  */
struct seg_slot
{
  uint64_t ctx1, a, b;
  uint64_t count;
};

/* Start arrays (ip-tables.h pp_ipt_array_make): the code of context and
   piecewise paths counts its cuts in place there (pathprof-abi.h struct
   __pathprof_ip_array, first).  The owner makes them, under its table's
   lock (a dump walks the list), and finds them by start in its own map.  */
struct start_array
{
  struct __pathprof_ip_array place;
  uint64_t ctx;
  struct start_array *next;	/* the table's, newest first */
};


/* The thread's context nodes (pp_ipt_node): chunk k holds NODE_CHUNK << k
   of them, so that none moves (a dump reads them by id); the owner finds a
   key in `index', open addressing over copies of the keys with their ids
   (0: empty), at most half full, and publishes a new node by n (a release
   store) once it is written.  */
#define NODE_CHUNK 256u
#define NODE_CHUNKS 32u

struct nodes
{
  struct pp_ipt_node *chunk[NODE_CHUNKS];
  uint32_t n;
  struct pp_ipt_node_slot *index;
  uint64_t mask;		/* index's size - 1; 0: none yet */
  struct pp_ipt_front *front;	/* in front of the index (ip-tables.h), made
				   with the first node: a thread that makes
				   none takes none (threads' tables outlive
				   them) */
};

struct seg_table
{
  struct seg_slot *slots;	/* cap of them, a power of 2 */
  struct seg_table *next;	/* every thread's, newest first */
  pthread_mutex_t lock;
  size_t cap, n;
  struct start_array *arrays;
  struct pp_ipt_array_place *map;	/* the owner's pp_ipt_my_arrays.map, kept
					   here too: it outlives the thread */
  uint64_t array_words;		/* the arrays' counts */
  uint32_t number;		/* its place in by_table_number: node ids' high word - 1 */
  struct nodes nodes;
};

static pthread_mutex_t seg_list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct seg_table *seg_tables;
static struct seg_table **by_table_number;	/* every table by its number */
static uint32_t ntables, tables_cap;
static __thread struct seg_table *my_segs
  PP_TLS_MODEL;
/* The slot the thread counted last (a loop runs one path many times); NULL
   after its table grew.  */
static __thread struct seg_slot *my_last
  PP_TLS_MODEL;

static inline size_t
seg_home (const struct seg_table *t, uint64_t ctx1, uint64_t a, uint64_t b)
{
  return mix (mix (mix (0, ctx1), a), b) & (t->cap - 1);
}

/* The slot of key (ctx1, a, b), or the empty one where it would go, from
   slot j (its home) on.  */
static inline struct seg_slot *
find_slot_from (const struct seg_table *t, size_t j, uint64_t ctx1, uint64_t a, uint64_t b)
{
  for (;; j = (j + 1) & (t->cap - 1))
    {
      struct seg_slot *s = &t->slots[j];
      if (!s->ctx1 || (s->ctx1 == ctx1 && s->a == a && s->b == b))
	return s;
    }
}

static inline struct seg_slot *
find_slot (const struct seg_table *t, uint64_t ctx1, uint64_t a, uint64_t b)
{
  return find_slot_from (t, seg_home (t, ctx1, a, b), ctx1, a, b);
}

static struct seg_table *
new_seg_table (void)
{
  struct seg_table *t = pp_calloc (1, sizeof *t);
  if (!t)
    return NULL;
  t->cap = 256;
  t->slots = pp_calloc (t->cap, sizeof *t->slots);
  if (!t->slots)
    {
      pp_free (t);
      return NULL;
    }
  pthread_mutex_init (&t->lock, NULL);
  pthread_mutex_lock (&seg_list_lock);
  bool ok = ntables < UINT32_MAX - 1 && PP_RESERVE (by_table_number, tables_cap, ntables + 1, 16) == 0;
  if (ok)
    {
      t->number = ntables;
      by_table_number[ntables++] = t;
      t->next = seg_tables;
      seg_tables = t;
    }
  pthread_mutex_unlock (&seg_list_lock);
  if (!ok)
    {
      pp_free (t->slots);
      pp_free (t);
      return NULL;
    }
  return t;
}

/* ---- Threads that end.  A thread's table outlives it (its counts,
   nodes and arrays are the profile's), but need not stay its alone: an
   ending thread hands it on, with its runtime's block (its stack of
   activations; ctx-runtime.c's arrays by procedure too), to the next
   thread that starts, so that libprof's memory grows with the threads
   that run at once, not with those that ran (a program that ran a thread
   per request made a table, a front of nodes and a stack each time: 88 kB
   a thread touched in context paths, 640 kB taken).  Nothing in a table
   names its thread: a node is a context of the program and a count a
   segment from it, whichever thread ran it.  A pthread key's destructor
   tells the end (not the process's: its exit ends every path as before);
   a runtime's code that runs after it (another key's destructor) starts
   the thread again.  */

struct estate
{
  struct seg_table *table;	/* NULL: the thread made none */
  void *heir;			/* the runtime's block */
  struct pp_ipt_arrays arrays;	/* the thread's pp_ipt_my_arrays */
  struct estate *next;
};
static struct estate *estates;	/* handed on, under seg_list_lock */
static pthread_key_t end_key;
static bool end_key_made;

static void
thread_ends (void *arg)
{
  const struct pp_ipt_thread_ops *ops = arg;
  void *heir = ops->ends ();
  struct estate *e = heir ? pp_malloc (sizeof *e) : NULL;
  if (!e)
    {
      pp_free (heir);		/* the thread keeps its state, as before */
      return;
    }
  *e = (struct estate) { my_segs, heir, pp_ipt_my_arrays, NULL };
  pthread_mutex_lock (&seg_list_lock);
  e->next = estates;
  estates = e;
  pthread_mutex_unlock (&seg_list_lock);
  my_segs = NULL;
  my_last = NULL;
  pp_ipt_my_front = NULL;
  memset (&pp_ipt_my_arrays, 0, sizeof pp_ipt_my_arrays);
  ops->handed_on ();
}

static void
make_end_key (void)
{
  end_key_made = pthread_key_create (&end_key, thread_ends) == 0;
}

void *
pp_ipt_thread_starts (const struct pp_ipt_thread_ops *ops)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once (&once, make_end_key);
  if (!end_key_made || pthread_setspecific (end_key, (void *) ops) != 0 || my_segs)
    return NULL;
  pthread_mutex_lock (&seg_list_lock);
  struct estate *e = estates;
  if (e)
    estates = e->next;
  pthread_mutex_unlock (&seg_list_lock);
  if (!e)
    return NULL;
  my_segs = e->table;
  my_last = NULL;
  pp_ipt_my_front = e->table ? e->table->nodes.front : NULL;
  pp_ipt_my_arrays = e->arrays;
  void *heir = e->heir;
  pp_free (e);
  return heir;
}

/* Under t->lock.  */
static bool
grow_segs (struct seg_table *t)
{
  size_t cap = 2 * t->cap;
  struct seg_slot *slots = pp_calloc (cap, sizeof *slots);
  if (!slots)
    return false;
  struct seg_table bigger = { .slots = slots, .cap = cap };
  for (size_t i = 0; i < t->cap; i++)
    if (t->slots[i].ctx1)
      {
	const struct seg_slot *s = &t->slots[i];
	*find_slot (&bigger, s->ctx1, s->a, s->b) = *s;
      }
  pp_free (t->slots);
  t->slots = slots;
  t->cap = cap;
  return true;
}

/* A segment the thread's table has no slot for yet (or no table; only the
   thread adds to it): under the table's lock, which a dump takes to read
   it.  Out of line, so that the count of a known segment saves no
   registers.  */
static __attribute__ ((noinline)) bool
count_new_segment (uint64_t ctx1, uint64_t a, uint64_t b)
{
  struct seg_table *t = my_segs;
  if (!t && !(t = my_segs = new_seg_table ()))
    return false;
  struct seg_slot *s;
  pthread_mutex_lock (&t->lock);
  my_last = NULL;
  bool ok = (t->n + 1) * 2 <= t->cap || grow_segs (t);
  if (ok)
    {
      s = find_slot (t, ctx1, a, b);
      s->a = a;
      s->b = b;
      s->ctx1 = ctx1;
      __atomic_store_n (&s->count, 1, __ATOMIC_RELAXED);
      t->n++;
    }
  pthread_mutex_unlock (&t->lock);
  return ok;
}

bool
pp_ipt_count_segment (uint64_t ctx, uint64_t a, uint64_t b)
{
  struct seg_slot *s = my_last;
  if (!(s && s->ctx1 == ctx + 1 && s->a == a && s->b == b))
    {
      const struct seg_table *t = my_segs;
      if (__builtin_expect (t == NULL, 0))
	return count_new_segment (ctx + 1, a, b);
      s = find_slot (t, ctx + 1, a, b);
      if (__builtin_expect (s->ctx1 == 0, 0))
	return count_new_segment (ctx + 1, a, b);
    }
  __atomic_fetch_add (&s->count, 1, __ATOMIC_RELAXED);
  my_last = s;
  return true;
}

/* ---- Start arrays.  */

__thread struct pp_ipt_arrays pp_ipt_my_arrays PP_TLS_MODEL;

/* Where start ctx1 - 1 goes in MAP of MASK + 1 entries.  */
static struct pp_ipt_array_place *
array_place (struct pp_ipt_array_place *map, uint64_t mask, uint64_t ctx1)
{
  for (uint64_t j = pp_ipt_array_hash (ctx1);; j++)
    if (!map[j & mask].ctx1 || map[j & mask].ctx1 == ctx1)
      return &map[j & mask];
}

/* Start CTX's place in the thread's map, made if new; NULL when out of
   memory.  */
static struct pp_ipt_array_place *
start_place (uint64_t ctx)
{
  struct pp_ipt_arrays *m = &pp_ipt_my_arrays;
  struct seg_table *t = my_segs;
  if (!t && !(t = my_segs = new_seg_table ()))
    return NULL;
  if ((m->n + 1) * 2 > m->mask)
    {
      uint64_t n = m->mask ? 2 * (m->mask + 1) : 64;
      struct pp_ipt_array_place *map = pp_calloc (n, sizeof *map);
      if (!map)
	return NULL;
      for (uint64_t i = 0; m->mask && i <= m->mask; i++)
	if (m->map[i].ctx1)
	  *array_place (map, n - 1, m->map[i].ctx1) = m->map[i];
      pp_free (m->map);
      m->map = t->map = map;
      m->mask = n - 1;
    }
  struct pp_ipt_array_place *x = array_place (m->map, m->mask, ctx + 1);
  if (!x->ctx1)
    {
      x->ctx1 = ctx + 1;
      m->n++;
    }
  return x;
}

uint32_t
pp_ipt_start_cuts (uint64_t ctx)
{
  struct pp_ipt_array_place *x = start_place (ctx);
  if (!x)
    return 0;
  x->cuts += x->cuts < UINT32_MAX;
  return (uint32_t) x->cuts;
}

static inline struct pp_ipt_node *node_at (const struct nodes *ns, uint32_t i);

const struct __pathprof_ip_array *
pp_ipt_array_make (uint64_t ctx, uint64_t lo, uint64_t size)
{
  struct seg_table *t = my_segs;
  if (!t && !(t = my_segs = new_seg_table ()))
    return NULL;
  if (size == 0 || size > PP_IPT_ARRAY_WORDS - t->array_words)
    return NULL;
  struct pp_ipt_array_place *x = start_place (ctx);
  struct start_array *a = x ? pp_malloc (sizeof *a) : NULL;
  uint64_t *counts = a ? pp_calloc (size, sizeof *counts) : NULL;
  if (!counts)
    {
      pp_free (a);
      return NULL;
    }
  a->place = (struct __pathprof_ip_array) { lo, size, counts };
  a->ctx = ctx;
  pthread_mutex_lock (&t->lock);
  a->next = t->arrays;
  t->arrays = a;
  t->array_words += size;
  pthread_mutex_unlock (&t->lock);
  x->a = &a->place;
  /* The front's slot of a node start says so too (ip-tables.h).  */
  const struct pp_ipt_node *key = ctx >> 32 == (uint64_t) t->number + 1
				  && (uint32_t) ctx < t->nodes.n
				  ? node_at (&t->nodes, (uint32_t) ctx) : NULL;
  struct pp_ipt_front_slot *y = key && t->nodes.front
				? pp_ipt_front_slot (t->nodes.front, key) : NULL;
  if (y && y->s.id == ctx)
    y->arr = &a->place;
  return &a->place;
}

/* ---- Context nodes.  */

/* The chunk of node i: k, where NODE_CHUNK ((1 << k) - 1) <= i (below 24
   for every i below 2^32).  */
static inline uint32_t
chunk_of (uint32_t i)
{
  return 31 - (uint32_t) __builtin_clz (i / NODE_CHUNK + 1);
}

static inline struct pp_ipt_node *
node_at (const struct nodes *ns, uint32_t i)
{
  uint32_t k = chunk_of (i);
  return &ns->chunk[k][i - NODE_CHUNK * ((1u << k) - 1)];
}

/* A key's hash: four products at once rather than one mix after another
   (a lookup is most of what a call costs).  */
static inline uint64_t
node_hash (uint64_t parent, uint64_t a, uint64_t b, uint64_t tag)
{
  uint64_t h = (parent * 0x9e3779b97f4a7c15u) ^ (a * 0xc2b2ae3d27d4eb4fu)
	       ^ (b * 0x165667b19e3779f9u) ^ (tag * 0xd6e8feb86659fd93u);
  return h ^ (h >> 29);
}

/* Where KEY's slot is in INDEX of MASK + 1 slots (its own, or the empty one
   where it goes).  */
static inline struct pp_ipt_node_slot *
node_slot (struct pp_ipt_node_slot *index, uint64_t mask, const struct pp_ipt_node *key)
{
  for (uint64_t j = node_hash (key->parent, key->a, key->b, key->tag);; j++)
    {
      struct pp_ipt_node_slot *x = &index[j & mask];
      if (!x->id || pp_ipt_same_key (x, key))
	return x;
    }
}

/* Only the owner changes its index.  */
static bool
grow_index (struct nodes *ns)
{
  uint64_t size = ns->mask ? 2 * (ns->mask + 1) : 256;
  struct pp_ipt_node_slot *index = pp_calloc (size, sizeof *index);
  if (!index)
    return false;
  for (uint64_t i = 0; ns->mask && i <= ns->mask; i++)
    if (ns->index[i].id)
      {
	const struct pp_ipt_node_slot *x = &ns->index[i];
	*node_slot (index, size - 1,
		    &(struct pp_ipt_node) { x->parent, x->a, x->b, x->tag, 0 }) = *x;
      }
  pp_free (ns->index);
  ns->index = index;
  ns->mask = size - 1;
  return true;
}

static __attribute__ ((noinline)) uint64_t
new_node (struct seg_table *t, const struct pp_ipt_node *key)
{
  struct nodes *ns = &t->nodes;
  if (ns->n == UINT32_MAX - 1 || ((ns->n + 1) * (uint64_t) 2 > ns->mask && !grow_index (ns)))
    return UINT64_MAX;
  uint32_t i = ns->n, k = chunk_of (i);
  if (!ns->chunk[k]
      && !(ns->chunk[k] = pp_malloc (((size_t) NODE_CHUNK << k) * sizeof (struct pp_ipt_node))))
    return UINT64_MAX;
  *node_at (ns, i) = *key;
  uint64_t id = ((uint64_t) t->number + 1) << 32 | i;
  *node_slot (ns->index, ns->mask, key)
    = (struct pp_ipt_node_slot) { key->parent, key->a, key->b, key->tag, id };
  __atomic_store_n (&ns->n, i + 1, __ATOMIC_RELEASE);
  return id;
}

__thread struct pp_ipt_front *pp_ipt_my_front PP_TLS_MODEL;

uint64_t
pp_ipt_node_slow (const struct pp_ipt_node *key)
{
  struct seg_table *t = my_segs;
  if (!t && !(t = my_segs = new_seg_table ()))
    return UINT64_MAX;
  if (!t->nodes.front && !(t->nodes.front = pp_calloc (1, sizeof *t->nodes.front)))
    return UINT64_MAX;
  pp_ipt_my_front = t->nodes.front;
  const struct pp_ipt_node_slot *x = t->nodes.mask
				     ? node_slot (t->nodes.index, t->nodes.mask, key) : NULL;
  uint64_t id = x && x->id ? x->id : new_node (t, key);
  if (id != UINT64_MAX)
    *pp_ipt_front_slot (t->nodes.front, key) = (struct pp_ipt_front_slot) {
      { key->parent, key->a, key->b, key->tag, id }, pp_ipt_array_of (id) };
  return id;
}

const struct pp_ipt_node *
pp_ipt_node_at (uint64_t id)
{
  uint64_t k = id >> 32;
  uint32_t i = (uint32_t) id;
  if (k == 0 || k > ntables)
    return NULL;
  const struct nodes *ns = &by_table_number[k - 1]->nodes;
  return i < __atomic_load_n (&ns->n, __ATOMIC_ACQUIRE) ? node_at (ns, i) : NULL;
}

/* ---- Dumps.  */

/* What the last snapshot read: numbers (WORDS words, then the value) and
   segments.  */
static struct
{
  uint64_t *numbers;
  size_t nnumbers;
  size_t *at;			/* each number's slot */
  size_t cap;			/* the table's then: it grows only */
  struct taken_seg
  {
    struct seg_table *t;
    struct seg_slot key;	/* count: the value read */
    uint64_t *count;		/* an array's, which never moves; NULL: the
				   slot of key */
  } *segs;
  size_t nsegs;
  uint64_t paths, lost;
} taken;

/* The first count of array A from I on that is not 0 (its size if none):
   four at a time where they are (most of a large array is).  */
static uint64_t
next_count (const struct start_array *a, uint64_t i)
{
  const uint64_t *c = a->place.counts;
  uint64_t n = a->place.size;
  while (i + 4 <= n && (__atomic_load_n (&c[i], __ATOMIC_RELAXED)
			| __atomic_load_n (&c[i + 1], __ATOMIC_RELAXED)
			| __atomic_load_n (&c[i + 2], __ATOMIC_RELAXED)
			| __atomic_load_n (&c[i + 3], __ATOMIC_RELAXED)) == 0)
    i += 4;
  while (i < n && __atomic_load_n (&c[i], __ATOMIC_RELAXED) == 0)
    i++;
  return i;
}

/* A snapshot under way: ALL's first K entries of (number, count) are
   taken, of at most NSEGS segments.  */
struct snap
{
  uint64_t *all;
  size_t k;
  uint32_t w;
  size_t nsegs;
  pp_ipt_number_fn *number;
  uint64_t counted, lost;
};

/* Segment S of table T into the snapshot, its count read from COUNT (an
   array's), or from its slot (NULL).  */
static void
take (struct snap *sn, struct seg_table *t, struct seg_slot s, uint64_t *count)
{
  if (!s.count || taken.nsegs == sn->nsegs)
    return;			/* an array's count made since they were counted */
  taken.segs[taken.nsegs++] = (struct taken_seg) { t, s, count };
  uint64_t *e = sn->all + sn->k * (sn->w + 1);
  if (sn->number (s.ctx1 - 1, s.a, s.b, e))
    {
      e[sn->w] = s.count;
      sn->counted += s.count;
      sn->k++;
    }
  else
    sn->lost += s.count;
}

static void
lock_segs (void)
{
  pthread_mutex_lock (&seg_list_lock);
  for (struct seg_table *t = seg_tables; t; t = t->next)
    pthread_mutex_lock (&t->lock);
}

static void
unlock_segs (void)
{
  for (struct seg_table *t = seg_tables; t; t = t->next)
    pthread_mutex_unlock (&t->lock);
  pthread_mutex_unlock (&seg_list_lock);
}

/* Sorts the K entries of ORDER by the numbers they index in ALL (W + 1
   words an entry, the number's least significant word first:
   pp_wide_before's order) as far as their words J down to 0 tell: by word
   J, then each run of entries equal in it by the words below.  Numbers of
   many words mostly differ in the top one (context paths' of SQLite have
   17), so most runs are one entry long and the sort is one of 64-bit
   keys, where a pass per word, least significant first, sorted every
   entry 17 times (13 M instructions, 9% of an empty session's).  */
static void
sort_numbers (pp_keyed *order, size_t k, const uint64_t *all, uint32_t w, uint32_t j)
{
  for (;; j--)
    {
      /* Words the entries all have the same (a small number's top ones)
	 tell nothing.  */
      bool same = true;
      for (size_t i = 0; i < k; i++)
	{
	  order[i].key = all[order[i].item * (w + 1) + j];
	  same &= order[i].key == order[0].key;
	}
      if (!same || j == 0)
	break;
    }
  pp_sort_keyed (order, k);
  if (j == 0)
    return;
  for (size_t i = 0, e; i < k; i = e)
    {
      uint64_t v = order[i].key;
      for (e = i + 1; e < k && order[e].key == v; e++)
	;
      if (e - i > 1)
	sort_numbers (order + i, e - i, all, w, j - 1);	/* sets their keys */
    }
}

int
pp_ipt_snapshot (pp_unit_data *rec, pp_ipt_number_fn *number)
{
  pp_free (taken.numbers);
  pp_free (taken.at);
  pp_free (taken.segs);
  memset (&taken, 0, sizeof taken);
  pthread_mutex_lock (&count_lock);
  lock_segs ();
  size_t nsegs = 0;
  for (struct seg_table *t = seg_tables; t; t = t->next)
    {
      nsegs += t->n;
      for (const struct start_array *a = t->arrays; a; a = a->next)
	for (uint64_t i = next_count (a, 0); i < a->place.size; i = next_count (a, i + 1))
	  nsegs++;
    }
  uint32_t w = words;
  /* Every count as (number, count), numbers then segments.  */
  const struct wide_table *nt = &numbers.table;
  uint64_t *all = pp_malloc ((nt->n + nsegs + 1) * (w + 1) * sizeof *all);
  taken.numbers = pp_malloc ((nt->n + 1) * (w + 1) * sizeof *taken.numbers);
  taken.at = pp_malloc ((nt->n + 1) * sizeof *taken.at);
  taken.segs = pp_malloc ((nsegs + 1) * sizeof *taken.segs);
  rec->values = pp_malloc (2 * sizeof (uint64_t));
  int ret = -1;
  if (all && taken.numbers && taken.at && taken.segs && rec->values)
    {
      size_t k = 0;
      for (size_t i = 0; i < nt->cap; i++)
	{
	  const uint64_t *s = SLOT (nt, nt->slots, i);
	  if (s[w + 1] && s[w])
	    {
	      copy_words (all + k * (w + 1), s, w + 1);
	      copy_words (taken.numbers + k * (w + 1), s, w + 1);
	      taken.at[k++] = i;
	    }
	}
      taken.nnumbers = k;
      taken.cap = nt->cap;
      taken.paths = numbers.paths;
      taken.lost = numbers.lost;
      struct snap sn = { all, k, w, nsegs, number, 0, 0 };
      for (struct seg_table *t = seg_tables; t; t = t->next)
	{
	  for (size_t i = 0; i < t->cap; i++)
	    {
	      struct seg_slot s = t->slots[i];
	      s.count = __atomic_load_n (&t->slots[i].count, __ATOMIC_RELAXED);
	      if (s.ctx1)
		take (&sn, t, s, NULL);
	    }
	  for (const struct start_array *a = t->arrays; a; a = a->next)
	    for (uint64_t i = next_count (a, 0); i < a->place.size; i = next_count (a, i + 1))
	      {
		uint64_t *c = &a->place.counts[i];
		take (&sn, t, (struct seg_slot) { a->ctx + 1, a->place.lo + i, 0,
						  __atomic_load_n (c, __ATOMIC_RELAXED) }, c);
	      }
	}
      k = sn.k;
      uint64_t segs_counted = sn.counted, segs_lost = sn.lost;
      /* Increasing numbers, each once, as the profile wants them: the
	 entries' indices sorted (an entry has up to 17 words, which the
	 sort does not move).  */
      pp_keyed *order = pp_malloc ((k + 1) * sizeof *order);
      uint64_t *out = pp_malloc ((k + 1) * (w + 1) * sizeof *out);
      if (!order || !out)
	{
	  pp_free (order);
	  pp_free (out);
	  goto done;
	}
      for (size_t i = 0; i < k; i++)
	order[i].item = i;
      if (w > 0 && k > 1)
	sort_numbers (order, k, all, w, w - 1);
      size_t m = 0;
      for (size_t i = 0; i < k; i++)
	{
	  const uint64_t *e = all + order[i].item * (w + 1);
	  if (m && same_words (out + (m - 1) * (w + 1), e, w))
	    out[(m - 1) * (w + 1) + w] += e[w];
	  else
	    copy_words (out + m++ * (w + 1), e, w + 1);
	}
      pp_free (order);
      rec->wide = out;
      rec->nwide = (uint32_t) m;
      rec->wide_words = w;
      uint64_t *v = rec->values;
      v[0] = numbers.paths + segs_counted;
      v[1] = numbers.lost + segs_lost;
      rec->nvalues = 2;
      ret = m > 0 || v[1] > 0;
    }
done:
  unlock_segs ();
  pthread_mutex_unlock (&count_lock);
  pp_free (all);
  return ret;
}

void
pp_ipt_subtract (void)
{
  uint32_t w = words;
  pthread_mutex_lock (&count_lock);
  /* A number's slot is where the snapshot read it unless the table has
     grown since (keys are never taken out, and growing is what moves
     them).  */
  bool moved = numbers.table.cap != taken.cap;
  for (size_t i = 0; i < taken.nnumbers; i++)
    {
      const uint64_t *e = taken.numbers + i * (w + 1);
      uint64_t *s = moved ? wide_slot (&numbers.table, numbers.table.slots,
				       numbers.table.cap, e)
			  : SLOT (&numbers.table, numbers.table.slots, taken.at[i]);
      if (s[w + 1])
	s[w] -= e[w];
    }
  numbers.paths -= taken.paths;
  numbers.lost -= taken.lost;
  pthread_mutex_unlock (&count_lock);
  for (size_t i = 0; i < taken.nsegs; i++)
    {
      const struct taken_seg *g = &taken.segs[i];
      if (g->count)
	{
	  __atomic_fetch_sub (g->count, g->key.count, __ATOMIC_RELAXED);
	  continue;
	}
      pthread_mutex_lock (&g->t->lock);
      struct seg_slot *s = find_slot (g->t, g->key.ctx1, g->key.a, g->key.b);
      if (s->ctx1)
	__atomic_fetch_sub (&s->count, g->key.count, __ATOMIC_RELAXED);
      pthread_mutex_unlock (&g->t->lock);
    }
  taken.nnumbers = taken.nsegs = 0;
  taken.paths = taken.lost = 0;
}

static void
zero_all (void)
{
  /* The keys stay: a count of 0 is written as none.  */
  for (size_t i = 0; i < numbers.table.cap; i++)
    SLOT (&numbers.table, numbers.table.slots, i)[words] = 0;
  numbers.paths = numbers.lost = 0;
  for (struct seg_table *t = seg_tables; t; t = t->next)
    {
      for (size_t i = 0; i < t->cap; i++)
	__atomic_store_n (&t->slots[i].count, 0, __ATOMIC_RELAXED);
      for (const struct start_array *a = t->arrays; a; a = a->next)
	for (uint64_t i = 0; i < a->place.size; i++)
	  __atomic_store_n (&a->place.counts[i], 0, __ATOMIC_RELAXED);
    }
}

void
pp_ipt_reset (void)
{
  pthread_mutex_lock (&count_lock);
  lock_segs ();
  zero_all ();
  unlock_segs ();
  pthread_mutex_unlock (&count_lock);
}

void
pp_ipt_before_fork (void)
{
  /* The snapshot's order: numbers, segments.  */
  pthread_mutex_lock (&count_lock);
  lock_segs ();
}

void
pp_ipt_after_fork (bool child)
{
  if (child)
    zero_all ();
  unlock_segs ();
  pthread_mutex_unlock (&count_lock);
}
