/* The branch stream of a trace (trace-branches.h).  */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "branch-layout.h"
#include "trace-branches.h"

const char *
trace_branch_kind_name (enum trace_branch_kind k)
{
  static const char *const names[] = { "ct", "cn", "j", "ij", "c", "r" };
  return (unsigned) k < sizeof names / sizeof *names ? names[k] : "?";
}

static int8_t
kind_of (enum branch_kind k)
{
  switch (k)
    {
    case BRANCH_COND_TAKEN: return TRACE_BRANCH_COND_TAKEN;
    case BRANCH_COND_NOT_TAKEN: return TRACE_BRANCH_COND_NOT_TAKEN;
    case BRANCH_JUMP: return TRACE_BRANCH_JUMP;
    case BRANCH_INDIRECT: return TRACE_BRANCH_INDIRECT_JUMP;
    case BRANCH_NONE: break;
    }
  return -1;
}

static int
lay_out (trace_branch_function *fn, const pp_graph *g, const pp_trace_function *tf,
	 uint64_t base)
{
  fn->base = base;
  fn->order = branch_layout_order (g);
  fn->edges = calloc (g->nedges ? g->nedges : 1, sizeof *fn->edges);
  if (!fn->order || !fn->edges)
    return -1;
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      uint32_t src = g->edges[e].src, dst = g->edges[e].dst;
      uint32_t n = pp_trace_real_out_degree (g, src);
      unsigned bits = 0;
      while (n > 1 && ((uint32_t) 1 << bits) < n)
	bits++;
      fn->edges[e] = (trace_branch_edge) {
	base + ((uint64_t) fn->order[src] << 4) + 12,
	base + ((uint64_t) fn->order[dst] << 4),
	kind_of (branch_layout_kind (g, fn->order, e)), (uint8_t) bits,
	pp_trace_real_edge (g, e) && dst != g->exit, dst };
    }
  fn->first = base + ((uint64_t) fn->order[g->edges[tf->entry_edge].dst] << 4);
  return 0;
}

int
trace_branches_init (trace_branches *b, trace_file *t)
{
  memset (b, 0, sizeof *b);
  b->t = t;
  b->fn = calloc (t->nfunctions + 1, sizeof *b->fn);
  if (!b->fn)
    return -1;
  uint64_t next = BRANCH_TEXT_START;
  for (uint32_t u = 0; u < t->nunits; u++)
    for (uint32_t f = 0; f < t->units[u].notes.nfunctions; f++)
      {
	if (lay_out (&b->fn[t->units[u].first + f], &t->units[u].graphs[f],
		     &t->units[u].functions[f], next))
	  {
	    trace_branches_free (b);
	    return -1;
	  }
	next += (uint64_t) t->units[u].notes.functions[f].nblocks << 4;
      }
  return 0;
}

/* Runs.  A run regeneration replays (pp_trace_regen_ops.run) is summed up
   the first time it comes: the branches its edges retire, as the
   trace_branch_run its consumer takes, what the edges add to the counts,
   and the block the activation is at after them.  A run's tag finds its
   summary again (a summary names its run's edges, so that a tag another
   trace_branches set is not taken for one of these); there is one summary
   a run, so their memory is bounded as the runs' is.  */
struct trace_branch_summary
{
  const uint32_t *edges;	/* the run's */
  uint32_t blocks, outcome_bits;
  uint32_t last_block;		/* UINT32_MAX: no block */
  trace_branch_run r;
};

void
trace_branches_free (trace_branches *b)
{
  for (uint32_t i = 0; b->fn && i < b->t->nfunctions; i++)
    {
      free (b->fn[i].order);
      free (b->fn[i].edges);
    }
  for (size_t i = 0; i < b->nruns; i++)
    free (b->runs[i]);
  free (b->runs);
  free (b->fn);
  free (b->frames);
  memset (b, 0, sizeof *b);
}

int
trace_branches_labels (trace_branches *b,
		       void (*label) (void *ctx, uint64_t addr, const char *text),
		       void *ctx)
{
  trace_file *t = b->t;
  const char **names = malloc ((t->nfunctions + 1) * sizeof *names);
  branch_names bn = { 0 };
  size_t n = 0;
  for (uint32_t u = 0; names && u < t->nunits; u++)
    for (uint32_t f = 0; f < t->units[u].notes.nfunctions; f++)
      names[n++] = t->units[u].notes.functions[f].name;
  if (!names || branch_names_init (&bn, names, n))
    {
      free (names);
      return -1;
    }
  free (names);
  for (uint32_t u = 0; u < t->nunits; u++)
    for (uint32_t f = 0; f < t->units[u].notes.nfunctions; f++)
      {
	const pp_function_notes *fn = &t->units[u].notes.functions[f];
	char name[512], text[1024];
	branch_function_name (&bn, fn->name, t->units[u].notes.unit_name, name,
			      sizeof name);
	for (uint32_t v = 2; v < fn->nblocks; v++)
	  {
	    size_t o = (size_t) snprintf (text, sizeof text, "%s bb%u", name, v);
	    for (uint32_t i = 0; i < fn->blocks[v].nlines && o < sizeof text; i++)
	      o += (size_t) snprintf (text + o, sizeof text - o, "%s%u",
				      i ? "," : " line ", fn->blocks[v].lines[i].line);
	    label (ctx, trace_branches_address (b, t->units[u].first + f, v), text);
	  }
      }
  branch_names_free (&bn);
  return 0;
}

/* Room for the frames up to depth; false when out of memory.  */
static bool
grow_frames (trace_branches *b, size_t depth)
{
  if (PP_RESERVE (b->frames, b->cap, depth + 1, 64))
    {
      b->failed = 1;
      return false;
    }
  return true;
}

/* Most events are edges.  */
static inline void
edge_event (trace_branches *b, size_t depth, uint32_t id, uint32_t x)
{
  const trace_branch_edge *e = &b->fn[id].edges[x];
  b->outcome_bits += e->outcome_bits;
  if (e->to_block)
    {
      b->blocks++;
      b->frames[depth].block = e->dst_block;
    }
  if (e->kind >= 0)
    {
      b->branches++;
      if (b->branch)
	b->branch (b->ctx, b->thread, (enum trace_branch_kind) e->kind, e->src, e->dst);
    }
}

/* The events other than an edge, and an edge deeper than the frames so far
   (trace_branches_event's, out of its way).  */
static __attribute__ ((noinline)) void
other_event (trace_branches *b, enum pp_trace_ev ev, size_t depth, uint32_t id,
	     uint32_t x)
{
  if (depth + 1 > b->cap && !grow_frames (b, depth))
    return;
  struct trace_branch_frame *f = &b->frames[depth], *caller = f - 1;
  switch (ev)
    {
    case PP_TRACE_EV_ENTER:
      b->calls++;
      f->fn = id;
      if (depth > 1)
	{
	  b->branches++;
	  if (b->branch)
	    b->branch (b->ctx, b->thread, TRACE_BRANCH_CALL,
		       trace_branches_address (b, caller->fn, caller->block) + 8,
		       b->fn[id].first);
	}
      break;
    case PP_TRACE_EV_BLOCK:	/* told by the edges into it and LAND */
      break;
    case PP_TRACE_EV_EDGE:
      edge_event (b, depth, id, x);
      break;
    case PP_TRACE_EV_RETURN:
    case PP_TRACE_EV_UNWIND:
      if (depth > 1)
	{
	  b->branches++;
	  if (b->branch)
	    b->branch (b->ctx, b->thread, TRACE_BRANCH_RETURN,
		       trace_branches_address (b, id, f->block) + 12,
		       trace_branches_address (b, caller->fn, caller->block) + 9);
	}
      break;
    case PP_TRACE_EV_LAND:
      b->branches++;
      if (b->branch)
	b->branch (b->ctx, b->thread, TRACE_BRANCH_INDIRECT_JUMP,
		   trace_branches_address (b, id, f->block) + 12,
		   trace_branches_address (b, id, x));
      b->blocks++;
      f->block = x;
      break;
    }
}

void
trace_branches_event (void *ctx, enum pp_trace_ev ev, size_t depth, uint32_t id, uint32_t x)
{
  trace_branches *b = ctx;
  if (__builtin_expect (ev != PP_TRACE_EV_EDGE || depth + 1 > b->cap, 0))
    other_event (b, ev, depth, id, x);
  else
    edge_event (b, depth, id, x);
}

static bool
direct_forward (const trace_branch_edge *e)
{
  return (e->kind == TRACE_BRANCH_COND_TAKEN || e->kind == TRACE_BRANCH_COND_NOT_TAKEN
	  || e->kind == TRACE_BRANCH_JUMP) && e->dst > e->src;
}

/* The summary of the run of edges EDGES[0..N) of function ID, kept as
   run number b->nruns (NULL when out of memory).  */
static struct trace_branch_summary *
summarize (trace_branches *b, uint32_t id, const uint32_t *edges, uint32_t n)
{
  const trace_branch_edge *fe = b->fn[id].edges;
  uint32_t nb = 0;
  for (uint32_t i = 0; i < n; i++)
    nb += fe[edges[i]].kind >= 0;
  size_t words = nb / 64 + 2;
  struct trace_branch_summary *s;
  if (PP_RESERVE (b->runs, b->runs_cap, b->nruns + 1, 64)
      || !(s = calloc (1, sizeof *s + (words + 2 * (size_t) nb) * sizeof (uint64_t)
			  + 2 * (size_t) nb)))
    return NULL;
  uint64_t *taken = (uint64_t *) (s + 1), *src = taken + words, *dst = src + nb;
  uint8_t *kinds = (uint8_t *) (dst + nb), *fwd = kinds + nb;
  s->edges = edges;
  s->last_block = UINT32_MAX;
  s->r = (trace_branch_run) { nb, kinds, src, dst, fwd, taken };
  for (uint32_t i = 0, j = 0; i < n; i++)
    {
      const trace_branch_edge *e = &fe[edges[i]];
      s->outcome_bits += e->outcome_bits;
      if (e->to_block)
	{
	  s->blocks++;
	  s->last_block = e->dst_block;
	}
      if (e->kind < 0)
	continue;
      kinds[j] = (uint8_t) e->kind;
      src[j] = e->src;
      dst[j] = e->dst;
      taken[j / 64] |= (uint64_t) (e->kind != TRACE_BRANCH_COND_NOT_TAKEN) << (j % 64);
      fwd[j++] = direct_forward (e);
    }
  for (uint32_t j = nb, next = 0; j-- > 0;)
    {
      next = fwd[j] ? (next < 64 ? next + 1 : 64) : 0;
      fwd[j] = (uint8_t) next;
    }
  b->runs[b->nruns++] = s;
  return s;
}

/* A run regeneration replays: its summary's counts and branches at once.  */
static void
run_event (void *ctx, size_t depth, uint32_t id, const uint32_t *edges, uint32_t n,
	   uint32_t *tag)
{
  trace_branches *b = ctx;
  struct trace_branch_summary *s = *tag && *tag <= b->nruns ? b->runs[*tag - 1] : NULL;
  if (__builtin_expect (!s || s->edges != edges, 0)
      && (s = summarize (b, id, edges, n)))
    *tag = (uint32_t) b->nruns;
  if (__builtin_expect (!s || depth + 1 > b->cap, 0))
    {
      for (uint32_t i = 0; i < n; i++)
	trace_branches_event (b, PP_TRACE_EV_EDGE, depth, id, edges[i]);
      return;
    }
  b->blocks += s->blocks;
  b->outcome_bits += s->outcome_bits;
  if (s->last_block != UINT32_MAX)
    b->frames[depth].block = s->last_block;
  b->branches += s->r.n;
  if (b->run)
    b->run (b->ctx, b->thread, &s->r);
  else if (b->branch)
    for (uint32_t j = 0; j < s->r.n; j++)
      b->branch (b->ctx, b->thread, (enum trace_branch_kind) s->r.kinds[j], s->r.src[j],
		 s->r.dst[j]);
}

int
trace_branches_thread (trace_branches *b, uint32_t i, trace_branch_fn *branch,
		       trace_branch_run_fn *run, void *ctx, char *err, size_t errlen)
{
  b->thread = b->t->threads[i].id;
  b->branch = branch;
  b->run = run;
  b->ctx = ctx;
  if (trace_file_regen_edges (b->t, i, trace_branches_event, run_event, b, err, errlen))
    return -1;
  if (b->failed)
    {
      snprintf (err, errlen, "out of memory");
      return -1;
    }
  return 0;
}
