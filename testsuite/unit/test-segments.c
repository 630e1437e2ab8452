/* Depth-k interprocedural path segments (corelib/segments.h) against brute
   force: on thousands of random programs (loops, several call sites per
   callee, recursion, fake leaves and re-entries), for every procedure as the
   root and k = 0 .. 3, every segment is enumerated by walking the program
   itself (a stack of call sites, a call followed while fewer than k are open,
   a return to the caller's return vertex, a fake leave ending the walk), and
   the Ball-Larus numbering of the root's
   supergraph must give exactly those walks: decoding 0 .. npaths-1 yields
   each once.  The cuts (backedges, edges into re-entry targets) are the
   numbering's; so are the edges on no path and the function entries into
   re-entry targets (paths.h); everything else (which copy a call enters,
   where a return goes, which calls are summaries, where fake edges lead) the
   walk finds on its own.  With
   k = 0, a segment never enters a call.  */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"
#include "plan.h"
#include "ppp.h"
#include "segments.h"
#include "unit.h"
#include "gen-program.h"
#include "seg-tokens.h"

#define MAXPROCS 4
#define MAXDEPTH 3
#define MAXTOKENS SEG_MAXTOK
#define MAXWALKS 3000

static struct seg_list found, decoded;

struct walker
{
  const pp_ip_program *prog;
  const pp_seg_graph *s;
  const pp_paths *p;
  uint32_t k;
  uint32_t tok[MAXTOKENS], ntok;
  /* The open calls: per level, the site and the copy it runs in.  */
  uint32_t site[MAXDEPTH + 2], copy[MAXDEPTH + 2], depth;
};

static void
emit (struct walker *w, uint32_t t)
{
  if (w->ntok < MAXTOKENS)
    w->tok[w->ntok] = t;
  w->ntok++;
}

static bool
is_cut (const pp_paths *p, uint32_t se)
{
  return p->role[se] == PP_PATH_ROLE_BACK || p->role[se] == PP_PATH_ROLE_CUT;
}

/* The call site whose call vertex V of procedure P is, or UINT32_MAX.  */
static uint32_t
site_at (const pp_ip_program *prog, uint32_t p, uint32_t v)
{
  for (uint32_t i = 0; i < prog->ncalls; i++)
    if (prog->calls[i].proc == p && prog->calls[i].call == v)
      return i;
  return UINT32_MAX;
}

/* The copy entered from copy C at SITE, by the program alone: the copy whose
   parent is C and whose site is SITE.  */
static uint32_t
copy_at (const pp_seg_graph *s, uint32_t c, uint32_t site)
{
  for (uint32_t i = 0; i < s->ncopies; i++)
    if (s->copies[i].parent == c && s->copies[i].site == site)
      return i;
  return UINT32_MAX;
}

static void walk_from (struct walker *w, uint32_t v);

/* Takes step TOKEN, ARG over S edge SE, then goes on at V (or ends there on
   a cut).  */
static void
step (struct walker *w, uint32_t token, uint32_t arg, uint32_t se, uint32_t v)
{
  uint8_t role = w->p->role[se];
  if (role == PP_PATH_ROLE_START || role == PP_PATH_ROLE_DEAD
      || role == PP_PATH_ROLE_LOST)
    return;			/* a start (ENTRY into a re-entry target), or on no path */
  uint32_t mark = w->ntok;
  emit (w, token);
  emit (w, arg);
  if (is_cut (w->p, se))
    {
      emit (w, T_CUT);
      seg_keep (&found, w->tok, w->ntok);
    }
  else
    walk_from (w, v);
  w->ntok = mark;
}

static void
walk_from (struct walker *w, uint32_t v)
{
  const pp_ip_program *prog = w->prog;
  uint32_t c = w->copy[w->depth], p = w->s->copies[c].proc;
  const pp_graph *g = &prog->procs[p];
  if (v == g->exit)
    {
      if (w->depth == 0)
	{
	  seg_keep (&found, w->tok, w->ntok);
	  return;
	}
      uint32_t site = w->site[w->depth];
      uint32_t slot = w->s->first_call[w->copy[w->depth - 1]]
		      + pp_seg_site_index (w->s, w->copy[w->depth - 1], site);
      w->depth--;
      step (w, T_RETURN, site, w->s->return_edge[slot], prog->calls[site].ret);
      w->copy[++w->depth] = c;
      w->site[w->depth] = site;
      return;
    }
  uint32_t site = site_at (prog, p, v);
  for (uint32_t k = g->succ_start[v]; k < g->succ_start[v + 1]; k++)
    {
      uint32_t e = g->succ_edges[k];
      const pp_edge *x = &g->edges[e];
      if (x->flags & PP_EDGE_EXIT_ENTRY)
	continue;
      if (x->flags & PP_EDGE_FAKE)
	{
	  /* A leave ends a walk (the call did not return).  */
	  if (x->src != g->entry)
	    {
	      uint32_t mark = w->ntok;
	      emit (w, T_EDGE);
	      emit (w, e);
	      seg_keep (&found, w->tok, w->ntok);
	      w->ntok = mark;
	    }
	  continue;
	}
      step (w, T_EDGE, e, pp_seg_edge (w->s, c, e), x->dst);
    }
  if (site == UINT32_MAX)
    return;
  uint32_t slot = w->s->first_call[c] + pp_seg_site_index (w->s, c, site);
  if (w->depth < w->k)
    {
      uint32_t q = copy_at (w->s, c, site);
      if (q == UINT32_MAX || w->s->copies[q].proc != prog->calls[site].callee)
	{
	  emit (w, 0xdeadu);	/* no such copy: a walk nobody decodes */
	  seg_keep (&found, w->tok, w->ntok);
	  w->ntok--;
	  return;
	}
      w->depth++;
      w->copy[w->depth] = q;
      w->site[w->depth] = site;
      step (w, T_CALL, site, w->s->call_edge[slot],
	    prog->procs[prog->calls[site].callee].entry);
      w->depth--;
    }
  else
    step (w, T_SUMMARY, site, w->s->call_edge[slot], prog->calls[site].ret);
}

/* Runs S's actions along segment N (decoded into EDGES): the number they
   end with (UINT64_MAX: an action that cannot be on it), and in *Q, q.  */
static uint64_t
run_actions (const pp_seg_graph *s, const pp_paths *p, const pp_seg_actions *a,
	     uint64_t n, uint32_t *edges, uint64_t *q)
{
  pp_path path = { .edges = edges };
  if (pp_paths_decode (p, n, &path) != PP_PATHS_OK
      || a->start_r[path.start_node] == PP_SEG_NOSTART)
    return UINT64_MAX;
  uint64_t r = a->start_r[path.start_node];
  *q = a->start_q[path.start_node];
  for (uint32_t i = 0; i < path.nedges; i++)
    {
      const pp_seg_op *o = &a->op[path.edges[i]];
      if (o->kind != PP_SEG_OP_ADD)
	return UINT64_MAX;
      r = (r + o->val) & PP_SEG_LOW;
      *q += a->val2[path.edges[i]];
    }
  if (path.end_edge == PP_PATH_NONE)
    return r;
  const pp_seg_op *o = &a->op[path.end_edge];
  if (o->kind != PP_SEG_OP_CUT || o->to != s->g.edges[path.end_edge].dst)
    return UINT64_MAX;
  *q += a->val2[path.end_edge];
  return (r + o->val) & PP_SEG_LOW;
}

/* The actions of S (with PPP's weights for a random interesting set, every
   other time) checked along each of its segments; false at the first
   wrong one.  */
static bool
actions_number (const pp_seg_graph *s, const pp_paths *p, unsigned long long *rng)
{
  uint64_t interesting[8];
  uint32_t ni = 0;
  pp_ppp ppp = { 0 };
  bool with_ppp = unit_rand (rng) % 2 && p->npaths;
  while (with_ppp && ni < 1 + unit_rand (rng) % 8)
    interesting[ni++] = unit_rand (rng) % p->npaths;
  if (with_ppp && pp_ppp_number (p, interesting, ni, &ppp) != PP_PATHS_OK)
    with_ppp = false;
  pp_seg_actions a;
  uint32_t *edges = malloc ((p->max_path_edges + 1) * sizeof *edges);
  bool ok = edges && pp_seg_actions_make (s, p, with_ppp ? &ppp : NULL, &a) == 0;
  for (uint64_t n = 0; ok && n < p->npaths; n++)
    {
      uint64_t q;
      ok = run_actions (s, p, &a, n, edges, &q) == n;
      for (uint32_t i = 0; ok && with_ppp && i < ppp.ninteresting; i++)
	if (ppp.interesting[i] == n)
	  ok = q == ppp.id[i];
    }
  /* Where S has roles, the forest's edges do nothing.  */
  for (uint32_t e = 0; ok && s->role && e < s->g.nedges; e++)
    ok = s->role[e] != PP_SEG_ROLE_TREE
	 || a.op[e].kind != PP_SEG_OP_ADD || (a.op[e].val == 0 && a.val2[e] == 0);
  free (edges);
  if (a.op)
    pp_seg_actions_free (&a);
  pp_ppp_free (&ppp);
  return ok;
}

/* The plan's call index of the call of copy C (a procedure of PROG) whose
   call vertex is S node U, where S does not inline it (a SUMMARY edge),
   else UINT32_MAX.  */
static uint32_t
summary_call_at (const pp_ip_program *prog, const pp_seg_graph *s, uint32_t c, uint32_t u)
{
  uint32_t q = s->copies[c].proc;
  for (uint32_t j = s->site_start[q]; j < s->site_start[q + 1]; j++)
    if (s->copies[c].first_node + prog->calls[pp_seg_site (s, j)].call == u
	&& s->child[s->first_call[c] + j - s->site_start[q]] == UINT32_MAX)
      return j - s->site_start[q];
  return UINT32_MAX;
}

/* What a run of compiled plans counted, in order (the first MAXCOUNTED).  */
#define MAXCOUNTED 256
struct counted
{
  uint64_t v[MAXCOUNTED];
  uint32_t n;
};

static void
count_one (struct counted *c, uint64_t number)
{
  if (c->n < MAXCOUNTED)
    c->v[c->n] = number;
  c->n++;
}

/* Runs the probes of PLAN at SITE, WHERE on the registers.  False on an
   action a compiled plan does not have.  */
static bool
run_site (const pp_plan *plan, uint8_t site, uint32_t where, uint64_t *r, uint64_t *pass,
	  uint64_t *record, struct counted *counted)
{
  for (uint32_t k = 0; k < plan->nprobes; k++)
    {
      const pp_probe *pr = &plan->probes[k];
      if (pr->where != where || pr->site != site)
	continue;
      if (pr->action == PP_PROBE_PATH_SET)
	*r = pr->operand;
      else if (pr->action == PP_PROBE_PATH_ADD)
	*r += pr->operand;
      else if (pr->action == PP_PROBE_PATH_PASS)
	*pass = *r + pr->operand;
      else if (pr->action == PP_PROBE_PATH_TAKE)
	*r = *pass + pr->operand;
      else if (pr->action == PP_PROBE_PATH_LEAVE)
	*record = pr->operand2 == PP_LEAVE_NONE ? 1 : *r + pr->operand;
      else if (pr->action == PP_PROBE_PATH_COUNT)
	count_one (counted, (*r + pr->operand) >> plan->pack_bits);
      else
	return false;
    }
  return true;
}

/* Runs the probes the plans (one a copy) put where S edge SE is taken, SE
   not a leave: a CALL's before the call, a RETURN's after it, a
   SUMMARY's both, a copy's edge on it.  */
static bool
run_edge (const pp_seg_graph *s, const pp_plan *plan, uint32_t se, uint64_t *r,
	  uint64_t *pass, uint64_t *record, struct counted *counted)
{
  uint32_t c = s->copy_of[se], where = s->arg[se];
  const pp_plan *pl = &plan[c];
  switch (s->kind[se])
    {
    case PP_SEG_CALL:
      return run_site (pl, PP_SITE_CALL_BEFORE, pp_seg_site_index (s, c, where), r, pass,
		       record, counted);
    case PP_SEG_RETURN:
      return run_site (pl, PP_SITE_CALL_AFTER, pp_seg_site_index (s, c, where), r, pass,
		       record, counted);
    case PP_SEG_SUMMARY:
      return run_site (pl, PP_SITE_CALL_BEFORE, pp_seg_site_index (s, c, where), r, pass,
		       record, counted)
	     && run_site (pl, PP_SITE_CALL_AFTER, pp_seg_site_index (s, c, where), r, pass,
			  record, counted);
    default:
      return run_site (pl, PP_SITE_EDGE, where, r, pass, record, counted);
    }
}

/* Is S edge SE a leave (where the process ends: a copy's fake edge, or L
   -> EXIT after it)?  */
static bool
is_leave (const pp_ip_program *prog, const pp_seg_graph *s, uint32_t se)
{
  uint32_t c = s->copy_of[se];
  return s->kind[se] == PP_SEG_LEAVE
	 || (s->kind[se] == PP_SEG_EDGE
	     && (prog->procs[s->copies[c].proc].edges[s->arg[se]].flags & PP_EDGE_FAKE));
}

/* The plans of every copy of S (PLAN, ncopies of them) for actions A of
   P's numbering, counting in arrays of at most ARRAY_MAX values, else in a
   table.  Returns the planner's status, or PP_PLAN_EGRAPH where a plan
   counts elsewhere.  */
static int
make_plans (const pp_ip_program *prog, const pp_seg_graph *s, const pp_paths *p,
	    const pp_seg_actions *a, uint64_t array_max, unsigned pack, pp_plan *plan)
{
  int rc = PP_PLAN_OK;
  bool table = p->npaths > array_max;
  for (uint32_t c = 0; rc == PP_PLAN_OK && c < s->ncopies; c++)
    {
      uint32_t q = s->copies[c].proc, sites[8], n = 0;
      for (uint32_t j = s->site_start[q]; j < s->site_start[q + 1] && n < 8; j++)
	sites[n++] = pp_seg_site (s, j);
      rc = pp_plan_compiled_copy (&prog->procs[q], s, c, a, p->npaths, sites, NULL, n,
				  array_max, pack, &plan[c]);
      if (rc == PP_PLAN_OK
	  && (plan[c].path_table != table || plan[c].nvalues != (table ? 0 : p->npaths)))
	rc = PP_PLAN_EGRAPH;
    }
  return rc;
}

/* Compiled roots: the plans pp_plan_compiled_copy makes of S's actions
   for each copy, run along each segment as the plugin's code runs them
   (the register set by the cut before it or by the root's entry edge,
   passed through the thread's word into each inlined call and back; a
   summary call's leave recorded before it, 1 after it, its edge added),
   count that segment, once, under its number; a segment that a summary
   call's leave ends (the process ended in that call) is the record's,
   which libprof counts (leave / 2: the number); another leave counts
   nothing (the process ended in a block without successors, or in an
   inlined call, whose copy's own record says where).  PACK: the plans'
   pack_bits (1: the register twice the number; 0: the number itself,
   which no plan with a record takes).  PROG's graphs are the
   copies'.  Returns 1 when it holds, 0 when not, -1 when a plan refuses
   S; *RECORDED counts the segments the record ended.  */
static int
compiled_counts (const pp_ip_program *prog, const pp_seg_graph *s, const pp_paths *p,
		 unsigned pack, unsigned *recorded)
{
  pp_seg_actions a;
  if (pp_seg_actions_make (s, p, NULL, &a))
    abort ();
  pp_plan *plan = calloc (s->ncopies, sizeof *plan);
  int rc = make_plans (prog, s, p, &a, UINT32_MAX, pack, plan);
  uint32_t *edges = malloc ((p->max_path_edges + 1) * sizeof *edges);
  int ok = rc == PP_PLAN_OK ? 1 : -1;
  for (uint64_t n = 0; ok == 1 && n < p->npaths; n++)
    {
      pp_path path = { .edges = edges };
      ok = pp_paths_decode (p, n, &path) == PP_PATHS_OK;
      uint64_t r = pp_plan_reg_operand (&plan[0], a.start_r[path.start_node]);
      uint64_t pass = 0, record = 1;
      struct counted counted = { .n = 0 };
      bool left = false, by_record = false;
      for (uint32_t i = 0; ok && !left && i <= path.nedges; i++)
	{
	  uint32_t se = i < path.nedges ? path.edges[i] : path.end_edge;
	  if (se == PP_PATH_NONE)
	    break;
	  uint32_t c = s->copy_of[se];
	  if (is_leave (prog, s, se))
	    {
	      /* A leave: at a summary call's vertex the process ended in
		 that call, whose probes before it ran.  */
	      uint32_t k = s->kind[se] == PP_SEG_EDGE
			   ? summary_call_at (prog, s, c, s->g.edges[se].src) : UINT32_MAX;
	      if (k != UINT32_MAX)
		{
		  ok = run_site (&plan[c], PP_SITE_CALL_BEFORE, k, &r, &pass, &record,
				 &counted);
		  by_record = true;
		}
	      left = true;
	    }
	  else
	    ok = run_edge (s, plan, se, &r, &pass, &record, &counted);
	}
      if (by_record)
	ok = ok && counted.n == 0 && !(record & 1) && record >> 1 == n;
      else
	ok = ok && (left ? counted.n == 0 : counted.n == 1 && counted.v[0] == n);
      *recorded += by_record;
    }
  free (edges);
  for (uint32_t c = 0; c < s->ncopies; c++)
    pp_plan_free (&plan[c]);
  free (plan);
  pp_seg_actions_free (&a);
  return ok;
}

/* Region cuts (P numbers S with a few segments at most, so that its cuts
   fall anywhere off the forest: on calls', returns', entries' and exits'
   edges too): the compiled plans run along random executions of S from
   its ENTRY to its EXIT count the segments S's actions end there, in
   order.  Returns 1 when it holds, 0 when not, -1 when a plan refuses S;
   *CHAINS counts the cuts the executions crossed on edges other than a
   copy's own inner edges.  */
static int
compiled_walks (const pp_ip_program *prog, const pp_seg_graph *s, const pp_paths *p,
		unsigned long long *rng, unsigned *chains)
{
  const pp_graph *g = &s->g;
  pp_seg_actions a;
  if (pp_seg_actions_make (s, p, NULL, &a))
    abort ();
  pp_plan *plan = calloc (s->ncopies, sizeof *plan);
  /* Counted in a table (the path-array-max the plugin passes is below
     the segments).  */
  int ok = make_plans (prog, s, p, &a, p->npaths - 1, 1, plan) == PP_PLAN_OK ? 1 : -1;
  static struct counted run, want;
  for (unsigned w = 0; ok == 1 && w < 16; w++)
    {
      uint32_t v = g->entry;
      uint64_t r = 0, pass = 0, record = 1, num = a.start_r[v];
      unsigned crossed = 0;
      run.n = want.n = 0;
      for (unsigned step = 0; ok == 1 && v != g->exit && step < 1000; step++)
	{
	  uint32_t cand[64], n = 0;
	  for (uint32_t i = g->succ_start[v]; i < g->succ_start[v + 1] && n < 64; i++)
	    if (!is_leave (prog, s, g->succ_edges[i]))
	      cand[n++] = g->succ_edges[i];
	  if (n == 0)
	    break;
	  uint32_t se = cand[unit_rand (rng) % n];
	  const pp_seg_op *op = &a.op[se];
	  const pp_edge *ed = &g->edges[se];
	  if (op->kind == PP_SEG_OP_ADD)
	    num = (num + op->val) & PP_SEG_LOW;
	  else if (op->kind == PP_SEG_OP_CUT)
	    {
	      count_one (&want, (num + op->val) & PP_SEG_LOW);
	      num = a.start_r[op->to];
	      uint32_t c = s->copy_of[se];
	      crossed += s->kind[se] != PP_SEG_EDGE || ed->src == s->copies[c].first_node
			 + prog->procs[s->copies[c].proc].entry
			 || ed->dst == s->copies[c].first_node
			 + prog->procs[s->copies[c].proc].exit;
	    }
	  else if (op->kind != PP_SEG_OP_NONE)
	    ok = 0;
	  if (ok == 1 && !run_edge (s, plan, se, &r, &pass, &record, &run))
	    ok = 0;
	  v = ed->dst;
	}
      if (v != g->exit)
	continue;		/* stuck, or too long: nothing to compare */
      count_one (&want, num);
      *chains += crossed;
      ok &= run.n == want.n
	    && memcmp (run.v, want.v,
		       (run.n < MAXCOUNTED ? run.n : MAXCOUNTED) * sizeof *run.v) == 0;
    }
  for (uint32_t c = 0; c < s->ncopies; c++)
    pp_plan_free (&plan[c]);
  free (plan);
  pp_seg_actions_free (&a);
  return ok;
}

/* Decodes every number of P (S's numbering) into tokens.  */
static void
decode_all (const pp_seg_graph *s, const pp_paths *p)
{
  uint32_t *edges = malloc ((p->max_path_edges + 1) * sizeof *edges);
  for (uint64_t n = 0; n < p->npaths && !decoded.overflow; n++)
    {
      uint32_t tok[MAXTOKENS];
      uint32_t nt = seg_tokens_of_number (s, p, n, edges, tok);
      if (nt == UINT32_MAX)
	abort ();
      seg_keep (&decoded, tok, nt);
    }
  free (edges);
}

int
main (void)
{
  struct unit_property same = { .name = "segments: the supergraph's paths are exactly the program's depth-k walks, each numbered once (brute force)" };
  struct unit_property given = { .name = "segments: with the plugin's roles, S is cut at the copies' own backedges and never on their forests" };
  struct unit_property acts = { .name = "segments: the actions (values on the chords, none on the forest) give every segment its number and every interesting one its slot" };
  struct unit_property compiled = { .name = "segments: a compiled root's plans count every segment once, under its number, through the calls' passes, or in its record where a summary call does not return" };
  unsigned ncompiled = 0, ncopies_compiled = 0, nrecorded = 0, nexact = 0;
  struct unit_property cut = { .name = "segments: with region cuts anywhere off the forest (calls', returns', entries'), a compiled root's plans count the segments S's actions end, in order" };
  unsigned nregions = 0, nchains = 0;
  struct unit_property shape = { .name = "segments: copies to depth k, one per open call chain; a call deeper is a summary edge" };
  unsigned long long rng = 0x5e6;
  unsigned cases = 0, skipped = 0, inlined = 0;
  for (unsigned t = 0; t < 1500; t++)
    {
      unsigned long long seed = rng;
      uint32_t nprocs = 1 + (uint32_t) (unit_rand (&rng) % MAXPROCS);
      pp_graph g[MAXPROCS];
      pp_ip_call calls[3 * MAXPROCS];
      uint32_t ncalls = 0;
      for (uint32_t p = 0; p < nprocs; p++)
	random_proc (&g[p], p, nprocs, &rng, calls, &ncalls);
      /* Every other program gives its calls' grouping (as ip-notes.c's
	 layouts do), the others leave it to pp_seg_build.  */
      uint32_t start[MAXPROCS + 1];
      /* Half of them give the roles of segments in place (the cuts at
	 each procedure's own backedges, region cuts off its forest).  */
      uint8_t *roles[MAXPROCS] = { 0 };
      for (uint32_t p = 0; t % 4 >= 2 && p < nprocs; p++)
	roles[p] = program_roles (&g[p], p, calls, ncalls);
      pp_ip_program prog = { nprocs, g, NULL, 0, ncalls, calls, 0,
			     t % 2 ? program_call_start (calls, ncalls, nprocs, start)
			     : NULL, t % 4 >= 2 ? (const uint8_t *const *) roles : NULL, false };
      for (uint32_t root = 0; root < nprocs; root++)
	for (uint32_t k = 0; k <= MAXDEPTH; k++)
	  {
	    pp_seg_graph s;
	    int rc = pp_seg_build (&prog, root, k, &s);
	    unit_check (&same, rc == PP_SEG_OK, "seed %llx: build failed (%d)", seed, rc);
	    if (rc != PP_SEG_OK)
	      continue;
	    /* Shape: every copy below k has a copy per site, none at k.  */
	    bool ok = s.copies[0].proc == root;
	    for (uint32_t c = 0; c < s.ncopies; c++)
	      {
		const pp_seg_copy *x = &s.copies[c];
		uint32_t n = s.site_start[x->proc + 1] - s.site_start[x->proc];
		for (uint32_t j = 0; j < n; j++)
		  {
		    uint32_t ch = s.child[s.first_call[c] + j];
		    uint32_t site = pp_seg_site (&s, s.site_start[x->proc] + j);
		    ok &= x->depth < k ? ch != UINT32_MAX && s.copies[ch].parent == c
					 && s.copies[ch].site == site
					 && s.copies[ch].proc == calls[site].callee
					 && s.copies[ch].depth == x->depth + 1
				       : ch == UINT32_MAX;
		  }
	      }
	    inlined += s.ncopies - 1;
	    unit_check (&shape, ok, "seed %llx: root %u, k %u", seed, root, k);
	    pp_paths *p;
	    if (pp_seg_number (&s, &p) != PP_PATHS_OK)
	      {
		unit_check (&same, 0, "seed %llx: root %u, k %u: numbering failed",
			    seed, root, k);
		pp_seg_free (&s);
		continue;
	      }
	    /* With roles, S ends segments at the copies' cuts and nowhere on
	       a forest.  */
	    bool placed = true;
	    for (uint32_t e = 0; s.role && e < s.g.nedges; e++)
	      {
		bool cut = p->role[e] == PP_PATH_ROLE_BACK || p->role[e] == PP_PATH_ROLE_CUT;
		placed &= (s.role[e] == PP_SEG_ROLE_CUT) <= cut
			  && !(cut && s.role[e] == PP_SEG_ROLE_TREE)
			  && p->role[e] != PP_PATH_ROLE_BACK;
	      }
	    unit_check (&given, placed, "seed %llx: root %u, k %u: a cut misplaced",
			seed, root, k);
	    if (p->npaths > MAXWALKS)
	      {
		skipped++;
		pp_paths_free (p);
		pp_seg_free (&s);
		continue;
	      }
	    found.n = decoded.n = 0;
	    found.overflow = decoded.overflow = false;
	    struct walker w = { .prog = &prog, .s = &s, .p = p, .k = k };
	    for (uint32_t v = 0; v < s.g.nnodes; v++)
	      if (v == s.g.entry || p->start_of_node[v] != PP_PATH_NONE)
		{
		  w.ntok = 0;
		  uint32_t c;
		  seg_start_tokens (&s, v, w.tok, &w.ntok, &c);
		  /* The open calls of the copy the walk starts in.  */
		  uint32_t chain[MAXDEPTH + 2], d = 0;
		  for (uint32_t i = c; i != 0; i = s.copies[i].parent)
		    chain[d++] = i;
		  w.depth = 0;
		  w.copy[0] = 0;
		  while (d)
		    {
		      uint32_t i = chain[--d];
		      w.depth++;
		      w.copy[w.depth] = i;
		      w.site[w.depth] = s.copies[i].site;
		    }
		  walk_from (&w, v - s.copies[c].first_node);
		}
	    decode_all (&s, p);
	    unit_check (&acts, actions_number (&s, p, &rng), "seed %llx: root %u, k %u",
			seed, root, k);
	    int cc = compiled_counts (&prog, &s, p, 1, &nrecorded);
	    ncompiled += cc == 1;
	    ncopies_compiled += cc == 1 ? s.ncopies - 1 : 0;
	    unit_check (&compiled, cc != 0, "seed %llx: root %u, k %u", seed, root, k);
	    /* The register holding the number itself, where no copy keeps a
	       record (the planner refuses a leave then).  */
	    unsigned none = 0;
	    int c0 = pp_plan_exact_numbers (&s, p->npaths)
		     ? compiled_counts (&prog, &s, p, 0, &none) : -1;
	    nexact += c0 == 1;
	    unit_check (&compiled, c0 != 0, "seed %llx: root %u, k %u, pack_bits 0", seed,
			root, k);
	    /* The same S with region cuts (at most a few segments).  */
	    pp_paths *rp;
	    if (p->npaths > 2
		&& pp_seg_number_max (&s, 1 + unit_rand (&rng) % (p->npaths - 1), &rp)
		   == PP_PATHS_OK)
	      {
		unit_check (&acts, actions_number (&s, rp, &rng),
			    "seed %llx: root %u, k %u, region cuts", seed, root, k);
		/* None into a leave's L (its only way out the LEAVE).  */
		bool kept = true;
		for (uint32_t e = 0; s.role && e < s.g.nedges; e++)
		  {
		    uint32_t l = s.g.edges[e].dst;
		    kept &= !(s.g.succ_start[l + 1] - s.g.succ_start[l] == 1
			      && s.kind[s.g.succ_edges[s.g.succ_start[l]]] == PP_SEG_LEAVE
			      && rp->role[e] == PP_PATH_ROLE_CUT);
		  }
		unit_check (&given, kept, "seed %llx: root %u, k %u: a region cut into a leave",
			    seed, root, k);
		int cw = compiled_walks (&prog, &s, rp, &rng, &nchains);
		nregions += cw == 1;
		unit_check (&cut, cw != 0, "seed %llx: root %u, k %u", seed, root, k);
		pp_paths_free (rp);
	      }
	    cases++;
	    bool equal = !found.overflow && !decoded.overflow && found.n == decoded.n;
	    if (equal)
	      {
		seg_sort (&found);
		seg_sort (&decoded);
		for (uint32_t i = 0; i < found.n && equal; i++)
		  equal = seg_cmp (found.tok[i], decoded.tok[i]) == 0
			  && (i == 0 || seg_cmp (found.tok[i - 1], found.tok[i]) != 0);
	      }
	    unit_check (&same, equal, "seed %llx: root %u, k %u: %u walks, %u "
			"decoded paths of %llu", seed, root, k, found.n, decoded.n,
			(unsigned long long) p->npaths);
	    pp_paths_free (p);
	    pp_seg_free (&s);
	  }
      for (uint32_t p = 0; p < nprocs; p++)
	{
	  pp_graph_free (&g[p]);
	  free (roles[p]);
	}
    }
  unit_report (&same);
  unit_report (&shape);
  unit_report (&given);
  unit_report (&acts);
  unit_check (&compiled, ncompiled > 100 && ncopies_compiled > 100 && nrecorded > 100
			 && nexact > 100,
	      "only %u compiled roots planned, with %u copies, %u segments ended by a record, "
	      "%u holding the number itself", ncompiled, ncopies_compiled, nrecorded, nexact);
  unit_report (&compiled);
  unit_check (&cut, nregions > 100 && nchains > 100,
	      "only %u compiled roots with region cuts, %u cuts crossed off inner edges",
	      nregions, nchains);
  unit_report (&cut);
  printf ("segments: %u supergraphs enumerated (%u too large), %u copies inlined, "
	  "%u compiled roots with %u copies (%u segments ended by a record); "
	  "%u with region cuts (%u cuts crossed on calls, returns, entries, exits)\n",
	  cases, skipped, inlined, ncompiled, ncopies_compiled, nrecorded, nregions,
	  nchains);
  return unit_exit_status ();
}
