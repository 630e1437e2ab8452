/* libprof's depth-k segments (libprof/kseg-runtime.c) against brute force:
   random programs (gen-program.h: loops, recursion, fake leaves and
   re-entries) run at random, call by call, through the probes the plugin
   emits (enter, edge, call, return, exit; jump and land for computed gotos
   and longjmps; the end of the process inside a call), and the segments
   the runtime counts, decoded in their roots' supergraphs, must be exactly
   those the run took: the test follows the run itself (which activation
   roots the segment under way, how deep each call is, where a longjmp or
   the end of the process leaves each segment) and writes each segment as
   test-segments' walks are written.  What it takes from the numbering is
   only which edges cut a segment and which nodes start one (paths.h's
   roles), as test-segments does.  Half the programs are built for
   interproc-ppp: each root has a random set of interesting segments (and
   some roots a supergraph checksum that does not match), and every segment
   must be counted in the root's slots exactly when it is interesting and
   the checksum matches, in the tables otherwise.  */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The slow ways pathprof-abi.h's steps in place take, counted (below).  */
#define __pathprof_seg_edge counted_seg_edge
#define __pathprof_seg_cut counted_seg_cut
#define __pathprof_seg_return counted_seg_return
#define __pathprof_seg_exit counted_seg_exit
#include "pathprof-abi.h"
#undef __pathprof_seg_edge
#undef __pathprof_seg_cut
#undef __pathprof_seg_return
#undef __pathprof_seg_exit
void __pathprof_seg_edge (uint64_t frame, uint32_t edge);
void __pathprof_seg_cut (uint64_t frame, uint32_t edge, uint64_t number, const void *next);
void __pathprof_seg_return (uint64_t frame, uint32_t call);
void __pathprof_seg_exit (uint64_t frame);

#include "hash.h"
#include "ip-notes.h"
#include "ip-runtime.h"
#include "ip-tables.h"
#include "kseg-runtime.h"
#include "paths.h"
#include "segments.h"
#include "unit.h"
#include "gen-program.h"
#include "seg-tokens.h"

#define MAXPROCS 4
#define MAXDEPTH 3
#define MAXSTACK 10
#define MAXTOK SEG_MAXTOK
#define MAXSEGS SEG_MAX

static struct seg_list want, got;

/* ---- What the runtime counts (ip-tables.h and ip-runtime.h, stubbed).  */

static struct
{
  uint64_t num, root;
  bool slot;			/* counted in the root's array or slots */
} counted[MAXSEGS];
static uint32_t ncounted, nlost;

bool
pp_ipt_count_segment (uint64_t ctx, uint64_t a, uint64_t b)
{
  if (b || ncounted == MAXSEGS)
    return false;
  counted[ncounted].num = a;
  counted[ncounted].slot = false;
  counted[ncounted++].root = ctx;
  return true;
}

void
pp_ipt_count_number (const uint64_t *key)
{
  (void) key;
  nlost += 1000;		/* never: pp_ipt_count_segment took it */
}

/* What pp_kseg_flush_slots moves out of the slots.  */
void
pp_ipt_add_number (const uint64_t *key, uint64_t n)
{
  for (uint64_t i = 0; i < n && ncounted < MAXSEGS; i++)
    {
      counted[ncounted].num = key[0];
      counted[ncounted].slot = true;
      counted[ncounted++].root = key[1];
    }
}

void
pp_ipt_add_numbers (const uint64_t *keys, const uint64_t *counts, size_t k)
{
  for (size_t i = 0; i < k; i++)
    pp_ipt_add_number (keys + 2 * i, counts[i]);
}

void
pp_ipt_count_lost (void)
{
  nlost++;
}

/* The test's activations run on one thread, which hands nothing on.  */
void *
pp_ipt_thread_starts (const struct pp_ipt_thread_ops *ops)
{
  (void) ops;
  return NULL;
}

static uint32_t nreports;

/* The probes the instrumented code's steps in place (pathprof-abi.h)
   call when they cannot do without libprof; how many times.  */
static uint64_t nslow;

void
counted_seg_edge (uint64_t frame, uint32_t edge)
{
  nslow++;
  __pathprof_seg_edge (frame, edge);
}

void
counted_seg_cut (uint64_t frame, uint32_t edge, uint64_t number, const void *next)
{
  nslow++;
  __pathprof_seg_cut (frame, edge, number, next);
}

void
pp_report (bool at_exit, const char *fmt, ...)
{
  (void) at_exit;
  (void) fmt;
  nreports++;			/* a root whose checksum does not match */
}

/* ip-program.c's set-up, which __pathprof_seg_enter calls for a unit of
   a program not yet numbered: never here.  */
uint32_t
pp_ip_set_up (struct __pathprof_unit *u, uint32_t f)
{
  (void) u;
  (void) f;
  abort ();
}

void
counted_seg_return (uint64_t frame, uint32_t call)
{
  nslow++;
  __pathprof_seg_return (frame, call);
}

void
counted_seg_exit (uint64_t frame)
{
  nslow++;
  __pathprof_seg_exit (frame);
}

/* libprof's runtime.c (not linked here): PATH then SUFFIX, and the pid.  */
char *
pp_path_with_suffix (const char *path, const char *suffix, bool with_pid)
{
  size_t n = strlen (path) + strlen (suffix) + 24;
  char *s = malloc (n);
  if (s)
    snprintf (s, n, "%s%s%.0ld", path, suffix, with_pid ? (long) getpid () : 0L);
  return s;
}

/* Rewrites every record of the numbering cache at PATH with an entry node
   past its supergraph and seals it again (the records' and the index's
   checksums right): a file another build could have written, which only
   libprof's checks of each record (consistent) stand against.  Its
   layout: numbering-cache.h; a record's head: kseg-runtime.c struct
   root_head (the entry node its fifth word).  */
static void
reseal_inconsistent (const char *path)
{
  FILE *f = fopen (path, "r+b");
  if (!f)
    return;
  fseek (f, 0, SEEK_END);
  long n = ftell (f);
  unsigned char *b = n > 32 ? malloc ((size_t) n) : NULL;
  fseek (f, 0, SEEK_SET);
  if (b && fread (b, 1, (size_t) n, f) == (size_t) n)
    {
      uint32_t nentries;
      memcpy (&nentries, b + 12, 4);
      for (uint32_t i = 0; i < nentries && 32 + 32 * (long) (i + 1) <= n; i++)
	{
	  unsigned char *e = b + 32 + 32 * (size_t) i;
	  uint64_t offset, length;
	  memcpy (&offset, e + 8, 8);
	  memcpy (&length, e + 16, 8);
	  if (offset + length > (uint64_t) n || length < 20)
	    continue;
	  uint32_t past = UINT32_MAX;
	  memcpy (b + offset + 16, &past, 4);
	  uint64_t h = pp_hash64 (b + offset, length, PP_HASH_SEED);
	  memcpy (e + 24, &h, 8);
	}
      uint64_t h = pp_hash64 (b + 32, 32 * (size_t) nentries, PP_HASH_SEED);
      memcpy (b + 24, &h, 8);
      fseek (f, 0, SEEK_SET);
      fwrite (b, 1, (size_t) n, f);
    }
  free (b);
  fclose (f);
}

/* Flips one byte of file PATH at random (a truncated or damaged
   numbering cache).  */
static void
damage_file (const char *path, unsigned long long *rng)
{
  FILE *f = fopen (path, "r+b");
  if (!f)
    return;
  fseek (f, 0, SEEK_END);
  long n = ftell (f);
  if (n > 0)
    {
      long at = (long) (unit_rand (rng) % (unsigned long long) n);
      fseek (f, at, SEEK_SET);
      int c = fgetc (f);
      fseek (f, at, SEEK_SET);
      fputc (c ^ (1 << (unit_rand (rng) % 8)), f);
    }
  fclose (f);
}

/* ---- The program.  */

static pp_graph g[MAXPROCS];
static pp_ip_call calls[3 * MAXPROCS];
static pp_ip_program prog;
static pp_ip_layout layout;
static pp_unit_notes notes;
static pp_function_notes fnotes[MAXPROCS];

/* pp_kseg_init's notes: the program's one unit.  */
static const pp_unit_notes *
unit_notes (void)
{
  return &notes;
}

static char fn_addr[MAXPROCS];	/* the functions' addresses (tags) */
static char not_instrumented;	/* a function's that runs no probe */
static uint32_t k_depth;
/* interproc-ppp: per root, whether its checksum matches (slots).  */
static bool preferential, slots_ok[MAXPROCS];
/* Edges taken in place (pathprof-abi.h __pathprof_ip_step), or by EDGE.  */
static bool in_place;
static uint64_t dense_max, hashed;	/* pp_kseg_init's */
static uint64_t nedges_taken, ntree;

/* pp_kseg_init's layout, counting how often libprof asks for it (once,
   at the first root it numbers; never for a dump before).  */
static unsigned layout_calls;

static const pp_ip_layout *
unit_layout (void)
{
  layout_calls++;
  return &layout;
}

/* pp_kseg_init's proc: the test's layout has every graph.  Which
   procedures libprof asked for (a lazy layout makes only their graphs),
   and which ran as roots (the simulation's), since kseg_init.  */
static bool asked[MAXPROCS], rooted[MAXPROCS];

static const pp_function_notes *
unit_proc (uint32_t p)
{
  if (p >= layout.prog.nprocs)
    return NULL;
  asked[p] = true;
  return &fnotes[p];
}

/* The program of the test's layout, as ip-program.c hands one over.  */
static int
kseg_init (pthread_mutex_t *lock)
{
  static const uint32_t first_proc[1] = { 0 };
  layout_calls = 0;
  memset (asked, 0, sizeof asked);
  memset (rooted, 0, sizeof rooted);
  pp_kseg_program program = {
    .nunits = 1, .nprocs = layout.prog.nprocs, .first_proc = first_proc,
    .layout = unit_layout, .notes = unit_notes, .proc = unit_proc, .mode = notes.mode,
    .depth = k_depth,
    .dense_max = dense_max, .hashed = hashed, .lock = lock };
  return pp_kseg_init (&program);
}
static uint64_t interesting[MAXPROCS][64];
/* The test's own supergraphs, per root.  */
static pp_seg_graph S[MAXPROCS];
static pp_paths *P[MAXPROCS];

static uint32_t store_site[MAXPROCS][3 * MAXPROCS], store_leaf[MAXPROCS][3 * MAXPROCS],
  store_cv[MAXPROCS][3 * MAXPROCS], store_rv[MAXPROCS][3 * MAXPROCS];
static uint32_t *p_site[MAXPROCS], *p_leaf[MAXPROCS], *p_cv[MAXPROCS], *p_rv[MAXPROCS];
static uint32_t ncalls_of[MAXPROCS], first_proc[1];

/* The roles the plugin places its probes by (gen-program.h).  */
static uint8_t *role_of[MAXPROCS];

/* The layout ip-notes.c would make: each site a call of its procedure, in
   program order.  */
static void
make_layout (uint32_t nprocs, uint32_t ncalls)
{
  memset (&layout, 0, sizeof layout);
  layout.prog = prog;
  layout.nunits = 1;
  layout.first_proc = first_proc;
  for (uint32_t p = 0; p < nprocs; p++)
    {
      ncalls_of[p] = 0;
      p_site[p] = store_site[p];
      p_leaf[p] = store_leaf[p];
      p_cv[p] = store_cv[p];
      p_rv[p] = store_rv[p];
      fnotes[p].name = (char *) "f";
    }
  for (uint32_t s = 0; s < ncalls; s++)
    {
      uint32_t p = calls[s].proc, k = ncalls_of[p]++;
      store_site[p][k] = s;
      store_leaf[p][k] = UINT32_MAX;
      store_cv[p][k] = calls[s].call;
      store_rv[p][k] = calls[s].ret;
    }
  layout.site_of_call = p_site;
  layout.leaf_edge = p_leaf;
  layout.call_vertex = p_cv;
  layout.return_vertex = p_rv;
  layout.call_block = p_cv;
  layout.ncalls_of = ncalls_of;
  layout.edge_role = role_of;	/* as the notes would record them */
  notes.nfunctions = nprocs;
  notes.functions = fnotes;
}

/* interproc-ppp: each root's interesting segments, a random set of its
   supergraph's numbers, and its checksum (wrong for about one in four).  */
static void
make_interesting (uint32_t nprocs, unsigned long long *rng)
{
  notes.mode = preferential ? PP_MODE_INTERPROC_PPP : PP_MODE_INTERPROC_SEGMENTS;
  uint64_t cfg[MAXPROCS];
  for (uint32_t p = 0; p < nprocs; p++)
    cfg[p] = fnotes[p].cfg_checksum = unit_rand (rng);
  for (uint32_t p = 0; p < nprocs; p++)
    {
      fnotes[p].ninteresting = 0;
      fnotes[p].interesting = interesting[p];
      slots_ok[p] = false;
      if (!preferential)
	continue;
      for (uint64_t n = 0; n < P[p]->npaths && fnotes[p].ninteresting < 64; n++)
	if (unit_rand (rng) % 2)
	  interesting[p][fnotes[p].ninteresting++] = n;
      slots_ok[p] = unit_rand (rng) % 4 != 0;
      fnotes[p].seg_checksum = pp_seg_checksum (&S[p], cfg) ^ !slots_ok[p];
      slots_ok[p] &= fnotes[p].ninteresting > 0;
    }
}

/* ---- The run, and the segments it takes.  */

struct sim
{
  uint32_t proc, v;
  uint64_t frame;
  uint32_t root;		/* the index of its root activation */
  uint32_t copy;		/* in the root's supergraph (the test's S) */
  uint32_t nchain, chain[MAXDEPTH + 1];	/* the sites from the root */
  uint32_t call;		/* the call under way, or UINT32_MAX */
  /* The call under way is of code not instrumented that calls back into
     the program (callback), this many times more (callbacks).  */
  uint32_t callbacks;
  bool callback;
  /* Root activations: the segment under way.  */
  uint32_t tok[MAXTOK], ntok;
  bool lost;
};

static struct sim st[MAXSTACK];
static uint32_t depth;
static bool trace;
#define EV(...) do { if (trace) printf (__VA_ARGS__); } while (0)

static void
emit (struct sim *r, uint32_t t)
{
  if (r->ntok < MAXTOK)
    r->tok[r->ntok] = t;
  r->ntok++;
}

/* Root activation r's segment ends (counted, or lost).  */
static void
end_segment (struct sim *r)
{
  EV ("end segment of root %u%s\n", (unsigned) (r - st), r->lost ? " (lost)" : "");
  if (r->lost)
    want.lost++;
  else
    seg_keep (&want, r->tok, r->ntok);
  r->ntok = 0;
}

/* A segment of a's root starts at vertex V of a.  */
static void
start_segment (struct sim *a, uint32_t v)
{
  struct sim *r = &st[a->root];
  const pp_seg_graph *s = &S[r->proc];
  r->ntok = 0;
  emit (r, T_START);
  for (uint32_t i = 0; i < a->nchain; i++)
    emit (r, a->chain[i]);
  emit (r, T_AT);
  emit (r, v);
  uint32_t node = s->copies[a->copy].first_node + v;
  r->lost = v != g[a->proc].entry
	    && P[r->proc]->start_of_node[node] == PP_PATH_NONE;
}

/* The copy a call at SITE from copy C enters, by the program alone.  */
static uint32_t
copy_at (const pp_seg_graph *s, uint32_t c, uint32_t site)
{
  for (uint32_t i = 0; i < s->ncopies; i++)
    if (s->copies[i].parent == c && s->copies[i].site == site)
      return i;
  return UINT32_MAX;
}

/* After S edge SE of a's root, written already, into vertex V of a: a cut
   ends the segment and starts one at V; an edge on no path loses it.  */
static void
cut_or_lost (struct sim *a, uint32_t se, uint32_t v)
{
  struct sim *r = &st[a->root];
  uint8_t role = P[r->proc]->role[se];
  if (role == PP_PATH_ROLE_BACK || role == PP_PATH_ROLE_CUT)
    {
      emit (r, T_CUT);
      end_segment (r);
      start_segment (a, v);
    }
  else if (role != PP_PATH_ROLE_DAG)
    r->lost = true;
}

/* a takes edge E of its procedure's graph.  */
static void
take_edge (struct sim *a, uint32_t e)
{
  struct sim *r = &st[a->root];
  uint32_t se = pp_seg_edge (&S[r->proc], a->copy, e);
  uint8_t role = P[r->proc]->role[se];
  emit (r, T_EDGE);
  emit (r, e);
  EV ("edge %u in proc %u (depth %u, copy %u, role %u)\n", e, a->proc, depth, a->copy, role);
  /* As the plugin's code takes it (pathprof-abi.h): nothing on its
     forest's edges, a cut in place (half of them: the others by EDGE)
     with no test of the value; or as the probe does when the function has
     too many edges for that, on every edge.  */
  if (in_place && role_of[a->proc][e] == PP_SEG_ROLE_TREE)
    ntree++;
  else if (in_place)
    {
      nedges_taken++;
      __pathprof_ip_step (a->frame, e, preferential ? 2 : 1,
			  role_of[a->proc][e] == PP_SEG_ROLE_CUT && (nedges_taken & 1),
			  (int) (nedges_taken & 2));
    }
  else
    __pathprof_seg_edge (a->frame, e);
  if (role == PP_PATH_ROLE_START)
    start_segment (a, g[a->proc].edges[e].dst);	/* the entry into a re-entry target */
  else
    cut_or_lost (a, se, g[a->proc].edges[e].dst);
  a->v = g[a->proc].edges[e].dst;
}

/* A call's CALL (the plugin's code names it: pathprof-abi.h) and RETURN,
   as the plugin's code makes it or as the probe.  */
static void
do_call (uint64_t frame, uint32_t k, const void *callee)
{
  __pathprof_ip_call_step (frame, k, callee);
}

static void
do_return (uint64_t frame, uint32_t k)
{
  if (in_place)
    __pathprof_ip_return_step (frame, k);
  else
    __pathprof_seg_return (frame, k);
}

/* The fake leave of vertex v of procedure p, or UINT32_MAX.  */
static uint32_t
leave_of (uint32_t p, uint32_t v)
{
  for (uint32_t i = g[p].succ_start[v]; i < g[p].succ_start[v + 1]; i++)
    {
      uint32_t e = g[p].succ_edges[i];
      if ((g[p].edges[e].flags & PP_EDGE_FAKE) && g[p].edges[e].dst == g[p].exit)
	return e;
    }
  return UINT32_MAX;
}

/* A re-entry target of procedure p, or UINT32_MAX.  */
static uint32_t
reentry_of (uint32_t p, unsigned long long *rng)
{
  uint32_t found = UINT32_MAX, n = 0;
  for (uint32_t i = g[p].succ_start[g[p].entry]; i < g[p].succ_start[g[p].entry + 1]; i++)
    {
      const pp_edge *e = &g[p].edges[g[p].succ_edges[i]];
      if ((e->flags & PP_EDGE_FAKE) && unit_rand (rng) % ++n == 0)
	found = e->dst;
    }
  return found;
}

/* The segment of the chain whose top activation is t ends at t's call
   under way (the process or a longjmp leaves it there).  */
static void
end_at_call (struct sim *t)
{
  struct sim *r = &st[t->root];
  if (t->call == UINT32_MAX)
    {
      r->lost = true;
      end_segment (r);
      return;
    }
  uint32_t e = leave_of (t->proc, calls[t->call].call);
  if (e == UINT32_MAX)
    r->lost = true;
  else
    {
      emit (r, T_EDGE);
      emit (r, e);
    }
  end_segment (r);
}

/* The activations above index `to` are gone: every chain's segment from
   the top down to the one of activation `to` ends at its top's call.  */
static void
abandon_to (uint32_t to, bool top_counted)
{
  if (!top_counted)
    end_at_call (&st[depth - 1]);
  while (depth > to + 1)
    {
      depth--;
      if (st[depth].root == depth)
	end_at_call (&st[depth - 1]);
    }
}

/* Enters procedure q from the top activation (or from outside); through
   a pointer (the call names no callee: INDIRECT), always as a root.  */
static void
enter (uint32_t q, uint32_t site, bool indirect)
{
  struct sim *c = depth ? &st[depth - 1] : NULL;
  struct sim *a = &st[depth];
  memset (a, 0, sizeof *a);
  a->proc = q;
  a->call = UINT32_MAX;
  /* The segments units' ENTER, of a unit whose functions are the
     procedures (ip_first 1), or ip-program.c's set-up.  */
  static struct __pathprof_unit unit = { .ip_first = 1 };
  a->frame = (q ^ site) & 1 ? __pathprof_seg_enter (&unit, q, &fn_addr[q])
	     : pp_kseg_enter (q, &fn_addr[q]);
  if (c && c->nchain < k_depth && !indirect)
    {
      a->root = c->root;
      a->nchain = c->nchain + 1;
      memcpy (a->chain, c->chain, c->nchain * sizeof *a->chain);
      a->chain[c->nchain] = site;
      const pp_seg_graph *s = &S[st[a->root].proc];
      a->copy = copy_at (s, c->copy, site);
      emit (&st[a->root], T_CALL);
      emit (&st[a->root], site);
      cut_or_lost (a, s->call_edge[s->first_call[c->copy]
				   + pp_seg_site_index (s, c->copy, site)], g[q].entry);
    }
  else
    {
      a->root = depth;
      a->copy = 0;
      rooted[q] = true;
      start_segment (a, g[q].entry);
    }
  depth++;
  a->v = g[q].entry;
}

/* Activation a's call at SITE (K among its procedure's) returns having
   run no ENTER of its callee that continues the segment (the callee is
   not instrumented, or not in the numbering, or it called back into the
   program, whose activations are roots): a site its copy inlines loses
   the segment, which goes on; the others take their SUMMARY edge.  */
static void
return_without_enter (struct sim *a, uint32_t site, uint32_t k)
{
  do_return (a->frame, k);
  const pp_seg_graph *s = &S[st[a->root].proc];
  uint32_t slot = s->first_call[a->copy] + pp_seg_site_index (s, a->copy, site);
  a->call = UINT32_MAX;
  a->v = calls[site].ret;
  if (a->nchain < k_depth)
    st[a->root].lost = true;
  else
    {
      emit (&st[a->root], T_SUMMARY);
      emit (&st[a->root], site);
      cut_or_lost (a, s->call_edge[slot], a->v);
    }
}

/* One random run of the program from procedure 0.  */
static void
run (unsigned long long *rng)
{
  depth = 0;
  enter (0, UINT32_MAX, false);
  for (unsigned steps = 0;; steps++)
    {
      struct sim *a = &st[depth - 1];
      const pp_graph *pg = &g[a->proc];
      uint32_t v = a->v;
      if (v == pg->exit)
	{
	  EV ("exit proc %u\n", a->proc);
	  if (in_place)
	    __pathprof_ip_exit_step (a->frame, preferential ? 2 : 1, (int) (steps & 1));
	  else
	    __pathprof_seg_exit (a->frame);
	  struct sim *r = &st[a->root];
	  depth--;
	  if (a->root == depth)
	    end_segment (r);
	  if (depth == 0)
	    return;
	  struct sim *c = &st[depth - 1];
	  uint32_t site = c->call;
	  if (c->callback)
	    {
	      /* A callback returns to the code not instrumented, which calls
		 back again (its ENTER then finds no caller: the first took
		 the call word) or returns.  */
	      if (c->callbacks && depth < MAXSTACK)
		{
		  c->callbacks--;
		  uint32_t q = (uint32_t) (unit_rand (rng) % prog.nprocs);
		  EV ("callback of proc %u again\n", q);
		  enter (q, site, true);
		}
	      else
		{
		  c->callback = false;
		  return_without_enter (c, site, site - layout.site_of_call[c->proc][0]);
		}
	      continue;
	    }
	  do_return (c->frame, site - layout.site_of_call[c->proc][0]);
	  /* The S edge back: RETURN, or SUMMARY from a root of its own; a cut
	     when the return vertex is a re-entry target.  */
	  if (a->root == depth && c->nchain < k_depth)
	    {
	      /* The copy inlines the site, but the callee, called through a
		 pointer, ran as a root.  */
	      st[c->root].lost = true;
	      c->call = UINT32_MAX;
	      c->v = calls[site].ret;
	      continue;
	    }
	  const pp_seg_graph *s = &S[st[c->root].proc];
	  uint32_t slot = s->first_call[c->copy] + pp_seg_site_index (s, c->copy, site);
	  uint32_t se = a->root == depth ? s->call_edge[slot] : s->return_edge[slot];
	  emit (&st[c->root], a->root == depth ? T_SUMMARY : T_RETURN);
	  emit (&st[c->root], site);
	  c->call = UINT32_MAX;
	  c->v = calls[site].ret;
	  cut_or_lost (c, se, c->v);
	  continue;
	}
      /* A call vertex calls.  */
      uint32_t site = UINT32_MAX;
      for (uint32_t i = 0; i < prog.ncalls; i++)
	if (calls[i].proc == a->proc && calls[i].call == v)
	  site = i;
      if (site != UINT32_MAX)
	{
	  uint32_t k = site - layout.site_of_call[a->proc][0], q = calls[site].callee;
	  uint32_t leave = leave_of (a->proc, v);
	  unsigned dice = (unsigned) (unit_rand (rng) % 8);
	  a->call = site;
	  if (leave != UINT32_MAX && (dice == 0 || steps > 300 || depth == MAXSTACK))
	    {
	      /* The callee ends the process before its first probe.  */
	      EV ("call site %u, the process ends in it\n", site);
	      do_call (a->frame, k, &fn_addr[q]);
	      pp_kseg_end_thread_paths ();
	      abandon_to (0, false);
	      return;
	    }
	  if (leave != UINT32_MAX && dice == 1)
	    {
	      /* A longjmp from the callee to a re-entry target of an
		 activation below.  */
	      uint32_t to = (uint32_t) (unit_rand (rng) % depth);
	      uint32_t t = reentry_of (st[to].proc, rng);
	      if (t != UINT32_MAX)
		{
		  EV ("call site %u, longjmp to activation %u at %u\n", site, to, t);
		  do_call (a->frame, k, NULL);
		  __pathprof_seg_land (st[to].frame, t, UINT32_MAX);
		  abandon_to (to, false);
		  depth = to + 1;
		  st[to].call = UINT32_MAX;
		  st[to].callback = false;
		  start_segment (&st[to], t);
		  st[to].v = t;
		  continue;
		}
	    }
	  if (dice == 2 && (steps & 2) && depth < MAXSTACK && steps <= 300)
	    {
	      /* The callee is not instrumented and calls back into the
		 program once to three times (qsort's comparisons): each
		 callback starts a root.  */
	      EV ("call site %u, code not instrumented calls back proc %u\n", site, q);
	      do_call (a->frame, k, &not_instrumented);
	      a->callback = true;
	      a->callbacks = (uint32_t) (unit_rand (rng) % 3);
	      enter (q, site, true);
	      continue;
	    }
	  if (dice == 2)
	    {
	      /* The callee runs no probe (not instrumented, or not in the
		 numbering).  */
	      EV ("call site %u, no ENTER\n", site);
	      do_call (a->frame, k, &fn_addr[q]);
	      return_without_enter (a, site, k);
	      continue;
	    }
	  if (depth == MAXSTACK || steps > 300)
	    {
	      /* The process ends here, no call under way that a leave names.  */
	      a->call = UINT32_MAX;
	      pp_kseg_end_thread_paths ();
	      abandon_to (0, false);
	      return;
	    }
	  /* A call through a pointer names no callee (pathprof-abi.h: the
	     plugin's tag 0), so the callee starts a root, even where the
	     copy inlines the site: the caller's segment is then lost.  */
	  bool indirect = dice == 3;
	  EV ("call site %u%s\n", site, indirect ? " (through a pointer)" : "");
	  do_call (a->frame, k, indirect ? NULL : &fn_addr[q]);
	  enter (q, site, indirect);
	  continue;
	}
      /* A block: a real edge out at random.  */
      uint32_t real[16], n = 0;
      for (uint32_t i = pg->succ_start[v]; i < pg->succ_start[v + 1] && n < 16; i++)
	if (!(pg->edges[pg->succ_edges[i]].flags & (PP_EDGE_FAKE | PP_EDGE_EXIT_ENTRY)))
	  real[n++] = pg->succ_edges[i];
      if (n && steps <= 400)
	{
	  take_edge (a, real[unit_rand (rng) % n]);
	  continue;
	}
      uint32_t leave = leave_of (a->proc, v);
      if (leave != UINT32_MAX)
	{
	  /* A computed goto leaves the block: to a re-entry target of the
	     activation, or the process ends.  */
	  EV ("jump from %u (leave %u)\n", v, leave);
	  __pathprof_seg_jump (a->frame, v);
	  struct sim *r = &st[a->root];
	  emit (r, T_EDGE);
	  emit (r, leave);
	  end_segment (r);
	  uint32_t t = steps <= 400 ? reentry_of (a->proc, rng) : UINT32_MAX;
	  if (t != UINT32_MAX)
	    {
	      __pathprof_seg_land (a->frame, t, UINT32_MAX);
	      abandon_to (depth - 1, true);
	      start_segment (a, t);
	      a->v = t;
	      continue;
	    }
	  pp_kseg_end_thread_paths ();
	  abandon_to (0, true);
	  return;
	}
      /* A dead end: the process ends with no call under way.  */
      pp_kseg_end_thread_paths ();
      abandon_to (0, false);
      return;
    }
}

/* ---- Comparing.  */

/* The counted segments, decoded in the test's supergraphs.  */
static void
decode_counted (void)
{
  static uint32_t edges[1 << 16];
  for (uint32_t i = 0; i < ncounted; i++)
    {
      uint32_t root = (uint32_t) counted[i].root, tok[MAXTOK];
      uint32_t nt = root < prog.nprocs && P[root]->max_path_edges < (1 << 16)
		    ? seg_tokens_of_number (&S[root], P[root], counted[i].num, edges, tok)
		    : UINT32_MAX;
      if (nt == UINT32_MAX)
	got.overflow = true;
      else
	seg_keep (&got, tok, nt);
    }
}

/* Where the procedures libprof asked for since kseg_init are not what a
   lazy layout needs: every procedure of the supergraph of each root that
   ran (so that an activation's procedure has its graph), and none but
   those within K_DEPTH calls of such a root (a run pays for the graphs
   its roots reach, not the program's).  NULL where they are.  */
static const char *
asked_differs (uint32_t nprocs, uint32_t ncalls)
{
  bool near[MAXPROCS] = { 0 };
  uint32_t dist[MAXPROCS];
  for (uint32_t r = 0; r < nprocs; r++)
    {
      if (!rooted[r])
	continue;
      for (uint32_t c = 0; c < S[r].ncopies; c++)
	if (!asked[S[r].copies[c].proc])
	  return "a procedure of a root's supergraph not asked for";
      /* Bellman-Ford over the calls, at most K_DEPTH rounds.  */
      for (uint32_t p = 0; p < nprocs; p++)
	dist[p] = p == r ? 0 : UINT32_MAX;
      for (uint32_t round = 0; round < k_depth; round++)
	for (uint32_t i = 0; i < ncalls; i++)
	  if (dist[calls[i].proc] == round && dist[calls[i].callee] == UINT32_MAX)
	    dist[calls[i].callee] = round + 1;
      for (uint32_t p = 0; p < nprocs; p++)
	near[p] |= dist[p] != UINT32_MAX;
    }
  for (uint32_t p = 0; p < nprocs; p++)
    if (asked[p] && !near[p])
      return "a procedure no root that ran reaches asked for";
  return NULL;
}

int
main (void)
{
  struct unit_property same = { .name = "kseg runtime: the segments counted are exactly the run's depth-k segments, lost ones lost (brute force)" };
  struct unit_property lazy = { .name = "kseg runtime: the program's layout is made once, when a root libprof numbers first runs, and not for a dump before" };
  struct unit_property few = { .name = "kseg runtime: libprof asks for the graph of every procedure of the supergraph of each root that runs, and of none a root that runs does not reach" };
  struct unit_property cached = { .name = "kseg runtime: the runs after a save take the roots numbered before from the numbering cache (none numbered again; every count exact, from a damaged file too, and a record whose checksums hold but whose entry is out of range numbered again)" };
  uint32_t numbered_before = 0, adopted = 0, renumbered = 0;
  char cache[64];
  snprintf (cache, sizeof cache, "test-kseg.%ld.numbering", (long) getpid ());
  struct unit_property slotted = { .name = "kseg runtime: interproc-ppp counts a segment in its root's slots exactly when it is interesting and the supergraph is the one it was learnt on (in an array or a hashed place too, where it has one)" };
  unsigned long long rng = 0x6b5e;
  unsigned runs = 0, segments = 0, lost = 0;
  uint64_t placed = 0, placed_slow = 0;	/* edges taken in place, by EDGE */
  for (unsigned t = 0; t < 800; t++)
    {
      unsigned long long seed = rng;
      uint32_t nprocs = 1 + (uint32_t) (unit_rand (&rng) % MAXPROCS), ncalls = 0;
      for (uint32_t p = 0; p < nprocs; p++)
	random_proc (&g[p], p, nprocs, &rng, calls, &ncalls);
      static uint32_t start[MAXPROCS + 1];
      /* The layout groups its calls (as ip-notes.c's do); the test's own
	 supergraphs are built without that for every other program.  */
      for (uint32_t p = 0; p < nprocs; p++)
	role_of[p] = program_roles (&g[p], p, calls, ncalls);
      prog = (pp_ip_program) { nprocs, g, NULL, 0, ncalls, calls, 0,
			       program_call_start (calls, ncalls, nprocs, start),
			       (const uint8_t *const *) role_of, false };
      pp_ip_program own = prog;
      if (t % 4 >= 2)
	own.call_start = NULL;
      k_depth = 1 + (uint32_t) (unit_rand (&rng) % MAXDEPTH);
      bool built = true;
      for (uint32_t p = 0; p < nprocs; p++)
	built &= pp_seg_build_numbered (&own, p, k_depth, &S[p], &P[p]) == PP_SEG_OK;
      make_layout (nprocs, ncalls);
      preferential = t % 2;
      if (built)
	make_interesting (nprocs, &rng);
      static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
      /* Roots with few segments count them in arrays: none, all, some.  */
      static const uint64_t dense_choice[] = { 0, PP_KSEG_DENSE_MAX, 6, 40 };
      dense_max = dense_choice[unit_rand (&rng) % 4];
      /* And the others in hashed places: none, a first table that must
	 grow (1, 2 places), libprof's.  */
      static const uint64_t hashed_choice[] = { 0, 1, 2, PP_KSEG_HASHED };
      hashed = hashed_choice[unit_rand (&rng) % 4];
      unit_check (&same, built && kseg_init (&lock) == 0,
		  "seed %llx: set-up failed", seed);
      /* A dump before any root ran makes no layout.  */
      if (built)
	pp_kseg_flush_slots ();
      unit_check (&lazy, layout_calls == 0, "seed %llx: the layout made for a dump", seed);
      /* The numbering cache: the first three runs number the roots and
	 save them, the last three (a new process, as it were) adopt them,
	 from a damaged file at times (every root numbered again).  */
      bool damage = t % 8 == 7, reseal = t % 8 == 3;
      unlink (cache);
      if (built)
	pp_kseg_open_cache (strdup (cache), pp_kseg_cache_key (seed, notes.mode, k_depth,
								  dense_max));
      for (unsigned r = 0; built && r < 6; r++)
	{
	  if (r == 3)
	    {
	      uint32_t numbered = pp_kseg_numbered ();
	      unit_check (&cached, pp_kseg_save_cache () == 0, "seed %llx: cannot save",
			  seed);
	      unit_check (&lazy, layout_calls == 1, "seed %llx: the layout asked for %u "
			  "times in three runs", seed, layout_calls);
	      const char *why = asked_differs (nprocs, ncalls);
	      unit_check (&few, !why, "seed %llx: %s", seed, why);
	      pp_kseg_free ();
	      if (damage)
		damage_file (cache, &rng);
	      if (reseal)
		reseal_inconsistent (cache);
	      kseg_init (&lock);
	      pp_kseg_open_cache (strdup (cache), pp_kseg_cache_key (seed, notes.mode, k_depth,
								  dense_max));
	      numbered_before = numbered;
	    }
	  want.n = got.n = want.lost = 0;
	  want.overflow = got.overflow = false;
	  ncounted = nlost = 0;
	  unsigned long long run_seed = rng;
	  trace = getenv ("KSEG_RUN") && strtoull (getenv ("KSEG_RUN"), NULL, 16) == run_seed;
	  in_place = r % 2;
	  uint64_t taken0 = nedges_taken, slow0 = nslow;
	  run (&rng);
	  if (in_place)
	    {
	      placed += nedges_taken - taken0;
	      placed_slow += nslow - slow0;
	    }
	  pp_kseg_flush_slots ();
	  decode_counted ();
	  bool where = true;
	  for (uint32_t i = 0; i < ncounted && where; i++)
	    {
	      uint32_t root = (uint32_t) counted[i].root;
	      bool slot = slots_ok[root]
			  && pp_notes_interesting (&fnotes[root], counted[i].num);
	      /* Without arrays for the starts of few segments nor hashed
		 places, exactly the interesting ones; with them, those too.  */
	      where = dense_max || hashed ? counted[i].slot || !slot
		      : counted[i].slot == slot;
	    }
	  unit_check (&slotted, where, "program seed %llx, run seed %llx: a segment "
		      "counted %s slots", seed, rng, where ? "" : "in or out of its");
	  runs++;
	  segments += want.n;
	  lost += want.lost;
	  bool equal = !want.overflow && !got.overflow && want.n == got.n
		       && want.lost == nlost;
	  if (equal)
	    {
	      seg_sort (&want);
	      seg_sort (&got);
	      for (uint32_t i = 0; i < want.n && equal; i++)
		equal = seg_cmp (want.tok[i], got.tok[i]) == 0;
	    }
	  if (!equal && getenv ("KSEG_DEBUG") && same.failures == 0)
	    {
	      for (uint32_t i = 0; i < want.n + got.n; i++)
		{
		  const uint32_t *tk = i < want.n ? want.tok[i] : got.tok[i - want.n];
		  uint32_t len = i < want.n ? want.len[i] : got.len[i - want.n];
		  printf ("%s:", i < want.n ? "want" : "got ");
		  for (uint32_t j = 0; j < len; j++)
		    if (tk[j] >= T_START)
		      printf (" %c", "SAECRMX"[tk[j] - T_START]);
		    else
		      printf (" %u", tk[j]);
		  putchar ('\n');
		}
	    }
	  unit_check (&same, equal, "program seed %llx, run seed %llx, k %u: %u "
		      "segments and %u lost, %u counted and %u lost", seed, run_seed,
		      k_depth, want.n, want.lost, got.n, nlost);
	}
      if (built)
	{
	  /* Those numbered in the first runs are adopted, none numbered
	     again (unless the file was damaged); the later runs' new ones
	     are numbered.  */
	  uint32_t again = pp_kseg_numbered ();
	  unit_check (&cached, damage || reseal || again + numbered_before <= nprocs,
		      "seed %llx: %u roots numbered in the first runs, %u after",
		      seed, numbered_before, again);
	  /* main runs as a root in every run: its resealed record refused.  */
	  unit_check (&cached, !reseal || !numbered_before || again > 0,
		      "seed %llx: a record whose entry is past its supergraph "
		      "adopted", seed);
	  adopted += damage || reseal ? 0 : numbered_before;
	  renumbered += damage && again;
	}
      unit_check (&lazy, !built || layout_calls == 1, "seed %llx: the layout asked for %u "
		  "times after the cache", seed, layout_calls);
      const char *why = built ? asked_differs (nprocs, ncalls) : NULL;
      unit_check (&few, !why, "seed %llx: %s (from the cache)", seed, why);
      pp_kseg_free ();
      for (uint32_t p = 0; p < nprocs; p++)
	{
	  if (P[p])
	    pp_paths_free (P[p]);
	  P[p] = NULL;
	  pp_seg_free (&S[p]);
	  pp_graph_free (&g[p]);
	  free (role_of[p]);
	  role_of[p] = NULL;
	}
    }
  struct unit_property inplace = { .name = "kseg runtime: in place, most edges are taken without a call" };
  unit_check (&inplace, placed_slow < (placed + ntree) / 2, "%llu of %llu edges "
	      "called EDGE", (unsigned long long) placed_slow,
	      (unsigned long long) (placed + ntree));
  unlink (cache);
  unit_check (&cached, adopted > 500, "only %u roots adopted", adopted);
  unit_report (&same);
  unit_report (&lazy);
  unit_report (&few);
  unit_report (&cached);
  unit_report (&slotted);
  unit_report (&inplace);
  struct unit_property chords = { .name = "kseg runtime: in place, the forest's edges carry no probe" };
  unit_check (&chords, ntree > placed / 8, "%llu edges without a probe, %llu with",
	      (unsigned long long) ntree, (unsigned long long) placed);
  unit_report (&chords);
  /* The code takes a cut with no test of its value (pathprof-abi.h
     __pathprof_ip_step): an untracked activation, whose values are zeros,
     must find no place there (its registers those of a lost segment) and
     so leave everything as it was, EDGE doing nothing for it.  */
  struct unit_property untracked = { .name = "kseg runtime: an untracked activation's cut in place finds no place and leaves its registers alone" };
  for (uint32_t width = 1; width <= 2; width++)
    {
      uint64_t frame = pp_kseg_untracked ();
      const struct __pathprof_ip_frame *f = (const struct __pathprof_ip_frame *)
					      (uintptr_t) frame;
      const uint64_t *st = (const uint64_t *) (uintptr_t) f->regs[2];
      bool none = st && st[3] == 0 && f->regs[5] == 0 && f->regs[8] == 0 && f->regs[9]
		  && *(const uint64_t *) (uintptr_t) f->regs[9] >> 63;
      unit_check (&untracked, none, "width %u: its registers name a place", width);
      if (!none)
	continue;
      uint64_t before[11];
      memcpy (before, f->regs, sizeof before);
      for (uint32_t e = 0; e < 8; e++)
	__pathprof_ip_step (frame, e, width, 1, 0);
      unit_check (&untracked, memcmp (before, f->regs, sizeof before) == 0,
		  "width %u: its registers moved", width);
    }
  unit_report (&untracked);
  printf ("kseg: %u runs, %u segments, %u lost; in place %llu edges, %llu by EDGE, "
	  "%llu without a probe; %u roots adopted from the numbering cache, %u "
	  "programs numbered again after damage to it\n", runs, segments, lost,
	  (unsigned long long) placed, (unsigned long long) placed_slow,
	  (unsigned long long) ntree, adopted, renumbered);
  return unit_exit_status ();
}
