/* libprof, Melski and Reps' context and piecewise paths
   (corelib/interproc.h) counted at run time: the probes of the units of
   modes interproc and interproc-piecewise (pathprof-abi.h
   __pathprof_ip_*), on the program ip-program.c numbers at the first
   ENTER.

   The running number (the paper's pathNum) and the completions at the
   current procedure's EXIT (numValidCompsFromExit, passed as a parameter in
   the paper) live in a per-thread shadow stack of activations, so that no
   function's signature changes: an instrumented call sets the thread's tag
   to the callee's address, and the callee's ENTER continues the caller's
   path (x = psi_r(x)) only when the tag names it and the call site is a
   non-recursive site of the numbering.  Otherwise (main, a recursive site,
   a call from code that is not instrumented: a callback, a signal handler,
   a thread's start) the activation starts a path at its root and suspends
   the one under way until it returns.

   Where paths end: at EXIT of the activation that started them, at a
   backedge (the path ends on w -> GEXIT, the next starts on ENTRY -> v after
   the context the activation was entered in), and where the process or a
   longjmp leaves them: at the call under way in each abandoned activation,
   on the surrogate of the fake leave of its call vertex.  A path the
   numbering cannot name (a non-recursive site whose callee did not continue
   it, an activation of a procedure that is no root entered from outside) is
   counted as lost, which the profile records.

   Piecewise paths (-fplugin-arg-pathprof-interproc=piecewise, every unit
   of the mode interproc-piecewise) differ in where a path starts after a
   backedge or a landing: at GENTRY -> v with no call open (x = unbal of the
   procedure), not in the activation's context.  The activations below such
   a start are not the path's: a return from the activation the path
   started in (ipt.base, the paper's cntOpenLfParens == 0) adds the value of
   that return among EXIT's successors and continues in the caller with x =
   unbal of its procedure (corelib's pp_ip_return); at EXIT of an activation
   entered from outside, the path leaves for EXIT_global.

   Nodes: no GMP while the program runs.  A path's number is N0 + A x + B
   for the start of its last segment, (N0, x), and the sums A and B of the
   values <a, b> of the edges it took since: each activation keeps its
   segment's start (seg) and u64 sums.  Where the procedure's pieces are
   numbered (corelib/ip-pieces.c; all but those with 2^62 pieces or more),
   its edges add their piece values instead, so that A is the number of the
   piece the segment took (B 0), which a dump decodes into the edges whose
   values it sums (add_sums): no value passes 64 bits, and every edge of
   such a procedure is taken in place.  A segment starts where a piece
   does: at ENTRY with 0, after a backedge or a landing at ENTRY's (or
   GENTRY's) piece start plus the surrogate's value, after a call at its
   return vertex's start (pp_ip_piece_start).  A start is ROOT p (2 p: procedure p's
   root value, x = 1), GENTRY p (2 p + 1, piecewise: its root value, x =
   unbal) or a node that ip-tables.c interns in the calling thread's own
   table, keyed by (the start before, A, B, how that segment ended):
   NODE_CALL s (the callee continues the path: N0 + A x + B, x = psi_r (x)
   of the site), NODE_RET (the caller goes on after the callee's segment,
   with the x it had when it called), NODE_FLUSH (a sum would overflow),
   NODE_PRET and NODE_PEXIT (piecewise returns with no call open, which add
   an EXIT value), and NODE_EDGE k, keyed by (start, k) alone, for an edge
   whose value passes 64 bits: its value goes into the node's N0, and the
   sums go on (a loop takes the same node each time round).  A backedge
   ends the path, counted by (seg, A, B) in the thread's table, and the
   next starts at the activation's entry node (its context) or, piecewise,
   at GENTRY.  Every path is counted so, without GMP or a lock; a dump
   finds each start's (N0, x) by walking its chain of nodes once
   (ctx_value, memoized) and writes the numbers.  A call, a return and a
   value past 64 bits cost an interning (a direct-mapped cache in front of
   the thread's index, looked at inline), where they cost GMP products of
   numbers up to 1,024 bits.

   In place.  The code takes most edges itself (pathprof-abi.h,
   __pathprof_ip_step with one register): ENTER returns the activation's
   address, whose frame gives its procedure's row (ip_prog.in_place: a, 0
   per edge) and its sum A as a register, to which the code adds (keeping
   it in a local between calls where it can: the plugin's ip_locals_fit;
   it is in the frame at every probe).  The adds have no overflow check,
   so a procedure is in place only where its pieces are numbered (A is a
   prefix of a piece number, B is 0: make_in_place); else EDGE takes its
   edges.  At a backedge the row holds a_out (top bit set) and a_in, and
   the code counts the path (key, A + a_out, 0) in the array of the
   segment's start (sum[3]) where it has a place, and starts the next
   path at a_in with the key and the array of the activation's restart
   (sum[4], sum[5]): what cut_edge, end_path and restart would do there.
   The arrays belong to the thread's table (ip-tables.h, "Start arrays"):
   a start has one once libprof counted ARRAY_AFTER of its paths at
   backedges on the thread (cut_edge, make_array), over the pieces from
   the vertex it starts at (ENTRY, GENTRY or a return vertex), or
   ARRAY_MAX of them around the path's number; an activation finds the
   arrays of its restart (its entry, or GENTRY when piecewise) when it
   begins (find_array) and of another start when its segment starts there
   (seg_array).  sum[2] is the key of the path under way where the code
   may count it (sync_place), and kept true by every probe after which the
   activation's code runs (done); as the code moves the start of the
   activation's segment, libprof takes it back from the key before it
   reads it (take_seg).

   Signals: probes are not reentrant (a thread's stack and its table of
   nodes change under them); a handler's probes while a probe of its
   thread is under way are ignored and its activations untracked.

   GMP's memory (gmp-memory.c).  GMP takes memory through functions global
   to the process, which the program may use as well, and libprof must leave
   the program's heap as the plain build has it (alloc.h): libprof uses GMP
   only between pp_gmp_enter and pp_gmp_leave (the numbering at the first
   ENTER, a dump), where GMP's new blocks are libprof's.  */

#define _GNU_SOURCE 1

#include <gmp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "act-stack.h"
#include "alloc.h"
#include "ctx-runtime.h"
#include "hash.h"
#include "interproc.h"
#include "ip-program.h"
#include "ip-tables.h"
#include "kseg-runtime.h"
#include "pathprof-abi.h"

#define NONE UINT32_MAX
#define JUMPED (UINT32_MAX - 1)	/* a computed goto left the activation */
#define WIDE PP_IP_WIDE		/* a row's ab: see rho in GMP */

/* ---- Counting (ip-tables.c keeps the counts).  */

/* The words of NUM (ip_prog.words of them) in KEY; false if it has more.  */
static bool
number_words (const mpz_t num, uint64_t *key)
{
  uint32_t w = ip_prog.words;
  size_t n = mpz_size (num);
  if (mpz_sgn (num) < 0 || n > w)
    return false;
#if GMP_NUMB_BITS == 64 && GMP_NAIL_BITS == 0
  memcpy (key, mpz_limbs_read (num), n * sizeof *key);	/* the words as they are */
#else
  mpz_export (key, &n, -1, sizeof *key, 0, 0, num);
#endif
  memset (key + n, 0, (w - n) * sizeof *key);
  return true;
}

/* One execution of path NUM.  */
/* ---- Nodes (see the top): a segment's start, and what it stands for
   in the paper's numbering, found when a dump asks.  */

enum
{
  NODE_CALL = 1,		/* arg: the site; the callee continues */
  NODE_RET,			/* the callee returned; extra: the caller's
				   start when it called */
  NODE_FLUSH,			/* a sum would have overflowed */
  NODE_EDGE,			/* arg: an edge whose value passes 64 bits,
				   taken before the sums (the node's a and b
				   are 0); extra: the procedure */
  NODE_PRET,			/* piecewise, no call open: the return through
				   site arg */
  NODE_PEXIT,			/* piecewise, no call open: to EXIT_global */
};
#define NODE_TAG(kind, arg) ((uint64_t) (kind) << 56 | (arg))
#define NO_NODE UINT64_MAX

/* What a dump has found per start: (N0, x), and the procedure whose
   edges the segments from it take (NONE: none, after a path left for
   EXIT_global).  */
struct memo
{
  mpz_t v[2];
  uint32_t proc;
};

static struct
{
  uint64_t *ids;		/* the start + 1; 0: empty */
  struct memo *val;
  uint32_t n, mask;		/* mask: slots - 1 (0: none yet) */
} memo;

static struct memo *
memo_find (uint64_t id, bool add)
{
  if (add && (memo.n + 1) * 2 > memo.mask)
    {
      uint32_t size = memo.mask ? 2 * (memo.mask + 1) : 1024;
      uint64_t *ids = pp_calloc (size, sizeof *ids);
      struct memo *val = pp_malloc (size * sizeof *val);
      if (!ids || !val || size == 0)
	{
	  pp_free (ids);
	  pp_free (val);
	  return NULL;
	}
      for (uint32_t i = 0; memo.mask && i <= memo.mask; i++)
	if (memo.ids[i])
	  {
	    uint64_t j = pp_hash64 (&memo.ids[i], sizeof *ids, PP_HASH_SEED);
	    while (ids[j & (size - 1)])
	      j++;
	    ids[j & (size - 1)] = memo.ids[i];
	    memcpy (&val[j & (size - 1)], &memo.val[i], sizeof *val);
	  }
      pp_free (memo.ids);
      pp_free (memo.val);
      memo.ids = ids;
      memo.val = val;
      memo.mask = size - 1;
    }
  if (!memo.mask)
    return NULL;
  uint64_t id1 = id + 1;
  for (uint64_t j = pp_hash64 (&id1, sizeof id1, PP_HASH_SEED);; j++)
    {
      uint32_t i = (uint32_t) (j & memo.mask);
      if (memo.ids[i] == id1)
	return &memo.val[i];
      if (!memo.ids[i])
	{
	  if (!add)
	    return NULL;
	  memo.ids[i] = id1;
	  memo.n++;
	  mpz_init (memo.val[i].v[0]);
	  mpz_init (memo.val[i].v[1]);
	  memo.val[i].proc = NONE;
	  return &memo.val[i];
	}
    }
}

/* (N0, x) of a start that is no node: procedure p's ROOT (2 p) or GENTRY
   (2 p + 1) start; false if it is none of the numbering.  */
static bool
start_value (uint64_t ctx, struct memo *m)
{
  uint32_t p = (uint32_t) (ctx / 2);
  uint32_t r = ctx % 2 ? ip_prog.gentry_root_of[p] : ip_prog.root_of[p];
  if (r == NONE)
    return false;
  mpz_set (m->v[0], ip_prog.nb.root_value[r]);
  if (ctx % 2)
    mpz_set (m->v[1], ip_prog.nb.procs[p].unbal);
  else
    mpz_set_ui (m->v[1], 1);
  m->proc = p;
  return true;
}

/* The sums' rho = <A, B> of a piece: pp_ip_piece_decode's steps.  */
struct piece_sums
{
  const pp_ip_proc *ip;
  mpz_t a, b;
};

static void
piece_add (void *ctx, uint32_t k)
{
  struct piece_sums *s = ctx;
  const pp_ip_lin *rho = &s->ip->edges[k].rho;
  if (mpz_sgn (rho->a))		/* most are 0 */
    mpz_add (s->a, s->a, rho->a);
  if (mpz_sgn (rho->b))
    mpz_add (s->b, s->b, rho->b);
}

/* The sums of piece a of procedure p, decoded once for every dump (a
   piece ends many segments: a callee's in each of its contexts): open
   addressing by (p, a), at most half full.  */
struct piece_memo
{
  uint64_t a;
  uint32_t p1;			/* p + 1; 0: empty */
  bool ok;			/* a is a piece of p */
  mpz_t sa, sb;
};

static struct
{
  struct piece_memo *slot;
  uint32_t n, mask;		/* mask: slots - 1 (0: none yet) */
} pieces_memo;

/* Both words mixed into the low bits, which pick the slot: a product of
   (a ^ p1 << 40) left p1 out of bits 0 to 10, so that every procedure's
   piece 0 went to one slot and its neighbours (SQLite's empty session:
   17,140 lookups of about 300 instructions).  */
static uint64_t
piece_hash (uint32_t p1, uint64_t a)
{
  uint64_t key[2] = { a, p1 };
  return pp_hash64 (key, sizeof key, PP_HASH_SEED);
}

/* Procedure p's piece a's memo, decoded if new; NULL when out of memory.  */
static const struct piece_memo *
piece_sums_of (uint32_t p, uint64_t a)
{
  uint32_t p1 = p + 1;
  if ((pieces_memo.n + 1) * 2 > pieces_memo.mask)
    {
      uint32_t size = pieces_memo.mask ? 2 * (pieces_memo.mask + 1) : 1024;
      struct piece_memo *slot = size ? pp_calloc (size, sizeof *slot) : NULL;
      if (!slot)
	return NULL;
      for (uint32_t i = 0; pieces_memo.mask && i <= pieces_memo.mask; i++)
	if (pieces_memo.slot[i].p1)
	  {
	    uint64_t j = piece_hash (pieces_memo.slot[i].p1, pieces_memo.slot[i].a);
	    while (slot[j & (size - 1)].p1)
	      j++;
	    memcpy (&slot[j & (size - 1)], &pieces_memo.slot[i], sizeof *slot);
	  }
      pp_free (pieces_memo.slot);
      pieces_memo.slot = slot;
      pieces_memo.mask = size - 1;
    }
  for (uint64_t j = piece_hash (p1, a);; j++)
    {
      struct piece_memo *x = &pieces_memo.slot[j & pieces_memo.mask];
      if (x->p1 == p1 && x->a == a)
	return x;
      if (!x->p1)
	{
	  struct piece_sums s;
	  s.ip = &ip_prog.nb.procs[p];
	  mpz_inits (s.a, s.b, NULL);
	  x->ok = pp_ip_piece_decode (&ip_prog.nb, p, &ip_prog.pieces[p], a, piece_add, &s) == 0;
	  memcpy (x->sa, s.a, sizeof s.a);	/* the limbs move with them */
	  memcpy (x->sb, s.b, sizeof s.b);
	  x->p1 = p1;
	  x->a = a;
	  pieces_memo.n++;
	  return x;
	}
    }
}

/* n0 = N0 + A x + B for the segment of sums (A, B) from start M: where its
   procedure's pieces are numbered A is a piece, whose edges' values are the
   sums (B is 0); false when it is none.  */
static bool
add_sums (mpz_t n0, const struct memo *m, uint64_t a, uint64_t b)
{
  mpz_set (n0, m->v[0]);
  if (m->proc == NONE)
    return a == 0 && b == 0;
  const pp_ip_pieces *pc = &ip_prog.pieces[m->proc];
  if (!pc->npieces)
    {
      mpz_addmul_ui (n0, m->v[1], a);
      mpz_add_ui (n0, n0, b);
      return true;
    }
  if (b != 0)
    return false;
  const struct piece_memo *s = piece_sums_of (m->proc, a);
  if (s)
    {
      mpz_addmul (n0, m->v[1], s->sa);
      mpz_add (n0, n0, s->sb);
      return s->ok;
    }
  /* No memory for the memo: decoded here.  */
  struct piece_sums d;
  d.ip = &ip_prog.nb.procs[m->proc];
  mpz_inits (d.a, d.b, NULL);
  bool ok = pp_ip_piece_decode (&ip_prog.nb, m->proc, pc, a, piece_add, &d) == 0;
  mpz_addmul (n0, m->v[1], d.a);
  mpz_add (n0, n0, d.b);
  mpz_clears (d.a, d.b, NULL);
  return ok;
}

/* (N0, x) of start CTX, into the memo: the path before it and the
   completions at its procedure's EXIT; NULL if unknown.  Iterative: a
   node's parent (and a return's caller start, which comes before it) are
   found first.  */
static struct memo *
ctx_value (uint64_t ctx)
{
  static uint64_t *todo;
  static uint32_t todo_cap;
  uint32_t ntodo = 0;
  uint64_t two_n = 2 * (uint64_t) ip_prog.nb.nprocs;
  struct memo *v = memo_find (ctx, false);
  for (uint64_t c = ctx; !v;)
    {
      if (PP_RESERVE (todo, todo_cap, ntodo + 1, 64))
	return NULL;
      todo[ntodo++] = c;
      if (c < two_n)
	break;
      const struct pp_ipt_node *x = pp_ipt_node_at (c);
      if (!x)
	return NULL;
      c = x->parent;
      v = memo_find (c, false);
    }
  while (ntodo > 0)
    {
      uint64_t c = todo[--ntodo];
      struct memo *w = memo_find (c, true);
      if (!w)
	return NULL;
      if (c < two_n)
	{
	  if (!start_value (c, w))
	    return NULL;
	  continue;
	}
      const struct pp_ipt_node *x = pp_ipt_node_at (c);
      const struct memo *up = memo_find (x->parent, false);
      /* The path to the node's parent, its segment's sums.  */
      if (!up || !add_sums (w->v[0], up, x->a, x->b))
	return NULL;
      uint64_t arg = x->tag & (((uint64_t) 1 << 56) - 1);
      switch (x->tag >> 56)
	{
	case NODE_CALL:
	  {
	    const pp_ip_call *k = &ip_prog.nb.calls[arg];
	    const pp_ip_lin *psi = &ip_prog.nb.procs[k->proc].psi[k->ret];
	    mpz_mul (w->v[1], up->v[1], psi->a);
	    mpz_add (w->v[1], w->v[1], psi->b);
	    w->proc = k->callee;
	    break;
	  }
	case NODE_RET:
	  {
	    /* The caller's start when it called: an ancestor, found.  */
	    const struct memo *caller = memo_find (x->extra, false);
	    if (!caller)
	      return NULL;
	    mpz_set (w->v[1], caller->v[1]);
	    w->proc = caller->proc;
	    break;
	  }
	case NODE_FLUSH:
	  mpz_set (w->v[1], up->v[1]);
	  w->proc = up->proc;
	  break;
	case NODE_EDGE:
	  {
	    /* N0 + rho (x): the sums since the parent are the path's after.  */
	    const pp_ip_lin *rho = &ip_prog.nb.procs[x->extra].edges[arg].rho;
	    mpz_addmul (w->v[0], rho->a, up->v[1]);
	    mpz_add (w->v[0], w->v[0], rho->b);
	    mpz_set (w->v[1], up->v[1]);
	    w->proc = up->proc;
	    break;
	  }
	case NODE_PRET:
	  {
	    const pp_ip_call *k = &ip_prog.nb.calls[arg];
	    mpz_add (w->v[0], w->v[0],
		     ip_prog.nb.procs[k->callee].exit_value[ip_prog.nb.exit_of_site[arg]]);
	    mpz_set (w->v[1], ip_prog.nb.procs[k->proc].unbal);
	    w->proc = k->proc;
	    break;
	  }
	case NODE_PEXIT:
	  {
	    const pp_ip_proc *ip = &ip_prog.nb.procs[x->extra];
	    mpz_add (w->v[0], w->v[0], ip->exit_value[ip->nexits - 1]);
	    mpz_set_ui (w->v[1], 0);
	    w->proc = NONE;
	    break;
	  }
	default:
	  return NULL;
	}
    }
  return memo_find (ctx, false);
}

/* The number of the path (ctx, a, b) for a snapshot (ctx-runtime.h),
   under the count tables' locks: N0 + A x + B.  */
bool
pp_ctx_key (uint64_t ctx, uint64_t a, uint64_t b, uint64_t *key)
{
  const struct memo *v = ctx_value (ctx);
  if (!v)
    return false;
  mpz_t num;
  mpz_init (num);
  bool known = add_sums (num, v, a, b) && mpz_cmp (num, ip_prog.nb.npaths) < 0
	       && number_words (num, key);
  mpz_clear (num);
  return known;
}

/* ---- Threads.  */

struct act
{
  /* First: the frame word is its address (pathprof-abi.h): fr.values is
     its row's values, fr.calls its row's calls, fr.regs
     sum, fr.depth the activation's index on the thread's stack + 1;
     fr.site the call under way (notes index), NONE or JUMPED, fr.entered
     whether its callee continued the path, fr.tag the callee it names (the
     code writes the three: __pathprof_ip_call_step).  */
  struct __pathprof_ip_frame fr;
  /* The segment's sums A and B of edge values, then the key and the array
     of the path under way and of the next for the code's cuts in place
     (sync_place).  */
  uint64_t sum[6];
  /* The array of the start a path takes after a backedge (its entry,
     GENTRY when piecewise: ip-tables.h pp_ipt_array_of), or NULL; the
     last start of its segment whose array it looked for (cur_seg) and
     that array (cur); the vertex whose pieces start at seg (SRC_ENTRY,
     SRC_RESTART, a return vertex, or NONE).  */
  const struct __pathprof_ip_array *arr, *cur;
  uint64_t cur_seg;
  uint32_t seg_src;
  uint32_t proc;
  const struct pp_ip_row *row;	/* ip_prog.rows[proc] */
  uint64_t seg;			/* where its segment began: a start */
  uint64_t entry;		/* where it began: its context */
  uint64_t called_from;		/* a continuation: its caller's seg at the call */
  bool root;			/* it started a path; saved_* the one suspended */
  bool entry_lost;		/* entry names no path */
  uint64_t saved_path;		/* ipt.path */
  uint64_t saved_caller;	/* __pathprof_ip_caller when it started */
  /* To 256 bytes, so that act_at's index is a shift (at 200 bytes the
     multiplication cost SQLite's probes 1%).  */
  unsigned char spare[56];
};
_Static_assert (sizeof (struct act) == 256, "an activation is 256 bytes");

static __thread struct
{
  struct pp_act_stack stack;	/* act-stack.h; __pathprof_ip_depth (the
				   ABI's) tracked activations on it,
				   act_at (depth - 1) the top */
  bool busy;
  /* The current path's state, which a root saves and gives back in one
     word (suspend, resume): the activation the path started in, or
     continued in after a return from where it started (piecewise);
     whether it started at that activation's ENTRY, its call open (else at
     its GENTRY); whether it is not one of the numbering.  */
  union
  {
    struct
    {
      uint32_t base;
      bool open;
      bool lost;
    };
    uint64_t path;
  };
  bool *arrays;			/* per procedure: whether the thread has made
				   an array of a start in it (array_over);
				   NULL: none yet */
  const struct __pathprof_ip_array **root_arrays;	/* per procedure: the
				   thread's newest array of its ROOT start, or
				   NULL (exit_root) */
} ipt PP_TLS_MODEL;

/* The thread's activation I (below its stack's cap).  */
static inline struct act *
act_at (uint32_t i)
{
  return pp_act_at (&ipt.stack, i, sizeof (struct act));
}

/* Threads that end hand on what they took (ip-tables.c "Threads that
   end"): their table and this block go to a thread that starts later.
   The paths under way where a thread leaves (pthread_exit) end at the
   calls under way, as where the process exits.  */
struct heir
{
  struct pp_act_stack stack;
  bool *arrays;
  const struct __pathprof_ip_array **root_arrays;
};

static void *
thread_ends (void)
{
  if (ipt.busy)
    return NULL;
  pp_ctx_end_thread_paths ();
  /* Busy until handed on: a signal handler's probes meanwhile are
     ignored (and for good where the hand-on fails).  */
  pp_busy_set (&ipt.busy);
  struct heir *h = pp_malloc (sizeof *h);
  if (h)
    *h = (struct heir) { ipt.stack, ipt.arrays, ipt.root_arrays };
  return h;
}

static void
handed_on (void)
{
  memset (&ipt.stack, 0, sizeof ipt.stack);
  ipt.arrays = NULL;
  ipt.root_arrays = NULL;
  __pathprof_ip_depth = 0;
  pp_busy_clear (&ipt.busy);
}

static const struct pp_ipt_thread_ops thread_ops = { thread_ends, handed_on };

/* The thread's first activation.  */
static void
first_activation (void)
{
  struct heir *h = pp_ipt_thread_starts (&thread_ops);
  if (h)
    {
      ipt.stack = h->stack;
      ipt.arrays = h->arrays;
      ipt.root_arrays = h->root_arrays;
      pp_free (h);
    }
}

/* A new activation on top of the thread's stack, or NULL.  */
static struct act *
push_act (void)
{
  if (__pathprof_ip_depth == ipt.stack.cap)
    {
      if (ipt.stack.cap == 0)
	first_activation ();
      if (__pathprof_ip_depth == ipt.stack.cap
	  && !pp_act_stack_grow (&ipt.stack, sizeof (struct act)))
	return NULL;
    }
  struct act *a = act_at (__pathprof_ip_depth);
  a->fr.depth = ++__pathprof_ip_depth;
  return a;
}

/* Activation a starts a path of its own: the one under way (in the
   activations below, their starts and sums as they are) waits until a
   ends (resume).  */
static void
suspend (struct act *a)
{
  a->saved_path = ipt.path;
  a->saved_caller = __pathprof_ip_caller;
}

static void
resume (struct act *a)
{
  ipt.path = a->saved_path;
  __pathprof_ip_caller = a->saved_caller;
}

/* An array without places (the code's cuts where a start has none), and
   the vertices a segment's pieces start at that act.seg_src names.  */
static const struct __pathprof_ip_array no_array;	/* size 0 */

#define SRC_ENTRY (UINT32_MAX - 2)	/* the procedure's ENTRY */
#define SRC_RESTART (UINT32_MAX - 3)	/* ENTRY, or GENTRY when piecewise */
#define SRC_CALL 0x80000000u		/* | k: the return vertex of call k */

/* Whether a's code moved the start of its segment (take_seg below): the
   piecewise EXIT probe takes it back only then, before its test (taking
   it on every EXIT cost xz and SQLite 0.5%).  */
static inline bool
start_moved (const struct act *a)
{
  return a->sum[2] && a->sum[2] - 1 != a->seg;
}

/* Where a's segment began, which its code may have moved: a cut in place
   starts the next path at the key sum[4] gave, sum[2] is then that start +
   1 (sync_place).  libprof takes the start back into a->seg before it
   reads it, and a's key is 0 until a probe after which a's code runs sets
   it again (done).  A piecewise path that the code started again so began
   at GENTRY in a with no call open, which restart would have made the
   thread's ipt.base and ipt.open: they are taken back with the start (a
   path whose start was GENTRY already had them), so libprof takes a's
   start back before it reads them (the EXIT probe's test first of all;
   a's code runs only when a is the top of the stack, and the probes of
   the activations above a take a's start back before they read them).  */
static inline void
take_seg (struct act *a)
{
  if (a->sum[2])
    {
      if (start_moved (a))
	{
	  a->seg_src = SRC_RESTART;	/* the code's cuts start paths there */
	  if (ip_prog.piecewise)
	    {
	      ipt.base = a->fr.depth - 1;
	      ipt.open = false;
	    }
	}
      a->seg = a->sum[2] - 1;
      a->sum[2] = 0;
    }
}

/* a's segment ends where a node of key (a's start, A, B, TAG) begins, which
   it returns (NO_NODE when the path is lost, then or before); a's sums
   start again from 0.  */
static uint64_t
end_segment (struct act *a, uint64_t tag, uint64_t extra)
{
  uint64_t n = NO_NODE;
  if (!ipt.lost)
    {
      n = pp_ipt_node (&(struct pp_ipt_node) { a->seg, a->sum[0], a->sum[1], tag, extra });
      ipt.lost = n == NO_NODE;
    }
  a->sum[0] = a->sum[1] = 0;
  return n;
}

/* add_value's other case: a value that does not fit 64 bits (a start
   after it, wide_node), or a sum that would overflow (a node begins a's
   next segment).  */
static __attribute__ ((noinline)) void
add_value_slow (struct act *a, uint32_t k)
{
  uint64_t va = a->row->ab[2 * k], vb = a->row->ab[2 * k + 1];
  if (va == WIDE)
    {
      /* A start after a's, from which edge k is taken first (its node's
	 N0 has the value; the sums go on as they are): the same for every
	 path that takes k from that start, such as a loop's each time
	 round.  */
      a->seg_src = NONE;
      if (!ipt.lost)
	{
	  a->seg = pp_ipt_node (&(struct pp_ipt_node) { a->seg, 0, 0,
							NODE_TAG (NODE_EDGE, k), a->proc });
	  ipt.lost = a->seg == NO_NODE;
	}
    }
  else
    {
      a->seg = end_segment (a, NODE_TAG (NODE_FLUSH, 0), 0);
      a->seg_src = NONE;
      a->sum[0] = va;
      a->sum[1] = vb;
    }
}

/* The path takes edge k (NONE: none) of a's procedure's G*_fin: its value
   rho_k (x), to A and B.  */
static inline void
add_value (struct act *a, uint32_t k)
{
  if (k == NONE)
    return;
  uint64_t va = a->row->ab[2 * k], vb = a->row->ab[2 * k + 1], na, nb;
  if (__builtin_expect (!__builtin_add_overflow (a->sum[0], va, &na)
			& !__builtin_add_overflow (a->sum[1], vb, &nb) & (va != WIDE), 1))
    {
      a->sum[0] = na;
      a->sum[1] = nb;
    }
  else
    add_value_slow (a, k);
}

/* The path under way ends in activation a, its last value added: counted
   by (a's start, A, B).  */
static void
end_path (struct act *a)
{
  if (ipt.lost || !pp_ipt_count_segment (a->seg, a->sum[0], a->sum[1]))
    pp_ipt_count_lost ();
}

/* The path under way ends at activation a's call under way (the process or
   a longjmp leaves it there): on the surrogate of its call vertex's leave.  */
static void
end_at_call (struct act *a)
{
  take_seg (a);
  if (a->fr.site == JUMPED)
    return;			/* counted at the jump */
  uint32_t g = NONE;
  if (a->fr.site != NONE)
    g = ip_prog.nb.procs[a->proc].leave_of[ip_prog.layout.call_vertex[a->proc][a->fr.site]];
  if (g == NONE)
    ipt.lost = true;
  add_value (a, g);
  end_path (a);
}

/* For pp_act_abandon_above: a context or piecewise activation ends its
   path at its call under way; one that began a path gives back the
   thread's state it suspended.  */
static void
end_at_call_of (void *a)
{
  end_at_call (a);
}

static bool
began_path (void *act)
{
  struct act *a = act;
  if (a->root)
    resume (a);
  return a->root;
}

/* The activations above DEPTH are gone: act-stack.h pp_act_abandon_above.  */
static void
abandon_above (uint32_t depth, bool landed)
{
  pp_act_abandon_above (&ipt.stack, sizeof (struct act), &__pathprof_ip_depth, depth,
			landed, end_at_call_of, began_path);
}

/* A path starts in activation a on its surrogate IN (from ENTRY, or GENTRY
   when piecewise) after a backedge, or where a longjmp or a computed goto
   landed: a context path in the context a was entered in, a piecewise one
   with no call open.  */
static void
restart (struct act *a, uint32_t in)
{
  if (ip_prog.piecewise)
    {
      ipt.lost = ip_prog.gentry_root_of[a->proc] == NONE || in == NONE;
      a->seg = 2 * (uint64_t) a->proc + 1;
      a->seg_src = SRC_RESTART;
      ipt.base = a->fr.depth - 1;
      ipt.open = false;
    }
  else
    {
      ipt.lost = a->entry_lost || in == NONE;
      a->seg = a->entry;
      a->seg_src = SRC_RESTART;
    }
  a->sum[0] = a->row->restart;
  a->sum[1] = 0;
  if (!ipt.lost)
    add_value (a, in);
}

/* The depth of the activation of FRAME (0: none; the thread's dummy
   frame's is deeper than any stack).  */
static inline uint32_t
frame_depth (uint64_t frame)
{
  return frame ? ((const struct __pathprof_ip_frame *) (uintptr_t) frame)->depth : 0;
}

/* The activation of FRAME, abandoning those above it; NULL if untracked.  */
static struct act *
frame_act (uint64_t frame)
{
  uint32_t depth = frame_depth (frame);
  if (depth == 0 || depth > __pathprof_ip_depth)
    return NULL;
  if (depth < __pathprof_ip_depth)
    abandon_above (depth, false);
  return act_at (depth - 1);
}

/* A probe's start: the activation of FRAME, the thread busy until the probe
   ends (ipt.busy = false); NULL when the probe does nothing (untracked, or a
   signal handler interrupted a probe of its thread).  */
static inline struct act *
begin (uint64_t frame)
{
  if (__builtin_expect (ipt.busy, 0))
    return NULL;
  pp_busy_set (&ipt.busy);
  struct act *a = (struct act *) (uintptr_t) frame;
  if (__builtin_expect (a->fr.depth != __pathprof_ip_depth, 0)
      && !(a = frame_act (frame)))
    {
      pp_busy_clear (&ipt.busy);
      return NULL;
    }
  take_seg (a);
  return a;
}

/* Where a path starts after a backedge in activation a: its restart, a's
   entry or (piecewise) its procedure's GENTRY.  */
static inline uint64_t
restart_start (const struct act *a)
{
  return ip_prog.piecewise ? 2 * (uint64_t) a->proc + 1 : a->entry;
}

/* Whether the thread may have an array of a start in procedure p: the
   lookups are only for those.  */
static inline bool
has_arrays (uint32_t p)
{
  return ipt.arrays && ipt.arrays[p];
}

/* The lookup, out of line: ENTER's and EXIT's fast ways save no
   registers for them.  */
static __attribute__ ((noinline)) const struct __pathprof_ip_array *
look_up_array (uint64_t ctx)
{
  return pp_ipt_array_of (ctx);
}

/* The array of the start of a's segment where the caller has not found
   it (enter_context's continuation), looked up only where a's code cuts
   in place and the thread has arrays in its procedure.  */
static inline const struct __pathprof_ip_array *
find_start_array (const struct act *a)
{
  return a->row->keyed && has_arrays (a->proc) ? look_up_array (a->seg) : NULL;
}

/* The arrays of a's restart and of the start of its segment, which the
   thread may have (a->arr, a->cur), as a begins: only where its code cuts
   in place (sync_place and cut_edge read them only there).  SEG_ARR is
   the array of a's start (or NULL), which the caller knows: the front's
   slot of its node (ip-tables.h), the thread's root_arrays entry of a
   ROOT start (array_over keeps both true), else find_start_array's.  */
static inline void
find_array (struct act *a, const struct __pathprof_ip_array *seg_arr)
{
  if (!a->row->keyed)
    return;
  a->cur = seg_arr;
  a->cur_seg = a->seg;
  a->seg_src = SRC_ENTRY;
  if (a->seg == restart_start (a))
    a->arr = seg_arr;
  else
    a->arr = has_arrays (a->proc) ? look_up_array (restart_start (a)) : NULL;
}

/* The array of the start of a's segment, or NULL: its restart's, else the
   one the activation found last for it (a loop's calls return to the same
   nodes), else looked up.  */
static inline const struct __pathprof_ip_array *
seg_array (struct act *a)
{
  if (a->seg == restart_start (a))
    return a->arr;
  if (a->seg != a->cur_seg)
    {
      a->cur_seg = a->seg;
      a->cur = has_arrays (a->proc) ? look_up_array (a->seg) : NULL;
    }
  return a->cur;
}

/* X is the array of the start of a's segment from now on.  */
static void
adopt_array (struct act *a, const struct __pathprof_ip_array *x)
{
  if (a->seg == restart_start (a))
    a->arr = x;
  else
    {
      a->cur = x;
      a->cur_seg = a->seg;
    }
}

/* The paths of a start that the code counts in its array, once libprof
   has counted ARRAY_AFTER of them at backedges (cut_edge) or, for a
   root's start, at its EXIT (exit_root_counted), the last of number N:
   the pieces from its vertex, or where they are more than ARRAY_MAX, the
   ARRAY_MAX of them around N (a loop's paths after its backedge are
   numbered together, next to the other loops').  Where libprof counts 64,
   128, 256... of them though the start has an array (another loop's, far
   from the first), a new array takes the start's place, over both ranges
   where they span at most ARRAY_WIDE, else around N; the old one keeps
   its counts, which a dump reads too.  */
#define ARRAY_AFTER 8u
#define ARRAY_MAX 4096u
#define ARRAY_WIDE 65536u

/* Whether libprof, having counted CUTS paths of a start (OLD its array
   or NULL), gives it an array now.  */
static inline bool
array_due (uint32_t cuts, const struct __pathprof_ip_array *old)
{
  return old ? cuts >= 64 && (cuts & (cuts - 1)) == 0 : cuts == ARRAY_AFTER;
}

/* The array of START, whose pieces of procedure p begin at vertex SOURCE,
   as above, OLD its array before; NULL when none is made.  */
static const struct __pathprof_ip_array *
array_over (uint32_t p, uint32_t source, uint64_t start,
	    const struct __pathprof_ip_array *old, uint64_t n)
{
  const pp_ip_proc *ip = &ip_prog.nb.procs[p];
  const pp_ip_pieces *pc = &ip_prog.pieces[p];
  bool root = start == 2 * (uint64_t) p;
  if (!ipt.arrays && !(ipt.arrays = pp_calloc (ip_prog.nb.nprocs + 1, sizeof *ipt.arrays)))
    return NULL;		/* out of memory: no arrays */
  if (root && !ipt.root_arrays
      && !(ipt.root_arrays = pp_calloc (ip_prog.nb.nprocs + 1, sizeof *ipt.root_arrays)))
    return NULL;
  if (!pc->npieces || source >= ip->nnodes || pc->start[source] == UINT64_MAX)
    return NULL;
  uint64_t lo = pc->start[source], size = pc->count[source], end = lo + size;
  if (old && n >= lo && n < end)
    {
      /* Both ranges, which lie in [lo, end).  */
      uint64_t from = old->lo < n ? old->lo : n;
      uint64_t to = old->lo + old->size > n + 1 ? old->lo + old->size : n + 1;
      if (to - from <= ARRAY_WIDE)
	lo = from, size = to - from;
    }
  if (size > ARRAY_MAX && !(old && size <= ARRAY_WIDE))
    {
      size = ARRAY_MAX;
      if (n > lo + ARRAY_MAX / 2)
	lo = n - ARRAY_MAX / 2;
      if (lo > end - ARRAY_MAX)
	lo = end - ARRAY_MAX;
    }
  const struct __pathprof_ip_array *made = pp_ipt_array_make (start, lo, size);
  if (!made)
    return NULL;
  ipt.arrays[p] = true;
  if (root)
    ipt.root_arrays[p] = made;
  return made;
}

/* make_array for a's segment's start, the last path's number N.  */
static void
make_array (struct act *a, uint64_t n)
{
  const pp_ip_proc *ip = &ip_prog.nb.procs[a->proc];
  uint32_t source = a->seg_src;
  if (source == SRC_ENTRY || (source == SRC_RESTART && !ip_prog.piecewise))
    source = ip->entry;
  else if (source == SRC_RESTART)
    source = ip->gentry;
  else if (source != NONE && (source & SRC_CALL))
    source = ip_prog.layout.return_vertex[a->proc][source & ~SRC_CALL];
  const struct __pathprof_ip_array *made = array_over (a->proc, source, a->seg, seg_array (a), n);
  if (made)
    adopt_array (a, made);
}

/* The path reaches edge EDGE of a's graph, which is no edge of G*_fin: at
   a backedge w -> v it ends on w -> GEXIT, the next starts on ENTRY -> v
   after the activation's context (or GENTRY -> v).  */
static __attribute__ ((noinline)) void
cut_edge (struct act *a, uint32_t edge)
{
  const pp_ip_proc *ip = &ip_prog.nb.procs[a->proc];
  if (ip->back_of_edge[edge] != 1)
    return;
  uint32_t out = ip->exit_of_edge[edge], in = ip->entry_of_edge[edge];
  if (out == NONE)
    ipt.lost = true;
  bool counts_here = !ipt.lost && a->row->keyed && in != NONE;
  add_value (a, out);
  end_path (a);
  if (counts_here && array_due (pp_ipt_start_cuts (a->seg), seg_array (a)))
    make_array (a, a->sum[0]);
  restart (a, in);
}

/* a's key and array for the code's cuts in place (sum[2], sum[3]; "In
   place"), and the key and array a backedge's next path starts with
   (sum[4], sum[5]): the key of the path under way (its start + 1) where
   end_path counts it by (ctx, A, 0) and restart needs nothing but the sum
   and the key, else 0; the array of the restart where the path under way
   starts there too (else one of size 0).  A context path starts again at
   the activation's entry, which must name a path (then so does the next,
   and the key after the cut is entry + 1, whatever the start before: a
   return's node, the entry itself); a piecewise path starts again at
   GENTRY, with no call open and a as its base, which take_seg gives the
   thread when libprof next looks (where the procedure has no GENTRY root,
   EDGE takes the backedge and the path is lost).  Every probe after which
   the code of activation a runs calls it (done).  */
static inline void
sync_place (struct act *a)
{
  if (!a->row->keyed)
    return;			/* the code cuts nowhere */
  take_seg (a);
  uint64_t next;
  if (ip_prog.piecewise)
    next = a->row->gentry_key;
  else
    next = a->entry_lost ? 0 : a->entry + 1;
  const struct __pathprof_ip_array *cur = next && !ipt.lost ? seg_array (a) : NULL;
  a->sum[2] = !ipt.lost && next ? a->seg + 1 : 0;
  a->sum[3] = (uintptr_t) (cur ? cur : &no_array);
  a->sum[4] = next;
  a->sum[5] = (uintptr_t) (next && a->arr ? a->arr : &no_array);
}

/* The end of a probe after which the code of a runs.  */
static inline void
done (struct act *a)
{
  sync_place (a);
  pp_busy_clear (&ipt.busy);
}

/* ---- The probes (pathprof-abi.h).  */

/* The frame word of an activation that is not tracked, which the code
   reads in place as any other (pathprof-abi.h): the thread's dummy.  */
static uint64_t
untracked (void)
{
  return pp_kseg_untracked ();
}

static uint64_t enter_context (struct __pathprof_unit *u, uint32_t function,
			       const void *self);

static __attribute__ ((noinline)) uint64_t
enter_general (struct __pathprof_unit *u, uint32_t function, const void *self)
{
  if (ipt.busy || !pp_ip_ready ())
    return untracked ();
  return enter_context (u, function, self);
}

/* Activation a of procedure p (pushed) as ENTER starts it, but for its
   start and whether it is a root.  */
static inline void
init_act (struct act *a, uint32_t p)
{
  const struct pp_ip_row *row = &ip_prog.rows[p];
  a->row = row;
  a->fr.values = row->values;
  a->fr.calls = row->calls;
  a->fr.regs = a->sum;
  a->fr.site = NONE;
  a->fr.entered = false;
  a->fr.tag = NULL;
  memset (a->sum, 0, sizeof a->sum);
  a->proc = p;
}

/* Activation a continues the path of caller c, from node (c's segment
   ended at the call), whose array the front's slot X gave (NULL: look it
   up).  */
static inline void
continue_from (struct act *a, struct act *c, uint64_t node, uint64_t called_from,
	       const struct pp_ipt_front_slot *x)
{
  a->root = false;
  c->fr.entered = true;
  c->fr.tag = NULL;
  a->seg = a->entry = node;
  a->called_from = called_from;
  a->entry_lost = ipt.lost;
  find_array (a, x ? x->arr : find_start_array (a));
}

/* The continuation (most calls): activation p continues caller c's path
   through site s, at a node the thread's front of nodes has (else the
   general way, before anything changed).  */
static __attribute__ ((noinline)) uint64_t
enter_cont (struct __pathprof_unit *u, uint32_t function, const void *self,
	    struct act *c, uint32_t s, uint32_t p)
{
  uint32_t depth = __pathprof_ip_depth;
  take_seg (c);
  struct pp_ipt_node key = { c->seg, c->sum[0], c->sum[1], NODE_TAG (NODE_CALL, s), 0 };
  const struct pp_ipt_front_slot *x = pp_ipt_node_front (&key);
  if (__builtin_expect (!x, 0))
    return enter_general (u, function, self);
  pp_busy_set (&ipt.busy);
  struct act *a = act_at (depth);
  a->fr.depth = __pathprof_ip_depth = depth + 1;
  init_act (a, p);
  c->sum[0] = c->sum[1] = 0;
  continue_from (a, c, x->s.id, key.parent, x);
  sync_place (a);
  __pathprof_ip_caller = 0;
  pp_busy_clear (&ipt.busy);
  return (uintptr_t) a;
}

/* Activation a of procedure p (pushed, init_act) starts a root: its
   context is its ROOT start; the path under way waits.  */
static inline void
start_root (struct act *a, uint32_t p)
{
  a->root = true;
  suspend (a);
  ipt.base = a->fr.depth - 1;
  ipt.open = true;
  ipt.lost = ip_prog.root_of[p] == NONE;
  a->seg = a->entry = 2 * (uint64_t) p;
  a->entry_lost = ipt.lost;
  find_array (a, ipt.root_arrays ? ipt.root_arrays[p] : NULL);
}

/* A root (called from the top of the stack, or with no caller), the
   thread's stack with room for it: as enter_context starts one, without
   its checks (the caller's call under way names no continuation).  */
static __attribute__ ((noinline)) uint64_t
enter_root (uint32_t p)
{
  pp_busy_set (&ipt.busy);
  uint32_t depth = __pathprof_ip_depth;
  struct act *a = act_at (depth);
  a->fr.depth = __pathprof_ip_depth = depth + 1;
  init_act (a, p);
  start_root (a, p);
  sync_place (a);
  __pathprof_ip_caller = 0;
  pp_busy_clear (&ipt.busy);
  return (uintptr_t) a;
}

/* ENTER of context and piecewise units (segments units call
   __pathprof_seg_enter; a program mixing kinds is not counted, so the
   program is of this kind once ready).  Most calls continue the path of
   the caller at the top of the stack, whose call names this function:
   enter_cont, without the general way's saved registers (kseg-runtime.c
   has the same split); most others start a root from the top of the
   stack or with no caller: enter_root; the rest enter_context.  */
PP_EXPORT uint64_t
__pathprof_ip_enter (struct __pathprof_unit *u, uint32_t function, const void *self)
{
  struct act *c = (struct act *) (uintptr_t) __pathprof_ip_caller;
  uint64_t first = __atomic_load_n (&u->ip_first, __ATOMIC_ACQUIRE);
  uint32_t depth = __pathprof_ip_depth, p = (uint32_t) (first - 1) + function;
  if (__builtin_expect (first && !ipt.busy && depth < ipt.stack.cap
			&& (!c || c->fr.depth == depth), 1))
    {
      /* The caller's call names this function at a site that continues
	 the path into it (s), or the function starts a root.  */
      uint32_t s = c && c->fr.tag == self && c->fr.site < JUMPED
		   ? c->row->cont[c->fr.site] : NONE;
      if (s == NONE || ip_prog.nb.calls[s].callee != p)
	return enter_root (p);
      if (!ipt.lost)
	return enter_cont (u, function, self, c, s, p);
    }
  return enter_general (u, function, self);
}

static __attribute__ ((noinline)) uint64_t
enter_context (struct __pathprof_unit *u, uint32_t function, const void *self)
{
  pp_busy_set (&ipt.busy);
  uint64_t frame = 0;
  uint32_t p = pp_ip_proc_of (u, function);
  /* The caller, if the call under way names this function: a call of a
     frame below the top means a longjmp passed the activations above it
     (as a probe of that frame would find: begin).  */
  struct act *caller = (struct act *) (uintptr_t) __pathprof_ip_caller;
  if (caller && caller->fr.depth <= __pathprof_ip_depth)
    {
      if (caller->fr.depth < __pathprof_ip_depth)
	abandon_above (caller->fr.depth, false);
      if (caller->fr.tag != self)
	caller = NULL;
    }
  else
    caller = NULL;
  uint32_t s = caller && caller->fr.site < JUMPED ? caller->row->cont[caller->fr.site] : NONE;
  bool cont = p != NONE && s != NONE && ip_prog.nb.calls[s].callee == p;
  uint64_t called_from = 0, node = NO_NODE;
  if (cont)
    {
      take_seg (caller);
      called_from = caller->seg;
      node = end_segment (caller, NODE_TAG (NODE_CALL, s), 0);
    }
  struct act *a = p == NONE ? NULL : push_act ();
  if (a)
    {
      init_act (a, p);
      if (cont)
	continue_from (a, caller, node, called_from, NULL);
      else
	start_root (a, p);
      sync_place (a);
      frame = (uintptr_t) a;
    }
  __pathprof_ip_caller = 0;
  pp_busy_clear (&ipt.busy);
  return frame ? frame : untracked ();
}

PP_EXPORT void
__pathprof_ip_edge (uint64_t frame, uint32_t edge)
{
  struct act *a = begin (frame);
  if (!a)
    return;
  uint32_t k = a->row->fin[edge];
  if (__builtin_expect (k != NONE, 1))
    add_value (a, k);
  else
    cut_edge (a, edge);
  done (a);
}

PP_EXPORT void
__pathprof_ip_return (uint64_t frame, uint32_t call)
{
  struct act *a = begin (frame);
  if (!a)
    return;
  if (a->fr.site == call)
    {
      if (a->row->cont[call] == NONE)
	add_value (a, a->row->call_edge[call]);	/* a leaf or summary edge */
      else if (!a->fr.entered)
	ipt.lost = true;	/* the callee did not continue the path */
      a->fr.site = NONE;
    }
  done (a);
}

/* Caller b goes on at the return vertex of its call under way, after the
   callee's segment: its sums start there.  */
static void
resume_after_call (struct act *b)
{
  b->seg_src = b->fr.site < JUMPED ? SRC_CALL | b->fr.site : NONE;
  b->sum[0] = b->fr.site < JUMPED ? b->row->ret_start[b->fr.site] : 0;
  b->sum[1] = 0;
}

static void exit_slow (uint64_t frame);

/* The top activation (at DEPTH) returns and its caller b goes on from
   start X->s.id after the call (a piecewise return with no call open, PRET:
   b becomes the path's base), as exit_cont and exit_pret find it in the
   front, with its array (seg_array's, looked up no more).  */
static inline void
return_to (struct act *b, const struct pp_ipt_front_slot *x, uint32_t depth, bool pret)
{
  pp_busy_set (&ipt.busy);
  b->seg = b->cur_seg = x->s.id;
  b->cur = x->arr;
  resume_after_call (b);
  if (pret)
    ipt.base--;
  __pathprof_ip_depth = depth - 1;
  sync_place (b);
  pp_busy_clear (&ipt.busy);
}

/* A continuation's EXIT (the top of the stack), where the node after it
   is in the thread's front (else exit_slow, before anything changed).  */
static __attribute__ ((noinline)) void
exit_cont (uint64_t frame)
{
  struct act *a = (struct act *) (uintptr_t) frame;
  uint32_t depth = __pathprof_ip_depth;
  struct act *b = act_at (depth - 2);
  take_seg (a);
  const struct pp_ipt_front_slot *x = pp_ipt_node_front (&(struct pp_ipt_node) {
    a->seg, a->sum[0], a->sum[1], NODE_TAG (NODE_RET, 0), a->called_from });
  if (__builtin_expect (!x, 0))
    {
      exit_slow (frame);
      return;
    }
  return_to (b, x, depth, false);
}

static __attribute__ ((noinline)) void exit_root_counted (struct act *a);

/* A root's EXIT (the top of the stack; not piecewise with no call open):
   its path counted, the one it suspended resumed, as exit_slow does it
   without its cases.  The activation below needs no sync_place: the root
   changed nothing of it, and resume gives back the state the path had at
   its last (the start, ipt.path), which sync_place would write again.  */
static __attribute__ ((noinline)) void
exit_root (struct act *a)
{
  pp_busy_set (&ipt.busy);
  take_seg (a);
  /* Most roots return from their ROOT start (no call they made went on
     with their path, no backedge restarted it), A a piece of the
     procedure: counted in the start's array where the thread has one
     with a place for it (only procedures whose pieces are numbered have
     arrays, and B is 0 in them).  A root whose code cuts in place and
     whose path began at a call's return (a node) or a restart counts in
     that start's array the same way (seg_array: the one the return or
     the restart found).  */
  const struct __pathprof_ip_array *x = NULL;
  uint64_t i;
  if (!ipt.lost)
    {
      if (a->seg == 2 * (uint64_t) a->proc)
	x = ipt.root_arrays ? ipt.root_arrays[a->proc] : NULL;
      else if (a->row->keyed && !a->sum[1])
	x = seg_array (a);
    }
  if (x && (i = a->sum[0] - x->lo) < x->size)
    __atomic_fetch_add (&x->counts[i], 1, __ATOMIC_RELAXED);
  else
    exit_root_counted (a);
  resume (a);
  __pathprof_ip_depth--;
  pp_busy_clear (&ipt.busy);
}

/* exit_root's count where no array takes it, after which the root's start
   may get one (as cut_edge gives a loop's; a start other than ROOT as
   cut_edge would, where the code cuts in place).  */
static __attribute__ ((noinline)) void
exit_root_counted (struct act *a)
{
  end_path (a);
  uint32_t p = a->proc;
  if (ipt.lost || !ip_prog.pieces[p].npieces)
    return;
  if (a->seg == 2 * (uint64_t) p)
    {
      const struct __pathprof_ip_array *old = ipt.root_arrays ? ipt.root_arrays[p] : NULL;
      if (array_due (pp_ipt_start_cuts (a->seg), old))
	array_over (p, ip_prog.nb.procs[p].entry, a->seg, old, a->sum[0]);
    }
  else if (a->row->keyed && !a->sum[1]
	   && array_due (pp_ipt_start_cuts (a->seg), seg_array (a)))
    make_array (a, a->sum[0]);
}

/* A piecewise return with no call open (the top of the stack, which
   continued its caller's path: not a root), where the node after it is
   in the thread's front (else exit_slow, before anything changed): the
   path goes on in the caller through the return of the site that called
   a, as exit_slow's first case takes it.  */
static __attribute__ ((noinline)) void
exit_pret (uint64_t frame)
{
  struct act *a = (struct act *) (uintptr_t) frame;
  uint32_t depth = __pathprof_ip_depth;
  struct act *b = act_at (depth - 2);
  uint32_t s = b->fr.site < JUMPED ? b->row->cont[b->fr.site] : NONE;
  const struct pp_ipt_front_slot *x = NULL;
  if (s != NONE && ip_prog.nb.calls[s].callee == a->proc)
    x = pp_ipt_node_front (&(struct pp_ipt_node) {
      a->seg, a->sum[0], a->sum[1], NODE_TAG (NODE_PRET, s), 0 });
  if (__builtin_expect (!x, 0))
    {
      exit_slow (frame);
      return;
    }
  return_to (b, x, depth, true);
}

/* EXIT.  Most activations continued their caller's path, which goes on
   after this one's segment: exit_cont, as ENTER's continuation; most
   others are roots: exit_root; piecewise, a continuation the path
   restarted in returns with no call open: exit_pret; the rest (a root's
   return with no call open, a probe that finds activations a longjmp
   passed, a lost path) exit_slow.  */
PP_EXPORT void
__pathprof_ip_exit (uint64_t frame)
{
  struct act *a = (struct act *) (uintptr_t) frame;
  uint32_t depth = __pathprof_ip_depth;
  if (__builtin_expect (ipt.busy || a->fr.depth != depth, 0))
    {
      exit_slow (frame);
      return;
    }
  if (ip_prog.piecewise)
    {
      if (start_moved (a))
	take_seg (a);		/* ipt.base and ipt.open as they are */
      if (ipt.base == depth - 1 && !ipt.open)
	{
	  if (!a->root && !ipt.lost)
	    exit_pret (frame);
	  else
	    exit_slow (frame);
	  return;
	}
    }
  if (a->root)
    exit_root (a);
  else if (!ipt.lost)
    exit_cont (frame);
  else
    exit_slow (frame);
}

static __attribute__ ((noinline)) void
exit_slow (uint64_t frame)
{
  struct act *a = begin (frame);
  if (!a)
    return;
  uint32_t p = a->proc;
  const pp_ip_proc *ip = &ip_prog.nb.procs[p];
  struct act *b = __pathprof_ip_depth > 1 ? act_at (__pathprof_ip_depth - 2) : NULL;
  if (ip_prog.piecewise && ipt.base == __pathprof_ip_depth - 1 && !ipt.open)
    {
      /* Piecewise, no call open: the path leaves EXIT for any of its
	 successors.  */
      if (a->root)
	{
	  /* For EXIT_global, which comes last if p is a root.  */
	  if (ip->nexits == 0 || ip->exit_site[ip->nexits - 1] != NONE)
	    ipt.lost = true;
	  a->seg = end_segment (a, NODE_TAG (NODE_PEXIT, 0), p);
	  end_path (a);
	  resume (a);
	}
      else
	{
	  /* For the caller, through the site that called p.  */
	  uint32_t s = b->fr.site < JUMPED ? b->row->cont[b->fr.site] : NONE;
	  if (s == NONE || ip_prog.nb.calls[s].callee != p)
	    ipt.lost = true;
	  b->seg = end_segment (a, NODE_TAG (NODE_PRET, s), 0);
	  resume_after_call (b);
	  ipt.base--;
	}
    }
  else if (a->root)
    {
      end_path (a);
      resume (a);
    }
  else
    {
      /* The caller goes on after the callee's segment.  */
      b->seg = end_segment (a, NODE_TAG (NODE_RET, 0), a->called_from);
      resume_after_call (b);
    }
  __pathprof_ip_depth--;
  /* The caller's code goes on without a probe when the callee continued
     (pathprof-abi.h __pathprof_ip_return_step).  */
  if (b)
    sync_place (b);
  pp_busy_clear (&ipt.busy);
}

PP_EXPORT void
__pathprof_ip_jump (uint64_t frame, uint32_t block)
{
  struct act *a = begin (frame);
  if (!a)
    return;
  /* The leave of a computed goto's block: from its last vertex.  */
  uint32_t p = a->proc;
  uint32_t g = ip_prog.nb.procs[p].leave_of[pp_ip_layout_last_vertex (&ip_prog.layout, p, block)];
  if (g == NONE)
    ipt.lost = true;
  add_value (a, g);
  end_path (a);
  a->fr.site = JUMPED;
  done (a);
}

PP_EXPORT void
__pathprof_ip_land (uint64_t frame, uint32_t block, uint32_t call)
{
  if (ipt.busy)
    return;
  pp_busy_set (&ipt.busy);
  uint32_t depth = frame_depth (frame);
  if (depth && depth <= __pathprof_ip_depth)
    {
      struct act *a = act_at (depth - 1);
      uint32_t p = a->proc;
      take_seg (a);
      if (depth < __pathprof_ip_depth || a->fr.site != NONE)
	{
	  /* A longjmp or a computed goto landed here: the paths under way
	     end where they were, a new one starts at the block.  */
	  abandon_above (depth, true);
	  restart (a, ip_prog.nb.procs[p].reentry_of[block]);
	  a->fr.site = NONE;
	}
      if (call != NONE)		/* past the setjmp that starts the block */
	add_value (a, ip_prog.nb.procs[p].fin_of_edge[ip_prog.layout.leaf_edge[p][call]]);
      __pathprof_ip_caller = 0;
      sync_place (a);
    }
  pp_busy_clear (&ipt.busy);
}

/* ---- What ip-program.c asks (ctx-runtime.h).  */

void
pp_ctx_end_thread_paths (void)
{
  if (ipt.busy)
    return;
  pp_busy_set (&ipt.busy);
  abandon_above (0, true);
  pp_busy_clear (&ipt.busy);
}
