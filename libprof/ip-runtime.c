/* libprof, the interprocedural modes (corelib/interproc.h): Melski and
   Reps' context and piecewise paths counted at run time.

   The numbering.  It needs the whole program, which no compiler run sees:
   at the first ENTER of the process, the units registered then (every unit
   of the program and of the libraries loaded with it; one loaded later by
   dlopen is not numbered, and its activations are not tracked) are sorted
   by (name, checksum), their notes decoded and the program of ip-notes.h
   built and numbered, once, under ip_lock.

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
   for the start of its last segment, (N0, x), and the u64 sums A and B of
   the values <a, b> of the edges it took since: each activation keeps its
   segment's start (seg) and sums.  A start is ROOT p (2 p: procedure p's
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
   __pathprof_ip_step with two registers): ENTER returns the activation's
   address, whose frame gives its procedure's row (prog.in_place: a, 0, b,
   0 per edge) and its sums A and B as registers, to which the code adds.
   The adds have no overflow check, so a procedure is in place only when
   all its values add up to less than 2^62 (make_in_place); else EDGE
   takes its edges, as it takes a value that does not fit.  At a backedge
   the row holds a_out (top bit set), a_in, b_out, b_in, and where the
   activation's key (sum[2], with the thread's table in sum[3]) is set,
   the code counts (key, A + a_out, B + b_out) in that key's home slot of
   the thread's table when the slot has it, and starts the next path at
   (a_in, b_in): what cut_edge, end_path and restart would do there.  The
   key is set only where that is so (sync_place), and kept true by every
   probe after which the activation's code runs (done).

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
#include "file-names.h"
#include "arena.h"
#include "hash.h"
#include "interproc.h"
#include "ip-notes.h"
#include "ip-runtime.h"
#include "ip-tables.h"
#include "kseg-runtime.h"
#include "modes.h"
#include "notes.h"
#include "pathprof-abi.h"
#include "profile.h"

#define NONE UINT32_MAX
#define JUMPED (UINT32_MAX - 1)	/* a computed goto left the activation */
#define WIDE UINT64_MAX		/* prog.ab: see rho in GMP */

/* ---- The program (under ip_lock until ready).  */

/* What runtime.c's hooks do, by the program's kind (context and piecewise
   paths here, segments in kseg-runtime.c), chosen once when the program is
   set up (context_kind, segments_kind below).  */
struct kind_of
{
  void (*end_thread_paths) (void);
  void (*before_snapshot) (void);
  pp_ipt_number_fn *number;	/* the count tables' keys as numbers */
  void (*reset_slots) (void);	/* counts kept outside the tables */
};
static const struct kind_of context_kind, segments_kind;

static pthread_mutex_t ip_lock = PTHREAD_MUTEX_INITIALIZER;
static struct
{
  bool tried, ready;
  uint32_t nunits;
  struct __pathprof_unit **units;	/* sorted by (name, checksum) */
  pp_unit_notes *notes;
  pp_ip_layout layout;
  pp_ip_numbering nb;
  uint32_t kind;		/* enum pp_ip_kind */
  const struct kind_of *kind_of;	/* its behaviour (below) */
  uint32_t depth;		/* segments: k */
  bool piecewise;
  /* Per procedure: rho = <a, b> of its G*_fin edge k at ab[2 k] and
     ab[2 k + 1], or WIDE at ab[2 k] when a or b does not fit 64 bits.  */
  uint64_t **ab;
  /* Per procedure: what the code does in place (pathprof-abi.h,
     __pathprof_ip_step with two registers, A and B, and "Context and
     piecewise paths"), four words per edge of its graph (notes index): a,
     0, b, 0; at a backedge a_out | TOP, a_in, b_out, b_in; or UINT64_MAX
     first where EDGE must take the edge.  */
  uint64_t **in_place;
  bool *cuts_in_place;		/* per procedure: a backedge's row counts in place */
  uint32_t *root_of;		/* per procedure: its ENTRY root, or NONE */
  uint32_t *gentry_root_of;	/* piecewise: its GENTRY root, or NONE */
  uint32_t words;		/* 64-bit words of a path number */
  unsigned char *manifest;
  uint32_t manifest_len;
  uint64_t checksum;
  char name[64];
} prog;

static int
unit_order (const void *a, const void *b)
{
  const struct __pathprof_unit *x = *(struct __pathprof_unit *const *) a;
  const struct __pathprof_unit *y = *(struct __pathprof_unit *const *) b;
  int c = strcmp (x->name, y->name);
  return c ? c : (x->checksum > y->checksum) - (x->checksum < y->checksum);
}

/* The manifest, the program record's notes (ip-notes.h).  */
static int
make_manifest (void)
{
  pp_ip_manifest m = { .kind = prog.kind, .depth = prog.depth,
		       .nunits = prog.nunits };
  m.names = pp_malloc ((prog.nunits + 1) * sizeof *m.names);
  m.checksums = pp_malloc ((prog.nunits + 1) * sizeof *m.checksums);
  int ret = -1;
  if (m.names && m.checksums)
    {
      for (uint32_t u = 0; u < prog.nunits; u++)
	{
	  m.names[u] = (char *) prog.units[u]->name;
	  m.checksums[u] = prog.units[u]->checksum;
	}
      ret = pp_ip_manifest_encode (&m, &prog.manifest, &prog.manifest_len);
    }
  pp_free (m.names);
  pp_free (m.checksums);
  if (ret == 0)
    {
      prog.checksum = pp_hash64 (prog.manifest, prog.manifest_len, PP_HASH_SEED);
      pp_ip_record_name (prog.name, sizeof prog.name, prog.checksum);
    }
  return ret;
}

/* The mode of unit U if it is one of the interprocedural modes (the mode is
   its notes' third word, notes.h), else NULL.  */
static const pp_mode_info *
ip_mode (const struct __pathprof_unit *u)
{
  if (u->notes_len < 12)
    return NULL;
  const unsigned char *m = u->notes + 8;
  const pp_mode_info *mode = pp_mode_lookup (m[0] | (uint32_t) m[1] << 8
					     | (uint32_t) m[2] << 16
					     | (uint32_t) m[3] << 24);
  return mode && mode->calls ? mode : NULL;
}

/* Whether v fits the u64 sums (and GMP's _ui calls, which take unsigned
   long).  */
static bool
fits_u64 (const mpz_t v)
{
  return mpz_sgn (v) >= 0 && mpz_fits_ulong_p (v);
}

/* Procedure p's edges in place: prog.in_place[p].  Its code adds a and b
   to the activation's sums without the overflow check add_value makes, so
   all of them are in place only where no sum can overflow: where the
   values of all of the procedure's G*_fin edges add up to less than
   2^62, as a segment (between two flushes) takes each edge at most once
   (G*_fin is acyclic) and the sums it starts from are such sums too.
   Elsewhere EDGE takes every edge (add_value), as it does a backedge,
   where a path ends.  */
static uint64_t *
make_in_place (uint32_t p)
{
  const pp_ip_proc *ip = &prog.nb.procs[p];
  const uint64_t *ab = prog.ab[p];
  uint32_t nedges = prog.layout.prog.procs[p].nedges;
  uint64_t total = 0;
  bool fits = true;
  for (uint32_t k = 0; fits && k < ip->nedges; k++)
    fits = ab[2 * k] != WIDE && !__builtin_add_overflow (total, ab[2 * k], &total)
	   && !__builtin_add_overflow (total, ab[2 * k + 1], &total)
	   && total < (uint64_t) 1 << 62;
  uint64_t *row = pp_calloc (4 * (size_t) nedges + 1, sizeof *row);
  for (uint32_t e = 0; row && e < nedges; e++)
    {
      uint32_t k = ip->fin_of_edge[e];
      uint32_t out = ip->exit_of_edge[e], in = ip->entry_of_edge[e];
      if (k == NONE && ip->back_of_edge[e] == 1 && fits && out != NONE && in != NONE)
	{
	  prog.cuts_in_place[p] = true;
	  row[4 * e] = ab[2 * out] | (uint64_t) 1 << 63;
	  row[4 * e + 1] = ab[2 * in];
	  row[4 * e + 2] = ab[2 * out + 1];
	  row[4 * e + 3] = ab[2 * in + 1];
	}
      else if (k == NONE ? ip->back_of_edge[e] == 1 : !fits)
	row[4 * e] = UINT64_MAX;
      else if (k != NONE)
	{
	  row[4 * e] = ab[2 * k];
	  row[4 * e + 2] = ab[2 * k + 1];
	}
    }
  return row;
}

/* prog.ab: the edge values as u64 where they fit; prog.in_place.  */
static int
make_value_tables (void)
{
  prog.ab = pp_calloc (prog.nb.nprocs + 1, sizeof *prog.ab);
  prog.in_place = pp_calloc (prog.nb.nprocs + 1, sizeof *prog.in_place);
  prog.cuts_in_place = pp_calloc (prog.nb.nprocs + 1, sizeof *prog.cuts_in_place);
  if (!prog.ab || !prog.in_place || !prog.cuts_in_place)
    return -1;
  for (uint32_t p = 0; p < prog.nb.nprocs; p++)
    {
      const pp_ip_proc *ip = &prog.nb.procs[p];
      uint64_t *ab = pp_malloc ((2 * (size_t) ip->nedges + 1) * sizeof *ab);
      if (!ab)
	return -1;
      for (uint32_t k = 0; k < ip->nedges; k++)
	{
	  const pp_ip_lin *rho = &ip->edges[k].rho;
	  bool fits = fits_u64 (rho->a) && fits_u64 (rho->b) && mpz_cmp_ui (rho->a, WIDE);
	  ab[2 * k] = fits ? mpz_get_ui (rho->a) : WIDE;
	  ab[2 * k + 1] = fits ? mpz_get_ui (rho->b) : 0;
	}
      prog.ab[p] = ab;
      if (!(prog.in_place[p] = make_in_place (p)))
	return -1;
    }
  return 0;
}

static const char *const kind_name[] = { "context", "piecewise", "segments" };

/* The numbering cache's file: PATHPROF_NUMBERING_FILE, else the profile's
   name followed by ".numbering"; NULL when the variable is set empty (no
   cache) or out of memory.  */
static char *
numbering_path (void)
{
  const char *env = getenv ("PATHPROF_NUMBERING_FILE");
  if (env)
    return *env ? pp_path_with_suffix (env, "", false) : NULL;
  char *profile = pp_profile_path ();
  char *path = profile ? pp_path_with_suffix (profile, ".numbering", false) : NULL;
  pp_free (profile);
  return path;
}

/* Segments: sets the program up for kseg-runtime.c, every unit of the same
   depth.  Returns 0, or -1 with the reason reported.  */
static int
set_up_segments (void)
{
  prog.depth = prog.notes[0].depth;
  for (uint32_t u = 1; u < prog.nunits; u++)
    if (prog.notes[u].depth != prog.depth)
      {
	pp_report (false, "interprocedural paths are not counted: unit '%s' is "
		   "built for segments of depth %u, unit '%s' of depth %u "
		   "(-fplugin-arg-pathprof-depth)", prog.units[0]->name, prog.depth,
		   prog.units[u]->name, prog.notes[u].depth);
	return -1;
      }
  int rc = make_manifest () ? -1
	   : pp_kseg_init (&prog.layout, prog.notes, prog.depth, PP_KSEG_DENSE_MAX,
			   PP_KSEG_HASHED, &ip_lock);
  if (rc)
    {
      pp_report (false, "interprocedural paths are not counted: %s",
		 rc == -1 ? "out of memory"
		 : "the program breaks the numbering's conventions");
      return -1;
    }
  prog.words = 2;		/* (number, root procedure) */
  if (pp_kseg_open_cache (numbering_path (), prog.checksum))
    pp_report (false, "out of memory for the numbering cache; the program is "
	       "numbered as it runs");
  return 0;
}

/* Numbers the program of the units registered now (runtime.c's list).  */
static void
number_program (void)
{
  prog.tried = true;
  struct __pathprof_unit **all;
  uint32_t n = pp_registered_units (&all);
  uint32_t k = 0;
  const pp_mode_info *kind = NULL;
  for (uint32_t i = 0; i < n; i++)
    if (ip_mode (all[i]))
      {
	if (kind && kind != ip_mode (all[i]))
	  {
	    pp_report (false, "interprocedural paths are not counted: unit '%s' "
		       "is built for %s paths, unit '%s' for %s paths "
		       "(-fplugin-arg-pathprof-interproc)", all[k - 1]->name,
		       kind_name[kind->plan_arg], all[i]->name,
		       kind_name[ip_mode (all[i])->plan_arg]);
	    pp_free (all);
	    return;
	  }
	kind = ip_mode (all[i]);
	all[k++] = all[i];
      }
  if (k == 0)
    {
      pp_free (all);
      return;
    }
  prog.kind = (uint32_t) kind->plan_arg;
  prog.piecewise = kind->plan_arg == PP_IP_PIECEWISE;
  pp_sort (all, k, sizeof *all, unit_order);
  prog.units = all;
  prog.nunits = k;
  prog.notes = pp_calloc (k, sizeof *prog.notes);
  const pp_unit_notes **list = pp_calloc (k, sizeof *list);
  if (!prog.notes || !list)
    goto out;
  for (uint32_t u = 0; u < k; u++)
    {
      char err[256];
      if (pp_notes_decode_own (all[u]->notes, all[u]->notes_len, &prog.notes[u], err,
			       sizeof err))
	{
	  pp_report (false, "interprocedural paths are not counted: unit '%s': %s",
	       all[u]->name, err);
	  goto out;
	}
      list[u] = &prog.notes[u];
    }
  prog.kind_of = prog.kind == PP_IP_SEGMENTS ? &segments_kind : &context_kind;
  if (prog.kind == PP_IP_SEGMENTS)
    {
      if (pp_ip_layout_build (list, k, &prog.layout))
	pp_report (false, "interprocedural paths are not counted: out of memory");
      else if (set_up_segments () == 0)
	{
	  pp_ipt_init (prog.words);
	  prog.ready = true;
	}
      goto out;
    }
  int rc = pp_ip_layout_build (list, k, &prog.layout) ? PP_IP_ENOMEM
	   : pp_ip_number (&prog.layout.prog, prog.piecewise, &prog.nb);
  if (rc)
    {
      pp_report (false, "interprocedural paths are not counted: %s",
	   rc == PP_IP_ENOMEM ? "out of memory for the numbering"
	   : "the program breaks the numbering's conventions");
      goto out;
    }
  prog.root_of = pp_malloc ((prog.nb.nprocs + 1) * sizeof *prog.root_of);
  prog.gentry_root_of = pp_malloc ((prog.nb.nprocs + 1) * sizeof *prog.root_of);
  if (!prog.root_of || !prog.gentry_root_of || make_manifest ())
    {
      pp_report (false, "interprocedural paths are not counted: out of memory");
      goto out;
    }
  for (uint32_t p = 0; p < prog.nb.nprocs; p++)
    prog.root_of[p] = prog.gentry_root_of[p] = NONE;
  for (uint32_t r = prog.nb.nroots; r-- > 0;)
    (prog.nb.root_gentry[r] ? prog.gentry_root_of : prog.root_of)[prog.nb.roots[r]] = r;
  size_t bits = mpz_sgn (prog.nb.npaths) ? mpz_sizeinbase (prog.nb.npaths, 2) : 1;
  prog.words = (uint32_t) ((bits + 63) / 64);
  if (prog.words > PP_PROFILE_WIDE_WORDS_MAX)
    {
      pp_report (false, "interprocedural paths are not counted: the program's path "
	   "numbers need %zu bits, more than the %u a profile holds", bits,
	   64 * PP_PROFILE_WIDE_WORDS_MAX);
      goto out;
    }
  if (make_value_tables ())
    {
      pp_report (false, "interprocedural paths are not counted: out of memory");
      goto out;
    }
  pp_ipt_init (prog.words);
  prog.ready = true;
out:
  pp_free (list);
}

/* The first probe's: numbers the program (once, whichever thread comes
   first).  */
static __attribute__ ((noinline)) bool
number_once (void)
{
  pthread_mutex_lock (&ip_lock);
  if (!prog.tried)
    {
      pp_gmp_enter ();
      number_program ();
      pp_gmp_leave ();
      /* Each unit's procedures, for its ENTER probes (proc_of).  */
      for (uint32_t u = 0; prog.ready && u < prog.nunits; u++)
	__atomic_store_n (&prog.units[u]->ip_first, prog.layout.first_proc[u] + 1,
			  __ATOMIC_RELEASE);	/* after the set-up it gives */
      __atomic_store_n (&prog.ready, prog.ready, __ATOMIC_RELEASE);
    }
  pthread_mutex_unlock (&ip_lock);
  return prog.ready;
}

/* Whether the program is numbered (numbering it at the first probe).  */
static inline bool
program_ready (void)
{
  return __atomic_load_n (&prog.ready, __ATOMIC_ACQUIRE) || number_once ();
}

/* The procedure of function F of unit U, or NONE (a unit outside the
   numbering: registered after it).  */
static inline uint32_t
proc_of (const struct __pathprof_unit *u, uint32_t f)
{
  uint64_t first = __atomic_load_n (&u->ip_first, __ATOMIC_RELAXED);
  return first ? (uint32_t) (first - 1) + f : NONE;
}

/* ---- Counting (ip-tables.c keeps the counts).  */

/* The words of NUM (prog.words of them) in KEY; false if it has more.  */
static bool
number_words (const mpz_t num, uint64_t *key)
{
  uint32_t w = prog.words;
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

/* What a dump has found: (N0, x) per node.  */
static struct
{
  uint64_t *ids;		/* the start + 1; 0: empty */
  mpz_t (*val)[2];
  uint32_t n, mask;		/* mask: slots - 1 (0: none yet) */
} memo;

static mpz_t *
memo_find (uint64_t id, bool add)
{
  if (add && (memo.n + 1) * 2 > memo.mask)
    {
      uint32_t size = memo.mask ? 2 * (memo.mask + 1) : 1024;
      uint64_t *ids = pp_calloc (size, sizeof *ids);
      mpz_t (*val)[2] = pp_malloc (size * sizeof *val);
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
	    memcpy (val[j & (size - 1)], memo.val[i], sizeof *val);
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
	return memo.val[i];
      if (!memo.ids[i])
	{
	  if (!add)
	    return NULL;
	  memo.ids[i] = id1;
	  memo.n++;
	  mpz_init (memo.val[i][0]);
	  mpz_init (memo.val[i][1]);
	  return memo.val[i];
	}
    }
}

/* (N0, x) of a start that is no node: procedure p's ROOT (2 p) or GENTRY
   (2 p + 1) start; false if it is none of the numbering.  */
static bool
start_value (uint64_t ctx, mpz_t n0, mpz_t x)
{
  uint32_t p = (uint32_t) (ctx / 2);
  uint32_t r = ctx % 2 ? prog.gentry_root_of[p] : prog.root_of[p];
  if (r == NONE)
    return false;
  mpz_set (n0, prog.nb.root_value[r]);
  if (ctx % 2)
    mpz_set (x, prog.nb.procs[p].unbal);
  else
    mpz_set_ui (x, 1);
  return true;
}

/* (N0, x) of start CTX, into the memo: the path before it and the
   completions at its procedure's EXIT; NULL if unknown.  Iterative: a
   node's parent (and a return's caller start, which comes before it) are
   found first.  */
static mpz_t *
ctx_value (uint64_t ctx)
{
  static uint64_t *todo;
  static uint32_t todo_cap;
  uint32_t ntodo = 0;
  uint64_t two_n = 2 * (uint64_t) prog.nb.nprocs;
  mpz_t *v = memo_find (ctx, false);
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
      mpz_t *w = memo_find (c, true);
      if (!w)
	return NULL;
      if (c < two_n)
	{
	  if (!start_value (c, w[0], w[1]))
	    return NULL;
	  continue;
	}
      const struct pp_ipt_node *x = pp_ipt_node_at (c);
      const mpz_t *up = memo_find (x->parent, false);
      if (!up)
	return NULL;
      /* The path to the node's parent, its segment's sums.  */
      mpz_set (w[0], up[0]);
      mpz_addmul_ui (w[0], up[1], x->a);
      mpz_add_ui (w[0], w[0], x->b);
      uint64_t arg = x->tag & (((uint64_t) 1 << 56) - 1);
      switch (x->tag >> 56)
	{
	case NODE_CALL:
	  {
	    const pp_ip_call *k = &prog.nb.calls[arg];
	    const pp_ip_lin *psi = &prog.nb.procs[k->proc].psi[k->ret];
	    mpz_mul (w[1], up[1], psi->a);
	    mpz_add (w[1], w[1], psi->b);
	    break;
	  }
	case NODE_RET:
	  {
	    /* The caller's start when it called: an ancestor, found.  */
	    const mpz_t *caller = memo_find (x->extra, false);
	    if (!caller)
	      return NULL;
	    mpz_set (w[1], caller[1]);
	    break;
	  }
	case NODE_FLUSH:
	  mpz_set (w[1], up[1]);
	  break;
	case NODE_EDGE:
	  {
	    /* N0 + rho (x): the sums since the parent are the path's after.  */
	    const pp_ip_lin *rho = &prog.nb.procs[x->extra].edges[arg].rho;
	    mpz_addmul (w[0], rho->a, up[1]);
	    mpz_add (w[0], w[0], rho->b);
	    mpz_set (w[1], up[1]);
	    break;
	  }
	case NODE_PRET:
	  {
	    const pp_ip_call *k = &prog.nb.calls[arg];
	    mpz_add (w[0], w[0],
		     prog.nb.procs[k->callee].exit_value[prog.nb.exit_of_site[arg]]);
	    mpz_set (w[1], prog.nb.procs[k->proc].unbal);
	    break;
	  }
	case NODE_PEXIT:
	  {
	    const pp_ip_proc *ip = &prog.nb.procs[x->extra];
	    mpz_add (w[0], w[0], ip->exit_value[ip->nexits - 1]);
	    mpz_set_ui (w[1], 0);
	    break;
	  }
	default:
	  return NULL;
	}
    }
  return memo_find (ctx, false);
}

/* The number of segment (ctx, a, b) for a snapshot (pp_ipt_number_fn),
   under the count tables' locks: N0 + a x + b.  */
static bool
segment_number (uint64_t ctx, uint64_t a, uint64_t b, uint64_t *key)
{
  const mpz_t *v = ctx_value (ctx);
  if (!v)
    return false;
  mpz_t num;
  mpz_init_set (num, v[0]);
  mpz_addmul_ui (num, v[1], a);
  mpz_add_ui (num, num, b);
  bool known = mpz_cmp (num, prog.nb.npaths) < 0 && number_words (num, key);
  mpz_clear (num);
  return known;
}

/* ---- Threads.  */

struct act
{
  /* First: the frame word is its address (pathprof-abi.h): fr.values is
     prog.in_place[proc], fr.regs sum, fr.depth the activation's index on
     the thread's stack + 1.  */
  struct __pathprof_ip_frame fr;
  /* The segment's sums A and B of edge values, then the key and the table
     of the code's cuts in place (sync_place).  */
  uint64_t sum[4];
  uint32_t proc;
  uint32_t site;		/* the call under way (notes index), NONE, JUMPED */
  const uint64_t *ab;		/* prog.ab[proc] */
  const uint32_t *fin;		/* the procedure's fin_of_edge */
  uint64_t seg;			/* where its segment began: a start */
  uint64_t entry;		/* where it began: its context */
  uint64_t called_from;		/* a continuation: its caller's seg at the call */
  bool root;			/* it started a path; saved_* the one suspended */
  bool entered;			/* the call under way continued the path */
  bool entry_lost;		/* entry names no path */
  bool keyed;			/* its procedure's cuts_in_place: sync_place */
  bool saved_lost;
  bool saved_open;
  uint32_t saved_base;
  const void *saved_tag;
};

static __thread struct
{
  struct pp_act_stack stack;	/* act-stack.h */
  uint32_t depth;		/* tracked activations; act_at (depth - 1) the top */
  bool busy;
  bool lost;			/* the current path is not one of the numbering */
  /* The activation the current path started in, or continued in after a
     return from where it started (piecewise), and whether it started at
     that activation's ENTRY, its call open (else at its GENTRY).  */
  uint32_t base;
  bool open;
  const void *tag;		/* the callee the last call named */
  const struct __pathprof_ip_table *table;	/* pp_ipt_segment_table's */
} ipt PP_TLS_MODEL;

/* The thread's activation I (below its stack's cap).  */
static inline struct act *
act_at (uint32_t i)
{
  return pp_act_at (&ipt.stack, i, sizeof (struct act));
}

/* A new activation on top of the thread's stack, or NULL.  */
static struct act *
push_act (void)
{
  if (ipt.depth == ipt.stack.cap && !pp_act_stack_grow (&ipt.stack, sizeof (struct act)))
    return NULL;
  struct act *a = act_at (ipt.depth);
  a->fr.depth = ++ipt.depth;
  return a;
}

/* Activation a starts a path of its own: the one under way (in the
   activations below, their starts and sums as they are) waits until a
   ends (resume).  */
static void
suspend (struct act *a)
{
  a->saved_lost = ipt.lost;
  a->saved_tag = ipt.tag;
  a->saved_base = ipt.base;
  a->saved_open = ipt.open;
}

static void
resume (struct act *a)
{
  ipt.lost = a->saved_lost;
  ipt.tag = a->saved_tag;
  ipt.base = a->saved_base;
  ipt.open = a->saved_open;
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
  uint64_t va = a->ab[2 * k], vb = a->ab[2 * k + 1];
  if (va == WIDE)
    {
      /* A start after a's, from which edge k is taken first (its node's
	 N0 has the value; the sums go on as they are): the same for every
	 path that takes k from that start, such as a loop's each time
	 round.  */
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
  uint64_t va = a->ab[2 * k], vb = a->ab[2 * k + 1], na, nb;
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
  if (a->site == JUMPED)
    return;			/* counted at the jump */
  uint32_t g = NONE;
  if (a->site != NONE)
    g = prog.nb.procs[a->proc].leave_of[prog.layout.call_vertex[a->proc][a->site]];
  if (g == NONE)
    ipt.lost = true;
  add_value (a, g);
  end_path (a);
}

/* The activations above DEPTH are gone (a longjmp past them, or the
   process ends in them): their paths end at their calls under way.  With
   DEPTH 0, every path of the thread.  */
static void
abandon_above (uint32_t depth)
{
  if (ipt.depth == 0)
    return;
  end_at_call (act_at (ipt.depth - 1));
  while (ipt.depth > depth)
    {
      struct act *a = act_at (--ipt.depth);
      if (!a->root)
	continue;
      resume (a);
      if (ipt.depth > 0)
	end_at_call (act_at (ipt.depth - 1));
    }
}

/* A path starts in activation a on its surrogate IN (from ENTRY, or GENTRY
   when piecewise) after a backedge, or where a longjmp or a computed goto
   landed: a context path in the context a was entered in, a piecewise one
   with no call open.  */
static void
restart (struct act *a, uint32_t in)
{
  if (prog.piecewise)
    {
      ipt.lost = prog.gentry_root_of[a->proc] == NONE || in == NONE;
      a->seg = 2 * (uint64_t) a->proc + 1;
      ipt.base = a->fr.depth - 1;
      ipt.open = false;
    }
  else
    {
      ipt.lost = a->entry_lost || in == NONE;
      a->seg = a->entry;
    }
  a->sum[0] = a->sum[1] = 0;
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
  if (depth == 0 || depth > ipt.depth)
    return NULL;
  if (depth < ipt.depth)
    abandon_above (depth);
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
  ipt.busy = true;
  struct act *a = (struct act *) (uintptr_t) frame;
  if (__builtin_expect (a->fr.depth == ipt.depth, 1))
    return a;
  a = frame_act (frame);
  if (!a)
    ipt.busy = false;
  return a;
}

/* The path reaches edge EDGE of a's graph, which is no edge of G*_fin: at
   a backedge w -> v it ends on w -> GEXIT, the next starts on ENTRY -> v
   after the activation's context (or GENTRY -> v).  */
static __attribute__ ((noinline)) void
cut_edge (struct act *a, uint32_t edge)
{
  const pp_ip_proc *ip = &prog.nb.procs[a->proc];
  if (ip->back_of_edge[edge] != 1)
    return;
  uint32_t out = ip->exit_of_edge[edge], in = ip->entry_of_edge[edge];
  if (out == NONE)
    ipt.lost = true;
  add_value (a, out);
  end_path (a);
  restart (a, in);
}

/* a's key and table for the code's cuts in place (sum[2], sum[3]; "In
   place"): the key of the path under way where end_path counts it by
   (ctx, A, B) in the thread's table and a backedge starts the next with the
   same key (restart), else 0.  A piecewise path from a root's ENTRY starts
   again at GENTRY, another key: EDGE takes its backedge.  Every probe
   after which the code of activation a runs calls it (done).  */
static inline void
sync_place (struct act *a)
{
  if (!a->keyed)
    return;			/* sum[2] stays 0 */
  uint64_t start = prog.piecewise ? 2 * (uint64_t) a->proc + 1 : a->entry;
  uint64_t ctx1 = !ipt.lost && a->seg == start ? a->seg + 1 : 0;
  if (__builtin_expect (ctx1 && !ipt.table, 0))
    ipt.table = pp_ipt_segment_table ();
  a->sum[2] = ipt.table ? ctx1 : 0;
  a->sum[3] = (uintptr_t) ipt.table;
}

/* The end of a probe after which the code of a runs.  */
static inline void
done (struct act *a)
{
  sync_place (a);
  ipt.busy = false;
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

/* The segments' ENTER is most calls of a segments program: it saves no
   registers for the context paths' (enter_context, out of line).  */
PP_EXPORT uint64_t
__pathprof_ip_enter (struct __pathprof_unit *u, uint32_t function, const void *self)
{
  if (ipt.busy || !program_ready () || prog.kind == PP_IP_SEGMENTS)
    return untracked ();
  return enter_context (u, function, self);
}

/* A segments unit's ENTER before the program is set up (kseg-runtime.c
   __pathprof_seg_enter): sets it up, then gives the procedure of function
   F of unit U, or NONE (not a segments program, or U not of it).  */
uint32_t
pp_ip_set_up (struct __pathprof_unit *u, uint32_t f)
{
  return program_ready () && prog.kind == PP_IP_SEGMENTS ? proc_of (u, f) : NONE;
}

static __attribute__ ((noinline)) uint64_t
enter_context (struct __pathprof_unit *u, uint32_t function, const void *self)
{
  ipt.busy = true;
  uint64_t frame = untracked ();
  uint32_t p = proc_of (u, function);
  struct act *caller = ipt.depth ? act_at (ipt.depth - 1) : NULL;
  uint32_t s = NONE;
  if (caller && caller->site < JUMPED && ipt.tag == self)
    s = prog.layout.site_of_call[caller->proc][caller->site];
  bool cont = p != NONE && s != NONE && !prog.nb.recursive[s]
	      && prog.nb.calls[s].callee == p;
  uint64_t called_from = 0, node = NO_NODE;
  if (cont)
    {
      called_from = caller->seg;
      node = end_segment (caller, NODE_TAG (NODE_CALL, s), 0);
    }
  struct act *a = p == NONE ? NULL : push_act ();
  if (a)
    {
      a->fr.values = prog.in_place[p];
      a->fr.regs = a->sum;
      a->sum[0] = a->sum[1] = a->sum[2] = a->sum[3] = 0;
      a->keyed = prog.cuts_in_place[p];
      a->proc = p;
      a->ab = prog.ab[p];
      a->fin = prog.nb.procs[p].fin_of_edge;
      a->site = NONE;
      a->entered = false;
      a->root = !cont;
      if (cont)
	{
	  act_at (ipt.depth - 2)->entered = true;
	  a->seg = a->entry = node;
	  a->called_from = called_from;
	}
      else
	{
	  /* A root's context is its ROOT start; the path under way waits.  */
	  suspend (a);
	  ipt.base = ipt.depth - 1;
	  ipt.open = true;
	  ipt.lost = prog.root_of[p] == NONE;
	  a->seg = a->entry = 2 * (uint64_t) p;
	}
      a->entry_lost = ipt.lost;
      sync_place (a);
      frame = (uintptr_t) a;
    }
  ipt.tag = NULL;
  ipt.busy = false;
  return frame;
}

PP_EXPORT void
__pathprof_ip_edge (uint64_t frame, uint32_t edge)
{
  struct act *a = begin (frame);
  if (!a)
    return;
  uint32_t k = a->fin[edge];
  if (__builtin_expect (k != NONE, 1))
    add_value (a, k);
  else
    cut_edge (a, edge);
  done (a);
}

PP_EXPORT void
__pathprof_ip_call (uint64_t frame, uint32_t call, const void *callee)
{
  struct act *a = begin (frame);
  if (!a)
    return;
  a->site = call;
  a->entered = false;
  ipt.tag = callee;
  ipt.busy = false;
}

PP_EXPORT void
__pathprof_ip_return (uint64_t frame, uint32_t call)
{
  struct act *a = begin (frame);
  if (!a)
    return;
  if (a->site == call)
    {
      uint32_t p = a->proc, s = prog.layout.site_of_call[p][call];
      const pp_ip_proc *ip = &prog.nb.procs[p];
      if (s == NONE)
	add_value (a, ip->fin_of_edge[prog.layout.leaf_edge[p][call]]);
      else if (prog.nb.recursive[s])
	{
	  uint32_t c = prog.layout.call_vertex[p][call];
	  for (uint32_t k = ip->out_start[c]; k < ip->out_start[c + 1]; k++)
	    if (ip->edges[k].kind == PP_IP_SUMMARY)
	      add_value (a, k);
	}
      else if (!a->entered)
	ipt.lost = true;	/* the callee did not continue the path */
      a->site = NONE;
    }
  ipt.tag = NULL;
  done (a);
}

PP_EXPORT void
__pathprof_ip_exit (uint64_t frame)
{
  struct act *a = begin (frame);
  if (!a)
    return;
  uint32_t p = a->proc;
  const pp_ip_proc *ip = &prog.nb.procs[p];
  struct act *b = ipt.depth > 1 ? act_at (ipt.depth - 2) : NULL;
  if (prog.piecewise && ipt.base == ipt.depth - 1 && !ipt.open)
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
	  uint32_t s = b->site < JUMPED ? prog.layout.site_of_call[b->proc][b->site] : NONE;
	  if (s == NONE || prog.nb.recursive[s] || prog.nb.calls[s].callee != p)
	    ipt.lost = true;
	  b->seg = end_segment (a, NODE_TAG (NODE_PRET, s), 0);
	  b->sum[0] = b->sum[1] = 0;
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
      b->sum[0] = b->sum[1] = 0;
    }
  ipt.depth--;
  ipt.busy = false;
}

PP_EXPORT void
__pathprof_ip_jump (uint64_t frame, uint32_t block)
{
  struct act *a = begin (frame);
  if (!a)
    return;
  /* The leave of a computed goto's block: from its last vertex.  */
  uint32_t p = a->proc;
  uint32_t g = prog.nb.procs[p].leave_of[pp_ip_layout_last_vertex (&prog.layout, p, block)];
  if (g == NONE)
    ipt.lost = true;
  add_value (a, g);
  end_path (a);
  a->site = JUMPED;
  done (a);
}

PP_EXPORT void
__pathprof_ip_land (uint64_t frame, uint32_t block, uint32_t call)
{
  if (ipt.busy)
    return;
  ipt.busy = true;
  uint32_t depth = frame_depth (frame);
  if (depth && depth <= ipt.depth)
    {
      struct act *a = act_at (depth - 1);
      uint32_t p = a->proc;
      if (depth < ipt.depth || a->site != NONE)
	{
	  /* A longjmp or a computed goto landed here: the paths under way
	     end where they were, a new one starts at the block.  */
	  abandon_above (depth);
	  restart (a, prog.nb.procs[p].reentry_of[block]);
	  a->site = NONE;
	}
      if (call != NONE)		/* past the setjmp that starts the block */
	add_value (a, prog.nb.procs[p].fin_of_edge[prog.layout.leaf_edge[p][call]]);
      ipt.tag = NULL;
      sync_place (a);
    }
  ipt.busy = false;
}

/* ---- What runtime.c asks.  */

/* ---- What runtime.c asks, through the kind's table (prog.kind_of, chosen
   once, when the program is set up).  */

static void
end_context_paths (void)
{
  if (ipt.busy)
    return;
  ipt.busy = true;
  abandon_above (0);
  ipt.busy = false;
}

/* Segments: what the roots' arrays and slots hold goes to the tables, and
   the roots numbered since go to the numbering cache.  */
static void
segments_before_snapshot (void)
{
  pp_kseg_flush_slots ();
  pp_kseg_save_cache ();
}

static void
nothing (void)
{
}

static const struct kind_of context_kind = { end_context_paths, nothing, segment_number,
					     nothing },
  segments_kind = { pp_kseg_end_thread_paths, segments_before_snapshot, pp_kseg_key,
		    pp_kseg_reset_slots };

static void
ip_end_thread_paths (void)
{
  if (prog.ready)
    prog.kind_of->end_thread_paths ();
}

static int
ip_snapshot (pp_unit_data *rec)
{
  memset (rec, 0, sizeof *rec);
  if (!prog.ready)
    return 0;
  prog.kind_of->before_snapshot ();
  pp_gmp_enter ();
  int ret = pp_ipt_snapshot (rec, prog.kind_of->number);
  pp_gmp_leave ();
  rec->name = prog.name;
  rec->checksum = prog.checksum;
  rec->notes = prog.manifest;
  rec->notes_len = prog.manifest_len;
  rec->value_kind = PP_VALUES_U64;
  return ret;
}

static void
ip_subtract (const pp_unit_data *rec)
{
  (void) rec;			/* what the snapshot read, slot by slot */
  pp_ipt_subtract ();
}

static void
ip_reset (void)
{
  pp_ipt_reset ();
  if (prog.ready)
    prog.kind_of->reset_slots ();
}

static void
ip_before_fork (int stage)
{
  if (stage == 0)
    pthread_mutex_lock (&ip_lock);
  else
    pp_ipt_before_fork ();
}

static void
ip_after_fork (bool child)
{
  pp_ipt_after_fork (child);
  if (child && prog.ready)
    prog.kind_of->reset_slots ();
  pthread_mutex_unlock (&ip_lock);
}

static const struct pp_ip_hooks hooks = {
  .snapshot = ip_snapshot,
  .subtract = ip_subtract,
  .reset = ip_reset,
  .before_fork = ip_before_fork,
  .after_fork = ip_after_fork,
  .end_thread_paths = ip_end_thread_paths,
};

__attribute__ ((constructor)) static void
install_hooks (void)
{
  pp_ip = &hooks;
}
