/* libprof, the interprocedural mode's count tables (ip-tables.c), used by
   ctx-runtime.c, kseg-runtime.c and ip-program.c only.  */

#ifndef PATHPROF_IP_TABLES_H
#define PATHPROF_IP_TABLES_H

#include <stdbool.h>
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
void pp_ipt_count_lost (void);

/* One execution of the path whose number is N0 + A x + B for the start
   CTX of its last segment, (N0, x) (ctx-runtime.c says which), counted in
   the calling thread's table.  HOME: the code looks for the segment in
   its home slot too (context paths' cuts in place, pathprof-abi.h
   __pathprof_ip_home), so a segment that counts more than twice as often
   as the one holding its home takes it over.  Returns false when out of
   memory (the caller counts the number).  */
bool pp_ipt_count_segment (uint64_t ctx, uint64_t a, uint64_t b, bool home);
/* The thread's table of segments, where the code counts in place too
   (pathprof-abi.h, struct __pathprof_ip_table); made on first use, NULL
   when out of memory.  It stays at its address for the thread's life.  */
struct __pathprof_ip_table;
const struct __pathprof_ip_table *pp_ipt_segment_table (void);

/* Context nodes (ctx-runtime.c "Nodes"): the calling thread's node of key
   KEY (parent, a, b, tag), made with KEY's extra (a word the key
   determines) if new; its id, at least 2^32 and the same for equal keys of
   the thread, or UINT64_MAX when out of memory.  No lock: a thread's nodes
   are its own, and none moves once made.  */
struct pp_ipt_node
{
  uint64_t parent, a, b, tag, extra;
};
uint64_t pp_ipt_node_slow (const struct pp_ipt_node *key);

/* In front of the thread's index of nodes, the keys found last,
   direct-mapped by a cheap hash of their start, a and tag: a loop takes
   the same few keys each time round, and a hit costs no call.  */
#define PP_IPT_FRONT 1024u
struct pp_ipt_node_slot
{
  uint64_t parent, a, b, tag, id;	/* id 0: empty */
};
struct pp_ipt_front
{
  struct pp_ipt_node_slot slot[PP_IPT_FRONT];
};
extern __thread struct pp_ipt_front *pp_ipt_my_front PP_TLS_MODEL;

/* Whether slot X holds KEY.  */
static inline bool
pp_ipt_same_key (const struct pp_ipt_node_slot *x, const struct pp_ipt_node *key)
{
  return ((x->parent ^ key->parent) | (x->a ^ key->a) | (x->b ^ key->b)
	  | (x->tag ^ key->tag)) == 0;
}

static inline struct pp_ipt_node_slot *
pp_ipt_front_slot (struct pp_ipt_front *f, const struct pp_ipt_node *key)
{
  return &f->slot[((key->parent + key->a + key->tag) * 0x9e3779b97f4a7c15u) >> 54];
}

/* KEY's node where the front has it, else 0 (no call: for the probes'
   fast paths, which go the slow way on a miss).  */
static inline uint64_t
pp_ipt_node_front (const struct pp_ipt_node *key)
{
  struct pp_ipt_front *f = pp_ipt_my_front;
  if (__builtin_expect (f == NULL, 0))
    return 0;
  const struct pp_ipt_node_slot *x = pp_ipt_front_slot (f, key);
  return pp_ipt_same_key (x, key) ? x->id : 0;
}

static inline uint64_t
pp_ipt_node (const struct pp_ipt_node *key)
{
  struct pp_ipt_front *f = pp_ipt_my_front;
  if (__builtin_expect (f != NULL, 1))
    {
      const struct pp_ipt_node_slot *x = pp_ipt_front_slot (f, key);
      if (__builtin_expect (x->id && pp_ipt_same_key (x, key), 1))
	return x->id;
    }
  return pp_ipt_node_slow (key);
}
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
