/* libprof, the interprocedural mode's count tables (ip-tables.c), used by
   ctx-runtime.c, kseg-runtime.c and ip-program.c only.  */

#ifndef PATHPROF_IP_TABLES_H
#define PATHPROF_IP_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pathprof-abi.h"
#include "profile.h"

/* Path numbers have WORDS 64-bit words (set once, before any count).  */
void pp_ipt_init (uint32_t words);

/* One execution of the path of number KEY (WORDS words, least significant
   first); of a path the numbering cannot name.  */
void pp_ipt_count_number (const uint64_t *key);
/* N executions of it (counts kept elsewhere until a dump: segments' slots).  */
void pp_ipt_add_number (const uint64_t *key, uint64_t n);
/* The same for K numbers at KEYS (WORDS words each) under one lock.  */
void pp_ipt_add_numbers (const uint64_t *keys, const uint64_t *counts, size_t k);
void pp_ipt_count_lost (void);

/* One execution of the path whose number is N0 + A x + B for the start
   CTX of its last segment, (N0, x) (ctx-runtime.c says which), counted in
   the calling thread's table.  Returns false when out of memory (the
   caller counts the number).  */
bool pp_ipt_count_segment (uint64_t ctx, uint64_t a, uint64_t b);

/* Start arrays: the calling thread's counts of the segments (CTX, a, 0)
   for a in [lo, lo + size), where the code of context and piecewise paths
   counts its cuts in place (pathprof-abi.h struct __pathprof_ip_array,
   ctx-runtime.c "In place"), which a dump reads as it reads the table's.
   pp_ipt_array_of gives start CTX's, or NULL; pp_ipt_array_make makes one
   that takes the place of any before (which keeps its counts: a dump
   reads every array), or returns NULL when out of memory or when the
   thread's arrays would count more than PP_IPT_ARRAY_WORDS segments.  An
   array stays at its address for the process's life.  pp_ipt_start_cuts
   counts a cut of a path from CTX that libprof counted, and returns how
   many the thread has counted so (0 when out of memory): where the code
   would count them, had CTX an array.  */
#define PP_IPT_ARRAY_WORDS ((uint64_t) 1 << 22)
const struct __pathprof_ip_array *pp_ipt_array_make (uint64_t ctx, uint64_t lo,
						     uint64_t size);
uint32_t pp_ipt_start_cuts (uint64_t ctx);

/* The thread's arrays by start (its own; at most half full), read
   inline: no call on ENTER's fast ways.  */
struct pp_ipt_array_place
{
  uint64_t ctx1;		/* the start + 1; 0: empty */
  const struct __pathprof_ip_array *a;	/* or NULL: none yet */
  uint64_t cuts;		/* pp_ipt_start_cuts */
};
struct pp_ipt_arrays
{
  struct pp_ipt_array_place *map;
  uint64_t mask;		/* its size - 1; 0: none */
  uint64_t n;			/* starts in it */
};
extern __thread struct pp_ipt_arrays pp_ipt_my_arrays PP_TLS_MODEL;

static inline uint64_t
pp_ipt_array_hash (uint64_t ctx1)
{
  return (ctx1 * 0x9e3779b97f4a7c15u) >> 32;
}

static inline const struct __pathprof_ip_array *
pp_ipt_array_of (uint64_t ctx)
{
  const struct pp_ipt_arrays *m = &pp_ipt_my_arrays;
  if (!m->mask)
    return NULL;
  for (uint64_t j = pp_ipt_array_hash (ctx + 1);; j++)
    {
      const struct pp_ipt_array_place *x = &m->map[j & m->mask];
      if (x->ctx1 == ctx + 1)
	return x->a;
      if (!x->ctx1)
	return NULL;
    }
}

/* Context nodes (ctx-runtime.c "Nodes"): the calling thread's node of key
   KEY (parent, a, b, tag), made with KEY's extra (a word the key
   determines) if new; its id, at least 2^32 and the same for equal keys of
   the thread, or UINT64_MAX when out of memory.  No lock: a thread's nodes
   are its own, and none moves once made.  A key's tag is never 0
   (ctx-runtime.c NODE_TAG), so that no key is an empty slot's zeros.  */
struct pp_ipt_node
{
  uint64_t parent, a, b, tag, extra;
};
uint64_t pp_ipt_node_slow (const struct pp_ipt_node *key);

/* In front of the thread's index of nodes, the keys found last,
   direct-mapped by a cheap hash of their start, a and tag: a loop takes
   the same few keys each time round, and a hit costs no call.  The start
   is multiplied before a and the tag join it: their plain sum, multiplied
   once, sent keys whose sums met to one slot; and a run's hot nodes
   outnumber 4,096 slots (SQLite's 25,000 orders: piecewise 3.6 M misses
   in 4,096 slots, 33,299 in 8,192, 22,686 in 16,384; context 899,751 in
   1,024 slots with the old hash, 20,961 now), each miss a slow ENTER or
   EXIT.  A slot also keeps the thread's array of its node
   (pp_ipt_array_of of the id, which pp_ipt_array_make keeps true), so that
   ENTER and EXIT find the array of the start they make without a lookup
   in the map (xz's 1 MB run in context paths: 8.5 M lookups, 26 to 41
   instructions each).  16,384 slots of 48 bytes a thread that counts
   context or piecewise paths; pages it never touches cost nothing
   (arena.c).  */
#define PP_IPT_FRONT_BITS 14
#define PP_IPT_FRONT (1u << PP_IPT_FRONT_BITS)
struct pp_ipt_node_slot
{
  uint64_t parent, a, b, tag, id;	/* id 0: empty */
};
struct pp_ipt_front_slot
{
  struct pp_ipt_node_slot s;
  const struct __pathprof_ip_array *arr;	/* s.id's, or NULL */
};
struct pp_ipt_front
{
  struct pp_ipt_front_slot slot[PP_IPT_FRONT];
};
extern __thread struct pp_ipt_front *pp_ipt_my_front PP_TLS_MODEL;

/* Whether slot X holds KEY.  */
static inline bool
pp_ipt_same_key (const struct pp_ipt_node_slot *x, const struct pp_ipt_node *key)
{
  return ((x->parent ^ key->parent) | (x->a ^ key->a) | (x->b ^ key->b)
	  | (x->tag ^ key->tag)) == 0;
}

static inline struct pp_ipt_front_slot *
pp_ipt_front_slot (struct pp_ipt_front *f, const struct pp_ipt_node *key)
{
  uint64_t h = (key->parent * 0x9e3779b97f4a7c15u) ^ (key->a + key->tag);
  return &f->slot[(h * 0xc2b2ae3d27d4eb4fu) >> (64 - PP_IPT_FRONT_BITS)];
}

/* KEY's slot where the front has it (its node and that node's array),
   else NULL (no call: for the probes' fast paths, which go the slow way
   on a miss).  */
static inline const struct pp_ipt_front_slot *
pp_ipt_node_front (const struct pp_ipt_node *key)
{
  struct pp_ipt_front *f = pp_ipt_my_front;
  if (__builtin_expect (f == NULL, 0))
    return NULL;
  const struct pp_ipt_front_slot *x = pp_ipt_front_slot (f, key);
  return pp_ipt_same_key (&x->s, key) ? x : NULL;	/* an empty slot's tag is 0 */
}

static inline uint64_t
pp_ipt_node (const struct pp_ipt_node *key)
{
  const struct pp_ipt_front_slot *x = pp_ipt_node_front (key);
  return __builtin_expect (x != NULL, 1) ? x->s.id : pp_ipt_node_slow (key);
}

/* Threads that end (ip-tables.c "Threads that end").  A runtime's thread
   that starts (its first activation) calls pp_ipt_thread_starts, which
   returns the block an ended thread handed on with its table (the table
   is then the calling thread's), or NULL.  When the thread ends, OPS->ends
   ends its paths and returns its block (pp_malloc'd; NULL: nothing to hand
   on), and once the table and the block are handed on, OPS->handed_on
   forgets them (the thread's state as a new thread's); OPS->ends leaves
   the thread's probes busy until then, so that a signal handler's are
   ignored meanwhile.  */
struct pp_ipt_thread_ops
{
  void *(*ends) (void);
  void (*handed_on) (void);
};
void *pp_ipt_thread_starts (const struct pp_ipt_thread_ops *ops);

/* Node ID of any thread, or NULL for an id no thread made (a dump's, under
   the snapshot's locks).  */
const struct pp_ipt_node *pp_ipt_node_at (uint64_t id);

/* The number of a segment: writes WORDS words to KEY, or returns false when
   the context is unknown or the number does not fit.  */
typedef bool pp_ipt_number_fn (uint64_t ctx, uint64_t a, uint64_t b, uint64_t *key);

/* Dumps (under runtime.c's units_lock, snapshot then subtract).  Fills the
   record's wide counts (increasing numbers, each once) and values (paths
   counted, paths lost) from every table; returns 1 when there is a count, 0
   when none, -1 when out of memory.  */
int pp_ipt_snapshot (pp_unit_data *rec, pp_ipt_number_fn *number);
/* Removes what the last snapshot read, slot by slot.  */
void pp_ipt_subtract (void);
void pp_ipt_reset (void);
/* Fork: every table locked before, unlocked after (the child's zeroed).  */
void pp_ipt_before_fork (void);
void pp_ipt_after_fork (bool child);

#endif
