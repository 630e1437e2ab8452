/* libprof, depth-k interprocedural segments (kseg-runtime.h): the segment
   under way is a Ball-Larus path of its root's supergraph S
   (corelib/segments.h), numbered with S's own values.

   Roots and copies.  An activation runs in a copy of S: a call whose site
   the copy inlines (fewer than k calls open since the root) continues the
   caller's segment in the callee's copy (the CALL edge); any other call of
   an instrumented function (a deeper site, an indirect call, a call from
   code that is not instrumented: a callback, a signal handler, a thread's
   start) starts a root, whose segments run in its own S, and the caller
   takes the SUMMARY edge when it returns.  S is built and numbered the
   first time its root runs as one (under the program's lock), once per
   process; its edges' actions (below) are what the probes read.  What
   the probes read of a root is one block (struct root), which a dump
   saves to the numbering cache (numbering-cache.h) and a later run of the
   same program adopts instead of numbering S again (root_of: pack,
   adopt).

   The register.  One u64 per root activation, r, the sum of S's values
   along the segment so far, modulo 2^63 (S's numbers fit 63 bits:
   pp_seg_number cuts regions past that): every chord (below) adds its
   value, a cut (a backedge of any copy, a region cut, an edge into a
   re-entry target) counts r plus its end value and sets r to the value
   that starts the head, a root's EXIT counts r.  A copy's EXIT adds the
   RETURN edge, a summary call's return the SUMMARY edge.  Where the process
   or a longjmp leaves a segment, it ends on the leave of the call under
   way in the top activation of its root (S gives each such leave a node of
   its own, so it is numbered), and a landing starts one at the block
   (S's re-entry into the copy).  A segment S cannot name (an edge on no
   path, a root whose S could not be built, an inlined call whose callee did
   not continue it) is counted as lost.

   Chords.  The plugin puts no probe on the edges of a spanning forest of
   each function's real edges (plan.h pp_plan_ip_roles), the same in every
   copy, and S is cut only where every copy has a probe (segments.h).  The
   values move onto the other edges by potentials on S's nodes
   (corelib/seg-actions.c): phi (v) is the sum of values along the forest from a
   node of v's tree where phi is 0 (S's EXIT, in its tree), so an action
   adds val + phi (src) - phi (dst), which is 0 on the forest, a cut counts
   r + val + phi (src), and a segment starts at v with r less phi (v); along
   any segment the sum is the same as with every edge adding its value.
   The preferential register q moves the same way with its own potentials.

   In place.  The instrumented code takes most edges itself
   (pathprof-abi.h, __pathprof_ip_step): the activation's frame is the
   address of its struct act, whose first member gives its copy's row of
   the root's value table and the root activation's registers, which the
   code keeps in locals between calls (plugin/ip-probes.cc).  An add is one
   add to r (and q).  At a backedge of the function (plan.c marks its
   probe: segments end there in every copy but for region cuts), a cut
   ends the segment in place where its number has a place
   (__pathprof_ip_place): in its start's array, when the segments from
   that start are few (at most ks.p.dense_max; a start's numbers are
   consecutive in Ball-Larus numbering, so the array is indexed by the
   number less the start's first) or it is among the start's first
   START_PREFIX; in the root's preferential slots, when
   q names the slot whose key is the number; or in the root's hashed
   places (struct hashed), when the one its number hashes to has it for
   key (the first segment to hash there takes it, in libprof); then the
   next segment starts from the record of the cut's head (struct start).
   A cut whose segment has no place calls CUT (__pathprof_seg_cut: the count,
   which takes a hashed place where it can, and the next start, without
   EDGE's dispatch); the rest (a start, a lost edge) goes the slow way,
   take ().  A root's EXIT counts its segment in place the same way
   (exit_adds 2).  Calls too (pathprof-abi.h __pathprof_ip_call_step): the
   code names the call under way in its frame and the frame in
   __pathprof_ip_caller, which the callee's ENTER reads (a continuation
   when the frame's tag names the callee: it copies the frame of the row
   the caller's copy has for the call, struct cont, and points at the row;
   a new root, as after an indirect call, whose tag is NULL, copies its
   prototype),
   and after the call, where the callee continued the segment (its EXIT
   took the RETURN edge), it only ends the call; where the callee did not
   and the call's summary or leaf edge adds, it adds (the frame's calls,
   two words a call); else RETURN takes that edge, or loses a segment the
   callee did not continue.  Activations never move: the
   thread's stack is chunks that double in size, taken with mmap and kept
   for the thread's life.  An untracked activation (the thread inside a
   probe, a function the numbering does not know) gets the thread's dummy
   frame, whose values are zeros and whose registers name no place, like
   those of a lost segment: a backedge's cut in place (which the code
   takes without a test of the value) finds none and no next start, and
   calls EDGE, which does nothing for it.

   Counts.  Segment number n of root procedure p is the key (n, p),
   counted in place (above) or in the thread's table (ip-tables.c, no
   lock) as the context paths' loop segments are: ctx p, A n, B 0; a dump
   moves the counts in place into the tables (pp_kseg_flush_slots).

   Preferential segments (interproc-ppp, interproc-residual).  A root whose
   notes list interesting segments (learnt from a segments profile, for the
   supergraph whose pp_seg_checksum they give) gets them numbered compactly
   (ppp.h) on the same edges: a second register q per root activation adds
   each edge's preferential weight, and a segment whose slot q holds its
   number r counts in the root's array of slots (an atomic add, no table);
   the others are counted as above.  A dump moves the slots' counts
   into the tables (pp_kseg_flush_slots).  A root whose supergraph is not
   the one the profile numbered (its code or a callee's changed) is said
   once and counts every segment in the tables.

   Compiled roots (plugin/compiled.cc).  A root whose supergraph is the
   same whatever the program (every call of every copy a call of a
   function of its unit, or through a pointer; a function without calls
   the least of them) the plugin numbers when it compiles the unit (the
   same corelib code on the same notes), and its code counts its segments
   the way the paths mode counts paths, its copies clones that take the
   register from the thread's word __pathprof_seg_pass, with a record where
   a call may not return ("Records" below), in the unit's compiled_counts
   (pathprof-abi.h), or, with more segments than fit an array, in a path
   table as the paths mode's (path-tables.c), behind a front of its
   interesting segments in the learning modes (compiled_counts again, each
   slot's segment in the root's keys), all of which a dump moves into the
   tables with the roots' own (pp_kseg_flush_slots) and a fork or
   pathprof_reset zeroes.  Where a caller's copy continues its segment into
   such a function, it must run as a copy, with ENTER: the function then
   runs a clone of itself with the probes above.  It asks which
   (__pathprof_seg_continues) only where a call is under way
   (__pathprof_ip_caller) or the program is not set up: a compiled root's
   call names no call, so from one it asks nothing.  */

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "act-stack.h"
#include "alloc.h"
#include "front.h"
#include "hash.h"
#include "ip-program.h"
#include "ip-runtime.h"
#include "ip-tables.h"
#include "kseg-runtime.h"
#include "modes.h"
#include "numbering-cache.h"
#include "path-tables.h"
#include "paths.h"
#include "ppp.h"
#include "segments.h"

#define NONE UINT32_MAX
#define JUMPED (UINT32_MAX - 1)	/* a computed goto left the activation */
#define NOSTART PP_SEG_NOSTART	/* a node no segment starts at */
#define TOP ((uint64_t) 1 << 63)	/* a value's cut bit */
#define LOW PP_SEG_LOW		/* r counts modulo 2^63 (the header's "Chords") */
#define SLOW UINT64_MAX		/* a value: EDGE takes the edge */
#define DENSE_BUDGET 4		/* a root's arrays: at most this many dense_max */
/* A start of more segments than an array holds keeps one for its first
   numbers (struct start): in Ball-Larus numbering they are the segments
   that take each branch's first way, and where the start is a loop's
   header in a copy whose segments also run on past the copy's return,
   the loop's own iterations are often among them (zlib's longest_match
   in deflate_slow's S: of its 38 M cuts a run, all hashed before, 33 M
   now count in its start's first numbers).  */
#define START_PREFIX 4

/* An S edge's action is corelib's (segments.h, "Actions"): pp_seg_op,
   kept as it is in a root's block.  What an ADD or a CUT adds to q (the
   preferential weight) is apart, kept in the preferential modes only
   (val2).  */

/* Where a segment starts (an S node): the registers' values there (r
   NOSTART: no segment starts there), its first segment's number, and the
   array that counts the segments from there when they are few (at most
   ks.p.dense_max; size 0: none).  Their numbers are first .. first + size - 1
   (a Ball-Larus start's paths are numbered consecutively), counts[n - first]
   counts number n (counts holds the array's address, as the registers
   do).  */
struct start
{
  uint64_t r, q, first, size, counts;
};

/* The code reads a start where regs[2] names it (pathprof-abi.h): r, q,
   first number, array size, array, a word each.  */
_Static_assert (offsetof (struct start, r) == 0 && offsetof (struct start, q) == 8
		&& offsetof (struct start, first) == 16 && offsetof (struct start, size) == 24
		&& offsetof (struct start, counts) == 32, "the code's view of a start");

static inline uint64_t *
array_of (uint64_t address)
{
  return (uint64_t *) (uintptr_t) address;
}

/* A root's supergraph while it is numbered (root_of), and what the
   numbering gives the probes, before it is packed into a struct root.  */
struct build
{
  pp_seg_graph s;
  pp_paths *p;
  pp_seg_actions a;		/* per S edge, per S node (corelib) */
  uint64_t *values;		/* the header's "In place" (v[1] of a cut: its
				   head node + 1) */
  struct start *starts;		/* per S node (counts: 0) */
  uint64_t ncounts;		/* the starts' arrays, in all */
  uint32_t *call_first;		/* per copy: its rows of crow */
  struct crow { uint32_t child, slot; } *crow;
  uint64_t span, *keys;		/* preferential: slot q counts keys[q] */
  uint32_t said;		/* enum said: why it has no slots */
};

/* Why a preferential root has no slots (said at each process's first
   activation of it, built or adopted).  */
enum said
{
  SAID_NOTHING,
  SAID_CHANGED,			/* its code or its callees' changed */
  SAID_NOT_SEGMENTS,		/* the profile's segments are not S's */
  SAID_TOO_MANY,		/* they need more than MAX_SLOTS slots */
  SAID_COUNT
};

/* What a root's copies need at run time.  */
struct rcopy
{
  uint32_t proc, first_node, first_slot, first_crow;
};

/* The sizes of a root's arrays: the head of its block (below).  */
struct root_head
{
  uint32_t proc, said, stride, nnodes, entry, nedges, ncopies, nslots;
  uint32_t ncalls, ncrow, nstarts, zero;	/* zero: the u64s' alignment */
  uint64_t ncounts, span;
};

/* A root as the probes read it: one block, the head then the arrays of
   lay_out, which root_of makes from a numbering (pack) or takes from the
   numbering cache, as it was saved (adopt); the arrays that count are apart.
   The block as saved names a cut's start by its index + 1 (values' v[1])
   and has no array addresses (starts' counts), which adopt sets.  Few
   nodes start segments (4% of SQLite's): the starts are those only, in
   node order, start_of giving each node's.  */
struct root
{
  struct root_head h;
  unsigned char *block;		/* the root's own, or the cache's (borrowed) */
  size_t len;
  bool borrowed;
  pp_seg_op *op;		/* per S edge */
  uint64_t *val2;		/* per S edge, preferential modes (else NULL) */
  struct start *starts;		/* per start */
  uint32_t *start_of;		/* per S node: its start, or NONE */
  uint64_t *values;		/* per copy, per edge of its procedure */
  uint64_t *keys;		/* per slot */
  struct rcopy *copies;
  uint32_t *edge_of;		/* per copy, per edge of its procedure: its
				   S edge (S's edge_of) */
  uint32_t *call_edge, *return_edge;	/* per call slot (S's) */
  struct crow *crow;		/* per copy, per call of its procedure: the
				   copy inlined there and its call slot */
  uint64_t *counts;		/* the starts' arrays */
  uint64_t *slots;		/* per slot: its count */
  struct hashed *hashed;	/* the segments no array or slot places, the
				   latest table (atomic; run-time state) */
  struct cont *cont;		/* per crow row (make_conts) */
  uint64_t *calls;		/* per crow row, two words: the frames' calls
				   (pathprof-abi.h; make_conts) */
  struct act *proto;		/* a root activation as ENTER starts it, but
				   for its place on the stack (make_proto) */
  struct cont *self;		/* what the root's activation runs as: copy 0 */
};

/* What an activation runs as: a copy of its root's S.  Per copy, per call
   of its procedure (crow's rows), what an activation that continues its
   caller's segment there takes (continue_in), made with the process's
   addresses when the root is (make_conts), so that an ENTER copies it
   rather than look it up; and per root, its own copy 0 (make_proto).  */
struct cont
{
  /* The activation's frame as ENTER starts it: its values, calls, EXIT
     (exit_adds, ret), no call under way; its depth and regs are its
     place's.  */
  struct __pathprof_ip_frame fr;
  uint32_t proc;		/* the callee the copy inlines there (NONE:
				   none) */
  uint32_t copy, slot;		/* the callee's copy, the call slot */
  bool call_adds;		/* the call edge adds add (else: take it) */
  const uint32_t *edge_of;
  const struct crow *crow;
  const struct cont *cont;
  uint64_t add[2];
};

/* A root's hashed places (the header's "In place"): place i counts the
   segment keys[i] (EMPTY: none yet), i = hashed_at (its number); the
   first to come takes a place, for good, the others that hash there
   count in the tables.  A table more than half taken gives way to one
   GROW times larger, the older kept (activations may still count there)
   and flushed with it.  */
struct hashed
{
  uint64_t mask;		/* places - 1 */
  uint64_t *keys, *counts;
  uint64_t taken;		/* atomic */
  struct hashed *older;
};

#define EMPTY UINT64_MAX	/* no segment number (they are below 2^63) */
#define HASHED_MAX ((uint64_t) 1 << 20)	/* at most */
#define GROW 4

/* The place of number N in a table of MASK + 1 places (the code computes
   the same: plugin/ip-probes.cc).  */
static inline uint64_t
hashed_at (uint64_t n, uint64_t mask)
{
  return ((n * PATHPROF_IP_HASH) >> 32) & mask;
}

/* What a lost segment's registers name: no place.  */
static const uint64_t no_place = EMPTY;
static const struct start no_start = { .r = NOSTART };

/* No more slots than this per root (a root with more counts in the tables).  */
#define MAX_SLOTS ((uint64_t) 1 << 22)

static struct
{
  /* The program as pp_kseg_init was given it (kseg-runtime.h): its units
     (p.units in the program's order, or NULL), procedures, depth, dense_max
     (starts of at most this many segments count them in an array),
     hashed (a root's first table of hashed places), the lock, and the
     functions that make the layout (p.layout) and decode the units' notes
     when first asked (p.notes; NULL: they cannot be).  */
  pp_kseg_program p;
  /* The layout, NULL until the first root libprof numbers runs (atomic:
     enter_slow makes it, under lock), which every activation is below.  */
  const pp_ip_layout *layout;
  bool layout_tried;		/* under lock */
  uint32_t stride;		/* words per edge in the values: 4 when the
				   units are preferential (q), else 2 */
  uint64_t *cfg_checksum;	/* per procedure, once a root with
				   interesting segments is numbered */
  struct root **roots;		/* per procedure; built once (atomic) */
  bool *tried;			/* per procedure, under lock */
  pp_ncache cache;		/* the numberings of earlier runs */
  uint32_t numbered, saved;	/* roots numbered by this process, and when
				   the cache was last saved (atomic) */
} ks;

struct act
{
  /* First: the frame word is its address.  fr.site is the call under way
     (notes index), NONE, or JUMPED; fr.entered whether it continued the
     segment, fr.tag the callee it names (the code writes all three).  */
  struct __pathprof_ip_frame fr;	/* fr.depth: its index on the stack + 1 */
  uint32_t proc;
  bool lost;			/* root activations: the segment under way */
  struct act *ra;		/* the root activation (a root's: itself) */
  const struct root *R;		/* the root's S, NULL if it has none */
  const struct cont *k;		/* the copy it runs as (k->copy, k->slot:
				   the call slot of the site that inlined
				   it; k->edge_of, k->crow: the copy's S
				   edges and calls) */
  const struct cont *cont;	/* k->cont: what continues at its calls */
  /* Root activations: r, q, and the address of the current segment's
     start (its first number, its array's size and array; no_start while
     the segment is lost), two unused; the root's slots: their number (0:
     none), keys and counts; its hashed places, as the latest table it
     read (hashed_regs).  */
  uint64_t reg[11];
};

/* The thread's stack (act-stack.h).  */
static __thread struct
{
  struct pp_act_stack stack;
  bool busy;
  struct act dummy;		/* every untracked activation's */
} kt PP_TLS_MODEL;

/* The plugin writes the call under way at these offsets (ip-probes.cc).  */
_Static_assert (offsetof (struct __pathprof_ip_frame, values) == 0
		&& offsetof (struct __pathprof_ip_frame, regs) == 8
		&& offsetof (struct __pathprof_ip_frame, tag) == 16
		&& offsetof (struct __pathprof_ip_frame, site) == 24
		&& offsetof (struct __pathprof_ip_frame, entered) == 28
		&& offsetof (struct __pathprof_ip_frame, depth) == 32
		&& offsetof (struct __pathprof_ip_frame, exit_adds) == 36
		&& offsetof (struct __pathprof_ip_frame, ret) == 40
		&& offsetof (struct __pathprof_ip_frame, calls) == 56,
		"struct __pathprof_ip_frame as plugin/ip-probes.cc reads it");

/* The frame whose call is under way (pathprof-abi.h): the caller the next
   ENTER continues, if the frame's tag names it.  */
PP_EXPORT __thread uint64_t __pathprof_ip_caller
  PP_TLS_MODEL;
/* The thread's stack's depth, which the code lowers where an EXIT adds.  */
PP_EXPORT __thread uint32_t __pathprof_ip_depth
  PP_TLS_MODEL;
/* Compiled roots with copies: the register a call passes to the copy it
   enters and back, with the root's record (corelib/format/probes.h,
   PP_PROBE_PATH_PASS); only the code reads and writes them.  */
PP_EXPORT __thread struct __pathprof_seg_pass_words __pathprof_seg_pass
  PP_TLS_MODEL;
/* Compiled roots' records (pathprof-abi.h, "Records" below).  */
PP_EXPORT __thread struct __pathprof_seg_record
  __pathprof_seg_records[PATHPROF_SEG_RECORDS] PP_TLS_MODEL;
PP_EXPORT __thread uint32_t __pathprof_seg_top
  PP_TLS_MODEL = PATHPROF_SEG_UNSET;

/* Zeros: the values and the calls' words of the dummy and of a root
   without S, for any function that takes its edges in place (never
   written).  */
static uint64_t zeros[4 * PP_PLAN_IP_INLINE_EDGES];
/* What an activation of a root without S runs as (and the dummy).  */
static const struct cont no_copy = { .proc = NONE, .slot = NONE };

/* ---- The supergraphs.  */

static void
free_build (struct build *B)
{
  pp_seg_free (&B->s);
  pp_paths_free (B->p);
  pp_seg_actions_free (&B->a);
  pp_free (B->values);
  pp_free (B->starts);
  pp_free (B->call_first);
  pp_free (B->crow);
  pp_free (B->keys);
}

static void
free_hashed (struct hashed *H)
{
  if (H)
    {
      pp_free (H->keys);
      pp_free (H->counts);
      pp_free (H);
    }
}

static void
free_root (struct root *R)
{
  if (!R)
    return;
  if (!R->borrowed)
    pp_free (R->block);
  pp_free (R->counts);
  pp_free (R->slots);
  pp_free (R->cont);
  pp_free (R->calls);
  pp_free (R->proto);
  pp_free (R->self);
  for (struct hashed *H = R->hashed, *older; H; H = older)
    {
      older = H->older;
      free_hashed (H);
    }
  pp_free (R);
}

/* The name of procedure p, for messages (from the units' notes
   outlined).  */
static const char *
proc_name (uint32_t p)
{
  const pp_unit_notes *all = ks.p.notes ();
  if (!all)
    return "(a function whose notes cannot be read)";
  uint32_t u = pp_ip_layout_unit_of (ks.layout, p);
  return all[u].functions[p - ks.layout->first_proc[u]].name;
}

/* number_root's status where need_procs fails (besides PP_SEG's).  */
#define NOT_LAID_OUT (-100)

/* Every procedure root p's supergraph may hold (those at most depth calls
   from it) has its graph in the layout (ks.p.proc).  Returns 0,
   NOT_LAID_OUT when one cannot have it (said), or PP_SEG_ENOMEM.  Under
   the lock.  */
static int
need_procs (uint32_t p)
{
  uint32_t n = ks.layout->prog.nprocs;
  uint32_t *queue = pp_malloc ((n + 1) * sizeof *queue);
  uint32_t *depth = pp_malloc ((n + 1) * sizeof *depth);	/* NONE: unseen */
  int rc = queue && depth ? 0 : PP_SEG_ENOMEM;
  uint32_t head = 0, tail = 0;
  if (rc == 0)
    {
      memset (depth, 0xff, n * sizeof *depth);
      queue[tail++] = p;
      depth[p] = 0;
    }
  while (rc == 0 && head < tail)
    {
      uint32_t q = queue[head++];
      if (!ks.p.proc (q))
	rc = NOT_LAID_OUT;
      else if (depth[q] < ks.p.depth)
	for (uint32_t k = 0; k < ks.layout->ncalls_of[q]; k++)
	  {
	    uint32_t site = ks.layout->site_of_call[q][k];
	    uint32_t c = site == NONE ? NONE : ks.layout->prog.calls[site].callee;
	    if (c < n && depth[c] == NONE)
	      {
		depth[c] = depth[q] + 1;
		queue[tail++] = c;
	      }
	  }
    }
  pp_free (queue);
  pp_free (depth);
  return rc;
}

/* The actions of S's edges and where segments start (the header's "The
   register" and "Chords"; corelib makes them) and, for a root with
   interesting segments, their slots (the header's "Preferential
   segments"): they number compactly and q's weights go into the actions.
   Returns 0, or -1 when out of memory; a root that cannot have slots
   counts in the tables (B->said says why).  */
static int
make_actions (struct build *B, uint32_t p)
{
  const pp_function_notes *fn = ks.p.proc (p);
  const pp_mode_info *m = fn ? pp_mode_lookup (ks.p.mode) : NULL;
  pp_ppp ppp = { 0 }, *slots = NULL;
  if (m && m->preferential && fn->ninteresting)
    {
      if (!ks.cfg_checksum
	  && !(ks.cfg_checksum = pp_ip_layout_cfg_checksums (ks.layout, ks.p.notes ())))
	return -1;
      int rc;
      if (pp_seg_checksum (&B->s, ks.cfg_checksum) != fn->seg_checksum)
	B->said = SAID_CHANGED;
      else if ((rc = pp_ppp_number (B->p, fn->interesting, fn->ninteresting, &ppp))
	       == PP_PATHS_ENOMEM)
	return -1;
      else if (rc != PP_PATHS_OK)
	B->said = SAID_NOT_SEGMENTS;
      else if (ppp.span > MAX_SLOTS)
	B->said = SAID_TOO_MANY;
      else
	slots = &ppp;
    }
  if (slots)
    {
      B->keys = pp_malloc ((ppp.span + 1) * sizeof *B->keys);
      if (!B->keys)
	{
	  pp_ppp_free (&ppp);
	  return -1;
	}
      B->span = ppp.span;
      memset (B->keys, 0xff, ppp.span * sizeof *B->keys);
      for (uint32_t i = 0; i < ppp.ninteresting; i++)
	B->keys[ppp.id[i]] = ppp.interesting[i];
    }
  int rc = pp_seg_actions_make (&B->s, B->p, slots, &B->a);
  pp_ppp_free (&ppp);
  const pp_graph *g = &B->s.g;
  B->starts = rc ? NULL : pp_calloc (g->nnodes + 1, sizeof *B->starts);
  if (!B->starts)
    return -1;
  for (uint32_t v = 0; v < g->nnodes; v++)
    B->starts[v] = (struct start) { .r = B->a.start_r[v], .q = B->a.start_q[v],
				    .first = B->a.start_first[v] };
  return 0;
}

/* Says why root p has no slots, once a process.  */
static void
say (uint32_t said, uint32_t p)
{
  static const char *const why[SAID_COUNT] = {
    [SAID_CHANGED] = "its code or its callees' changed since the profile they "
		     "were learnt from",
    [SAID_NOT_SEGMENTS] = "they are not segments of its supergraph",
    [SAID_TOO_MANY] = "they need too many slots",
  };
  if (said != SAID_NOTHING)
    pp_report (false, "the interesting segments of '%s' are counted as the "
	       "others: %s", proc_name (p), why[said]);
}

/* The number of paths from each node of P's DAG to its EXIT (Ball-Larus:
   the last successor's value plus its number), in NP.  */
static void
node_paths (const pp_paths *p, uint64_t *np, uint32_t *stack)
{
  const pp_graph *d = &p->dag;
  for (uint32_t v = 0; v < d->nnodes; v++)
    np[v] = v == d->exit ? 1 : UINT64_MAX;
  for (uint32_t v = 0; v < d->nnodes; v++)
    {
      uint32_t n = 0, u = v;
      while (np[u] == UINT64_MAX)
	{
	  stack[n++] = u;
	  if (d->succ_start[u] == d->succ_start[u + 1])
	    break;		/* on no path */
	  u = d->edges[d->succ_edges[d->succ_start[u + 1] - 1]].dst;
	}
      if (np[u] == UINT64_MAX)
	np[stack[--n]] = 0;
      while (n-- > 0)
	{
	  u = stack[n];
	  uint32_t last = d->succ_edges[d->succ_start[u + 1] - 1];
	  np[u] = p->dag_val[last] + np[d->edges[last].dst];
	}
    }
}

/* The starts' arrays, and B->values from the actions (the header's "In
   place").  */
static int
make_values (struct build *B)
{
  const pp_graph *g = &B->s.g;
  const pp_seg_copy *last = &B->s.copies[B->s.ncopies - 1];
  size_t n = last->first_slot + ks.layout->prog.procs[last->proc].nedges;
  B->values = pp_calloc (ks.stride * n + 1, sizeof *B->values);
  uint64_t *np = pp_malloc ((g->nnodes + 1) * sizeof *np);
  uint32_t *stack = pp_malloc ((g->nnodes + 1) * sizeof *stack);
  if (!B->values || !np || !stack)
    {
      pp_free (np);
      pp_free (stack);
      return -1;
    }
  node_paths (B->p, np, stack);
  /* Arrays for the starts of few segments, the fewest first (inner loops),
     then for every other start its first START_PREFIX numbers; at most
     DENSE_BUDGET dense_max counts a root.  */
  uint64_t total = 0, budget = DENSE_BUDGET * ks.p.dense_max;
  const uint64_t few[] = { ks.p.dense_max < 64 ? ks.p.dense_max : 64, ks.p.dense_max };
  for (unsigned pass = 0; pass < 3; pass++)
    for (uint32_t v = 0; v < g->nnodes; v++)
      {
	struct start *st = &B->starts[v];
	uint64_t size = np[v];
	if (st->r == NOSTART || st->size || !size)
	  continue;
	if (pass == 2)
	  size = size < START_PREFIX ? size : START_PREFIX;
	else if (size > few[pass])
	  continue;
	if (total + size <= budget)
	  {
	    st->size = size;
	    total += size;
	  }
      }
  pp_free (np);
  pp_free (stack);
  B->ncounts = total;
  for (size_t i = 0; i < n; i++)
    {
      uint32_t se = B->s.edge_of[i];
      const pp_seg_op *o = se == NONE ? NULL : &B->a.op[se];
      uint64_t *v = &B->values[ks.stride * i];
      if (o && o->kind == PP_SEG_OP_ADD)
	v[0] = o->val;
      else if (o && o->kind == PP_SEG_OP_CUT && B->starts[o->to].r != NOSTART)
	v[0] = TOP | o->val, v[1] = o->to + 1;	/* adopt makes it the address */
      else if (o && o->kind != PP_SEG_OP_NONE)
	v[0] = SLOW;
      if (o && ks.stride == 4)
	v[2] = B->a.val2[se];
    }
  return 0;
}

/* The call slot in B's S of program site SITE of copy C (procedure
   P): the site's index among P's (calls grouped by procedure).  */
static inline uint32_t
call_slot (const struct build *B, uint32_t c, uint32_t p, uint32_t site)
{
  return B->s.first_call[c] + site - ks.layout->prog.call_start[p];
}

/* B->crow: what each call of each copy enters.  */
static int
make_call_rows (struct build *B)
{
  const pp_seg_graph *S = &B->s;
  B->call_first = pp_malloc ((S->ncopies + 1) * sizeof *B->call_first);
  if (!B->call_first)
    return -1;
  uint32_t n = 0;
  for (uint32_t c = 0; c < S->ncopies; c++)
    {
      B->call_first[c] = n;
      n += ks.layout->ncalls_of[S->copies[c].proc];
    }
  B->call_first[S->ncopies] = n;
  /* Zeroed: pack saves the row past the last (the cache's bytes must not
     depend on what the memory held).  */
  B->crow = pp_calloc (n + 1, sizeof *B->crow);
  if (!B->crow)
    return -1;
  for (uint32_t c = 0; c < S->ncopies; c++)
    {
      uint32_t p = S->copies[c].proc;
      for (uint32_t k = 0; k < ks.layout->ncalls_of[p]; k++)
	{
	  uint32_t site = ks.layout->site_of_call[p][k];
	  struct crow *cr = &B->crow[B->call_first[c] + k];
	  cr->slot = site == NONE ? NONE : call_slot (B, c, p, site);
	  cr->child = site == NONE ? NONE : S->child[cr->slot];
	}
    }
  return 0;
}

/* A root's block: its head, then the arrays at 8-byte boundaries.  */
static void *
place (unsigned char *block, size_t *at, uint64_t n, size_t size)
{
  void *p = block ? block + *at : NULL;
  *at += (n * size + 7) & ~(size_t) 7;
  return p;
}

/* Points R's arrays into BLOCK (NULL: none) as R->h gives their sizes;
   returns the block's size.  */
static size_t
lay_out (struct root *R, unsigned char *block)
{
  const struct root_head *h = &R->h;
  size_t at = 0;
  place (block, &at, 1, sizeof *h);
  R->op = place (block, &at, h->nedges + 1, sizeof *R->op);
  R->val2 = h->stride == 4 ? place (block, &at, h->nedges + 1, sizeof *R->val2) : NULL;
  R->starts = place (block, &at, h->nstarts + 1, sizeof *R->starts);
  R->start_of = place (block, &at, h->nnodes, sizeof *R->start_of);
  R->values = place (block, &at, (uint64_t) h->stride * h->nslots + 1, sizeof *R->values);
  R->keys = place (block, &at, h->span + 1, sizeof *R->keys);
  R->copies = place (block, &at, h->ncopies, sizeof *R->copies);
  R->edge_of = place (block, &at, h->nslots, sizeof *R->edge_of);
  R->call_edge = place (block, &at, h->ncalls, sizeof *R->call_edge);
  R->return_edge = place (block, &at, h->ncalls, sizeof *R->return_edge);
  R->crow = place (block, &at, h->ncrow + 1, sizeof *R->crow);
  return at;
}

static int make_proto (struct root *R);

/* The two words of a frame's call whose return takes S edge SE of R (a
   summary or leaf edge; NONE: none): its adds to r and q, or SLOW where
   RETURN must take it.  */
static void
call_words (const struct root *R, uint32_t se, uint64_t *w)
{
  const pp_seg_op *o = se == NONE ? NULL : &R->op[se];
  if (se == NONE || o->kind == PP_SEG_OP_NONE)
    w[0] = w[1] = 0;
  else if (o->kind == PP_SEG_OP_ADD)
    w[0] = o->val, w[1] = R->val2 ? R->val2[se] : 0;
  else
    w[0] = SLOW;
}

/* R->cont and R->calls, from its crow and copies; 0, or -1 when out of
   memory.  */
static int
make_conts (struct root *R)
{
  const struct root_head *h = &R->h;
  R->cont = pp_calloc (h->ncrow + 1, sizeof *R->cont);
  R->calls = pp_calloc (2 * (size_t) h->ncrow + 2, sizeof *R->calls);
  if (!R->cont || !R->calls)
    return -1;
  for (uint32_t c = 0; c < h->ncopies; c++)
    {
      const struct rcopy *rc = &R->copies[c];
      for (uint32_t k = 0; k < ks.layout->ncalls_of[rc->proc]; k++)
	{
	  const struct crow *cr = &R->crow[rc->first_crow + k];
	  struct cont *t = &R->cont[rc->first_crow + k];
	  uint64_t *w = &R->calls[2 * (size_t) (rc->first_crow + k)];
	  t->proc = NONE;
	  /* __pathprof_seg_return's cases.  */
	  if (cr->slot == NONE)
	    call_words (R, R->edge_of[rc->first_slot
				      + ks.layout->leaf_edge[rc->proc][k]], w);
	  else if (cr->child == NONE)
	    call_words (R, R->call_edge[cr->slot], w);
	  else
	    w[0] = SLOW;
	  if (cr->child == NONE)
	    continue;
	  const struct rcopy *child = &R->copies[cr->child];
	  *t = (struct cont) {
	    .fr = { .values = R->values + (size_t) h->stride * child->first_slot,
		    .calls = R->calls + 2 * (size_t) child->first_crow,
		    .site = NONE },
	    .proc = child->proc, .copy = cr->child, .slot = cr->slot,
	    .edge_of = R->edge_of + child->first_slot,
	    .crow = R->crow + child->first_crow,
	    .cont = R->cont + child->first_crow };
	  /* The call and return edges' adds, as a return's words are.  */
	  call_words (R, R->call_edge[cr->slot], t->add);
	  call_words (R, R->return_edge[cr->slot], t->fr.ret);
	  t->call_adds = t->add[0] != SLOW;
	  t->fr.exit_adds = t->fr.ret[0] != SLOW;
	}
    }
  return 0;
}

/* Root p's block as the numbering cache keeps it, from its build; NULL
   when out of memory.  */
static unsigned char *
pack (const struct build *B, uint32_t p, size_t *len)
{
  const pp_seg_graph *S = &B->s;
  const pp_seg_copy *last = &S->copies[S->ncopies - 1];
  struct root R = { .h = {
    .proc = p, .said = B->said, .stride = ks.stride, .nnodes = S->g.nnodes,
    .entry = S->g.entry, .nedges = S->g.nedges, .ncopies = S->ncopies,
    .nslots = last->first_slot + ks.layout->prog.procs[last->proc].nedges,
    .ncalls = S->first_call[S->ncopies], .ncrow = B->call_first[S->ncopies],
    .ncounts = B->ncounts, .span = B->span } };
  for (uint32_t v = 0; v < R.h.nnodes; v++)
    R.h.nstarts += B->starts[v].r != NOSTART;
  *len = lay_out (&R, NULL);
  unsigned char *block = pp_calloc (*len, 1);
  if (!block)
    return NULL;
  lay_out (&R, block);
  memcpy (block, &R.h, sizeof R.h);
  memcpy (R.op, B->a.op, (R.h.nedges + 1) * sizeof *R.op);
  if (R.h.stride == 4)
    memcpy (R.val2, B->a.val2, (R.h.nedges + 1) * sizeof *R.val2);
  for (uint32_t v = 0, i = 0; v < R.h.nnodes; v++)
    {
      R.start_of[v] = B->starts[v].r != NOSTART ? i : NONE;
      if (B->starts[v].r != NOSTART)
	R.starts[i++] = B->starts[v];
    }
  memcpy (R.values, B->values, ((size_t) R.h.stride * R.h.nslots + 1) * sizeof *R.values);
  for (uint32_t i = 0; i < R.h.nslots; i++)
    {
      uint64_t *v = &R.values[(size_t) R.h.stride * i];
      if (v[1])
	v[1] = R.start_of[v[1] - 1] + 1;	/* a node's start, now by index */
    }
  if (R.h.span)
    memcpy (R.keys, B->keys, R.h.span * sizeof *R.keys);
  for (uint32_t c = 0; c < R.h.ncopies; c++)
    R.copies[c] = (struct rcopy) { .proc = S->copies[c].proc,
				   .first_node = S->copies[c].first_node,
				   .first_slot = S->copies[c].first_slot,
				   .first_crow = B->call_first[c] };
  memcpy (R.edge_of, S->edge_of, R.h.nslots * sizeof *R.edge_of);
  memcpy (R.call_edge, S->call_edge, R.h.ncalls * sizeof *R.call_edge);
  memcpy (R.return_edge, S->return_edge, R.h.ncalls * sizeof *R.return_edge);
  memcpy (R.crow, B->crow, (R.h.ncrow + 1) * sizeof *R.crow);
  return block;
}

static inline bool
edge_ok (const struct root_head *h, uint32_t e)
{
  return e < h->nedges || e == NONE;
}

/* Whether R's arrays (laid out from a block whose size its head gives,
   adopt's checks) make a root of procedure p that the probes can follow:
   every index in range, each copy's rows where its procedure's edges and
   calls need them.  The numbering cache's checksums catch damage; this
   catches the rest (a file written by another build of the same
   program).  */
static bool
consistent (const struct root *R, uint32_t p)
{
  const struct root_head *h = &R->h;
  const pp_ip_program *program = &ks.layout->prog;
  if (h->proc != p || h->stride != ks.stride || h->said >= SAID_COUNT
      || h->entry >= h->nnodes || h->ncopies == 0 || R->copies[0].proc != p)
    return false;
  uint32_t slot = 0, crow = 0;
  for (uint32_t c = 0; c < h->ncopies; c++)
    {
      const struct rcopy *rc = &R->copies[c];
      if (rc->proc >= program->nprocs || !ks.p.proc (rc->proc)
	  || rc->first_slot != slot || rc->first_crow != crow
	  || rc->first_node > h->nnodes
	  || program->procs[rc->proc].nnodes > h->nnodes - rc->first_node)
	return false;
      slot += program->procs[rc->proc].nedges;
      crow += ks.layout->ncalls_of[rc->proc];
    }
  if (slot != h->nslots || crow != h->ncrow)
    return false;
  for (uint32_t e = 0; e < h->nedges; e++)
    if (R->op[e].kind > PP_SEG_OP_LOST
	|| ((R->op[e].kind == PP_SEG_OP_CUT || R->op[e].kind == PP_SEG_OP_SET) && R->op[e].to >= h->nnodes))
      return false;
  uint64_t counts = 0;
  for (uint32_t i = 0; i < h->nstarts; i++)
    {
      if (R->starts[i].r == NOSTART || R->starts[i].size > h->ncounts - counts
	  || R->starts[i].counts)
	return false;
      counts += R->starts[i].size;
    }
  if (counts != h->ncounts)
    return false;
  for (uint32_t v = 0; v < h->nnodes; v++)
    if (R->start_of[v] >= h->nstarts && R->start_of[v] != NONE)
      return false;
  for (uint32_t i = 0; i < h->nslots; i++)
    {
      const uint64_t *v = &R->values[(size_t) h->stride * i];
      if (!edge_ok (h, R->edge_of[i]) || v[1] > h->nstarts
	  || ((v[0] & TOP) && v[0] != SLOW && v[1] == 0))
	return false;
    }
  for (uint32_t i = 0; i < h->ncalls; i++)
    if (!edge_ok (h, R->call_edge[i]) || !edge_ok (h, R->return_edge[i]))
      return false;
  for (uint32_t i = 0; i < h->ncrow; i++)
    if ((R->crow[i].child >= h->ncopies && R->crow[i].child != NONE)
	|| (R->crow[i].slot >= h->ncalls && R->crow[i].slot != NONE))
      return false;
  return true;
}

/* The root of procedure p from BLOCK of LEN bytes as pack makes it, its
   counts zero; NULL when out of memory or when the block is not one.  A
   block this process packed the root takes (freed on failure), and it is
   not checked; one in the cache it borrows, where it lies, after checking
   it (consistent).  */
static struct root *
adopt (unsigned char *block, size_t len, uint32_t p, bool packed)
{
  struct root *R = pp_calloc (1, sizeof *R);
  if (!R || len < sizeof R->h)
    goto fail;
  memcpy (&R->h, block, sizeof R->h);
  struct root sizes = { .h = R->h };
  if (R->h.span > MAX_SLOTS || R->h.ncounts > DENSE_BUDGET * ks.p.dense_max
      || lay_out (&sizes, NULL) != len)
    goto fail;
  R->block = block;
  R->len = len;
  R->borrowed = !packed;
  lay_out (R, block);
  if (!packed && !consistent (R, p))
    goto fail;
  R->counts = R->h.ncounts ? pp_calloc (R->h.ncounts, sizeof *R->counts) : NULL;
  R->slots = R->h.span ? pp_calloc (R->h.span + 1, sizeof *R->slots) : NULL;
  if ((R->h.ncounts && !R->counts) || (R->h.span && !R->slots))
    goto fail;
  if (!R->h.span)
    R->keys = NULL;
  uint64_t at = 0;
  for (uint32_t i = 0; i < R->h.nstarts; i++)
    if (R->starts[i].size)
      {
	R->starts[i].counts = (uintptr_t) (R->counts + at);
	at += R->starts[i].size;
      }
  for (uint32_t i = 0; i < R->h.nslots; i++)
    {
      uint64_t *v = &R->values[(size_t) R->h.stride * i];
      if (v[1])
	v[1] = (uintptr_t) &R->starts[v[1] - 1];
    }
  if (make_conts (R) || make_proto (R))
    goto fail;
  return R;
fail:
  if (R)
    {
      R->block = NULL;
      free_root (R);
    }
  if (packed)
    pp_free (block);
  return NULL;
}

/* Root R's block as pack made it (adopt's addresses back to indices), in
   memory of the arena; NULL when out of memory.  */
static unsigned char *
unadopt (const struct root *R)
{
  unsigned char *block = pp_malloc (R->len);
  if (!block)
    return NULL;
  memcpy (block, R->block, R->len);
  struct root C = { .h = R->h };
  lay_out (&C, block);
  for (uint32_t i = 0; i < C.h.nstarts; i++)
    C.starts[i].counts = 0;
  for (uint32_t i = 0; i < C.h.nslots; i++)
    {
      uint64_t *v = &C.values[(size_t) C.h.stride * i];
      if (v[1])
	v[1] = (v[1] - (uintptr_t) R->starts) / sizeof *R->starts + 1;
    }
  return block;
}

/* Root p numbered: its block (pack).  Returns a PP_SEG status.  */
static int
number_root (uint32_t p, unsigned char **block, size_t *len)
{
  struct build B = { 0 };
  int rc = need_procs (p);
  if (rc)
    return rc;
  rc = pp_seg_build_numbered (&ks.layout->prog, p, ks.p.depth, &B.s, &B.p);
  if (rc == PP_SEG_OK
      && (make_actions (&B, p) || make_values (&B) || make_call_rows (&B)
	  || !(*block = pack (&B, p, len))))
    rc = PP_SEG_ENOMEM;
  free_build (&B);
  return rc;
}

/* Root procedure p's S, numbered at its first activation as a root or
   taken from the numbering cache; NULL when it cannot be (said once).  */
static const struct root *
root_of (uint32_t p)
{
  struct root *R = __atomic_load_n (&ks.roots[p], __ATOMIC_ACQUIRE);
  if (R)
    return R;
  pthread_mutex_lock (ks.p.lock);
  R = ks.roots[p];
  if (!R && !ks.tried[p])
    {
      pp_gmp_enter ();
      ks.tried[p] = true;
      size_t len = 0;
      unsigned char *block = pp_ncache_find (&ks.cache, p, &len);
      if (block)
	R = adopt (block, len, p, false);
      if (!R)
	{
	  block = NULL;
	  int rc = number_root (p, &block, &len);
	  R = rc == PP_SEG_OK ? adopt (block, len, p, true) : NULL;
	  if (!R)
	    pp_report (false, "the segments of '%s' are not counted: %s", proc_name (p),
		       rc == PP_SEG_EGRAPH
		       ? "its supergraph breaks the numbering's conventions"
		       : rc == NOT_LAID_OUT
		       ? "a function its supergraph holds has no graph (said above)"
		       : "out of memory for its supergraph");
	  else
	    __atomic_add_fetch (&ks.numbered, 1, __ATOMIC_RELEASE);
	}
      if (R)
	{
	  say (R->h.said, p);
	  __atomic_store_n (&ks.roots[p], R, __ATOMIC_RELEASE);
	}
      pp_gmp_leave ();
    }
  pthread_mutex_unlock (ks.p.lock);
  return R;
}

/* Words per edge in a root's values for units of MODE.  */
static uint32_t
stride_of (uint32_t mode)
{
  const pp_mode_info *m = pp_mode_lookup (mode);
  return m && m->preferential ? 4 : 2;
}

int
pp_kseg_init (const pp_kseg_program *P)
{
  ks.p = *P;
  ks.layout = NULL;
  ks.stride = stride_of (P->mode);
  ks.roots = pp_calloc (ks.p.nprocs + 1, sizeof *ks.roots);
  ks.tried = pp_calloc (ks.p.nprocs + 1, sizeof *ks.tried);
  return ks.roots && ks.tried ? 0 : -1;
}

/* The layout, made now if this is the first root libprof numbers
   (ks.p.layout, under the lock); NULL when it cannot be (said).  */
static const pp_ip_layout *
need_layout (void)
{
  const pp_ip_layout *l = __atomic_load_n (&ks.layout, __ATOMIC_ACQUIRE);
  if (__builtin_expect (l != NULL, 1))
    return l;
  pthread_mutex_lock (ks.p.lock);
  if (!(l = ks.layout) && !ks.layout_tried)
    {
      ks.layout_tried = true;
      l = ks.p.layout ();
      __atomic_store_n (&ks.layout, l, __ATOMIC_RELEASE);
    }
  pthread_mutex_unlock (ks.p.lock);
  return l;
}

void
pp_kseg_free (void)
{
  for (uint32_t p = 0; ks.roots && p < ks.p.nprocs; p++)
    free_root (ks.roots[p]);
  pp_free (ks.roots);
  pp_free (ks.tried);
  pp_free (ks.cfg_checksum);
  pp_ncache_close (&ks.cache);
  memset (&ks, 0, sizeof ks);
}

/* What a cached root's block means, beyond the program's notes: the
   numbering's parameters and the block's layout.  Bump it when the
   numbering changes what it gives for the same notes (3: the file held
   the program's layout too, PP_NCACHE_LAYOUT; 4: it no longer does, the
   layout is made from the notes outlined, each graph as a root needs
   it).  */
#define CACHE_LAYOUT 4u

uint64_t
pp_kseg_cache_key (uint64_t program, uint32_t mode, uint32_t depth, uint64_t dense_max)
{
  uint64_t what[] = { program, depth, dense_max, stride_of (mode), CACHE_LAYOUT,
		      sizeof (struct root_head), sizeof (pp_seg_op),
		      sizeof (struct start), sizeof (struct rcopy), sizeof (struct crow),
		      MAX_SLOTS, DENSE_BUDGET, START_PREFIX };
  return pp_ncache_key (what, sizeof what / sizeof *what);
}

void
pp_kseg_open_cache (char *path, uint64_t key)
{
  pp_ncache_open (&ks.cache, path, key);
}

uint32_t
pp_kseg_numbered (void)
{
  return __atomic_load_n (&ks.numbered, __ATOMIC_ACQUIRE);
}

int
pp_kseg_save_cache (void)
{
  uint32_t numbered = __atomic_load_n (&ks.numbered, __ATOMIC_ACQUIRE);
  if (!ks.cache.path || numbered == ks.saved)
    return 0;
  uint32_t n = ks.p.nprocs, nrec = 0;
  pp_ncache_record *rec = pp_calloc ((size_t) n + 1, sizeof *rec);
  if (!rec)
    return -1;
  int ret = 0;
  for (uint32_t p = 0; p < n && ret == 0; p++)
    {
      const struct root *R = __atomic_load_n (&ks.roots[p], __ATOMIC_ACQUIRE);
      size_t len = 0;
      const unsigned char *bytes = R ? unadopt (R) : pp_ncache_find (&ks.cache, p, &len);
      /* (A root adopted from the cache changed its record there: unadopt
	 gives the record as it was.)  */
      if (R && !bytes)
	ret = -1;
      else if (bytes)
	rec[nrec++] = (pp_ncache_record) { .proc = p, .bytes = bytes,
					   .len = R ? R->len : len };
    }
  if (ret == 0)
    {
      /* Saved or said (once): the next dump tries again only after new
	 numberings.  */
      ret = pp_ncache_save (&ks.cache, rec, nrec);
      ks.saved = numbered;
    }
  for (uint32_t i = 0; i < nrec; i++)
    if (rec[i].proc < n && ks.roots[rec[i].proc])
      pp_free ((void *) rec[i].bytes);
  pp_free (rec);
  return ret;
}

/* Moves root P's counts in array A of N into the tables: count i is of
   segment KEYS[i] (NULL: BASE + i).  A batch at a time under the tables'
   lock.  */
static void
flush_array (uint64_t *a, uint64_t n, const uint64_t *keys, uint64_t base,
	     uint32_t p)
{
  enum { BATCH = 64 };
  uint64_t key[BATCH][2], count[BATCH];
  size_t k = 0;
  for (uint64_t i = 0; a && i < n; i++)
    {
      /* Most counts are 0 (a dump looks at every root's arrays): eight
	 at a time past them.  */
#define PP_AT(j) __atomic_load_n (&a[i + j], __ATOMIC_RELAXED)
      while (i + 8 <= n
	     && !((PP_AT (0) | PP_AT (1)) | (PP_AT (2) | PP_AT (3))
		  | (PP_AT (4) | PP_AT (5)) | (PP_AT (6) | PP_AT (7))))
	i += 8;
#undef PP_AT
      if (i < n && __atomic_load_n (&a[i], __ATOMIC_RELAXED))
	{
	  key[k][0] = keys ? keys[i] : base + i;
	  key[k][1] = p;
	  count[k] = __atomic_exchange_n (&a[i], 0, __ATOMIC_RELAXED);
	  if (++k == BATCH)
	    {
	      pp_ipt_add_numbers (key[0], count, k);
	      k = 0;
	    }
	}
    }
  if (k)
    pp_ipt_add_numbers (key[0], count, k);
}

static void
zero_array (uint64_t *a, uint64_t n)
{
  for (uint64_t i = 0; a && i < n; i++)
    __atomic_store_n (&a[i], 0, __ATOMIC_RELAXED);
}

static inline struct hashed *
hashed_of (const struct root *R)
{
  return __atomic_load_n (&R->hashed, __ATOMIC_ACQUIRE);
}

/* Compiled roots (pathprof-abi.h): FN (unit, root, procedure) for each
   root every unit numbered when it was compiled.  */
static void
each_compiled (void (*fn) (const struct __pathprof_unit *,
			   const struct __pathprof_compiled_root *, uint32_t))
{
  for (uint32_t u = 0; ks.p.units && u < ks.p.nunits; u++)
    {
      const struct __pathprof_unit *U = ks.p.units[u];
      uint32_t first = ks.p.first_proc[u];
      uint32_t end = u + 1 < ks.p.nunits ? ks.p.first_proc[u + 1] : ks.p.nprocs;
      for (uint32_t i = 0; i < U->ncompiled; i++)
	if (U->compiled[i].function < end - first
	    && (!U->compiled[i].table || U->compiled[i].table <= U->ntables))
	  fn (U, &U->compiled[i], first + U->compiled[i].function);
    }
}

static void
add_drained (uint64_t n, uint64_t count, void *p)
{
  uint64_t key[2] = { n, *(const uint32_t *) p };
  pp_ipt_add_number (key, count);
}

/* The counts of compiled root C in U's compiled counts: its segments', or
   its front's (pathprof-abi.h), whose slots are 2^keys_log2 (1 to
   PP_FRONT_MAX_LOG2: anything else is no front the plugin makes).  */
static uint64_t
compiled_span (const struct __pathprof_compiled_root *c)
{
  if (!c->table)
    return c->npaths;
  return c->keys && c->keys_log2 - 1 < PP_FRONT_MAX_LOG2 ? (uint64_t) 1 << c->keys_log2 : 0;
}

static void
flush_compiled (const struct __pathprof_unit *U, const struct __pathprof_compiled_root *c,
		uint32_t p)
{
  flush_array (U->compiled_counts + c->first, compiled_span (c), c->table ? c->keys : NULL, 0,
	       p);
  if (c->table)
    pp_table_drain (&U->tables[c->table - 1], add_drained, &p);
}

/* A root's table is the unit's: pathprof_reset and a fork's child zero it
   (runtime.c, pp_tables_zero).  */
static void
zero_compiled (const struct __pathprof_unit *U, const struct __pathprof_compiled_root *c,
	       uint32_t p)
{
  (void) p;
  zero_array (U->compiled_counts + c->first, compiled_span (c));
}

void
pp_kseg_flush_slots (void)
{
  each_compiled (flush_compiled);
  for (uint32_t p = 0; ks.roots && p < ks.p.nprocs; p++)
    {
      struct root *R = __atomic_load_n (&ks.roots[p], __ATOMIC_ACQUIRE);
      if (R)
	{
	  flush_array (R->slots, R->h.span, R->keys, 0, p);
	  for (struct hashed *H = hashed_of (R); H; H = H->older)
	    flush_array (H->counts, H->mask + 1, H->keys, 0, p);
	  for (uint32_t i = 0; i < R->h.nstarts; i++)
	    flush_array (array_of (R->starts[i].counts), R->starts[i].size, NULL,
			 R->starts[i].first, p);
	}
    }
}

void
pp_kseg_reset_slots (void)
{
  each_compiled (zero_compiled);
  for (uint32_t p = 0; ks.roots && p < ks.p.nprocs; p++)
    {
      struct root *R = __atomic_load_n (&ks.roots[p], __ATOMIC_ACQUIRE);
      if (R)
	{
	  zero_array (R->slots, R->h.span);
	  for (struct hashed *H = hashed_of (R); H; H = H->older)
	    zero_array (H->counts, H->mask + 1);
	  for (uint32_t i = 0; i < R->h.nstarts; i++)
	    zero_array (array_of (R->starts[i].counts), R->starts[i].size);
	}
    }
}

bool
pp_kseg_key (uint64_t ctx, uint64_t a, uint64_t b, uint64_t *key)
{
  (void) b;
  key[0] = a;
  key[1] = ctx;
  return true;
}


/* ---- Threads.  */

/* The thread's activation I (below its stack's cap).  */
static inline struct act *
act_at (uint32_t i)
{
  return pp_act_at (&kt.stack, i, sizeof (struct act));
}

/* A new activation on top of the thread's stack, which has room for it.  */
static inline struct act *
push_top (void)
{
  struct act *a = act_at (__pathprof_ip_depth);
  a->fr.depth = ++__pathprof_ip_depth;
  a->fr.exit_adds = 0;
  return a;
}

/* Threads that end hand on their table and stack (ip-tables.c "Threads
   that end") to a thread that starts later; the segments under way where
   a thread leaves (pthread_exit) end at the calls under way, as where the
   process exits, and so do the compiled roots' records.  */
static void *
thread_ends (void)
{
  if (kt.busy)
    return NULL;
  pp_kseg_end_thread_paths ();
  pp_busy_set (&kt.busy);	/* until handed on, as ctx-runtime.c's */
  struct pp_act_stack *h = pp_malloc (sizeof *h);
  if (h)
    *h = kt.stack;
  return h;
}

/* The thread's records start again as a new thread's (a key's destructor
   that runs later starts the thread again).  */
static void
handed_on (void)
{
  memset (&kt.stack, 0, sizeof kt.stack);
  __pathprof_ip_depth = 0;
  __pathprof_seg_top = PATHPROF_SEG_UNSET;
  pp_busy_clear (&kt.busy);
}

static const struct pp_ipt_thread_ops thread_ops = { thread_ends, handed_on };

/* The thread's first activation, or its first compiled root with a record,
   whichever comes first (its records' top is PATHPROF_SEG_UNSET until
   then: pathprof-abi.h): from now on its end ends its segments and
   records; it takes the stack of a thread that ended, if any.  */
static void
thread_starts (void)
{
  struct pp_act_stack *h = pp_ipt_thread_starts (&thread_ops);
  if (h)
    {
      kt.stack = *h;
      pp_free (h);
    }
  __pathprof_seg_top = 0;
}

/* A new activation on top of the thread's stack, or NULL.  */
static inline struct act *
push_act (void)
{
  if (__builtin_expect (__pathprof_ip_depth == kt.stack.cap, 0))
    {
      if (__pathprof_seg_top == PATHPROF_SEG_UNSET)
	thread_starts ();
      if (__pathprof_ip_depth == kt.stack.cap
	  && !pp_act_stack_grow (&kt.stack, sizeof (struct act)))
	return NULL;
    }
  return push_top ();
}

/* The segment under way of root activation ra is lost.  */
static inline void
lose (struct act *ra)
{
  ra->lost = true;
  ra->reg[2] = (uintptr_t) &no_start;	/* no place in an array */
  ra->reg[5] = 0;		/* nor in the slots */
  ra->reg[8] = 0;		/* nor a hashed one */
  ra->reg[9] = (uintptr_t) &no_place;
}

/* The thread's frame for an untracked activation.  */
static uint64_t
untracked (void)
{
  kt.dummy.fr.values = zeros;
  kt.dummy.fr.calls = zeros;
  kt.dummy.fr.regs = kt.dummy.reg;
  lose (&kt.dummy);		/* a backedge's cut finds no place: EDGE */
  kt.dummy.fr.depth = UINT32_MAX;	/* above every stack: never live */
  kt.dummy.k = &no_copy;
  return (uintptr_t) &kt.dummy;
}

uint64_t
pp_kseg_untracked (void)
{
  return untracked ();
}

/* Root activation ra's registers name the hashed places of its root's
   table H (NULL: none).  */
static inline void
hashed_regs (struct act *ra, const struct hashed *H)
{
  ra->reg[8] = H ? H->mask : 0;
  ra->reg[9] = H ? (uintptr_t) H->keys : (uintptr_t) &no_place;
  ra->reg[10] = H ? (uintptr_t) H->counts : 0;
}

/* A table of PLACES for root R, after OLDER (NULL: its first), published
   unless another thread published one first; the latest, or NULL when
   there is no memory.  */
static __attribute__ ((noinline)) struct hashed *
new_hashed (struct root *R, struct hashed *older, uint64_t places)
{
  struct hashed *H = pp_calloc (1, sizeof *H);
  if (H)
    {
      H->keys = pp_malloc (places * sizeof *H->keys);
      H->counts = pp_calloc (places, sizeof *H->counts);
    }
  if (!H || !H->keys || !H->counts)
    {
      free_hashed (H);
      return older;
    }
  memset (H->keys, 0xff, places * sizeof *H->keys);
  H->mask = places - 1;
  H->older = older;
  struct hashed *seen = older;
  if (__atomic_compare_exchange_n (&R->hashed, &seen, H, false, __ATOMIC_ACQ_REL,
				   __ATOMIC_ACQUIRE))
    return H;
  free_hashed (H);
  return seen;
}

/* Segment NUM of root activation ra in its root's hashed places, taking
   one if it has none (a table may grow); false where there is none.  */
static bool
count_hashed (struct act *ra, uint64_t num)
{
  /* The counts are run-time state of the root, as its arrays'.  */
  struct root *R = (struct root *) ra->R;
  struct hashed *H = hashed_of (R);
  if (!H && (!ks.p.hashed || !(H = new_hashed (R, NULL, ks.p.hashed))))
    return false;
  for (int tries = 0; tries < 2; tries++)
    {
      uint64_t *key = &H->keys[hashed_at (num, H->mask)], seen = EMPTY;
      if (__atomic_load_n (key, __ATOMIC_RELAXED) == EMPTY
	  && __atomic_compare_exchange_n (key, &seen, num, false, __ATOMIC_RELAXED,
					  __ATOMIC_RELAXED))
	__atomic_fetch_add (&H->taken, 1, __ATOMIC_RELAXED);
      if (__atomic_load_n (key, __ATOMIC_RELAXED) == num)
	{
	  __atomic_fetch_add (&H->counts[key - H->keys], 1, __ATOMIC_RELAXED);
	  hashed_regs (ra, H);
	  return true;
	}
      uint64_t places = H->mask + 1;
      if (tries || places >= HASHED_MAX
	  || 2 * __atomic_load_n (&H->taken, __ATOMIC_RELAXED) < places)
	break;
      struct hashed *newer = new_hashed (R, H, GROW * places);
      if (newer == H)
	break;
      H = newer;
    }
  hashed_regs (ra, H);
  return false;
}

/* The start of root activation ra's segment under way (no_start where it
   is lost): pathprof-abi.h's regs[2].  */
static inline const struct start *
start_of (const struct act *ra)
{
  return (const struct start *) (uintptr_t) ra->reg[2];
}

/* A segment of root activation ra starts at ST, S node V's start (lost
   where none does).  */
static inline void
begin_from (struct act *ra, const struct start *st)
{
  ra->reg[0] = st->r;
  ra->reg[1] = st->q;
  if (st->r == NOSTART)
    {
      lose (ra);
      return;
    }
  ra->lost = false;
  ra->reg[2] = (uintptr_t) st;
  ra->reg[5] = ra->R->slots ? ra->R->h.span : 0;
  hashed_regs (ra, hashed_of (ra->R));
}

static inline void
begin_at (struct act *ra, uint32_t v)
{
  static const struct start none = { .r = NOSTART };
  uint32_t i = ra->R->start_of[v];
  begin_from (ra, i == NONE ? &none : &ra->R->starts[i]);
}

/* Segment NUM of root activation ra, which has no place in an array or a
   slot: in a hashed place, else in the thread's table (a dump adds the
   places' counts to the same numbers).  */
static inline void
count_unplaced (struct act *ra, uint64_t num)
{
  if (ra->R && count_hashed (ra, num))
    return;
  if (!pp_ipt_count_segment (ra->proc, num, 0))
    {
      uint64_t key[2] = { num, ra->proc };
      pp_ipt_count_number (key);
    }
}

/* One execution of the segment under way of root activation ra, whose
   number is NUM and preferential number Q.  */
static void
count (struct act *ra, uint64_t num, uint64_t q)
{
  const struct root *R = ra->R;
  const struct start *st = start_of (ra);
  num &= LOW;
  if (ra->lost)
    pp_ipt_count_lost ();
  else if (num - st->first < st->size)
    __atomic_fetch_add (&array_of (st->counts)[num - st->first], 1, __ATOMIC_RELAXED);
  else if (q < R->h.span && R->keys[q] == num)
    __atomic_fetch_add (&R->slots[q], 1, __ATOMIC_RELAXED);
  else
    count_unplaced (ra, num);
}

/* What S edge SE of R adds to q: 0 outside the preferential modes, where
   nothing reads q.  */
static inline uint64_t
val2_of (const struct root *R, uint32_t se)
{
  return R->val2 ? R->val2[se] : 0;
}

/* take's actions but the add.  */
static __attribute__ ((noinline)) void
take_slow (struct act *a, uint32_t se)
{
  struct act *ra = a->ra;
  if (!a->R || se == NONE)
    {
      if (!a->R)
	lose (ra);
      return;
    }
  const pp_seg_op *o = &a->R->op[se];
  switch (o->kind)
    {
    case PP_SEG_OP_ADD:
      ra->reg[0] += o->val;
      ra->reg[1] += val2_of (a->R, se);
      break;
    case PP_SEG_OP_CUT:
      count (ra, ra->reg[0] + o->val, ra->reg[1] + val2_of (a->R, se));
      begin_at (ra, o->to);
      break;
    case PP_SEG_OP_SET:
      begin_at (ra, o->to);
      break;
    case PP_SEG_OP_LOST:
      lose (ra);
      break;
    }
}

/* S edge SE of a's root is taken: most often an add (calls, returns).  */
static inline void
take (struct act *a, uint32_t se)
{
  const pp_seg_op *o = a->R && se != NONE ? &a->R->op[se] : NULL;
  if (__builtin_expect (o && o->kind == PP_SEG_OP_ADD, 1))
    {
      a->ra->reg[0] += o->val;
      a->ra->reg[1] += val2_of (a->R, se);
    }
  else
    take_slow (a, se);
}

/* The fake leave of vertex v of procedure p, or NONE.  */
static uint32_t
leave_of (uint32_t p, uint32_t v)
{
  const pp_graph *g = &ks.layout->prog.procs[p];
  for (uint32_t i = g->succ_start[v]; i < g->succ_start[v + 1]; i++)
    {
      const pp_edge *e = &g->edges[g->succ_edges[i]];
      if ((e->flags & PP_EDGE_FAKE) && e->dst == g->exit)
	return g->succ_edges[i];
    }
  return NONE;
}

/* The segment under way of a's root ends on the leave of a's vertex V
   (NONE, or no leave there: lost).  */
static void
end_on_leave (struct act *a, uint32_t v)
{
  struct act *ra = a->ra;
  uint32_t e = v == NONE || !a->R ? NONE : leave_of (a->proc, v);
  if (e == NONE || !a->R)
    lose (ra);
  else
    take (a, a->k->edge_of[e]);
  count (ra, ra->reg[0], ra->reg[1]);
}

/* The segment under way of a's root ends at a's call under way (the process
   or a longjmp leaves it there): on that call's leave.  */
static void
end_at_call (struct act *a)
{
  if (a->fr.site == JUMPED)
    return;			/* counted at the jump */
  end_on_leave (a, a->fr.site == NONE ? NONE
		: ks.layout->call_vertex[a->proc][a->fr.site]);
}

/* ---- Records.

   A compiled root with calls its S does not inline keeps a record in the
   thread's stack (pathprof-abi.h), whose leave is what its segment ends
   with where the call under way does not return: the process ends in it,
   or a longjmp passes its frame.  A record ends as an activation that
   libprof abandons does (end_at_call): counted under its leave, or lost
   (leave 1: no call under way, or a call without a leave).  Records above
   a returning root's own are gone (a longjmp passed them into code that
   returned to the root): the root's code calls __pathprof_seg_unwind.  A
   record pushed while the thread's stack was DEPTH deep belongs to a
   frame the activations at DEPTH and above called; where abandon_above
   ends those, it ends the records too, so that a longjmp that lands in an
   instrumented function frees the stack at once.  */

/* Ends record R.  */
static void
end_record (const struct __pathprof_seg_record *r)
{
  uint64_t n = r->leave >> 1;
  if ((r->leave & 1) || (r->npaths && n >= r->npaths))
    pp_ipt_count_lost ();
  else if (r->npaths == 0)
    __pathprof_count_path (r->counts, n);	/* a table */
  else
    __atomic_fetch_add ((uint64_t *) r->counts + n, 1, __ATOMIC_RELAXED);
}

/* Ends the thread's records above index FLOOR that were pushed at DEPTH
   or deeper, from the top.  */
static void
end_records (uint32_t floor, uint32_t depth)
{
  while (__pathprof_seg_top > floor && __pathprof_seg_top <= PATHPROF_SEG_RECORDS
	 && __pathprof_seg_records[__pathprof_seg_top - 1].depth >= depth)
    {
      __pathprof_seg_top--;
      end_record (&__pathprof_seg_records[__pathprof_seg_top]);
    }
}

PP_EXPORT void
__pathprof_seg_unwind (uint32_t top)
{
  end_records (top, 0);
  __pathprof_seg_top = top;
}

/* For pp_act_abandon_above: a segments activation ends its segment at
   its call under way; one whose root it is began one.  */
static void
end_at_call_of (void *a)
{
  end_at_call (a);
}

static bool
began_segment (void *act)
{
  const struct act *a = act;
  return a->ra == a;
}

/* The activations above DEPTH are gone (act-stack.h
   pp_act_abandon_above), and the records of compiled roots those called.  */
static void
abandon_above (uint32_t depth, bool landed)
{
  end_records (0, depth);
  pp_act_abandon_above (&kt.stack, sizeof (struct act), &__pathprof_ip_depth, depth,
			landed, end_at_call_of, began_segment);
}

/* A segment starts in activation a at BLOCK (a longjmp or a computed goto
   landed there): at S's re-entry into a's copy.  */
static void
restart (struct act *a, uint32_t block)
{
  struct act *ra = a->ra;
  if (a->R)
    begin_at (ra, a->R->copies[a->k->copy].first_node + block);
  else
    lose (ra);
}

/* A probe's start: the activation of FRAME (abandoning those above it), the
   thread busy until the probe ends; NULL when the probe does nothing.  */
static inline struct act *
begin (uint64_t frame)
{
  struct act *a = (struct act *) (uintptr_t) frame;
  if (__builtin_expect (kt.busy, 0))
    return NULL;
  if (__builtin_expect (!a || a->fr.depth > __pathprof_ip_depth, 0))
    return NULL;
  pp_busy_set (&kt.busy);
  if (a->fr.depth < __pathprof_ip_depth)
    abandon_above (a->fr.depth, false);
  return a;
}

/* ---- The probes.  */

/* An activation continues its caller's segment as K says (the row of
   C's call under way), activation a at the top of the stack: all but the
   call edge, which the caller takes next.  */
static inline __attribute__ ((always_inline)) struct act *
continue_frame (struct act *a, struct act *c, const struct cont *k)
{
  struct act *ra = c->ra;
  uint32_t depth = a->fr.depth;
  /* Its values and calls, its EXIT in place (the return edge's add).  */
  a->fr = k->fr;
  a->fr.depth = depth;
  a->fr.regs = ra->reg;
  a->proc = k->proc;
  a->R = c->R;
  a->ra = ra;
  a->k = k;
  a->cont = k->cont;
  c->fr.entered = true;
  return ra;
}

/* The call edge of a call whose row adds (K->call_adds), to root
   activation RA's registers.  */
static inline void
call_adds (struct act *ra, const struct cont *k)
{
  ra->reg[0] += k->add[0];
  ra->reg[1] += k->add[1];
}

static inline void
continue_in (struct act *a, struct act *c, const struct cont *k)
{
  struct act *ra = continue_frame (a, c, k);
  if (__builtin_expect (k->call_adds, 1))
    call_adds (ra, k);
  else
    take_slow (a, c->R->call_edge[k->slot]);
}

/* Where P continues caller C's segment: the row of C's call under way when
   C's copy inlines it and its callee is P, else NULL.  */
static inline const struct cont *
continuation (const struct act *c, uint32_t p)
{
  if (!c->cont || c->fr.site >= JUMPED)
    return NULL;
  const struct cont *k = &c->cont[c->fr.site];
  return k->proc == p ? k : NULL;
}

/* R->self and R->proto: 0, or -1 when out of memory.  */
static int
make_proto (struct root *R)
{
  struct cont *k = R->self = pp_calloc (1, sizeof *R->self);
  struct act *a = R->proto = pp_calloc (1, sizeof *R->proto);
  if (!k || !a)
    return -1;
  k->fr.values = R->values;
  k->fr.calls = R->calls;
  k->fr.site = NONE;
  k->fr.exit_adds = 2;		/* EXIT counts its segment (pathprof-abi.h) */
  k->proc = R->h.proc;
  k->copy = 0;
  k->slot = NONE;
  k->edge_of = R->edge_of;
  k->crow = R->crow;
  k->cont = R->cont;
  a->fr = k->fr;
  a->proc = k->proc;
  a->R = R;
  a->ra = a;
  a->k = k;
  a->cont = k->cont;
  a->reg[6] = (uintptr_t) R->keys;
  a->reg[7] = (uintptr_t) R->slots;
  begin_at (a, R->h.entry);
  return 0;
}

/* Root activation a of R (pushed): its prototype but for its place (ra,
   the registers) and the hashed places of its root's latest table.  */
static inline void
start_root (struct act *a, const struct root *R)
{
  const struct act *P = R->proto;
  uint32_t depth = a->fr.depth;
  a->fr = P->fr;
  a->fr.depth = depth;
  a->fr.regs = a->reg;
  a->proc = P->proc;
  a->lost = P->lost;
  a->R = R;
  a->ra = a;
  a->k = P->k;
  a->cont = P->cont;
  memcpy (a->reg, P->reg, 8 * sizeof a->reg[0]);
  if (!a->lost)
    hashed_regs (a, hashed_of (R));
  else
    memcpy (a->reg + 8, P->reg + 8, 3 * sizeof a->reg[0]);
}

static uint64_t enter_slow (uint32_t p, const void *self);
static uint64_t enter_root (uint32_t p, const void *self, struct act *c);

/* The frame of the call under way (__pathprof_ip_caller), without a
   compiled root's mark (pathprof-abi.h PATHPROF_IP_ASK: a signal handler
   may run between the mark and its answer).  */
static inline struct act *
caller_frame (void)
{
  return (struct act *) (uintptr_t) (__pathprof_ip_caller & ~(uint64_t) PATHPROF_IP_ASK);
}

/* Most calls are to a callee the caller's copy inlines, from the top of
   the stack: the frame made straight away (busy, as every probe is while
   it changes the stack), and the call edge's add; a call the copy does not
   inline, from the top, enter_root, and so an indirect call's (its tag
   NULL: no copy inlines one; enter_slow would start a root too, the tag
   not naming the callee) and a call from code that names no caller (a
   compiled root's, or code not instrumented: enter_slow would start a
   root, with nothing to abandon); the rest enter_slow, and so a full
   stack's and a call edge that does not add.  The fast way calls nothing,
   so that it saves one register (about 75 instructions a call, most of
   them the frame's copy and the tests).  */
static inline __attribute__ ((always_inline)) uint64_t
enter (uint32_t p, const void *self)
{
  struct act *c = caller_frame ();
  uint32_t depth = __pathprof_ip_depth;
  if (__builtin_expect (kt.busy || depth >= kt.stack.cap, 0))
    return enter_slow (p, self);
  if (!c)
    return enter_root (p, self, NULL);
  if (__builtin_expect (c->fr.depth == depth && (c->fr.tag == self || !c->fr.tag), 1))
    {
      const struct cont *k = c->fr.tag ? continuation (c, p) : NULL;
      if (__builtin_expect (!k, 0))
	return enter_root (p, self, c);
      if (__builtin_expect (!k->call_adds, 0))
	return enter_slow (p, self);
      pp_busy_set (&kt.busy);
      __pathprof_ip_caller = 0;
      c->fr.tag = NULL;
      struct act *a = push_top ();
      call_adds (continue_frame (a, c, k), k);
      pp_busy_clear (&kt.busy);
      return (uintptr_t) a;
    }
  return enter_slow (p, self);
}

/* A new root called from C, the top of the stack, whose call names it, or
   from code that names no caller (C NULL), the stack not busy and with
   room: the root's prototype copied, unless its S is still to be made or
   it has none (enter_slow; a root is made after the layout, which every
   activation is below).  */
static __attribute__ ((noinline)) uint64_t
enter_root (uint32_t p, const void *self, struct act *c)
{
  const struct root *R = p != NONE ? __atomic_load_n (&ks.roots[p], __ATOMIC_ACQUIRE)
			 : NULL;
  if (!R)
    return enter_slow (p, self);
  pp_busy_set (&kt.busy);
  __pathprof_ip_caller = 0;
  if (c)
    c->fr.tag = NULL;
  struct act *a = push_top ();	/* enter saw room */
  start_root (a, R);
  pp_busy_clear (&kt.busy);
  return (uintptr_t) a;
}

uint64_t
pp_kseg_enter (uint32_t p, const void *self)
{
  /* A unit the numbering does not know (p NONE) must not match a call
     whose copy inlines no callee (struct cont's proc NONE).  */
  return p == NONE ? enter_slow (p, self) : enter (p, self);
}

/* ENTER before the program is set up (out of line: the fast way calls
   nothing).  */
static __attribute__ ((noinline)) uint64_t
enter_unset (struct __pathprof_unit *u, uint32_t function, const void *self)
{
  return pp_kseg_enter (pp_ip_set_up (u, function), self);
}

/* The segments' units' ENTER (pathprof-abi.h): a unit's ip_first is set
   once the program is numbered and set up (a release store in
   ip-program.c), before which pp_ip_set_up does that, or says the program
   is not counted (the activation then untracked).  */
PP_EXPORT uint64_t
__pathprof_seg_enter (struct __pathprof_unit *u, uint32_t function, const void *self)
{
  uint64_t first = __atomic_load_n (&u->ip_first, __ATOMIC_ACQUIRE);
  if (__builtin_expect (first == 0, 0))
    return enter_unset (u, function, self);
  return enter ((uint32_t) (first - 1) + function, self);
}

static __attribute__ ((noinline)) uint64_t
enter_slow (uint32_t p, const void *self)
{
  struct act *c = caller_frame ();
  if (kt.busy)
    return untracked ();
  pp_busy_set (&kt.busy);
  __pathprof_ip_caller = 0;
  /* The caller, if the call under way names this function: a call of a
     frame below the top means a longjmp passed the activations above it
     (as a probe of that frame would find: begin).  */
  if (c && c->fr.depth <= __pathprof_ip_depth)
    {
      if (c->fr.depth < __pathprof_ip_depth)
	abandon_above (c->fr.depth, false);
      if (c->fr.tag != self)
	c = NULL;
      else
	c->fr.tag = NULL;
    }
  else
    c = NULL;
  uint64_t frame = 0;
  /* Every activation is below the first one made here: the layout.  */
  if (p != NONE && need_layout ())
    {
      const struct cont *k = c ? continuation (c, p) : NULL;
      const struct root *R = k ? c->R : root_of (p);
      struct act *a = push_act ();
      if (a)
	{
	  if (k)
	    continue_in (a, c, k);
	  else if (R)
	    start_root (a, R);
	  else
	    {
	      /* A root without S: its segments are lost, its probes add 0.  */
	      a->proc = p;
	      a->fr.site = NONE;
	      a->fr.entered = false;
	      a->fr.tag = NULL;
	      a->R = NULL;
	      a->ra = a;
	      a->k = &no_copy;
	      a->reg[6] = a->reg[7] = 0;
	      lose (a);
	      a->cont = NULL;
	      a->fr.calls = a->fr.values = zeros;
	      a->fr.regs = a->reg;
	    }
	  frame = (uintptr_t) a;
	}
    }
  pp_busy_clear (&kt.busy);
  return frame ? frame : untracked ();
}

/* Is the thread's stack of records full (a compiled root that keeps one
   runs as its clone then)?  */
static inline int
full_records (void)
{
  return __pathprof_seg_top >= PATHPROF_SEG_RECORDS;
}

/* What __pathprof_seg_continues answers, the program set up (FIRST, u's
   ip_first, is 0 where it cannot be): calls nothing, so that it saves no
   registers.  */
static inline __attribute__ ((always_inline)) int
continues (struct __pathprof_unit *u, uint32_t function, const void *self,
	   uint64_t first)
{
  struct act *c = caller_frame ();
  bool assumes = function & PATHPROF_COMPILED_ASSUMES;
  function &= ~PATHPROF_COMPILED_ASSUMES;
  /* A root whose supergraph the program makes another (a function it
     took for code not instrumented is another unit's) runs as its clone.  */
  int clone = full_records ()
	      || (assumes && first
		  && !(u->ip_ok && __atomic_load_n (&u->ip_ok[function], __ATOMIC_ACQUIRE)));
  if (!c || kt.busy || first == 0 || c->fr.depth > __pathprof_ip_depth
      || c->fr.tag != self)
    return clone;
  if (continuation (c, (uint32_t) (first - 1) + function))
    return 1;
  if (c->fr.depth == __pathprof_ip_depth)
    {
      __pathprof_ip_caller = 0;
      c->fr.tag = NULL;
    }
  return clone;
}

/* The same where the program or the thread is not set up yet.  */
static __attribute__ ((noinline)) int
continues_set_up (struct __pathprof_unit *u, uint32_t function, const void *self)
{
  uint64_t first = __atomic_load_n (&u->ip_first, __ATOMIC_ACQUIRE);
  if (first == 0)
    {
      /* The program's first probe: it is set up here as at ENTER, so
	 that a dump finds it (a program whose roots all ran compiled).  */
      pp_ip_set_up (u, function & ~PATHPROF_COMPILED_ASSUMES);
      first = __atomic_load_n (&u->ip_first, __ATOMIC_ACQUIRE);
    }
  if (__pathprof_seg_top == PATHPROF_SEG_UNSET)
    thread_starts ();
  return continues (u, function, self, first);
}

/* Compiled roots (pathprof-abi.h), whose code calls this where the call
   under way names a caller or the program is not set up yet: the call
   under way continues into SELF as ENTER would find (enter, enter_slow),
   else it is taken as
   enter_root takes a root's call, where the caller is the top of the
   stack (otherwise the next probe of the thread abandons what a longjmp
   passed, as it would after a call of code not instrumented).  */
PP_EXPORT int
__pathprof_seg_continues (struct __pathprof_unit *u, uint32_t function,
			  const void *self)
{
  uint64_t first = __atomic_load_n (&u->ip_first, __ATOMIC_ACQUIRE);
  if (__builtin_expect ((first == 0 || __pathprof_seg_top == PATHPROF_SEG_UNSET)
			&& !kt.busy, 0))
    return continues_set_up (u, function, self);
  return continues (u, function, self, first);
}

PP_EXPORT void
__pathprof_seg_edge (uint64_t frame, uint32_t edge)
{
  struct act *a = begin (frame);
  if (!a)
    return;
  take (a, a->k->edge_of ? a->k->edge_of[edge] : NONE);
  pp_busy_clear (&kt.busy);
}

/* A cut the code found no place for (pathprof-abi.h): take's PP_SEG_OP_CUT with
   the number and the next start (the cut's head) the code read, unless activations above FRAME are to be
   abandoned first (their ends move the registers; then the slow way).  */
PP_EXPORT void
__pathprof_seg_cut (uint64_t frame, uint32_t edge, uint64_t number, const void *next)
{
  const struct act *top = (const struct act *) (uintptr_t) frame;
  if (__builtin_expect (top && top->fr.depth < __pathprof_ip_depth, 0))
    {
      __pathprof_seg_edge (frame, edge);
      return;
    }
  struct act *a = begin (frame);
  if (!a)
    return;
  /* The code looked for the number's array, slot and hashed place.  */
  if (a->ra->lost)
    pp_ipt_count_lost ();
  else
    count_unplaced (a->ra, number);
  begin_from (a->ra, next);
  pp_busy_clear (&kt.busy);
}

PP_EXPORT void
__pathprof_seg_return (uint64_t frame, uint32_t call)
{
  struct act *a = begin (frame);
  if (!a)
    return;
  if (a->fr.site == call && a->R)
    {
      const struct crow *cr = &a->k->crow[call];
      if (cr->slot == NONE)
	take (a, a->k->edge_of[ks.layout->leaf_edge[a->proc][call]]);
      else if (cr->child == NONE)
	take (a, a->R->call_edge[cr->slot]);	/* SUMMARY */
      else if (!a->fr.entered)
	lose (a->ra);		/* the callee did not continue it */
    }
  a->fr.site = NONE;
  a->fr.tag = NULL;
  pp_busy_clear (&kt.busy);
}

PP_EXPORT void
__pathprof_seg_exit (uint64_t frame)
{
  struct act *a = begin (frame);
  if (!a)
    return;
  if (a->ra == a)
    count (a, a->reg[0], a->reg[1]);
  else if (a->R)
    take (a, a->R->return_edge[a->k->slot]);
  __pathprof_ip_depth--;
  pp_busy_clear (&kt.busy);
}

PP_EXPORT void
__pathprof_seg_jump (uint64_t frame, uint32_t block)
{
  struct act *a = begin (frame);
  if (!a)
    return;
  /* The leave of a computed goto's block: from its last vertex.  */
  end_on_leave (a, pp_ip_layout_last_vertex (ks.layout, a->proc, block));
  a->fr.site = JUMPED;
  pp_busy_clear (&kt.busy);
}

PP_EXPORT void
__pathprof_seg_land (uint64_t frame, uint32_t block, uint32_t call)
{
  struct act *a = (struct act *) (uintptr_t) frame;
  if (kt.busy || !a || a->fr.depth > __pathprof_ip_depth)
    return;
  pp_busy_set (&kt.busy);
  if (a->fr.depth < __pathprof_ip_depth || a->fr.site != NONE)
    {
      /* A longjmp or a computed goto landed here: the segments under way
	 end where they were, a new one starts at the block.  */
      abandon_above (a->fr.depth, true);
      restart (a, block);
      a->fr.site = NONE;
    }
  if (call != NONE && a->R)	/* past the setjmp that starts the block */
    take (a, a->k->edge_of[ks.layout->leaf_edge[a->proc][call]]);
  a->fr.tag = NULL;
  __pathprof_ip_caller = 0;
  pp_busy_clear (&kt.busy);
}

void
pp_kseg_end_thread_paths (void)
{
  if (kt.busy)
    return;
  pp_busy_set (&kt.busy);
  abandon_above (0, true);
  pp_busy_clear (&kt.busy);
}
