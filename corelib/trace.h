/* Tracing (Ball & Larus 1994, section 4): witnesses on a few edges, written to a
   per-thread bit stream as they are traversed, from which the tool regenerates
   the complete sequence of blocks each thread executed, across calls, returns,
   longjmp and process exit.

   Placement (pp_plan_trace).  The decision points of a function are its
   predicates (blocks with two or more real successors) and its call blocks
   (blocks containing a call that may enter instrumented code: PP_BLOCK_CALLS,
   or that may not return: a fake leave edge).  First the blocking witnesses
   (section 4.2, figure 15): for each call block, re-entry block (below),
   dead end and EXIT, every edge p -> x0 where p is a decision point and x0 .. the target are not, so that between a
   decision and the next call or return a witness is always written.  Then the
   chords of a maximum spanning tree of the real edges that may not contain
   those (figure 16), so that the real edges without a witness form a forest: no
   diamond, no directed cycle, hence at a predicate the next witness tells which
   successor was taken (the witness sets of its successors are disjoint).  A
   function's n witnesses are numbered 0 .. n-1 in edge order and written in
   pp_trace_width (n) bits.

   Records.  A thread's stream is a sequence of records, each read in the width
   w of the function the regeneration is in (0 outside every function):
     W(k)        k in w bits, k < 2^w - 1: the witness of the function's edge k
     control     2^w - 1 in w bits (the escape), then a 2-bit kind and payload:
       ENTER u f   the function f of unit u (trace ids, pp_trace_put_varint)
                   starts; its records follow in its own width.  Written as
                   m + 2 ones (m = max (w, PP_TRACE_DIRECT_WIDTH)), a zero,
                   the new activation's depth d (a varint), u and f:
                   read in any width up to m it is an escape, kind 3 and ones
                   up to the zero, so that it reads the same in the caller's
                   width and in a direct callee's (below)
       HIT, MISS   a call site's record (below, "Announced calls"): HIT is one
                 0 (two, 00, in width 0), MISS is 10 (110 in width 1), then
                 a bit (announced), a varint u (0: the callee is not traced,
                 else 1 + its unit) and, traced, a varint f, its function:
                 neither can be read as an ENTER, nor as a LAND in the
                 width of the function that writes it
     LAND d b    execution continues at block b of the activation at depth d
                   (1 = the outermost): a longjmp, computed goto or other
                   re-entry (blocks with a fake edge from ENTRY) lands there;
                   every deeper activation is gone.  Written at the start of
                   every re-entry block (a fake edge from ENTRY or an
                   exception edge enters it), also when it is reached
                   normally.
   The end of a thread's stream is the end of its records: a process that exits
   inside a call ends there.  The runtime keeps the width and depth of the
   innermost traced activation that has records still to write (below), so a
   callee's ENTER is written in its caller's width, as the regeneration reads
   it.

   Returns.  No record says that a function returns: regeneration returns
   when its walk reaches EXIT, which it does without a record from the
   activation's last one on (the walk after it needs no choice, call or
   LAND).  The writer mirrors that: the activation's last record puts the
   caller's state back (PP_TRACE_LAST: a witness after which the walk reaches
   EXIT without a record, pp_trace_quiet_after; a LAND at a block whence it
   does, pp_trace_quiet_from; and the ENTER of a function whose walk needs no
   record at all, which then leaves the state as it is), so that a signal
   handler that runs after it writes at the depth regeneration is at: in the
   caller.  An activation that has its records still to come is the one
   regeneration is in.

   Direct calls.  A call whose callee the compiler knows, defined and traced in
   the same unit (binding locally, so no other definition can take the call),
   of width at most PP_TRACE_DIRECT_WIDTH, writes no ENTER: the caller puts
   the callee's key in the thread's `expect` word just before the call, and
   the callee, finding its key there, clears it and enters without libprof.
   The notes list those calls per call block, in the order the block makes
   them; only a block's first calls that may enter traced code can be direct
   (after another one, a callback's ENTER could come first).  Regeneration
   enters them where the block makes them.  A signal handler that runs between
   the caller's last record and the callee's entry writes its ENTER in the
   caller's width at the caller's depth + 1; one that runs just after the
   entry, at the callee's depth + 1 (or deeper, after the callee's own direct
   calls): the depth in the ENTER tells which.
   libprof keeps an announcement a handler interrupts for the call that
   follows the handler.

   Announced calls.  A call the plugin cannot make direct because it does
   not know the callee, or knows it only by name (through a pointer; of a
   function of another unit or of no traced unit), is a call site: just
   before the call the caller writes a site record, in its own activation, and
   announces the callee as a direct call does when the callee can be entered
   without a record.  Each thread keeps per site the callee it called last
   (the unit's thread-local table of sites, libprof's
   __pathprof_trace_site on a change), so the record is mostly one bit: HIT,
   the same callee as the site's last, or MISS and the callee: traced or
   not, its unit and function, and whether it is announced (at most
   PP_TRACE_DIRECT_WIDTH wide, and not a function without records when a call
   that writes an ENTER follows in the block: PP_TRACE_SITE_ENTER_AFTER).
   Regeneration keeps the same tables, from the records alone: a thread
   starts with none, a forked child with its parent's.  An announced callee
   is entered as a direct one; any other's activations (and callbacks) come
   with their ENTERs.  The notes list the sites among the block's direct
   calls, in the order the block makes them.

   Regeneration (pp_trace_regen).  Walk the CFG from the entry; at a call block,
   first regenerate every activation its direct calls and call sites enter
   and every one whose ENTER follows; at a predicate, the
   next witness chooses the successor; a witnessed edge consumes its witness;
   EXIT returns; LAND unwinds.  The records of a signal handler appear wherever the handler
   ran: it is regenerated at the interrupted function's next decision, so its
   counts are exact and its place in the sequence approximate.  */

#ifndef PATHPROF_CORE_TRACE_H
#define PATHPROF_CORE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/graph.h"
#include "format/notes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Trace files: libprof/trace-buffers.c writes them, tools/trace.c reads them.
   A 32-byte header ("PPTRACE\0", u32 version, u32 0, u64 pid, u64 0), then
   chunks, each a u32 kind, u32 0, u64 payload length and the payload:
     UNIT     u32 trace id, u32 name length, name, u32 notes length, notes
     RECORDS  u32 thread, u32 0, u64 bits, the bits in u64 words
     FORK     u32 thread, u32 path length, u64 parent pid, u64 bits, path: the
              thread's records begin with the first `bits` of its records in
              the parent's trace file at path
     PACKED   u32 thread, u32 model, u64 bits, then coded bytes: all of the
              thread's records (a forked child's parent's first), `bits` of
              them, packed (trace-pack.h; pathprof trace --pack writes them)
   all little-endian.  */
#define PP_TRACE_FILE_VERSION 4u	/* 2: direct calls; ENTER of kind 3;
					   3: no RETURN record;
					   4: call sites (HIT, MISS) */
enum pp_trace_chunk
{
  PP_TRACE_CHUNK_UNIT = 1,
  PP_TRACE_CHUNK_RECORDS = 2,
  PP_TRACE_CHUNK_FORK = 3,
  PP_TRACE_CHUNK_PACKED = 4,
};

enum pp_trace_kind
{
  /* 0 and 1: reserved, refused by the reader (1 was RETURN in version 2) */
  PP_TRACE_LAND = 2,
  PP_TRACE_ENTER = 3,
};

/* In the plan, the operand2 of a witness and the width (operand) of ENTER
   and operand2 of LAND, and so in the width argument of libprof's ENTER and
   LAND: the record is its activation's last ("Returns" above).  */
#define PP_TRACE_LAST 0x100u

/* The widest function a direct call may enter without a record: every ENTER
   has at least this many ones before its kind.  */
#define PP_TRACE_DIRECT_WIDTH 8u

/* In a function's list of direct calls (notes, pp_trace_function_direct):
   a call site, numbered in its unit (PP_TRACE_SITE_NUMBER), with
   PP_TRACE_SITE_ENTER_AFTER when a call that writes an ENTER of its own
   follows it in its block.  */
#define PP_TRACE_SITE PP_DIRECT_SITE
#define PP_TRACE_SITE_ENTER_AFTER 0x40000000u
#define PP_TRACE_SITE_NUMBER 0x3fffffffu

/* A call site's HIT, in the width of the function that writes it: zeros,
   so that the code writes it by moving the cursor.  */
static inline unsigned pp_trace_hit_bits (unsigned width)
{ return width ? 1 : 2; }

/* Bits per witness record of a function with n witnesses: the fewest that
   leave one value, all ones, for the escape.  */
static inline unsigned pp_trace_width (uint32_t n)
{
  unsigned w = 0;
  while (w < 32 && ((uint64_t) 1 << w) < (uint64_t) n + 1)
    w++;
  return w;
}

static inline uint64_t pp_trace_escape (unsigned width)
{ return ((uint64_t) 1 << width) - 1; }

/* ---- Writing bits: a record is built in a small accumulator, then appended.  */

typedef struct pp_trace_record
{
  uint64_t bits[3];		/* little-endian bit order, bit 0 first */
  unsigned nbits;		/* at most 192 */
} pp_trace_record;

static inline void pp_trace_put (pp_trace_record *r, uint64_t v, unsigned n)
{
  if (n == 0)
    return;
  unsigned word = r->nbits / 64, off = r->nbits % 64;
  if (n < 64)
    v &= ((uint64_t) 1 << n) - 1;
  r->bits[word] |= v << off;
  if (off + n > 64)
    r->bits[word + 1] |= v >> (64 - off);
  r->nbits += n;
}

/* Unsigned numbers in groups of 7 bits, lowest first, each followed by a
   continuation bit (at most 10 groups: 80 bits).  */
static inline void pp_trace_put_varint (pp_trace_record *r, uint64_t v)
{
  /* Up to 8 groups (v < 2^56) in one put.  */
  uint64_t bits = 0;
  unsigned n = 0;
  do
    {
      uint64_t group = v & 0x7f;
      v >>= 7;
      bits |= (group | (uint64_t) (v != 0) << 7) << n;
      n += 8;
    }
  while (v && n < 64);
  pp_trace_put (r, bits, n);
  while (v)
    {
      pp_trace_put (r, (v & 0x7f) | (uint64_t) (v >> 7 != 0) << 7, 8);
      v >>= 7;
    }
}

/* The records, in the width of the activation they are read in.  */
static inline void pp_trace_witness (pp_trace_record *r, unsigned width, uint32_t k)
{ pp_trace_put (r, k, width); }

static inline void pp_trace_control (pp_trace_record *r, unsigned width,
				     enum pp_trace_kind kind)
{
  pp_trace_put (r, pp_trace_escape (width), width);
  pp_trace_put (r, (uint64_t) kind, 2);
}

/* depth: the new activation's (1 = the outermost).  */
static inline void pp_trace_enter (pp_trace_record *r, unsigned width,
				   uint64_t depth, uint32_t unit, uint32_t function)
{
  unsigned m = width > PP_TRACE_DIRECT_WIDTH ? width : PP_TRACE_DIRECT_WIDTH;
  pp_trace_put (r, pp_trace_escape (m + 2), m + 3);	/* the ones, a zero */
  pp_trace_put_varint (r, depth);
  pp_trace_put_varint (r, unit);
  pp_trace_put_varint (r, function);
}

/* A call site's MISS: its callee is function `function` of unit `unit`
   (trace ids), or no traced function (traced false).  */
static inline void pp_trace_miss_head (pp_trace_record *r, unsigned width,
				       bool announced)
{
  if (width == 1)
    pp_trace_put (r, 3, 3);	/* 1, 1, 0 */
  else
    pp_trace_put (r, 1, 2);	/* 1, 0 */
  pp_trace_put (r, announced, 1);
}

/* The rest of a MISS, the callee (a writer may keep these bits per callee
   and put them after the head).  */
static inline void pp_trace_miss_callee (pp_trace_record *r, bool traced,
					 uint32_t unit, uint32_t function)
{
  pp_trace_put_varint (r, traced ? (uint64_t) unit + 1 : 0);
  if (traced)
    pp_trace_put_varint (r, function);
}

static inline void pp_trace_miss (pp_trace_record *r, unsigned width, bool traced,
				  bool announced, uint32_t unit, uint32_t function)
{
  pp_trace_miss_head (r, width, announced);
  pp_trace_miss_callee (r, traced, unit, function);
}

static inline void pp_trace_land (pp_trace_record *r, unsigned width,
				  uint64_t depth, uint32_t block)
{
  pp_trace_control (r, width, PP_TRACE_LAND);
  pp_trace_put_varint (r, depth);
  pp_trace_put_varint (r, block);
}

/* ---- Reading.  */

/* A thread's stream, whole in memory or read a window at a time.  With `more`
   NULL, words[0 .. nbits) is the whole stream.  Otherwise they are a window
   of it, and more (b) moves the window on: it keeps the bits from mark (the
   first bit of the record being read) to nbits, appends the stream's next
   bits, rebases pos and mark into the new window, adds what it dropped to
   base, and returns 1, 0 at the end of the stream or -1 on an error (ctx is
   the caller's).  A window holds at least one word after its bits, and every
   record fits in one (records are at most 200 bits).  */
typedef struct pp_trace_bits
{
  const uint64_t *words;
  uint64_t nbits;
  uint64_t pos;
  int (*more) (struct pp_trace_bits *b);
  void *ctx;
  uint64_t mark;
  uint64_t base;		/* bits of the stream before the window */
  /* A packed stream (trace-pack.h) sets lazy: more then appends only the
     `want` bits asked for, coded in context `model`, which regeneration sets
     to what it reads next and more moves on after each request.  */
  bool lazy;
  unsigned want;
  uint64_t model;
} pp_trace_bits;

/* Reads n <= 64 bits; returns -1 at the end of the stream.  */
int pp_trace_get (pp_trace_bits *b, unsigned n, uint64_t *v);
/* The position of the next bit in the whole stream.  */
static inline uint64_t pp_trace_bit (const pp_trace_bits *b)
{ return b->base + b->pos; }

/* One record read in the given width.  */
typedef struct pp_trace_event
{
  int kind;			/* -1: a witness; else enum pp_trace_kind */
  uint64_t a, b;		/* witness: a = k; ENTER: unit, function;
				   LAND: depth, block */
  uint64_t depth;		/* ENTER: the new activation's */
} pp_trace_event;

/* Returns 0, 1 at the end of the stream, -1 for a malformed record.  The
   record starts at b->mark (where a caller that reads it again rewinds to).  */
int pp_trace_read (pp_trace_bits *b, unsigned width, pp_trace_event *ev);

/* ---- The witnesses of one function, from its graph and notes.  */

typedef struct pp_trace_function
{
  const pp_graph *g;
  uint32_t nwitness;
  unsigned width;
  int32_t *witness_of_edge;	/* per edge: k, or -1 */
  uint32_t *edge_of_witness;	/* per witness: its edge */
  bool *decision;		/* per block: a decision point */
  bool *calls;			/* per block: may enter instrumented code */
  bool *reentry;		/* per block: a fake edge from ENTRY or an
				   exception edge enters it (LAND) */
  uint32_t *only;		/* per block: its one real successor edge, or
				   UINT32_MAX (none, or several) */
  /* What regeneration's inner loop reads, a word per block and per edge:
     step[v] is only[v], or PP_TRACE_STEP_CALLS for a call block, or
     PP_TRACE_STEP_CHOOSE; walk[e] is e's destination with the
     PP_TRACE_WALK_* flags.  */
  uint32_t *step, *walk;
  uint32_t entry_edge;		/* the real edge out of ENTRY, or UINT32_MAX */
  /* Per predicate, built when regeneration first needs it: which successor
     each witness chooses.  */
  struct pp_trace_choice_row **choice;
  /* The direct calls (entered without a record) of block v are
     direct[direct_at[v] .. direct_at[v + 1]), in the block's order;
     pp_trace_function_direct sets them (none before).  */
  uint32_t *direct_at;
  struct pp_trace_callee *direct;
  /* Its unit's index in the trace (0 where there is one): the call sites'
     tables are per unit.  */
  uint32_t unit;
  /* Regeneration's runs (trace.c "Runs"), built as it goes.  */
  struct pp_trace_runs *runs;
} pp_trace_function;

/* A direct call's callee, and the id regeneration reports it by; or a call
   site (tf NULL, id PP_TRACE_SITE | its number, with its flags).  */
typedef struct pp_trace_callee
{
  pp_trace_function *tf;
  uint32_t id;
} pp_trace_callee;

#define PP_TRACE_STEP_CALLS (UINT32_MAX - 1)
#define PP_TRACE_STEP_CHOOSE UINT32_MAX
#define PP_TRACE_WALK_WITNESS (1u << 31)	/* the edge has a witness */
#define PP_TRACE_WALK_EXIT (1u << 30)		/* into EXIT */
#define PP_TRACE_WALK_REENTRY (1u << 29)	/* into a re-entry block */
#define PP_TRACE_WALK_DST ((1u << 29) - 1)

/* The witnesses a predicate's successors lead to are few and close
   together: a row covers the range of them, two bytes each (which successor,
   and whether the witness is that edge's own), and the successor edges
   follow in the same allocation, so that a choice costs one cache line or
   two, not a walk through the function's tables.  */
typedef struct pp_trace_choice_row
{
  uint32_t lo, n;		/* witnesses lo .. lo + n - 1 */
  const uint16_t *succ;		/* per witness lo + i: index in edge, with
				   PP_TRACE_OWN_WITNESS, or PP_TRACE_NO_CHOICE */
  uint32_t edge[];		/* the predicate's successor edges */
} pp_trace_choice_row;
#define PP_TRACE_NO_CHOICE 0xffffu
#define PP_TRACE_OWN_WITNESS 0x8000u
#define PP_TRACE_MAX_SUCCESSORS 0x7fffu

/* The edge witness k chooses in row r, or UINT32_MAX; *own: k is that
   edge's own witness.  */
static inline uint32_t
pp_trace_choice_in (const pp_trace_choice_row *r, uint64_t k, bool *own)
{
  if (k - r->lo >= r->n || r->succ[k - r->lo] == PP_TRACE_NO_CHOICE)
    return UINT32_MAX;
  uint16_t c = r->succ[k - r->lo];
  *own = c & PP_TRACE_OWN_WITNESS;
  return r->edge[c & ~PP_TRACE_OWN_WITNESS];
}

/* Fills tf from g and the witness numbers (witness_of_edge, -1 elsewhere:
   copied) and the block flags (PP_BLOCK_CALLS; flags may be NULL).  Returns 0,
   -1 on allocation failure, -2 when the witnesses are not numbered 0 .. n-1
   once each, sit on edges that cannot carry them, or leave a cycle of real
   edges without one.  */
int pp_trace_function_init (pp_trace_function *tf, const pp_graph *g,
			    const int32_t *witness_of_edge, const uint32_t *block_flags);
void pp_trace_function_free (pp_trace_function *tf);

/* The n direct calls and call sites of tf: call i is made in block[i]
   (blocks in order; a block's calls in the order it makes them) and enters
   callee[i], or is a call site.  Returns 0, -1 on allocation failure, -2 when
   a block is not a call block of tf or a callee is wider than
   PP_TRACE_DIRECT_WIDTH.  */
int pp_trace_function_direct (pp_trace_function *tf, uint32_t n,
			      const uint32_t *block, const pp_trace_callee *callee);

/* Does the walk of regeneration reach EXIT without reading a record from
   block v (reached, its LAND read if it is a re-entry block), or after
   taking edge e (its witness read, if it has one)?  */
bool pp_trace_quiet_from (const pp_trace_function *tf, uint32_t v);
bool pp_trace_quiet_after (const pp_trace_function *tf, uint32_t e);

/* The real successor edge of predicate v that witness k says was taken, or
   UINT32_MAX when none can have produced it (a corrupted trace); builds v's
   row on first use (UINT32_MAX - 1 on allocation failure, or for a
   predicate of more than PP_TRACE_MAX_SUCCESSORS - 1 successors).  */
uint32_t pp_trace_choice (pp_trace_function *tf, uint32_t v, uint32_t k);

/* Decision points and blockers: fills decision[] (per block) and marks in
   wit[] (per edge) the blocking witnesses.  calls[v]: v may enter instrumented
   code.  Returns 0 or -1 (allocation).  */
int pp_trace_blockers (const pp_graph *g, const bool *calls, bool *decision,
		       bool *wit);

/* The placement: the blocking witnesses, then the chords of a maximum spanning
   tree (weights w per edge; NULL: uniform) of the other real edges.  calls[v]
   (may be NULL): block v contains a call that may enter instrumented code.
   Fills witness_of_edge (k, numbered in edge order, or -1) and returns the
   number of witnesses, or -1 on allocation failure.  */
int pp_trace_place (const pp_graph *g, const bool *calls, const double *w,
		    int32_t *witness_of_edge);

/* What regeneration reports, in execution order.  depth: the activation's,
   1 = the outermost.  */
enum pp_trace_ev
{
  PP_TRACE_EV_ENTER,		/* function `id` starts (x unused) */
  PP_TRACE_EV_BLOCK,		/* block x of function id executes */
  PP_TRACE_EV_EDGE,		/* real edge x of function id is traversed */
  PP_TRACE_EV_RETURN,		/* function id returns (its walk reached EXIT) */
  PP_TRACE_EV_UNWIND,		/* function id is left by a LAND in a caller */
  PP_TRACE_EV_LAND,		/* execution continues at re-entry block x */
};

/* A run of edges passed at once (pp_trace_regen_ops.run).  */
typedef void pp_trace_run_fn (void *ctx, size_t depth, uint32_t id, const uint32_t *edges,
			      uint32_t n, uint32_t *tag);

typedef struct pp_trace_regen_ops
{
  void *ctx;
  /* The function of (unit, function) of an ENTER record, with the id to
     report it by, or NULL when the trace describes no such function.  */
  pp_trace_function *(*lookup) (void *ctx, uint64_t unit, uint64_t function,
				uint32_t *id);
  void (*event) (void *ctx, enum pp_trace_ev ev, size_t depth, uint32_t id,
		 uint32_t x);
  void *lookup_ctx;		/* what lookup gets instead of ctx, if not NULL */
  /* PP_TRACE_EV_BLOCK is not reported: a block runs after each real edge
     into it (not into EXIT) and at each LAND, which is how a consumer that
     only needs edges tells them (one call fewer per block).  */
  bool no_blocks;
  /* When not NULL: what the records regeneration consumed cost, by kind
     (PP_TRACE_STAT_*).  */
  struct pp_trace_regen_stats *stats;
  /* When not NULL (with no_blocks): a run of edges regeneration walked
     before (trace.c "Runs"), passed at once instead of an EDGE event per
     edge, at the activation of the events' depth and id.  *tag is the
     consumer's word for the run, 0 until it sets it and kept with the run
     (the same edges at the same address) for as long as the trace function
     lives: what it knows of the run, found again without a lookup.  */
  pp_trace_run_fn *run;
} pp_trace_regen_ops;

enum
{
  PP_TRACE_STAT_WITNESS,
  PP_TRACE_STAT_ENTER,
  PP_TRACE_STAT_RETURN,
  PP_TRACE_STAT_LAND,
  PP_TRACE_STAT_HIT,
  PP_TRACE_STAT_MISS,
  PP_TRACE_NSTATS
};

typedef struct pp_trace_regen_stats
{
  /* PP_TRACE_STAT_RETURN: the returns, which take no bits.  */
  uint64_t records[PP_TRACE_NSTATS], bits[PP_TRACE_NSTATS];
  uint64_t direct;		/* activations entered by a direct call */
  uint64_t announced;		/* by a call site's record */
} pp_trace_regen_stats;

/* Regenerates one thread's execution from its records.  Returns 0 at the end
   of the records (wherever the thread stopped), or -1 with err naming the bit
   where the records contradict the functions (a corrupted or foreign trace).  */
int pp_trace_regen (pp_trace_bits *b, const pp_trace_regen_ops *ops, char *err,
		    size_t errlen);

/* Is e an edge that regeneration follows by witnesses (not fake, not EXIT ->
   ENTRY, not an exception edge: a landing pad is entered as a re-entry, since
   the callees the exception left never returned)?  */
#define PP_TRACE_UNREAL_FLAGS (PP_EDGE_FAKE | PP_EDGE_EXIT_ENTRY | PP_EDGE_EH)
static inline bool pp_trace_real_flags (uint32_t flags)
{ return !(flags & PP_TRACE_UNREAL_FLAGS); }
static inline bool pp_trace_real_edge (const pp_graph *g, uint32_t e)
{ return pp_trace_real_flags (g->edges[e].flags); }
/* How many real edges leave v.  */
static inline uint32_t pp_trace_real_out_degree (const pp_graph *g, uint32_t v)
{
  uint32_t n = 0;
  for (uint32_t i = g->succ_start[v]; i < g->succ_start[v + 1]; i++)
    n += pp_trace_real_edge (g, g->succ_edges[i]);
  return n;
}

#ifdef __cplusplus
}
#endif

#endif
