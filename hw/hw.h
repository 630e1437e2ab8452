/* hw/: a reference model of the hardware path profiler of Vaswani's thesis
   (Efficient Online Path Profiling, chapter 5), fed by branch streams.

   Model.  Retired branches (struct hw_branch) pass through a branch queue to
   the path detector, which keeps one path stack per thread.  The Path Profiler
   Control Register (struct hw_ppcr) maps each branch type (call, return,
   indirect, forward, backward) to the operations done on the stack, always in
   the order update or update-count, then pop, then push:
     push          a new entry whose path starts at the branch's target
     pop           the top entry's path is finished: it goes to the Hot Path
                   Table (and to the complete profile the HPT is judged by)
     update        the branch joins the top path: length + 1, one outcome bit
                   (1 for taken or unconditional), events + the branch's; a
                   path reaching the maximum length is popped and a new one
                   pushed from the branch's target (splitting)
     update-count  events + the branch's, the path unchanged
   Extended paths: a backward branch (extended-loop) or a call (extended-
   interproc) only updates while the top entry's extension count is below the
   maximum, and counts one more; in extended-interproc a return then only
   updates while the count is above 0, and counts one less.
   The Hot Path Table (struct hw_hpt) has sets of `ways` entries, indexed by
   the path's start address from bit 4 up (HW_INDEX_ADDRESS) or by that XOR
   its length XOR its outcome bits (HW_INDEX_XOR), replaced LFU or LRU, with
   32-bit saturating accumulators.  The model is operation-exact and
   cycle-free: it says which paths the hardware would hold and count, not when.

   Everything is plain C over plain structs; the command is pathprof-hw.c.  */

#ifndef PATHPROF_HW_H
#define PATHPROF_HW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum hw_kind
{
  HW_COND_TAKEN,
  HW_COND_NOT_TAKEN,
  HW_JUMP,
  HW_INDIRECT_JUMP,
  HW_CALL,
  HW_INDIRECT_CALL,
  HW_RETURN,
  HW_TAKEN_UNKNOWN,		/* from LBR samples: a taken branch of no known kind */
};

typedef struct hw_branch
{
  uint8_t kind;			/* enum hw_kind */
  uint32_t thread;
  uint64_t src, dst;
  uint32_t events;		/* what the branch adds to its path's events */
} hw_branch;

/* The detector's branch types (table 5.1's rows).  */
enum hw_type
{
  HW_TYPE_CALL,
  HW_TYPE_RETURN,
  HW_TYPE_INDIRECT,
  HW_TYPE_FORWARD,
  HW_TYPE_BACKWARD,
  HW_NTYPES,
};

/* How a branch of a kind is classified: calls and returns by kind, indirect
   jumps as indirect, the others forward or backward by address (backward iff
   dst <= src).  */
static inline enum hw_type
hw_branch_type (const hw_branch *b)
{
  switch (b->kind)
    {
    case HW_CALL:
    case HW_INDIRECT_CALL:
      return HW_TYPE_CALL;
    case HW_RETURN:
      return HW_TYPE_RETURN;
    case HW_INDIRECT_JUMP:
      return HW_TYPE_INDIRECT;
    default:
      return b->dst <= b->src ? HW_TYPE_BACKWARD : HW_TYPE_FORWARD;
    }
}

enum hw_op
{
  HW_OP_UPDATE = 1u << 0,
  HW_OP_UPDATE_COUNT = 1u << 1,
  HW_OP_POP = 1u << 2,
  HW_OP_PUSH = 1u << 3,
};

enum hw_extend
{
  HW_EXTEND_NONE,
  HW_EXTEND_LOOP,
  HW_EXTEND_INTERPROC,
};

typedef struct hw_ppcr
{
  uint8_t ops[HW_NTYPES];	/* enum hw_op bits per type */
  uint8_t extend;		/* enum hw_extend */
  uint32_t max_extension;
} hw_ppcr;

/* Presets: "ball-larus" (table 5.1), "wpp" (table 5.2), "extended-loop" and
   "extended-interproc" (table 5.1 with extension).  Returns 0, or -1 for an
   unknown name.  */
int hw_ppcr_preset (hw_ppcr *p, const char *name, uint32_t max_extension);
/* A custom mapping "TYPE=OPS;..." with TYPE call, return, indirect, forward,
   backward and OPS a comma list of update, update-count, pop, push (types not
   named do nothing).  Returns 0, or -1 with a reason in err.  */
int hw_ppcr_parse (hw_ppcr *p, const char *spec, char *err, size_t errlen);

/* A path descriptor: start address, length in branches, one outcome bit per
   branch (bit i for the i-th).  */
typedef struct hw_path
{
  uint64_t start;
  uint64_t outcomes;
  uint8_t length;
} hw_path;

static inline bool hw_path_equal (const hw_path *a, const hw_path *b)
{ return a->start == b->start && a->length == b->length && a->outcomes == b->outcomes; }

/* ---- The Hot Path Table and the complete profile.  */

enum hw_index { HW_INDEX_ADDRESS, HW_INDEX_XOR };
enum hw_replace { HW_REPLACE_LFU, HW_REPLACE_LRU };

typedef struct hw_hpt_entry
{
  hw_path path;
  uint32_t count;		/* saturating */
  uint64_t used;		/* LRU: when last hit or filled */
  bool valid;
} hw_hpt_entry;

typedef struct hw_hpt
{
  uint32_t entries, ways, sets;
  uint8_t index, replace;
  uint64_t clock;
  uint64_t lookups, misses, replacements;
  hw_hpt_entry *e;		/* entries, set by set */
  /* The entry of the last path added (a path holds one way of its set at
     most, so finding it there is what the search would find): a loop's
     paths come again and again.  The model's, not the hardware's.  */
  hw_hpt_entry *last;
} hw_hpt;

/* entries a multiple of ways, ways >= 1.  Returns 0, or -1 (allocation or
   bad sizes).  */
int hw_hpt_init (hw_hpt *h, uint32_t entries, uint32_t ways, int index, int replace);
void hw_hpt_free (hw_hpt *h);
void hw_hpt_add (hw_hpt *h, const hw_path *p, uint32_t count);
/* Its size in bytes with descriptors of max_length outcome bits: per entry
   address_bits of start address, enough bits for a length up to max_length,
   max_length outcome bits and a 32-bit accumulator.  */
uint64_t hw_hpt_bytes (const hw_hpt *h, unsigned address_bits, unsigned max_length);

/* The complete profile: every path with its exact count (an unbounded map).  */
typedef struct hw_profile_entry
{
  hw_path path;
  uint64_t count;
  /* For reports only, outside the modelled hardware: the branches of the
     path's first occurrence (count: length + 1 at most).  */
  uint32_t nbranches;
  uint64_t *targets;		/* the start, then each branch's target */
} hw_profile_entry;

typedef struct hw_profile
{
  size_t n, cap;		/* entries; cap a power of two */
  hw_profile_entry *e;		/* open addressing; start 0 and length 0xff:
				   empty */
  uint64_t total;
  hw_profile_entry *last;	/* the last path added (NULL after a growth) */
} hw_profile;

void hw_profile_init (hw_profile *p);
void hw_profile_free (hw_profile *p);
/* Adds count to path's entry; returns it (NULL on allocation failure).  */
hw_profile_entry *hw_profile_add (hw_profile *p, const hw_path *path, uint64_t count);
hw_profile_entry *hw_profile_find (const hw_profile *p, const hw_path *path);

/* The overlap percentage of the HPT's profile with the complete one (Vaswani
   5.5.2, after Ball et al.): the sum over the HPT's paths of the smaller of
   its share of the HPT's counts and its share of all path executions.  */
double hw_overlap (const hw_hpt *h, const hw_profile *complete);

/* ---- The detector.  */

typedef struct hw_entry
{
  hw_path path;
  uint32_t events;		/* saturating at 255 (8-bit counter) */
  uint32_t extension;
  uint32_t ntargets, cap;	/* the branches so far (for reports) */
  uint64_t *targets;
} hw_entry;

typedef struct hw_stack
{
  uint32_t thread;
  uint32_t depth, cap;
  hw_entry *e;
} hw_stack;

enum hw_overflow { HW_OVERFLOW_DROP_OLDEST, HW_OVERFLOW_GROW };
enum hw_metric { HW_METRIC_FREQUENCY, HW_METRIC_EVENTS };

typedef struct hw_config
{
  hw_ppcr ppcr;
  uint32_t max_length;		/* 1..64 */
  uint32_t stack_depth;		/* entries before overflow */
  uint8_t overflow;		/* enum hw_overflow */
  uint8_t metric;		/* enum hw_metric: what a path adds to the HPT */
  uint32_t queue;		/* branch queue entries (a cycle-free model's
				   queue only delays: no result depends on it) */
} hw_config;

typedef struct hw_model
{
  hw_config c;
  hw_hpt *hpt;			/* may be NULL */
  hw_profile complete;
  uint32_t nstacks, last_stack;	/* last_stack: the last one used */
  hw_stack *stacks;		/* one per thread */
  uint64_t branches, paths, overflows, underflows, splits;
  bool failed;			/* out of memory */
} hw_model;

int hw_model_init (hw_model *m, const hw_config *c, hw_hpt *hpt);
void hw_model_free (hw_model *m);
/* One retired branch, through the queue.  The queue decouples the pipeline
   from the detector; cycle-free, it only delays (it holds branches in order
   and never drops one), so the detector sees each as it arrives.  Most
   branches, forward conditional branches or direct jumps of the thread of
   the branch before, join the top path (no extension applies and, short of
   the maximum length, no split): here, in line; hw_model_detect does the
   rest (and could do these).  */
void hw_model_detect (hw_model *m, const hw_branch *b);

/* Update-count, and update's outcome bit: what a branch adds to path e.  */
static inline void
hw_entry_count (hw_entry *e, const hw_branch *b)
{
  uint32_t ev = e->events + b->events;
  e->events = ev > 255 ? 255 : ev;
}

static inline void
hw_entry_extend (hw_entry *e, const hw_branch *b)
{
  e->path.outcomes |= (uint64_t) (b->kind != HW_COND_NOT_TAKEN) << e->path.length;
  e->path.length++;
}

static inline void
hw_model_branch (hw_model *m, const hw_branch *b)
{
  hw_stack *s = m->stacks + (m->last_stack < m->nstacks ? m->last_stack : 0);
  if (__builtin_expect (b->kind <= HW_JUMP && b->dst > b->src
			&& m->c.ppcr.ops[HW_TYPE_FORWARD] == HW_OP_UPDATE
			&& m->last_stack < m->nstacks && s->thread == b->thread
			&& s->depth, 1))
    {
      hw_entry *top = &s->e[s->depth - 1];
      if (__builtin_expect (top->path.length + 1u < m->c.max_length
			    && top->ntargets < top->cap, 1))
	{
	  m->branches++;
	  hw_entry_count (top, b);
	  hw_entry_extend (top, b);
	  top->targets[top->ntargets++] = b->dst;
	  return;
	}
    }
  hw_model_detect (m, b);
}

/* N forward direct branches of THREAD in a row (conditional branches or
   jumps to higher addresses: their kinds need not be told), each adding
   EVENTS, bit i of TAKEN the i-th's outcome, DST their targets: what N
   calls of hw_model_branch do while they stay its common case, at once.
   Returns how many it took, from the first (0 to N); the caller passes
   the rest to hw_model_branch.  Written apart from hw_model_branch's
   common case, not on top of it: test-hw runs the two against each other
   (a shared slip, such as events not saturating, would pass both).  */
static inline uint32_t
hw_model_forward (hw_model *m, uint32_t thread, uint32_t n, uint64_t taken,
		  const uint64_t *dst, uint32_t events)
{
  if (m->c.ppcr.ops[HW_TYPE_FORWARD] != HW_OP_UPDATE || m->last_stack >= m->nstacks)
    return 0;
  hw_stack *s = m->stacks + m->last_stack;
  if (s->thread != thread || !s->depth)
    return 0;
  hw_entry *top = &s->e[s->depth - 1];
  /* Each branch joins the path while length + 1 < max_length after the
     ones before it.  */
  if (top->path.length + 1u >= m->c.max_length)
    return 0;
  uint32_t k = n, room = m->c.max_length - 1u - top->path.length;
  if (k > room)
    k = room;
  if (k > top->cap - top->ntargets)
    k = top->cap - top->ntargets;
  if (!k)
    return 0;
  m->branches += k;
  uint64_t ev = (uint64_t) top->events + (uint64_t) k * events;
  top->events = ev > 255 ? 255 : (uint32_t) ev;
  /* k < max_length <= 64, and length + k < 64.  */
  top->path.outcomes |= (taken & (((uint64_t) 1 << k) - 1)) << top->path.length;
  top->path.length = (uint8_t) (top->path.length + k);
  uint64_t *t = top->targets + top->ntargets;
  for (uint32_t i = 0; i < k; i++)	/* a few: a memcpy's dispatch cost more */
    t[i] = dst[i];
  top->ntargets += k;
  return k;
}

/* Pops every stack (end of stream or of a sample).  */
void hw_model_flush (hw_model *m);
/* The end of one thread's branches (an LBR sample): its stack is emptied.  */
void hw_model_end_thread (hw_model *m, uint32_t thread);

/* ---- Input.  */

/* Labels of block addresses (the branch stream's "label" lines).  */
typedef struct hw_labels
{
  size_t n, cap;
  uint64_t *addr;
  char **text;
} hw_labels;

const char *hw_label (const hw_labels *l, uint64_t addr);
/* Returns 0, or -1 when out of memory.  */
int hw_labels_add (hw_labels *l, uint64_t addr, const char *text);
void hw_labels_free (hw_labels *l);

/* Reads a branch stream (format version 1, see pathprof-hw(1)) or, with perf,
   `perf script -F ip,brstack` text, calling each branch and each sample's end
   (an LBR sample is a stream of its own).  Returns 0, or -1 with err naming the
   line and problem.  */
int hw_read (FILE *in, bool perf, hw_labels *labels,
	     void (*branch) (void *ctx, const hw_branch *b),
	     void (*sample_end) (void *ctx), void *ctx, char *err, size_t errlen);

/* ---- Comparing with a software path profile.  */

/* Paths and their executions.  */
typedef struct hw_compare_row
{
  uint64_t paths, executions;
} hw_compare_row;

/* Why the hardware's paths differ from a software path, from the software
   side (`pathprof paths --descriptors`) but HW_COMPARE_LONG, which the model
   decides: a path of more branches than a descriptor holds is split.  */
enum
{
  HW_COMPARE_INDIRECT, HW_COMPARE_LAYOUT, HW_COMPARE_LEAVE, HW_COMPARE_CUT,
  HW_COMPARE_LONG, HW_COMPARE_NREASONS
};

typedef struct hw_comparison
{
  hw_compare_row software;	/* every software path */
  hw_compare_row same;		/* found with the same count */
  hw_compare_row other_count;	/* found with another count */
  hw_compare_row missing;	/* no such hardware path */
  hw_compare_row shared;	/* of those looked up, the ones that share
				   their descriptor with another (one
				   hardware path counts them all) */
  hw_compare_row reason[HW_COMPARE_NREASONS];
  hw_compare_row hardware;	/* every path of the complete profile */
  hw_compare_row hardware_matched;	/* those a software path found, with
					   their hardware counts */
} hw_comparison;

/* Reads the descriptors of a software profile (`pathprof paths
   --descriptors` text) and looks each one up among COMPLETE's paths, the
   start by its label in L ("FUNCTION bbN"); software paths of one
   descriptor (a loop head that is also the first block) are compared by
   the sum of their counts.  Returns 0, or -1 with err
   naming the line and problem.  */
int hw_compare (FILE *in, const hw_labels *l, const hw_profile *complete,
		uint32_t max_length, hw_comparison *out, char *err, size_t errlen);
const char *hw_compare_reason_name (int reason);

#endif
