/* Plans (plan.h): the planners of the modes in modes.h, the weighting policy, and
   the mapping between a plan and the notes.  Each planner only translates the
   result of its algorithm (coverage.h, edgeprof.h, paths.h) into probes.  */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/alloc.h"
#include "plan.h"
#include "ip-notes.h"
#include "format/modes.h"
#include "coverage.h"
#include "edgeprof.h"
#include "paths.h"
#include "ppp.h"
#include "segments.h"
#include "trace.h"

void
pp_plan_free (pp_plan *plan)
{
  pp_free (plan->probes);
  pp_free (plan->edge_flags);
  pp_free (plan->interesting);
  pp_free (plan->keys);
  memset (plan, 0, sizeof *plan);
}

static int
plan_alloc (pp_plan *plan, uint32_t nprobes)
{
  memset (plan, 0, sizeof *plan);
  plan->probes = pp_malloc ((nprobes ? nprobes : 1) * sizeof *plan->probes);
  return plan->probes ? 0 : -1;
}

static int
by_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return (x > y) - (x < y);
}

static void
add_probe (pp_plan *plan, uint8_t action, uint8_t site, uint32_t where,
	   uint32_t index, uint64_t operand)
{
  plan->probes[plan->nprobes++]
    = (pp_probe) { .action = action, .site = site, .where = where,
		   .index = index, .operand = operand };
}

int32_t *
pp_plan_counter_of_edge (const pp_plan *plan, uint32_t nedges)
{
  int32_t *counter = pp_malloc ((nedges ? nedges : 1) * sizeof *counter);
  if (!counter)
    return NULL;
  for (uint32_t e = 0; e < nedges; e++)
    counter[e] = -1;
  for (uint32_t i = 0; i < plan->nprobes; i++)
    if (plan->probes[i].site != PP_SITE_BLOCK && plan->probes[i].where < nedges)
      counter[plan->probes[i].where] = (int32_t) plan->probes[i].index;
  return counter;
}

int
pp_plan_weights (const pp_graph *g, int requested, const double *gcc_weight,
		 const uint64_t *counts, double *w)
{
  int weighting = requested;
  if (weighting == PP_WEIGHTS_PROFILE && !counts)
    weighting = PP_WEIGHTS_GCC;
  if (weighting == PP_WEIGHTS_GCC && !gcc_weight)
    weighting = PP_WEIGHTS_HEURISTIC;
  if (weighting == PP_WEIGHTS_GCC)
    memcpy (w, gcc_weight, g->nedges * sizeof *w);
  else if (weighting == PP_WEIGHTS_UNIFORM)
    pp_weights_uniform (g, w);
  else if (weighting == PP_WEIGHTS_PROFILE)
    {
      /* The static estimate orders what the run did not tell apart.  */
      if (!gcc_weight && pp_weights_heuristic (g, w) != 0)
	return -1;
      pp_weights_from_counts (g, counts, gcc_weight ? gcc_weight : w, w);
    }
  else if (pp_weights_heuristic (g, w) != 0)
    return -1;
  return weighting;
}

/* ------------------------------------------------------------------------- */
/* Planners.  */

/* The plan of N edge counters, COUNTER[e] the one of edge e or -1 (or N < 0:
   planning failed); frees COUNTER.  */
static int
counter_plan (const pp_graph *g, int32_t *counter, int n, int pinned,
	      pp_plan *out)
{
  if (!counter || n < 0 || plan_alloc (out, (uint32_t) n))
    {
      pp_free (counter);
      memset (out, 0, sizeof *out);
      return PP_PLAN_ENOMEM;
    }
  for (uint32_t e = 0; e < g->nedges; e++)
    if (counter[e] >= 0)
      add_probe (out, PP_PROBE_COUNT, PP_SITE_EDGE, e, (uint32_t) counter[e], 0);
  out->nvalues = (uint32_t) n;
  out->pinned_chords = pinned;
  pp_free (counter);
  return PP_PLAN_OK;
}

/* One counter on each chord of a maximum spanning tree (Ball & Larus 1994).  */
int
pp_plan_edge_counts (const pp_mode_info *mode, const pp_graph *g,
		     const pp_plan_input *in, pp_plan *out, const char **why)
{
  (void) mode;
  (void) why;
  int32_t *counter = pp_malloc ((g->nedges ? g->nedges : 1) * sizeof *counter);
  int pinned = 0;
  int n = counter ? pp_plan_edge_counters (g, in->weights, counter, &pinned) : -1;
  return counter_plan (g, counter, n, pinned, out);
}

/* Do blocks U and V share a source line (file and line)?  */
static bool
share_a_line (const pp_block_notes *u, const pp_block_notes *v)
{
  for (uint32_t i = 0; i < u->nlines; i++)
    for (uint32_t j = 0; j < v->nlines; j++)
      if (u->lines[i].file == v->lines[j].file
	  && u->lines[i].line == v->lines[j].line)
	return true;
  return false;
}

/* Vertex counts from edge counters, Vprof(Ecnt) (Ball & Larus 1994, s3.3;
   vertexprof.c): the chords of edge counting less those the block counts do not
   need.  Some edge counts must stay exact all the same (keep): those leaving
   ENTRY (the calls, apart from re-entries), and those between two blocks of one
   source line, which gcov's line counts add up (a line's count is the entries
   into its blocks plus the turns of its loops: tools/line-counts.c).  */
int
pp_plan_block_counts (const pp_mode_info *mode, const pp_graph *g,
		      const pp_plan_input *in, pp_plan *out, const char **why)
{
  (void) mode;
  (void) why;
  size_t m = g->nedges ? g->nedges : 1;
  int32_t *counter = pp_malloc (m * sizeof *counter);
  bool *keep = pp_calloc (m, sizeof *keep);
  int pinned = 0, n = -1;
  uint32_t removed;
  if (counter && keep)
    {
      const pp_function_notes *fn = in->notes;
      for (uint32_t e = 0; e < g->nedges; e++)
	{
	  const pp_edge *ed = &g->edges[e];
	  keep[e] = ed->src == g->entry
		    || (fn && ed->src < fn->nblocks && ed->dst < fn->nblocks
			&& share_a_line (&fn->blocks[ed->src], &fn->blocks[ed->dst]));
	}
      n = pp_plan_vertex_counters (g, in->weights, keep, counter, &pinned,
				   &removed);
    }
  pp_free (keep);
  return counter_plan (g, counter, n, pinned, out);
}

/* Tracing (trace.h): ENTER on the entry edge, the witnesses, LAND at the
   re-entry blocks; the witness numbers are the function's value indices (its
   values are one unused byte per witness: the notes keep them as value
   indices so that the tool finds the witnesses there).  The probes other than
   the witnesses follow from the graph: trace_edge_probes adds an edge's ENTER
   (before its witness) and marks the re-entry blocks, which
   trace_land_probes then gives their LAND, and trace_mark_last flags each
   activation's last record (trace.h "Returns").  */
static void
trace_edge_probes (pp_plan *out, uint32_t e, uint32_t src, uint32_t dst,
		   uint32_t flags, uint32_t entry, unsigned width, bool *reentry)
{
  if ((src == entry && (flags & PP_EDGE_FAKE)) || (flags & PP_EDGE_EH))
    reentry[dst] = true;
  if (pp_trace_real_flags (flags) && src == entry)
    add_probe (out, PP_PROBE_TRACE_ENTER, PP_SITE_EDGE, e, 0, width);
}

static void
trace_land_probes (pp_plan *out, uint32_t nblocks, const bool *reentry,
		   unsigned width)
{
  for (uint32_t v = 0; v < nblocks; v++)
    if (reentry[v])
      {
	add_probe (out, PP_PROBE_TRACE_LAND, PP_SITE_BLOCK, v, 0, v);
	out->probes[out->nprobes - 1].operand2 = width;
      }
}

/* PP_TRACE_LAST on the probes of the records after which regeneration's walk
   reaches EXIT without another: a witness, a LAND, or the ENTER of a
   function that writes none (its walk from the entry edge needs nothing).
   WIT: the witness per edge, BLOCK_FLAGS the notes' (PP_BLOCK_CALLS).
   Returns 0, or -1 when out of memory.  A graph regeneration cannot walk
   (pp_trace_function_init refuses it: not the plugin's, which has one real
   edge out of ENTRY) gets no mark; its trace is refused as before.  */
static int
trace_mark_last (pp_plan *plan, const pp_graph *g, const int32_t *wit,
		 const uint32_t *block_flags)
{
  pp_trace_function tf;
  int rc = pp_trace_function_init (&tf, g, wit, block_flags);
  if (rc)
    return rc == -1 ? -1 : 0;
  for (uint32_t i = 0; i < plan->nprobes; i++)
    {
      pp_probe *p = &plan->probes[i];
      if (p->action == PP_PROBE_TRACE_WITNESS && pp_trace_quiet_after (&tf, p->where))
	p->operand2 |= PP_TRACE_LAST;
      else if (p->action == PP_PROBE_TRACE_LAND && pp_trace_quiet_from (&tf, p->where))
	p->operand2 |= PP_TRACE_LAST;
      else if (p->action == PP_PROBE_TRACE_ENTER && wit[p->where] < 0
	       && pp_trace_quiet_after (&tf, p->where))
	p->operand |= PP_TRACE_LAST;
    }
  pp_trace_function_free (&tf);
  return 0;
}

/* trace_mark_last for the plan of FN's notes.  Returns 0, or -1 with err
   set.  */
static int
trace_last_from_notes (pp_plan *plan, const pp_function_notes *fn, char *err,
		       size_t errlen)
{
  pp_graph g;
  if (pp_notes_function_graph (fn, &g))
    {
      snprintf (err, errlen, "out of memory");
      return -1;
    }
  size_t m = g.nedges ? g.nedges : 1, nn = g.nnodes ? g.nnodes : 1;
  int32_t *wit = pp_malloc (m * sizeof *wit);
  uint32_t *block_flags = pp_malloc (nn * sizeof *block_flags);
  int rc = -1;
  if (wit && block_flags)
    {
      for (uint32_t e = 0; e < g.nedges; e++)
	wit[e] = fn->edges[e].value;
      for (uint32_t v = 0; v < g.nnodes; v++)
	block_flags[v] = fn->blocks[v].flags;
      rc = trace_mark_last (plan, &g, wit, block_flags);
    }
  pp_free (wit);
  pp_free (block_flags);
  pp_graph_free (&g);
  if (rc)
    snprintf (err, errlen, "out of memory");
  return rc;
}

int
pp_plan_trace (const pp_mode_info *mode, const pp_graph *g,
	       const pp_plan_input *in, pp_plan *out, const char **why)
{
  (void) mode;
  (void) why;
  size_t m = g->nedges ? g->nedges : 1, nn = g->nnodes ? g->nnodes : 1;
  int32_t *wit = pp_malloc (m * sizeof *wit);
  bool *calls = pp_calloc (nn, sizeof *calls), *reentry = pp_calloc (nn, sizeof *reentry);
  uint32_t *block_flags = pp_calloc (nn, sizeof *block_flags);
  int n = -1;
  if (wit && calls && reentry && block_flags)
    {
      for (uint32_t v = 0; in->notes && v < g->nnodes && v < in->notes->nblocks; v++)
	{
	  calls[v] = in->notes->blocks[v].flags & PP_BLOCK_CALLS;
	  block_flags[v] = in->notes->blocks[v].flags;
	}
      n = pp_trace_place (g, calls, in->weights, wit);
      if (n >= 0 && in->all_witnesses)
	{
	  n = 0;
	  for (uint32_t e = 0; e < g->nedges; e++)
	    wit[e] = pp_trace_real_edge (g, e) ? n++ : -1;
	}
    }
  if (n < 0 || plan_alloc (out, (uint32_t) (2 * g->nedges + g->nnodes)))
    {
      pp_free (wit);
      pp_free (calls);
      pp_free (reentry);
      pp_free (block_flags);
      memset (out, 0, sizeof *out);
      return PP_PLAN_ENOMEM;
    }
  unsigned width = pp_trace_width ((uint32_t) n);
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      const pp_edge *ed = &g->edges[e];
      trace_edge_probes (out, e, ed->src, ed->dst, ed->flags, g->entry, width,
			 reentry);
      if (wit[e] >= 0)
	add_probe (out, PP_PROBE_TRACE_WITNESS, PP_SITE_EDGE, e, (uint32_t) wit[e],
		   (uint64_t) wit[e]);
    }
  trace_land_probes (out, g->nnodes, reentry, width);
  out->nvalues = (uint32_t) n;
  int rc = trace_mark_last (out, g, wit, block_flags);
  pp_free (wit);
  pp_free (calls);
  pp_free (reentry);
  pp_free (block_flags);
  if (rc)
    {
      pp_plan_free (out);
      return PP_PLAN_ENOMEM;
    }
  return PP_PLAN_OK;
}

/* ROLE := PP_SEG_ROLE_CUT on the backedges of a DFS of G from ENTRY, else
   0.  */
static int
ip_cut_roles (const pp_graph *g, uint8_t *role)
{
  memset (role, 0, g->nedges * sizeof *role);
  pp_dfs d;
  if (pp_dfs_init (&d, g, PP_DFS_SUCCS, 0, NULL, NULL))
    return -1;
  pp_dfs_step step;
  pp_dfs_root (&d, g->entry);
  while (pp_dfs_next (&d, &step))
    if (step.event == PP_DFS_BACK && !(g->edges[step.edge].flags & PP_EDGE_EXIT_ENTRY))
      role[step.edge] = PP_SEG_ROLE_CUT;
  pp_dfs_free (&d);
  return 0;
}

int
pp_plan_ip_roles (const pp_graph *g, const double *weights, uint8_t *role)
{
  if (ip_cut_roles (g, role))
    return -1;
  if (g->nedges > PP_PLAN_IP_INLINE_EDGES)
    return 0;
  /* The forest: Kruskal on the real edges that may carry no probe, the
     others weighing nothing and left off (a graph without them).  */
  double *w = pp_malloc ((g->nedges + 1) * sizeof *w);
  bool *reentry = pp_calloc (g->nnodes + 1, sizeof *reentry);
  bool *on_tree = pp_malloc ((g->nedges + 1) * sizeof *on_tree);
  uint32_t *of = pp_malloc ((g->nedges + 1) * sizeof *of), n = 0;
  pp_graph f;
  memset (&f, 0, sizeof f);
  bool ok = w && reentry && on_tree && of
	    && pp_graph_init (&f, g->nnodes, g->entry, g->exit) == 0;
  if (ok && weights)
    memcpy (w, weights, g->nedges * sizeof *w);
  else if (ok)
    ok = pp_weights_heuristic (g, w) == 0;
  for (uint32_t e = 0; ok && e < g->nedges; e++)
    if (g->edges[e].src == g->entry && (g->edges[e].flags & PP_EDGE_FAKE))
      reentry[g->edges[e].dst] = true;
  for (uint32_t e = 0; ok && e < g->nedges; e++)
    {
      const pp_edge *x = &g->edges[e];
      if (role[e] || reentry[x->dst] || !pp_trace_real_flags (x->flags))
	continue;
      ok = pp_graph_add_edge (&f, x->src, x->dst, 0) != UINT32_MAX;
      w[n] = w[e];		/* n <= e */
      of[n++] = e;
    }
  ok = ok && pp_graph_finish (&f) == 0 && pp_max_spanning_tree (&f, w, on_tree) >= 0;
  for (uint32_t i = 0; ok && i < n; i++)
    if (on_tree[i])
      role[of[i]] = PP_SEG_ROLE_TREE;
  pp_graph_free (&f);
  pp_free (w);
  pp_free (reentry);
  pp_free (on_tree);
  pp_free (of);
  return ok ? 0 : -1;
}

/* Interprocedural paths (libprof/ip-program.c numbers them at run time, so
   no edge's value is known here): ENTER on the entry edge, a probe on every
   real edge but those whose value is 0 whatever the program (ip-notes.h,
   pp_ip_zero_edges; segments: none, a root's numbering inlines its
   callees, and with WIDTH > 0 each is an IP_ADD of WIDTH registers taken
   in place, on the chords of pp_plan_ip_roles' forest only), EXIT after those into EXIT, LAND at the blocks a longjmp, a
   computed goto or an exception may enter (with the setjmp call that starts
   the block, from the calls of FN, which may be NULL).  The probes follow
   from the graph and the kind of paths (enum pp_ip_kind, the mode's
   plan_arg): pp_plan_from_notes makes them again.  */
static int
interproc_probes (const pp_graph *g, const pp_function_notes *fn, int kind,
		  uint32_t width, const double *weights, bool roles_noted,
		  pp_plan *out)
{
  if (plan_alloc (out, 2 * g->nedges + g->nnodes + 1))
    return PP_PLAN_ENOMEM;
  bool *land = pp_calloc (g->nnodes + 1, sizeof *land);
  bool *zero = pp_calloc (g->nedges + 1, sizeof *zero);
  uint8_t *role = pp_calloc (g->nedges + 1, sizeof *role);
  bool segments = kind == PP_IP_SEGMENTS;
  /* Context and piecewise paths end at backedges, which the code marks as
     cuts (it counts a path there in place where it can, ctx-runtime.c), and
     their values are per procedure: no forest.  */
  if (segments && role && roles_noted)
    pp_ip_roles_of_notes (fn, role);
  else if (role && (segments ? pp_plan_ip_roles (g, weights, role)
		    : width && ip_cut_roles (g, role)))
    {
      pp_free (role);
      role = NULL;
    }
  if (segments && role)
    out->edge_flags = pp_calloc (g->nedges + 1, sizeof *out->edge_flags);
  if (!land || !zero || !role || (segments && !out->edge_flags))
    {
      pp_free (land);
      pp_free (zero);
      pp_free (role);
      pp_plan_free (out);
      return PP_PLAN_ENOMEM;
    }
  for (uint32_t e = 0; segments && e < g->nedges; e++)
    out->edge_flags[e] = role[e] == PP_SEG_ROLE_CUT ? PP_EDGE_PATH_END
			 : role[e] == PP_SEG_ROLE_TREE ? PP_EDGE_SEG_TREE : 0;
  /* Without the notes (or memory for the numbering), a probe on every edge.  */
  if (fn && (kind == PP_IP_SEGMENTS
	     || pp_ip_zero_edges (fn, kind == PP_IP_PIECEWISE, zero)))
    memset (zero, 0, (g->nedges + 1) * sizeof *zero);
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      const pp_edge *ed = &g->edges[e];
      if ((ed->src == g->entry && (ed->flags & PP_EDGE_FAKE)) || (ed->flags & PP_EDGE_EH))
	land[ed->dst] = true;
      if (!pp_trace_real_flags (ed->flags))
	continue;
      if (ed->src == g->entry)
	add_probe (out, PP_PROBE_IP_ENTER, PP_SITE_EDGE, e, 0, 0);
      if (width && (role[e] == PP_SEG_ROLE_TREE || zero[e]))
	;			/* adds 0 in every copy, or whatever the program */
      else if (width)
	{
	  /* Segments end at the function's backedges (in every copy of S):
	     their probes count a segment in place too.  */
	  add_probe (out, PP_PROBE_IP_ADD, PP_SITE_EDGE, e, 0, e);
	  out->probes[out->nprobes - 1].operand2
	    = width | (role[e] == PP_SEG_ROLE_CUT ? PP_PROBE_IP_CUTS : 0);
	}
      else if (!zero[e])
	add_probe (out, PP_PROBE_IP_EDGE, PP_SITE_EDGE, e, 0, e);
      if (ed->dst == g->exit)
	add_probe (out, PP_PROBE_IP_EXIT, PP_SITE_EDGE, e, 0, 0);
    }
  for (uint32_t v = 0; v < g->nnodes; v++)
    if (land[v])
      {
	uint32_t call = UINT32_MAX;
	for (uint32_t k = 0; fn && k < fn->ncalls; k++)
	  if (fn->calls[k].block == v && (fn->calls[k].flags & PP_CALL_RETURNS_TWICE))
	    call = k;
	add_probe (out, PP_PROBE_IP_LAND, PP_SITE_BLOCK, v, 0, v);
	out->probes[out->nprobes - 1].operand2 = call;
      }
  pp_free (land);
  pp_free (zero);
  pp_free (role);
  return PP_PLAN_OK;
}

uint64_t
pp_plan_reg_operand (const pp_plan *plan, uint64_t x)
{
  x &= PP_SEG_LOW;
  if (plan->pack_bits)
    return 2 * x;
  return x < (UINT64_C (1) << 62) ? x : x + (UINT64_C (1) << 63);
}

bool
pp_plan_exact_numbers (const struct pp_seg_graph *s, uint64_t npaths)
{
  uint64_t scale = 8 * (uint64_t) s->g.nnodes + 8;
  return npaths < (UINT64_C (1) << 62) / scale;
}

/* The add of S edge SE where it must be one (NONE and ADD), else *OK
   false.  */
static uint64_t
compiled_add (const pp_seg_actions *a, uint32_t se, bool *ok)
{
  if (se == UINT32_MAX || a->op[se].kind == PP_SEG_OP_NONE)
    return 0;
  *ok &= a->op[se].kind == PP_SEG_OP_ADD;
  return a->op[se].val;
}

/* What the segment under way of copy C ends with, added to r, where the
   process ends in (or a longjmp passes) the call whose edge in S is SE (a
   SUMMARY edge, or a leaf edge's): its source's leave u -> L -> EXIT (L's
   only way out), or NONE where u has none, *OK false where that is not
   one add.  */
static uint64_t
call_leave (const pp_seg_graph *s, const pp_seg_actions *a, uint32_t se, bool *ok)
{
  const pp_graph *g = &s->g;
  uint32_t u = g->edges[se].src;
  for (uint32_t i = g->succ_start[u]; i < g->succ_start[u + 1]; i++)
    {
      uint32_t x = g->succ_edges[i], l = g->edges[x].dst;
      if (x == se || s->kind[x] != PP_SEG_EDGE || g->succ_start[l + 1] - g->succ_start[l] != 1)
	continue;
      uint32_t y = g->succ_edges[g->succ_start[l]];
      if (s->kind[y] != PP_SEG_LEAVE)
	continue;
      return (compiled_add (a, x, ok) + compiled_add (a, y, ok)) & PP_SEG_LOW;
    }
  return UINT64_MAX;
}

/* The probes at one site (SITE, WHERE) of S edges SE[0 .. N-1] taken in
   turn, the register r holding what the segment under way sums to less
   ACC (twice, packed): an ADD adds to ACC, a CUT (a backedge's, or a
   region cut, which may be anywhere off the forest) counts the segment
   (PP_PROBE_PATH_COUNT r + ACC + its value) and starts the next at its
   head (PP_PROBE_PATH_SET, ACC 0).  Returns what is left to add; *OK false
   where an edge does what such a plan cannot (SET, LOST).  */
static uint64_t
chain (pp_plan *out, const pp_seg_actions *a, const uint32_t *se, uint32_t n, uint8_t site,
       uint32_t where, uint64_t acc, bool *ok)
{
  for (uint32_t i = 0; *ok && i < n; i++)
    {
      const pp_seg_op *op = se[i] == UINT32_MAX ? NULL : &a->op[se[i]];
      if (!op || op->kind == PP_SEG_OP_NONE)
	continue;
      if (op->kind == PP_SEG_OP_ADD)
	acc += op->val;
      else if (op->kind == PP_SEG_OP_CUT && a->start_r[op->to] != PP_SEG_NOSTART)
	{
	  add_probe (out, PP_PROBE_PATH_COUNT, site, where, 0,
		     pp_plan_reg_operand (out, acc + op->val));
	  add_probe (out, PP_PROBE_PATH_SET, site, where, 0,
		     pp_plan_reg_operand (out, a->start_r[op->to]));
	  acc = 0;
	}
      else
	*ok = false;
    }
  return acc & PP_SEG_LOW;
}

/* The probes of an edge into a copy: FIRST (r = OPERAND: PATH_SET, or
   PATH_TAKE, r = pass + OPERAND) then S edge SE's chain, with nothing
   left to add.  */
static void
chain_in (pp_plan *out, const pp_seg_actions *a, uint32_t se, uint8_t first, uint8_t site,
	  uint32_t where, uint64_t operand, bool *ok)
{
  uint32_t k = out->nprobes;
  add_probe (out, first, site, where, 0, operand);
  uint64_t acc = chain (out, a, &se, 1, site, where, 0, ok);
  if (out->nprobes == k + 1)
    out->probes[k].operand += pp_plan_reg_operand (out, acc);	/* no cut: one probe */
  else if (acc)
    add_probe (out, PP_PROBE_PATH_ADD, site, where, 0, pp_plan_reg_operand (out, acc));
}

/* Where copy C (not the root) of S, graph G, takes the register again: on
   the edges out of its first block that lead to a call, where that block
   makes no call itself (LEAF marks the calls' leaf edges; a call vertex
   has no other edge out in G), has no other way in, and the entry edge
   only adds (*ADD: its add).  The take on the entry edge is then live on
   the ways that return without a call only (a function's guard that often
   returns at once, as SQLite's getCellInfo does), and the ways with calls
   hold their own, so GCC keeps the callee-saved registers those need out
   of the quick ways, which it cannot when one value from the entry is
   live across a call (the code loads again with volatile loads, which GCC
   neither merges with the entry's nor hoists: probes.h PP_TAKE_APART;
   where the copy is inlined, the entry's take is its caller's pass,
   forwarded).  Returns that block, or UINT32_MAX.  */
static uint32_t
take_block (const pp_graph *g, const pp_seg_graph *s, uint32_t c, const pp_seg_actions *a,
	    const bool *leaf, uint64_t *add)
{
  if (g->succ_start[g->entry + 1] - g->succ_start[g->entry] != 1)
    return UINT32_MAX;
  uint32_t in = g->succ_edges[g->succ_start[g->entry]], b = g->edges[in].dst;
  uint32_t se = pp_seg_edge (s, c, in);
  if (!pp_trace_real_flags (g->edges[in].flags) || b == g->exit
      || g->pred_start[b + 1] - g->pred_start[b] != 1
      || g->succ_start[b + 1] == g->succ_start[b]
      || (se != UINT32_MAX && a->op[se].kind != PP_SEG_OP_ADD
	  && a->op[se].kind != PP_SEG_OP_NONE))
    return UINT32_MAX;
  for (uint32_t i = g->succ_start[b]; i < g->succ_start[b + 1]; i++)
    {
      uint32_t e = g->succ_edges[i];
      if (leaf[e] || !pp_trace_real_flags (g->edges[e].flags)
	  || (g->edges[e].flags & PP_EDGE_ABNORMAL))
	return UINT32_MAX;
    }
  *add = se != UINT32_MAX && a->op[se].kind == PP_SEG_OP_ADD ? a->op[se].val : 0;
  return b;
}

/* Marks in CALLS (per node of G) the nodes from which a real way leads to
   a call (a node with no real edge out: a program call's vertex; or a
   leaf edge's source, LEAF).  Returns false when out of memory.  */
static bool
lead_to_calls (const pp_graph *g, const bool *leaf, bool *calls)
{
  uint32_t *work = pp_malloc ((g->nnodes + 1) * sizeof *work), n = 0;
  if (!work)
    return false;
  for (uint32_t v = 0; v < g->nnodes; v++)
    {
      bool leaves = false;
      uint32_t real = 0;
      for (uint32_t i = g->succ_start[v]; i < g->succ_start[v + 1]; i++)
	{
	  uint32_t e = g->succ_edges[i];
	  leaves |= leaf[e];
	  real += pp_trace_real_flags (g->edges[e].flags);
	}
      calls[v] = v != g->exit && v != g->entry && (leaves || real == 0);
      if (calls[v])
	work[n++] = v;
    }
  while (n)
    {
      uint32_t v = work[--n];
      for (uint32_t i = g->pred_start[v]; i < g->pred_start[v + 1]; i++)
	{
	  uint32_t e = g->pred_edges[i], u = g->edges[e].src;
	  if (pp_trace_real_flags (g->edges[e].flags) && !calls[u])
	    {
	      calls[u] = true;
	      work[n++] = u;
	    }
	}
    }
  pp_free (work);
  return true;
}

/* Whether copy C of S (graph G) ends at the edges into block V instead of
   V's edge into EXIT: V's only way out is that edge (so V makes no call: a
   call vertex has no other edge out, a return vertex no way in, and V
   joins nothing but returns), every way into V can carry a probe, and the
   edge (with the RETURN edge RET of a copy below the root) only adds.
   Then each way that returns ends on its own (the root counts its
   segment, a copy passes the register), and the block they share, which
   ends them all at once in the plain function's epilogue, holds nothing:
   GCC keeps the callee-saved registers of one way out of another (the
   guard's quick return of take_block above, the root's count a constant
   there).  Returns the adds (modulo 2^63), or UINT64_MAX where V ends
   nothing.  */
static uint64_t
last_block (const pp_graph *g, const pp_seg_graph *s, uint32_t c, const pp_seg_actions *a,
	    uint32_t ret, const bool *leaf, uint32_t v)
{
  if (v == g->entry || v == g->exit || g->succ_start[v + 1] - g->succ_start[v] != 1
      || g->pred_start[v + 1] == g->pred_start[v])
    return UINT64_MAX;
  uint32_t x = g->succ_edges[g->succ_start[v]];
  if (g->edges[x].dst != g->exit || !pp_trace_real_flags (g->edges[x].flags) || leaf[x])
    return UINT64_MAX;
  for (uint32_t i = g->pred_start[v]; i < g->pred_start[v + 1]; i++)
    {
      uint32_t e = g->pred_edges[i];
      if (leaf[e] || !pp_trace_real_flags (g->edges[e].flags)
	  || (g->edges[e].flags & PP_EDGE_ABNORMAL))
	return UINT64_MAX;
    }
  uint32_t path[2] = { pp_seg_edge (s, c, x), ret };
  uint64_t acc = 0;
  for (unsigned i = 0; i < (c ? 2u : 1u); i++)
    {
      const pp_seg_op *op = path[i] == UINT32_MAX ? NULL : &a->op[path[i]];
      if (op && op->kind == PP_SEG_OP_ADD)
	acc += op->val;
      else if (op && op->kind != PP_SEG_OP_NONE)
	return UINT64_MAX;
    }
  return acc & PP_SEG_LOW;
}

int
pp_plan_compiled_copy (const pp_graph *g, const pp_seg_graph *s, uint32_t c,
		       const pp_seg_actions *a, uint64_t npaths,
		       const uint32_t *site_of_call, const uint32_t *leaf_edge,
		       uint32_t ncalls, uint64_t array_max, unsigned pack_bits, pp_plan *out)
{
  /* At most: per edge, two probes a cut of two (the RETURN edge's with its
     own) and one more; per call, a pass or a leave, and after it a take or
     a leave, a cut and an add.  */
  if (c >= s->ncopies || pack_bits > 1 || plan_alloc (out, 5 * g->nedges + 6 * ncalls + 1))
    return c >= s->ncopies || pack_bits > 1 ? PP_PLAN_EGRAPH : PP_PLAN_ENOMEM;
  out->pack_bits = pack_bits;
  out->npaths = npaths;
  out->path_table = npaths > array_max || npaths > UINT32_MAX;
  out->nvalues = out->path_table ? 0 : (uint32_t) npaths;
  const pp_seg_copy *copy = &s->copies[c];
  bool root = c == 0, ok = true;
  /* The calls' leaf edges, probed at their calls (below).  */
  bool *leaf = pp_calloc (g->nedges + 1, sizeof *leaf);
  if (!leaf)
    {
      pp_plan_free (out);
      return PP_PLAN_ENOMEM;
    }
  for (uint32_t k = 0; leaf_edge && k < ncalls; k++)
    if (leaf_edge[k] < g->nedges)
      leaf[leaf_edge[k]] = true;
  /* The root's start; the RETURN edge that ends another copy.  */
  uint64_t entry = root ? a->start_r[s->g.entry] : 0;
  uint32_t ret = UINT32_MAX;
  ok &= entry != PP_SEG_NOSTART;
  if (!root)
    {
      uint32_t j = pp_seg_site_index (s, copy->parent, copy->site);
      ok &= j != UINT32_MAX;
      if (ok)
	ret = s->return_edge[s->first_call[copy->parent] + j];
    }
  /* Per node, its edge into EXIT's adds where its ways in end the copy
     instead (last_block; UINT64_MAX: not).  */
  uint64_t *last = ok ? pp_malloc (g->nnodes * sizeof *last) : NULL;
  if (ok && !last)
    {
      pp_free (leaf);
      pp_plan_free (out);
      return PP_PLAN_ENOMEM;
    }
  for (uint32_t v = 0; ok && v < g->nnodes; v++)
    last[v] = last_block (g, s, c, a, ret, leaf, v);
  /* The ways out of the first block that lead to calls take again.  */
  uint64_t take = 0;
  uint32_t first = root || !ok ? UINT32_MAX : take_block (g, s, c, a, leaf, &take);
  bool *calls = first != UINT32_MAX ? pp_malloc ((g->nnodes + 1) * sizeof *calls) : NULL;
  if (first != UINT32_MAX && (!calls || !lead_to_calls (g, leaf, calls)))
    {
      pp_free (calls);
      pp_free (last);
      pp_free (leaf);
      pp_plan_free (out);
      return PP_PLAN_ENOMEM;
    }
  uint8_t end = root ? PP_PROBE_PATH_COUNT : PP_PROBE_PATH_PASS;
  for (uint32_t e = 0; ok && e < g->nedges; e++)
    {
      const pp_edge *ed = &g->edges[e];
      uint32_t se = pp_seg_edge (s, c, e);
      uint8_t kind = se == UINT32_MAX ? PP_SEG_OP_NONE : a->op[se].kind;
      if (ed->src == first && calls[ed->dst])
	{
	  add_probe (out, PP_PROBE_PATH_TAKE, PP_SITE_EDGE, e, 0, pp_plan_reg_operand (out, take));
	  out->probes[out->nprobes - 1].operand2 = PP_TAKE_APART;
	}
      if (!pp_trace_real_flags (ed->flags))
	{
	  /* A fake edge carries no probe: a leave where the process ends
	     (a block without successors, a call that did not return: its
	     record's) counts nothing here, as libprof's EXIT is not reached
	     there; anything else cannot be planned.  */
	  ok = (ed->dst == g->exit && ed->src != g->entry && kind != PP_SEG_OP_CUT
		&& kind != PP_SEG_OP_SET)
	       || (ed->flags & PP_EDGE_EXIT_ENTRY);
	  continue;
	}
      if (leaf[e])
	continue;		/* at its call, below */
      if (ed->src == g->entry)
	{
	  chain_in (out, a, se, root ? PP_PROBE_PATH_SET : PP_PROBE_PATH_TAKE, PP_SITE_EDGE, e,
		    pp_plan_reg_operand (out, entry), &ok);
	  if (last[ed->dst] != UINT64_MAX)
	    add_probe (out, end, PP_SITE_EDGE, e, 0, pp_plan_reg_operand (out, last[ed->dst]));
	}
      else if (ed->dst == g->exit)
	{
	  /* The root counts; another copy passes r back with its RETURN
	     edge's add (that edge is its parent's, at the call).  */
	  if (last[ed->src] != UINT64_MAX)
	    continue;		/* on the ways into its source */
	  uint32_t path[2] = { se, ret };
	  uint64_t acc = chain (out, a, path, root ? 1 : 2, PP_SITE_EDGE, e, 0, &ok);
	  add_probe (out, end, PP_SITE_EDGE, e, 0, pp_plan_reg_operand (out, acc));
	}
      else
	{
	  uint64_t acc = chain (out, a, &se, 1, PP_SITE_EDGE, e, 0, &ok);
	  if (last[ed->dst] != UINT64_MAX)
	    add_probe (out, end, PP_SITE_EDGE, e, 0, pp_plan_reg_operand (out, acc + last[ed->dst]));
	  else if (acc)
	    add_probe (out, PP_PROBE_PATH_ADD, PP_SITE_EDGE, e, 0, pp_plan_reg_operand (out, acc));
	}
    }
  pp_free (calls);
  pp_free (last);
  /* A call S inlines passes r, with its CALL edge's add, to the inlined
     copy, and takes it back; another records its leave, and adds its
     edge's value once it returns.  */
  for (uint32_t k = 0; ok && k < ncalls; k++)
    {
      uint32_t j = site_of_call[k] == UINT32_MAX ? UINT32_MAX
		   : pp_seg_site_index (s, c, site_of_call[k]);
      uint32_t child = j == UINT32_MAX ? UINT32_MAX : s->child[s->first_call[c] + j];
      uint32_t se = j != UINT32_MAX ? s->call_edge[s->first_call[c] + j]
		    : leaf_edge && leaf_edge[k] != UINT32_MAX ? pp_seg_edge (s, c, leaf_edge[k])
		    : UINT32_MAX;
      ok = se != UINT32_MAX;
      if (ok && child != UINT32_MAX)
	{
	  uint64_t acc = chain (out, a, &se, 1, PP_SITE_CALL_BEFORE, k, 0, &ok);
	  add_probe (out, PP_PROBE_PATH_PASS, PP_SITE_CALL_BEFORE, k, 0,
		     pp_plan_reg_operand (out, acc));
	  add_probe (out, PP_PROBE_PATH_TAKE, PP_SITE_CALL_AFTER, k, 0, 0);
	  continue;
	}
      uint64_t leave = ok ? call_leave (s, a, se, &ok) : 0;
      ok &= out->pack_bits == 1;	/* a record's leave is twice the number */
      add_probe (out, PP_PROBE_PATH_LEAVE, PP_SITE_CALL_BEFORE, k, 0,
		 leave == UINT64_MAX ? 0 : 2 * leave);
      out->probes[out->nprobes - 1].operand2 = leave == UINT64_MAX ? PP_LEAVE_NONE : 0;
      add_probe (out, PP_PROBE_PATH_LEAVE, PP_SITE_CALL_AFTER, k, 0, 0);
      out->probes[out->nprobes - 1].operand2 = PP_LEAVE_NONE;
      uint64_t acc = ok ? chain (out, a, &se, 1, PP_SITE_CALL_AFTER, k, 0, &ok) : 0;
      if (acc)
	add_probe (out, PP_PROBE_PATH_ADD, PP_SITE_CALL_AFTER, k, 0, pp_plan_reg_operand (out, acc));
    }
  pp_free (leaf);
  if (!ok)
    {
      pp_plan_free (out);
      return PP_PLAN_EGRAPH;
    }
  return PP_PLAN_OK;
}

bool
pp_plan_keeps_record (const pp_plan *plan)
{
  for (uint32_t i = 0; i < plan->nprobes; i++)
    if (plan->probes[i].action == PP_PROBE_PATH_LEAVE)
      return true;
  return false;
}

static int plan_interesting (pp_plan *out, const pp_plan_input *in);

/* The interprocedural modes take their edges in place, from tables of one
   value per register (pp_mode_ip_width): the registers, or 0 for EDGE
   calls.  */
static uint32_t
ip_width (const pp_mode_info *mode, const pp_graph *g)
{
  return g->nedges > PP_PLAN_IP_INLINE_EDGES ? 0 : pp_mode_ip_width (mode);
}

/* The preferential modes of segments also list the root's interesting
   segments (numbers of its supergraph, which libprof counts in slots).  */
int
pp_plan_interproc (const pp_mode_info *mode, const pp_graph *g,
		   const pp_plan_input *in, pp_plan *out, const char **why)
{
  (void) why;
  int rc = interproc_probes (g, in->notes, mode->plan_arg, ip_width (mode, g),
			    in->weights, false, out);
  if (rc == PP_PLAN_OK && mode->preferential && plan_interesting (out, in))
    {
      pp_plan_free (out);
      return PP_PLAN_ENOMEM;
    }
  return rc;
}

/* The blocks a block-cover report shows (with source lines, or entered from
   ENTRY), into a malloc'd array; NULL when out of memory.  */
static bool *
coverage_targets (const pp_graph *g, const pp_function_notes *fn)
{
  bool *target = pp_malloc ((g->nnodes ? g->nnodes : 1) * sizeof *target);
  if (!target)
    return NULL;
  for (uint32_t v = 0; v < g->nnodes; v++)
    target[v] = v != g->entry && v != g->exit && v < fn->nblocks
		&& fn->blocks[v].nlines > 0;
  for (uint32_t i = g->succ_start[g->entry]; i < g->succ_start[g->entry + 1]; i++)
    {
      const pp_edge *e = &g->edges[g->succ_edges[i]];
      if (!(e->flags & PP_EDGE_FAKE) && e->dst != g->exit)
	target[e->dst] = true;
    }
  return target;
}

int
pp_plan_coverage_of (const pp_graph *g, const pp_function_notes *fn,
		     enum pp_coverage_mode mode, const double *weights,
		     pp_coverage_plan *plan)
{
  bool *target = NULL;
  if (fn && mode != PP_COVER_EDGES && !(target = coverage_targets (g, fn)))
    return PP_COVERAGE_NOMEM;
  int rc = pp_coverage_plan_targets (g, mode, weights, target, plan);
  pp_free (target);
  return rc;
}

/* The estimated cost of coverage plan COV: its probes' weights (a block's,
   the sum over the edges into it).  */
static double
coverage_cost (const pp_graph *g, const pp_coverage_plan *cov, const double *w)
{
  double cost = 0;
  for (uint32_t i = 0; i < cov->nprobes; i++)
    if (cov->mode != PP_COVER_BLOCKS)
      cost += w[cov->probes[i]];
    else
      for (uint32_t k = g->pred_start[cov->probes[i]];
	   k < g->pred_start[cov->probes[i] + 1]; k++)
	cost += w[g->pred_edges[k]];
  return cost;
}

/* Block-cover's alternative: edge probes (V/E) for the targets TARGET
   instead of block probes, when they cost less under the weighting and see
   every target.  Replaces *COV then.  Returns a PP_COVERAGE status.  */
static int
cheaper_by_edges (const pp_graph *g, const bool *target, const double *weights,
		  pp_coverage_plan *cov)
{
  pp_coverage_plan by_edges;
  int rc = pp_coverage_plan_targets (g, PP_COVER_BLOCKS_BY_EDGES, weights, target,
				     &by_edges);
  if (rc)
    return rc;
  /* Less by more than rounding: a tie keeps the block probes.  */
  bool better = coverage_cost (g, &by_edges, weights)
		< coverage_cost (g, cov, weights) * (1 - 1e-9);
  for (uint32_t i = 0; i < by_edges.ninexact && better; i++)
    better = !target[by_edges.inexact[i]];
  pp_coverage_plan_free (better ? cov : &by_edges);
  if (better)
    *cov = by_edges;
  return 0;
}

/* The cheaper alternative to coverage probes of cost COST, if counting
   is: counters on the chords of edge counting's spanning tree
   (pp_plan_edge_counters), each weighing COUNTER_COST times its edge, make
   every edge's count and so every block's and edge's coverage exact by
   flow.  Bits cannot be added up: to tell that a loop's latch ran, a
   coverage probe must see it (or an edge into it) on each way round, where
   a counter elsewhere on the cycle tells it by subtraction (zlib's
   longest_match: the coverage probes ran 1.75 times as often as the
   counters).  Not when an abnormal edge would have to be measured: its
   count, and what follows from it, is not exact; nor where a run may stop
   without leaving (pp_coverage_may_stop: an infinite loop with no call),
   which coverage bytes tell and counts, losing that run's flow, do not.
   A run stops elsewhere only at EXIT, a fake leave, or a signal in
   straight-line code, which coverage bytes do not tell exactly either.
   Returns the counter of
   each edge (-1: none) and their number in *N, NULL when coverage probes
   stay, or N < 0 when out of memory.  */
static int32_t *
cheaper_by_counting (const pp_graph *g, const double *w, double counter_cost,
		     double cost, int *n)
{
  *n = 0;
  int stops = pp_coverage_may_stop (g);
  if (stops != 0)
    {
      *n = stops < 0 ? -1 : 0;
      return NULL;
    }
  int32_t *counter = pp_malloc ((g->nedges ? g->nedges : 1) * sizeof *counter);
  int pinned = 0;
  *n = counter ? pp_plan_edge_counters (g, w, counter, &pinned) : -1;
  if (*n < 0)
    {
      pp_free (counter);
      return NULL;
    }
  double counting = 0;
  for (uint32_t e = 0; e < g->nedges; e++)
    if (counter[e] >= 0)
      counting += w[e] * counter_cost;
  /* Less by more than rounding: a tie keeps the coverage probes.  */
  if (pinned == 0 && counting < cost * (1 - 1e-9))
    return counter;
  pp_free (counter);
  return NULL;
}

/* One-byte probes on the fewest blocks or edges (Chen et al.), the cheapest such
   set under the weighting; in block-cover only for the blocks a report shows
   (pp_plan_coverage_of's targets), and on edges instead where those cost less
   (cheaper_by_edges; the mode's value_sites allow both).  Among the probe
   sets that tell every shown block, the fewest block probes are not always
   the cheapest: in a loop whose body branches, one probe per iteration must
   see each way round, and an edge can be the rare way where a block cannot.
   And where counters on edge counting's chords weigh less than either, the
   function counts instead (cheaper_by_counting; the unit's values are then
   counters, of which the coverage bytes are 0 or 1, plugin.cc).  Which
   costs less is an estimate (GCC's, the heuristic's, or a previous run's
   counts), so the choice is per function and exactness never depends on
   it.  */
int
pp_plan_coverage (const pp_mode_info *mode, const pp_graph *g,
		  const pp_plan_input *in, pp_plan *out, const char **why)
{
  bool *target = NULL;
  if (pp_mode_shown_blocks (mode) && in->notes
      && !(target = coverage_targets (g, in->notes)))
    return PP_PLAN_ENOMEM;
  pp_coverage_plan cov;
  int rc = pp_coverage_plan_targets (g, (enum pp_coverage_mode) mode->plan_arg,
				     in->weights, target, &cov);
  if (rc == 0 && target && in->weights && (mode->value_sites & PP_SITES (PP_SITE_EDGE)))
    {
      rc = cheaper_by_edges (g, target, in->weights, &cov);
      if (rc)
	pp_coverage_plan_free (&cov);
    }
  int32_t *counter = NULL;
  int ncounters = 0;
  if (rc == 0 && in->weights && in->counter_cost > 0)
    {
      counter = cheaper_by_counting (g, in->weights, in->counter_cost,
				     coverage_cost (g, &cov, in->weights),
				     &ncounters);
      if (ncounters < 0)
	{
	  pp_coverage_plan_free (&cov);
	  rc = PP_COVERAGE_NOMEM;
	}
    }
  if (counter)
    {
      pp_coverage_plan_free (&cov);
      pp_free (target);
      uint32_t *flags = pp_calloc (g->nedges ? g->nedges : 1, sizeof *flags);
      if (!flags)
	{
	  pp_free (counter);
	  return PP_PLAN_ENOMEM;
	}
      for (uint32_t e = 0; e < g->nedges; e++)
	flags[e] = counter[e] >= 0 ? PP_EDGE_COUNTER : 0;
      rc = counter_plan (g, counter, ncounters, 0, out);
      if (rc == PP_PLAN_OK)
	out->edge_flags = flags;
      else
	pp_free (flags);
      return rc;
    }
  if (rc == 0 && plan_alloc (out, cov.nprobes))
    {
      pp_coverage_plan_free (&cov);
      rc = PP_COVERAGE_NOMEM;
    }
  if (rc != 0)
    {
      pp_free (target);
      if (rc == PP_COVERAGE_NOMEM)
	return PP_PLAN_ENOMEM;
      *why = "the graph does not fit the coverage model";
      return PP_PLAN_EGRAPH;
    }
  uint8_t site = cov.mode == PP_COVER_BLOCKS ? PP_SITE_BLOCK : PP_SITE_EDGE;
  for (uint32_t i = 0; i < cov.nprobes; i++)
    add_probe (out, PP_PROBE_MARK, site, cov.probes[i], i, 0);
  out->nvalues = cov.nprobes;
  /* What the plugin warns about: the blocks a report shows whose coverage
     the probes cannot tell (abnormal control flow, with edge probes), not
     the line-less ones block-cover leaves inexact on purpose.  */
  for (uint32_t i = 0; i < cov.ninexact; i++)
    out->ninexact += !target || target[cov.inexact[i]];
  pp_free (target);
  pp_coverage_plan_free (&cov);
  return PP_PLAN_OK;
}

/* The preferential slots: at most this many per function, and never more than
   needed for four times the interesting paths (or path_array_max): a numbering
   that spreads further counts its highest-numbered paths in the table.  */
#define PP_PLAN_MAX_SLOTS ((uint64_t) 1 << 24)

static uint64_t
slot_cap (const pp_plan_input *in)
{
  uint64_t cap = 4 * (uint64_t) in->ninteresting;
  if (cap < in->path_array_max)
    cap = in->path_array_max;
  return cap < PP_PLAN_MAX_SLOTS ? cap : PP_PLAN_MAX_SLOTS;
}

/* The slot of preferential number N in a plan whose slots are set
   (plan_slots), or UINT64_MAX when N has none (N == UINT64_MAX: no number).  */
static uint64_t
slot_of (const pp_plan *plan, uint64_t n)
{
  uint64_t slot = n + plan->slot_shift;
  return n != UINT64_MAX && slot < plan->nkeys ? slot : UINT64_MAX;
}

/* Which edges count an interesting path (where its first count action is),
   per original edge, into a calloc'd array; NULL when out of memory.  A count
   that no interesting path reaches needs no slot check: every path it counts
   goes to the table.  */
static bool *
interesting_count_sites (const pp_paths *p)
{
  bool *site = pp_calloc (p->nedges ? p->nedges : 1, sizeof *site);
  uint32_t *edges = pp_malloc ((p->max_path_edges + 1) * sizeof *edges);
  if (!site || !edges)
    {
      pp_free (site);
      pp_free (edges);
      return NULL;
    }
  for (uint32_t i = 0; i < p->ppp->ninteresting; i++)
    {
      pp_path path = { .edges = edges };
      if (pp_paths_decode (p, p->ppp->interesting[i], &path) != PP_PATHS_OK)
	continue;
      if (path.end_edge != PP_PATH_NONE)
	edges[path.nedges++] = path.end_edge;
      for (uint32_t k = 0; k < path.nedges; k++)
	if (p->action[edges[k]].count != PP_PATH_COUNT_NONE)
	  {
	    site[edges[k]] = true;
	    break;
	  }
    }
  pp_free (edges);
  return site;
}

/* The probes of one edge's path action: the count first, then the register
   updates.  KEYED_SITE (preferential numbering only): the edges where an
   interesting path may be counted.  In a packed plan (format/probes.h) each
   preferential operand joins its Ball-Larus one, (bl << pack_bits) + q, and
   the second register's actions go.  */
static void
add_path_probes (pp_plan *out, const pp_paths *p, const bool *keyed_site,
		 uint32_t e)
{
  const pp_path_action *a = &p->action[e];
  uint8_t site = a->at_source_end ? PP_SITE_SOURCE_END : PP_SITE_EDGE;
  unsigned bits = out->pack_bits;
  bool second = p->ppp && !bits;	/* q is a register of its own */
  uint64_t slot_offset = a->count_offset2 + out->slot_shift;
  if (a->count == PP_PATH_COUNT_REG)
    {
      bool keyed = p->ppp && keyed_site[e];
      add_probe (out, keyed ? PP_PROBE_PATH_COUNT_KEYED : PP_PROBE_PATH_COUNT, site,
		 e, 0, bits ? (a->count_offset << bits) + slot_offset : a->count_offset);
      if (keyed && second)
	out->probes[out->nprobes - 1].operand2 = slot_offset;
    }
  else if (a->count == PP_PATH_COUNT_CONST)
    {
      uint64_t slot = p->ppp ? slot_of (out, pp_ppp_slot (p->ppp, a->count_offset))
			     : UINT64_MAX;
      if (slot != UINT64_MAX)
	add_probe (out, PP_PROBE_PATH_COUNT_SLOT, site, e, (uint32_t) slot,
		   a->count_offset);
      else
	add_probe (out, PP_PROBE_PATH_COUNT_CONST, site, e, 0, a->count_offset);
    }
  uint64_t value = bits ? (a->reg_value << bits) + a->reg_value2 : a->reg_value;
  if (a->reg == PP_PATH_REG_SET)
    {
      add_probe (out, PP_PROBE_PATH_SET, site, e, 0, value);
      if (second)
	add_probe (out, PP_PROBE_PPP_SET, site, e, 0, a->reg_value2);
    }
  else if (a->reg == PP_PATH_REG_ADD)
    {
      if (value != 0)
	add_probe (out, PP_PROBE_PATH_ADD, site, e, 0, value);
      if (second && a->reg_value2 != 0)
	add_probe (out, PP_PROBE_PPP_ADD, site, e, 0, a->reg_value2);
    }
}

/* Whether every register operand of PLAN is a signed 32-bit value, an
   immediate of x86-64's adds and moves.  Packing is meant to save (format/probes.h):
   one update where there were two, one register for the activation.  A wider
   operand, such as a large Ball-Larus increment shifted by pack_bits, is a
   64-bit constant that GCC loads into a register and, inside a loop, keeps
   there: the register packing freed is taken again and the interpreter loop
   of SQLite (path numbers up to 2^28) spilled more, 23M instructions more
   packed than not, while zlib's keyed functions, whose operands fit, gained
   9.4M.  A heuristic, measured, not a proof.  */
static bool
operands_fit (const pp_plan *plan)
{
  for (uint32_t i = 0; i < plan->nprobes; i++)
    {
      const pp_probe *pr = &plan->probes[i];
      int64_t v = (int64_t) pr->operand;
      if ((pp_probe_sets_register (pr->action)
	   || pr->action == PP_PROBE_PATH_COUNT
	   || pr->action == PP_PROBE_PATH_COUNT_KEYED)
	  && (v < INT32_MIN || v > INT32_MAX))
	return false;
    }
  return true;
}

/* The interesting paths of a plan (sorted, unique).  */
static int
plan_interesting (pp_plan *out, const pp_plan_input *in)
{
  out->interesting = pp_malloc ((in->ninteresting ? in->ninteresting : 1)
			     * sizeof *out->interesting);
  if (!out->interesting)
    return -1;
  if (in->ninteresting)
    {
      memcpy (out->interesting, in->interesting,
	      in->ninteresting * sizeof *in->interesting);
      pp_sort (out->interesting, in->ninteresting, sizeof *out->interesting, by_u64);
    }
  for (uint32_t i = 0; i < in->ninteresting; i++)
    if (out->ninteresting == 0
	|| out->interesting[i] != out->interesting[out->ninteresting - 1])
      out->interesting[out->ninteresting++] = out->interesting[i];
  return 0;
}

/* The preferential half of a plan: the interesting paths and, when the
   function counts by preferential number, its slots.  */
static int
plan_slots (pp_plan *out, const pp_paths *p, const pp_plan_input *in)
{
  if (plan_interesting (out, in))
    return -1;
  const pp_ppp *ppp = p->ppp;
  if (!ppp)
    return 0;
  out->ppp_span = ppp->span;
  uint64_t cap = slot_cap (in);
  out->nkeys = (uint32_t) (ppp->span < cap ? ppp->span : cap);
  /* Slots for every path's number when that range fits the cap (with holes
     for the numbers no interesting path has): no path can then index outside
     them, and the check at a path end is the key comparison alone.  */
  if (ppp->bounded && ppp->span && ppp->lowest <= 0
      && (uint64_t) ppp->highest - (uint64_t) ppp->lowest < cap)
    {
      out->slot_shift = -(uint64_t) ppp->lowest;
      out->nkeys = (uint32_t) ((uint64_t) ppp->highest - (uint64_t) ppp->lowest + 1);
      out->keys_cover_all = true;
      /* One register for both numbers where they fit (format/probes.h): the fewest
	 bits a zero-extending move extracts.  */
      for (uint8_t bits = 8; bits <= 32 && !out->pack_bits && !in->two_registers;
	   bits *= 2)
	if (out->nkeys <= (uint64_t) 1 << bits
	    && p->npaths <= (uint64_t) 1 << (64 - bits))
	  out->pack_bits = bits;
    }
  out->keys = pp_malloc ((out->nkeys ? out->nkeys : 1) * sizeof *out->keys);
  if (!out->keys)
    return -1;
  for (uint32_t k = 0; k < out->nkeys; k++)
    out->keys[k] = UINT64_MAX;
  for (uint32_t i = 0; i < ppp->ninteresting; i++)
    {
      uint64_t slot = slot_of (out, ppp->id[i]);
      if (slot != UINT64_MAX)
	out->keys[slot] = ppp->interesting[i];
    }
  return 0;
}

/* Paths: Ball-Larus numbering of the DAG, increments on the chords of a
   maximum spanning tree of the DAG, counts in an array or, past
   path_array_max, a table.  The preferential modes number the paths as the
   previous profile did (its path ends) and, in a function too large for an
   array that has interesting paths, count those by preferential number in
   slots and the others in the table.  */
int
pp_plan_paths (const pp_mode_info *mode, const pp_graph *g,
	       const pp_plan_input *in, pp_plan *out, const char **why)
{
  pp_paths_options opt = { .weights = in->weights };
  if (mode->preferential)
    opt.path_end = in->prior_path_end;
  pp_paths *p;
  bool rejected = false;
  int rc = pp_paths_plan (g, &opt, &p);
  if (rc == PP_PATHS_OK && mode->preferential && in->ninteresting
      && p->npaths > in->path_array_max)
    {
      /* Again with the interesting paths, in this numbering (its region cuts
	 kept as path ends, so that nothing renumbers).  */
      pp_paths *q;
      opt.path_end = p->path_end;
      opt.interesting = in->interesting;
      opt.ninteresting = in->ninteresting;
      rc = pp_paths_plan (g, &opt, &q);
      if (rc == PP_PATHS_OK)
	{
	  pp_paths_free (p);
	  p = q;
	}
      else if (rc == PP_PATHS_ERANGE || rc == PP_PATHS_EINVAL)
	{
	  /* Numbers too spread, or not paths of this numbering (the caller
	     checks the prior first): every path in the table.  */
	  rejected = rc == PP_PATHS_EINVAL;
	  rc = PP_PATHS_OK;
	}
      else
	pp_paths_free (p);
    }
  if (rc == PP_PATHS_ENOMEM)
    return PP_PLAN_ENOMEM;
  if (rc != PP_PATHS_OK)
    {
      *why = pp_paths_strerror (rc);
      return PP_PLAN_EGRAPH;
    }
  if (plan_alloc (out, 4 * g->nedges)
      || !(out->edge_flags = pp_calloc (g->nedges ? g->nedges : 1,
				     sizeof *out->edge_flags))
      || (mode->preferential && !rejected && plan_slots (out, p, in)))
    {
      pp_plan_free (out);
      pp_paths_free (p);
      return PP_PLAN_ENOMEM;
    }
  bool *keyed_site = p->ppp ? interesting_count_sites (p) : NULL;
  if (p->ppp && !keyed_site)
    {
      pp_plan_free (out);
      pp_paths_free (p);
      return PP_PLAN_ENOMEM;
    }
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      add_path_probes (out, p, keyed_site, e);
      if (p->path_end[e])
	out->edge_flags[e] |= PP_EDGE_PATH_END;
    }
  if (out->pack_bits && !operands_fit (out))
    {
      out->pack_bits = 0;
      out->nprobes = 0;
      for (uint32_t e = 0; e < g->nedges; e++)
	add_path_probes (out, p, keyed_site, e);
    }
  pp_free (keyed_site);
  out->npaths = p->npaths;
  if (p->ppp)
    {
      out->path_table = true;
      out->nvalues = out->nkeys;
    }
  else
    {
      out->path_table = p->npaths > in->path_array_max;
      out->nvalues = out->path_table ? 0 : (uint32_t) p->npaths;
    }
  pp_paths_free (p);
  return PP_PLAN_OK;
}

void
pp_plan_to_notes (const pp_plan *plan, pp_function_notes *fn)
{
  fn->nvalues = plan->nvalues;
  fn->ninteresting = plan->ninteresting;
  fn->interesting = plan->interesting;
  fn->nkeys = plan->nkeys;
  fn->keys = plan->keys;
  fn->ppp_span = plan->ppp_span;
  for (uint32_t v = 0; v < fn->nblocks; v++)
    fn->blocks[v].value = -1;
  for (uint32_t e = 0; e < fn->nedges; e++)
    {
      fn->edges[e].value = -1;
      if (plan->edge_flags)
	fn->edges[e].flags |= plan->edge_flags[e];
    }
  for (uint32_t i = 0; i < plan->nprobes; i++)
    {
      const pp_probe *p = &plan->probes[i];
      if (p->site == PP_SITE_BLOCK)
	{
	  if (pp_probe_has_value_index (p->action))
	    fn->blocks[p->where].value = (int32_t) p->index;
	  continue;
	}
      pp_edge_notes *e = &fn->edges[p->where];
      if (pp_probe_has_value_index (p->action))
	e->value = (int32_t) p->index;
      else if (pp_probe_counts_path (p->action))
	e->flags |= PP_EDGE_PATH_COUNT
		    | (pp_probe_counts_constant (p->action) ? PP_EDGE_PATH_CONST : 0);
      else if (pp_probe_sets_register (p->action))
	e->flags |= PP_EDGE_PATH_REG
		    | (p->action == PP_PROBE_PATH_SET || p->action == PP_PROBE_PPP_SET
		       ? PP_EDGE_PATH_SET : 0);
    }
}

/* Fails with a message; returns -1.  */
static int
from_notes_error (pp_plan *plan, char *err, size_t errlen, const char *what,
		  uint32_t value)
{
  snprintf (err, errlen, "value %" PRIu32 " %s (corrupted profile)", value, what);
  pp_plan_free (plan);
  return -1;
}

/* Whether a value probe at SITE would join PLAN's value probes on the other
   kind of site (blocks and edges), which no planner does.  */
static bool
mixes_sites (const pp_plan *plan, uint8_t site)
{
  for (uint32_t i = 0; i < plan->nprobes; i++)
    if (pp_probe_has_value_index (plan->probes[i].action))
      return (plan->probes[i].site == PP_SITE_BLOCK) != (site == PP_SITE_BLOCK);
  return false;
}

/* Whether a value probe of ACTION would join PLAN's value probes of another
   (a coverage mode's function counts, or stores coverage bytes, never both).  */
static bool
mixes_actions (const pp_plan *plan, uint8_t action)
{
  for (uint32_t i = 0; i < plan->nprobes; i++)
    if (pp_probe_has_value_index (plan->probes[i].action))
      return plan->probes[i].action != action;
  return false;
}

/* A probe that stores value VALUE at site SITE, WHERE (an edge with edge
   flags FLAGS, or a block: 0).  Returns 0, or -1 when the mode puts no such
   probe there or the value has one already.  */
static int
add_value_probe (pp_plan *plan, const pp_mode_info *mode, bool *seen,
		 uint8_t site, uint32_t where, uint32_t flags, int32_t value,
		 char *err, size_t errlen)
{
  /* A coverage mode's counters: on edges, the function's only values.  */
  bool counter = flags & PP_EDGE_COUNTER;
  uint8_t action = counter ? PP_PROBE_COUNT : (uint8_t) mode->value_action;
  if (counter && mode->value_action != PP_PROBE_MARK)
    return from_notes_error (plan, err, errlen, "is a counter where the mode "
			     "has none", (uint32_t) value);
  if (mixes_actions (plan, action))
    return from_notes_error (plan, err, errlen, counter
			     ? "is a counter among coverage bytes"
			     : "is a coverage byte among counters",
			     (uint32_t) value);
  if (mode->value_action < 0 || !(mode->value_sites & PP_SITES (site))
      || ((mode->value_sites & PP_SITES (PP_SITE_BLOCK))
	  && (mode->value_sites & PP_SITES (PP_SITE_EDGE)) && mixes_sites (plan, site)))
    return from_notes_error (plan, err, errlen, site == PP_SITE_BLOCK
			     ? "is on a block" : "is on an edge",
			     (uint32_t) value);
  if (seen[value])
    return from_notes_error (plan, err, errlen, "has two probes",
			     (uint32_t) value);
  seen[value] = true;
  add_probe (plan, action, site, where, (uint32_t) value,
	     mode->traced ? (uint64_t) value : 0);
  return 0;
}

int
pp_plan_from_notes (const pp_function_notes *fn, const pp_mode_info *mode,
		    pp_plan *plan, char *err, size_t errlen)
{
  if (mode->calls)
    {
      pp_graph g;
      int rc = PP_PLAN_ENOMEM;
      if (pp_notes_function_graph (fn, &g) == 0)
	{
	  rc = interproc_probes (&g, fn, mode->plan_arg, ip_width (mode, &g), NULL,
				 true, plan);
	  pp_graph_free (&g);
	}
      if (rc)
	snprintf (err, errlen, "out of memory");
      return rc ? -1 : 0;
    }
  uint32_t n = 0;
  for (uint32_t v = 0; v < fn->nblocks; v++)
    n += fn->blocks[v].value >= 0;
  for (uint32_t e = 0; e < fn->nedges; e++)
    n += (fn->edges[e].value >= 0) + !!(fn->edges[e].flags & PP_EDGE_PATH_COUNT)
	 + !!(fn->edges[e].flags & PP_EDGE_PATH_REG);
  if (mode->traced)
    n += 2 * fn->nedges + fn->nblocks;
  bool *seen = pp_calloc (fn->nvalues ? fn->nvalues : 1, sizeof *seen);
  bool *reentry = pp_calloc (fn->nblocks ? fn->nblocks : 1, sizeof *reentry);
  if (!seen || !reentry || plan_alloc (plan, n))
    {
      pp_free (seen);
      pp_free (reentry);
      snprintf (err, errlen, "out of memory");
      return -1;
    }
  plan->nvalues = fn->nvalues;
  unsigned width = pp_trace_width (fn->nvalues);
  int status = 0;
  for (uint32_t e = 0; e < fn->nedges && status == 0; e++)
    {
      const pp_edge_notes *en = &fn->edges[e];
      if (mode->traced)
	trace_edge_probes (plan, e, en->src, en->dst, en->flags, 0, width, reentry);
      if (en->value >= 0)
	status = add_value_probe (plan, mode, seen, PP_SITE_EDGE, e, en->flags,
				  en->value, err, errlen);
      if (status)
	break;
      uint8_t site = en->flags & PP_EDGE_FAKE ? PP_SITE_SOURCE_END : PP_SITE_EDGE;
      if (en->flags & PP_EDGE_PATH_COUNT)
	add_probe (plan, en->flags & PP_EDGE_PATH_CONST
			 ? PP_PROBE_PATH_COUNT_CONST : PP_PROBE_PATH_COUNT,
		   site, e, 0, 0);
      if (en->flags & PP_EDGE_PATH_REG)
	add_probe (plan, en->flags & PP_EDGE_PATH_SET
			 ? PP_PROBE_PATH_SET : PP_PROBE_PATH_ADD, site, e, 0, 0);
    }
  for (uint32_t v = 0; v < fn->nblocks && status == 0; v++)
    if (fn->blocks[v].value >= 0)
      status = add_value_probe (plan, mode, seen, PP_SITE_BLOCK, v, 0,
				fn->blocks[v].value, err, errlen);
  for (uint32_t i = 0; i < fn->nvalues && status == 0 && mode->value_action >= 0;
       i++)
    if (!seen[i])
      status = from_notes_error (plan, err, errlen, "has no probe", i);
  if (status == 0 && mode->traced)
    {
      trace_land_probes (plan, fn->nblocks, reentry, width);
      status = trace_last_from_notes (plan, fn, err, errlen);
    }
  pp_free (seen);
  pp_free (reentry);
  return status;
}

int
pp_plan_mode (const pp_mode_info *mode, const pp_graph *g, const pp_plan_input *in,
	      pp_plan *out, const char **why)
{
  static pp_planner *const planner[PP_PLANNER_COUNT] = {
    [PP_PLANNER_EDGE_COUNTS] = pp_plan_edge_counts,
    [PP_PLANNER_BLOCK_COUNTS] = pp_plan_block_counts,
    [PP_PLANNER_COVERAGE] = pp_plan_coverage,
    [PP_PLANNER_TRACE] = pp_plan_trace,
    [PP_PLANNER_INTERPROC] = pp_plan_interproc,
    [PP_PLANNER_PATHS] = pp_plan_paths,
  };
  return planner[mode->planner] (mode, g, in, out, why);
}
