/* The branch stream of a trace: every branch each thread retired on the
   machine of branch-layout.h, regenerated from a trace file a chunk at a
   time.  `pathprof trace --branches` prints it as text; `pathprof-hw TRACE`
   feeds it straight to the hardware model, without the text.  Both go
   through this file, so that the two give the same stream by construction.

   Per function, the layout is computed once (each block's address, and per
   real edge what it retires, from where, to where), so that an event of the
   regeneration costs a table lookup and, for a branch, one call.  */

#ifndef PATHPROF_TOOLS_TRACE_BRANCHES_H
#define PATHPROF_TOOLS_TRACE_BRANCHES_H

#include <stdbool.h>
#include <stdint.h>

#include "trace-file.h"

/* What a branch of the stream is (its text names: ct cn j ij c r).  */
enum trace_branch_kind
{
  TRACE_BRANCH_COND_TAKEN,
  TRACE_BRANCH_COND_NOT_TAKEN,
  TRACE_BRANCH_JUMP,
  TRACE_BRANCH_INDIRECT_JUMP,
  TRACE_BRANCH_CALL,
  TRACE_BRANCH_RETURN,
};

const char *trace_branch_kind_name (enum trace_branch_kind k);

typedef void trace_branch_fn (void *ctx, uint32_t thread, enum trace_branch_kind kind,
			      uint64_t src, uint64_t dst);

/* The branches a run of regenerated edges retires (pp_trace_regen_ops.run),
   worked out the first time the run comes, so that a consumer that takes
   runs gets them as arrays: the branches in order, and where they are
   direct and forward (a conditional branch or a jump to a higher address,
   a hardware path profiler's common case) how many follow in a row and
   their outcomes as bits.  */
typedef struct trace_branch_run
{
  uint32_t n;			/* branches */
  const uint8_t *kinds;		/* enum trace_branch_kind */
  const uint64_t *src, *dst;
  /* fwd[i]: how many branches from i on are direct and forward, at most
     64.  */
  const uint8_t *fwd;
  /* Bit i % 64 of word i / 64: branch i was taken (all but a conditional
     branch not taken); a word past the last, 0.  */
  const uint64_t *taken;
} trace_branch_run;

/* The 64 outcome bits of r from branch i on (bit 0 branch i's).  */
static inline uint64_t
trace_branch_run_taken (const trace_branch_run *r, uint32_t i)
{
  uint64_t lo = r->taken[i / 64] >> (i % 64);
  return i % 64 ? lo | r->taken[i / 64 + 1] << (64 - i % 64) : lo;
}

typedef void trace_branch_run_fn (void *ctx, uint32_t thread, const trace_branch_run *r);

/* One real edge of a function as the machine runs it.  */
typedef struct trace_branch_edge
{
  uint64_t src, dst;		/* addresses: the branch at +12 of its block */
  int8_t kind;			/* enum trace_branch_kind, -1: none retired */
  uint8_t outcome_bits;		/* to record its source's outcome: log2 of
				   its real successors, rounded up */
  bool to_block;		/* real, not into EXIT: its block runs next */
  uint32_t dst_block;
} trace_branch_edge;

typedef struct trace_branch_function
{
  uint64_t base;		/* its first block's address */
  uint32_t *order;		/* branch_layout_order */
  trace_branch_edge *edges;
  uint64_t first;		/* address of the entry edge's block */
} trace_branch_function;

typedef struct trace_branches
{
  trace_file *t;
  trace_branch_function *fn;	/* per function number */
  /* Per depth of the regeneration: the function and its current block.  */
  struct trace_branch_frame { uint32_t fn, block; } *frames;
  size_t cap;
  /* What the regeneration saw, over every thread so far.  */
  uint64_t blocks, calls, branches, outcome_bits;
  /* The thread being regenerated and where its branches go.  */
  uint32_t thread;
  trace_branch_fn *branch;
  trace_branch_run_fn *run;
  void *ctx;
  /* The runs regeneration replayed, each's branches and what its edges
     add to the counts above (trace-branches.c "Runs"); a run's tag is its
     index + 1.  */
  struct trace_branch_summary **runs;
  size_t nruns, runs_cap;
  int failed;			/* out of memory */
} trace_branches;

/* Lays out every function of t.  Returns 0, or -1 when out of memory.  */
int trace_branches_init (trace_branches *b, trace_file *t);
void trace_branches_free (trace_branches *b);

/* The address of block `block` of function number id.  */
static inline uint64_t
trace_branches_address (const trace_branches *b, uint32_t id, uint32_t block)
{
  return b->fn[id].base + ((uint64_t) b->fn[id].order[block] << 4);
}

/* Calls label (ctx, address, text) for every block but ENTRY and EXIT, in
   address order, with the text of the stream's label lines ("FUNCTION bbN
   line L,..."), FUNCTION as branch_function_name gives it.  Returns 0, or
   -1 when out of memory.  */
int trace_branches_labels (trace_branches *b,
			   void (*label) (void *ctx, uint64_t addr, const char *text),
			   void *ctx);

/* Regenerates thread i of the trace, calling branch (when not NULL) for each
   branch it retired, or for the branches of a run regeneration replays
   run, when not NULL (the same branches in the same order).  Returns 0, or
   -1 with a reason in err (a damaged trace, out of memory).  */
int trace_branches_thread (trace_branches *b, uint32_t i, trace_branch_fn *branch,
			   trace_branch_run_fn *run, void *ctx, char *err,
			   size_t errlen);

/* The regeneration's event callback that does it (for a caller that also
   wants the events: it sets b->thread, b->branch and b->ctx itself).  */
void trace_branches_event (void *ctx, enum pp_trace_ev ev, size_t depth, uint32_t id,
			   uint32_t x);

#endif
