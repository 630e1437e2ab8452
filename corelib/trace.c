/* Tracing: witness placement and the regeneration of block sequences
   (trace.h has the design).  */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/alloc.h"
#include "trace.h"
#include "edgeprof.h"

/* ------------------------------------------------------------------------- */
/* Placement.  */

static bool
leaves_early (const pp_graph *g, uint32_t v)
{
  for (uint32_t i = g->succ_start[v]; i < g->succ_start[v + 1]; i++)
    if (g->edges[g->succ_edges[i]].flags & PP_EDGE_FAKE)
      return true;
  return false;
}

/* Blocks that end with a call that may not return, or contain one that may
   enter instrumented code: where records of other activations can appear.  */
static bool
is_call_block (const pp_graph *g, const bool *calls, uint32_t v)
{
  return v != g->exit && v != g->entry && ((calls && calls[v]) || leaves_early (g, v));
}

int
pp_trace_blockers (const pp_graph *g, const bool *calls, bool *decision, bool *wit)
{
  uint32_t *stack = pp_malloc ((g->nnodes + 1) * sizeof *stack);
  bool *reached = pp_calloc (g->nnodes + 1, sizeof *reached);
  if (!stack || !reached)
    {
      pp_free (stack);
      pp_free (reached);
      return -1;
    }
  uint32_t top = 0;
  for (uint32_t e = 0; e < g->nedges; e++)
    if ((g->edges[e].src == g->entry && (g->edges[e].flags & PP_EDGE_FAKE))
	|| (g->edges[e].flags & PP_EDGE_EH))
      reached[g->edges[e].dst] = true;	/* re-entries: a LAND is no witness */
  for (uint32_t v = 0; v < g->nnodes; v++)
    {
      bool call = is_call_block (g, calls, v);
      uint32_t out = pp_trace_real_out_degree (g, v);
      decision[v] = out >= 2 || call;
      /* A dead end too (__builtin_unreachable): where a run may stop.  */
      if (call || v == g->exit || reached[v] || out == 0)
	{
	  reached[v] = true;
	  stack[top++] = v;
	}
    }
  /* Every vertex that reaches a call block, a re-entry block, a dead end or EXIT through
     vertices that are not decision points; the edges into them from decision
     points block.  */
  while (top)
    {
      uint32_t x = stack[--top];
      for (uint32_t i = g->pred_start[x]; i < g->pred_start[x + 1]; i++)
	{
	  uint32_t e = g->pred_edges[i], u = g->edges[e].src;
	  if (!pp_trace_real_edge (g, e))
	    continue;
	  if (decision[u])
	    wit[e] = true;
	  else if (!reached[u])
	    {
	      reached[u] = true;
	      stack[top++] = u;
	    }
	}
    }
  pp_free (stack);
  pp_free (reached);
  return 0;
}

int
pp_trace_place (const pp_graph *g, const bool *calls, const double *w,
		int32_t *witness_of_edge)
{
  uint32_t m = g->nedges ? g->nedges : 1;
  bool *decision = pp_malloc ((g->nnodes + 1) * sizeof *decision);
  bool *wit = pp_calloc (m, sizeof *wit), *on_tree = pp_calloc (m, sizeof *on_tree);
  uint32_t *orig = pp_malloc (m * sizeof *orig);
  double *hw = pp_malloc (m * sizeof *hw);
  pp_graph h = { 0 };
  int n = -1;
  if (!decision || !wit || !on_tree || !orig || !hw
      || pp_trace_blockers (g, calls, decision, wit) != 0
      || pp_graph_init (&h, g->nnodes, g->entry, g->exit) != 0)
    goto out;
  /* The spanning tree may use the real edges that carry no blocking witness.  */
  for (uint32_t e = 0; e < g->nedges; e++)
    if (pp_trace_real_edge (g, e) && !wit[e])
      {
	uint32_t i = pp_graph_add_edge (&h, g->edges[e].src, g->edges[e].dst, 0);
	if (i == UINT32_MAX)
	  goto out;
	orig[i] = e;
	hw[i] = w ? w[e] : 1;
      }
  if (pp_graph_finish (&h) != 0 || pp_max_spanning_tree (&h, hw, on_tree) < 0)
    goto out;
  for (uint32_t i = 0; i < h.nedges; i++)
    if (!on_tree[i])
      wit[orig[i]] = true;
  n = 0;
  for (uint32_t e = 0; e < g->nedges; e++)
    witness_of_edge[e] = wit[e] ? n++ : -1;
out:
  pp_graph_free (&h);
  pp_free (decision);
  pp_free (wit);
  pp_free (on_tree);
  pp_free (orig);
  pp_free (hw);
  return n;
}

/* ------------------------------------------------------------------------- */
/* Reading records.  */

/* The next n bits, when the window has them (the common case, inline).  */
static inline bool
get_fast (pp_trace_bits *b, unsigned n, uint64_t *v)
{
  if (n == 0 || n > 64 || b->pos > b->nbits || b->nbits - b->pos < n)
    return false;
  uint64_t word = b->pos / 64, off = b->pos % 64;
  uint64_t x = b->words[word] >> off;
  if (off + n > 64)
    x |= b->words[word + 1] << (64 - off);
  if (n < 64)
    x &= ((uint64_t) 1 << n) - 1;
  b->pos += n;
  *v = x;
  return true;
}

int
pp_trace_get (pp_trace_bits *b, unsigned n, uint64_t *v)
{
  if (get_fast (b, n, v))
    return 0;
  if (n == 0)
    {
      *v = 0;
      return 0;
    }
  /* The window moves on until it has them, or the stream ends.  */
  while (b->pos > b->nbits || b->nbits - b->pos < n)
    {
      b->want = b->pos > b->nbits ? n : n - (unsigned) (b->nbits - b->pos);
      if (!b->more || b->more (b) <= 0)
	return -1;
    }
  return get_fast (b, n, v) ? 0 : -1;
}

/* A packed stream's context for what regeneration reads next: what it is
   (enum context), the function or callee, and where (for a witness: the
   block or witnessed edge the walk waits at and the activation's last
   witness).  */
enum context { C_WITNESS, C_RECORD, C_SITE, C_DIRECT };
static inline void
model (pp_trace_bits *b, enum context what, uint64_t id, uint64_t where)
{
  if (__builtin_expect (b->lazy, 0))
    b->model = (uint64_t) what << 60 ^ id << 32 ^ where;
}

static inline int
get (pp_trace_bits *b, unsigned n, uint64_t *v)
{
  return get_fast (b, n, v) ? 0 : pp_trace_get (b, n, v);
}

static inline int
get_varint (pp_trace_bits *b, uint64_t *v)
{
  *v = 0;
  for (unsigned shift = 0; shift < 64; shift += 7)
    {
      uint64_t byte;
      if (get (b, 8, &byte))
	return -1;
      uint64_t group = byte & 0x7f, more = byte >> 7;
      if (shift == 63 && group > 1)
	return -1;		/* beyond 64 bits */
      *v |= group << shift;
      if (!more)
	return 0;
    }
  return -1;
}

static __attribute__ ((noinline)) int
read_slow (pp_trace_bits *b, unsigned width, pp_trace_event *ev)
{
  uint64_t x, kind;
  b->pos = b->mark;
  while (b->pos >= b->nbits)
    {
      b->want = width ? width : 2;
      int r = b->more ? b->more (b) : 0;
      if (r <= 0)
	return r < 0 ? -1 : 1;
    }
  if (get (b, width, &x))
    return -1;
  ev->a = ev->b = 0;
  if (x != pp_trace_escape (width))
    {
      ev->kind = -1;
      ev->a = x;
      return 0;
    }
  if (get (b, 2, &kind))
    return -1;
  ev->kind = (int) kind;
  switch (kind)
    {
    case PP_TRACE_ENTER:
      {
	/* Ones up to the zero (an ENTER reads the same in every width up to
	   the writer's), the depth bits, the two numbers.  */
	uint64_t bit = 1;
	if (get_fast (b, 35, &x))
	  {
	    unsigned ones = (unsigned) __builtin_ctzll (~x);
	    if (ones >= 35)
	      return -1;
	    b->pos -= 35 - (ones + 1);
	  }
	else
	  for (unsigned n = 0; bit; n++)
	    if (n > 34 || get (b, 1, &bit))
	      return -1;
	return get_varint (b, &ev->depth) || get_varint (b, &ev->a)
	       || get_varint (b, &ev->b) ? -1 : 0;
      }
    case PP_TRACE_LAND:
      return get_varint (b, &ev->a) || get_varint (b, &ev->b) ? -1 : 0;
    default:
      return -1;
    }
}

static inline int
read_record (pp_trace_bits *b, unsigned width, pp_trace_event *ev)
{
  b->mark = b->pos;
  uint64_t x;
  /* A witness, read from the window (most records).  */
  if (__builtin_expect (get_fast (b, width, &x), 1)
      && __builtin_expect (x != pp_trace_escape (width), 1))
    {
      ev->kind = -1;
      ev->a = x;
      ev->b = 0;
      return 0;
    }
  return read_slow (b, width, ev);
}

/* A call site's record in the width of the function that wrote it (trace.h):
   returns 1 for a HIT; 0 for a MISS, with what it says (unit: 0 when the
   callee is not traced, else 1 + its unit); 2 when the bits are no site
   record (they start at b->mark, to be read as another); -1 when the stream
   ends or the record is malformed.  */
static int
read_site (pp_trace_bits *b, unsigned width, bool *announced, uint64_t *unit,
	   uint64_t *function)
{
  b->mark = b->pos;
  uint64_t x, y;
  if (get (b, 1, &x))
    return -1;
  if (x == 0)
    {
      if (width)
	return 1;
      if (get (b, 1, &y))
	return -1;
      if (y == 0)
	return 1;
    }
  else
    {
      bool ok = false;
      if (get (b, 1, &y))
	return -1;
      if (width != 1)
	ok = y == 0;
      else if (y == 1)
	{
	  if (get (b, 1, &y))
	    return -1;
	  ok = y == 0;
	}
      if (ok)
	{
	  if (get (b, 1, &x) || get_varint (b, unit))
	    return -1;
	  *announced = x;
	  *function = 0;
	  return *unit && get_varint (b, function) ? -1 : 0;
	}
    }
  b->pos = b->mark;
  return 2;
}

int
pp_trace_read (pp_trace_bits *b, unsigned width, pp_trace_event *ev)
{
  return read_record (b, width, ev);
}

/* ------------------------------------------------------------------------- */
/* One function's witnesses.  */

/* Does a directed cycle of real edges without witnesses exist?  The placement
   never leaves one (its unwitnessed edges are a forest), and regeneration
   would go round it forever reading nothing: witnesses from corrupted notes
   that leave one are refused (found by make fuzz).  A backedge of a
   depth-first search over those edges is such a cycle.  */
static bool
unwitnessed (void *data, uint32_t e)
{
  return ((const int32_t *) data)[e] < 0;
}

static bool
unwitnessed_cycle (const pp_graph *g, const int32_t *witness_of_edge)
{
  pp_dfs d;
  if (pp_dfs_init (&d, g, PP_DFS_SUCCS, PP_TRACE_UNREAL_FLAGS, unwitnessed,
		   (void *) witness_of_edge))
    return true;		/* out of memory: refused */
  bool cycle = false;
  for (uint32_t v = 0; v < g->nnodes && !cycle; v++)
    {
      pp_dfs_step st;
      if (pp_dfs_root (&d, v))
	while (pp_dfs_next (&d, &st))
	  cycle |= st.event == PP_DFS_BACK;
    }
  pp_dfs_free (&d);
  return cycle;
}

int
pp_trace_function_init (pp_trace_function *tf, const pp_graph *g,
			const int32_t *witness_of_edge, const uint32_t *block_flags)
{
  memset (tf, 0, sizeof *tf);
  tf->g = g;
  uint32_t m = g->nedges ? g->nedges : 1, nn = g->nnodes ? g->nnodes : 1;
  tf->witness_of_edge = pp_malloc (m * sizeof *tf->witness_of_edge);
  tf->edge_of_witness = pp_malloc (m * sizeof *tf->edge_of_witness);
  tf->decision = pp_malloc (nn * sizeof *tf->decision);
  tf->calls = pp_calloc (nn, sizeof *tf->calls);
  tf->reentry = pp_calloc (nn, sizeof *tf->reentry);
  tf->choice = pp_calloc (nn, sizeof *tf->choice);
  tf->only = pp_malloc (nn * sizeof *tf->only);
  tf->step = pp_malloc (nn * sizeof *tf->step);
  tf->walk = pp_malloc (m * sizeof *tf->walk);
  tf->direct_at = pp_calloc (nn + 1, sizeof *tf->direct_at);
  bool *wit = pp_calloc (m, sizeof *wit);
  int status = -1;
  if (!tf->witness_of_edge || !tf->edge_of_witness || !tf->decision || !tf->calls
      || !tf->reentry || !tf->choice || !tf->only || !tf->step || !tf->walk
      || !tf->direct_at || !wit)
    goto out;
  for (uint32_t v = 0; v < g->nnodes; v++)
    {
      tf->only[v] = UINT32_MAX;
      if (pp_trace_real_out_degree (g, v) == 1)
	for (uint32_t i = g->succ_start[v]; i < g->succ_start[v + 1]; i++)
	  if (pp_trace_real_edge (g, g->succ_edges[i]))
	    tf->only[v] = g->succ_edges[i];
    }
  for (uint32_t v = 0; v < g->nnodes; v++)
    tf->calls[v] = block_flags && (block_flags[v] & PP_BLOCK_CALLS);
  if (pp_trace_blockers (g, tf->calls, tf->decision, wit) != 0)
    goto out;
  for (uint32_t v = 0; v < g->nnodes; v++)
    tf->calls[v] = is_call_block (g, tf->calls, v);
  status = -2;
  tf->entry_edge = UINT32_MAX;
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      const pp_edge *ed = &g->edges[e];
      int32_t k = witness_of_edge[e];
      tf->witness_of_edge[e] = k;
      if ((ed->src == g->entry && (ed->flags & PP_EDGE_FAKE))
	  || (ed->flags & PP_EDGE_EH))
	tf->reentry[ed->dst] = true;
      else if (ed->src == g->entry && pp_trace_real_edge (g, e))
	{
	  if (tf->entry_edge != UINT32_MAX)
	    goto out;
	  tf->entry_edge = e;
	}
      if (k < 0)
	continue;
      if (!pp_trace_real_edge (g, e) || (uint32_t) k >= g->nedges
	  || (uint32_t) k != tf->nwitness)	/* numbered in edge order */
	goto out;
      tf->edge_of_witness[tf->nwitness++] = e;
    }
  /* Every blocking witness the graph needs must be there.  */
  for (uint32_t e = 0; e < g->nedges; e++)
    if (wit[e] && witness_of_edge[e] < 0)
      goto out;
  if (tf->entry_edge == UINT32_MAX || unwitnessed_cycle (g, witness_of_edge)
      || g->nnodes > PP_TRACE_WALK_DST)
    goto out;
  for (uint32_t v = 0; v < g->nnodes; v++)
    tf->step[v] = tf->calls[v] ? PP_TRACE_STEP_CALLS : tf->only[v];
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      uint32_t dst = g->edges[e].dst;
      tf->walk[e] = dst | (witness_of_edge[e] >= 0 ? PP_TRACE_WALK_WITNESS : 0)
		    | (dst == g->exit ? PP_TRACE_WALK_EXIT : 0)
		    | (tf->reentry[dst] ? PP_TRACE_WALK_REENTRY : 0);
    }
  tf->width = pp_trace_width (tf->nwitness);
  status = 0;
out:
  pp_free (wit);
  if (status)
    pp_trace_function_free (tf);
  return status;
}

/* Runs.  Between the witness a predicate (or a witnessed edge) reads and
   the next record its activation needs, the walk is a function of the two
   alone: the run of edges it takes, and where it stops.  A consumer that
   wants only edges (no_blocks) has them replayed from a table keyed by
   (block or edge, witness), kept the first time regeneration walks them,
   so that a witness costs one lookup and its edges one array, not a step
   word, a walk word and a choice row a block, each load waiting on the one
   before.  A run is kept only when it ends with its witness consumed (an
   error is the walk's to find), and a function keeps at most
   RUNS_MAX_EDGES edges of runs, so that no trace makes the table grow
   past that.  */
enum run_end { RUN_CHOOSE, RUN_ON_EDGE, RUN_CALLS, RUN_RETURNED, RUN_REENTRY };
#define RUN_MAX_EDGES 256
#define RUNS_MAX_EDGES ((size_t) 1 << 20)

typedef struct run
{
  uint64_t key;			/* block << 32 | witness, or for a witnessed
				   edge 1 << 63 | edge << 32 | witness */
  uint32_t n;			/* edges */
  uint32_t end_block, end_edge;
  uint8_t end;			/* enum run_end */
  uint32_t tag;			/* the consumer's (ops->run) */
  uint32_t edges[];
} run;

typedef struct pp_trace_runs
{
  run **slot;			/* open addressing on key */
  size_t n, cap;
  size_t edges;			/* in all its runs */
} pp_trace_runs;

static void
runs_free (pp_trace_runs *r)
{
  if (!r)
    return;
  for (size_t i = 0; i < r->cap; i++)
    pp_free (r->slot[i]);
  pp_free (r->slot);
  pp_free (r);
}

static inline size_t
run_hash (uint64_t key, size_t cap)
{
  key *= 0x9e3779b97f4a7c15u;
  return (size_t) (key >> 32) & (cap - 1);
}

static inline run *
run_find (const pp_trace_runs *r, uint64_t key)
{
  if (!r || !r->cap)
    return NULL;
  for (size_t i = run_hash (key, r->cap);; i = (i + 1) & (r->cap - 1))
    {
      run *x = r->slot[i];
      if (!x || x->key == key)
	return x;
    }
}

/* Keeps the run just walked (out of memory: not kept, nothing else
   changes).  */
static void
run_keep (pp_trace_function *tf, uint64_t key, const uint32_t *edges, uint32_t n,
	  enum run_end end, uint32_t end_block, uint32_t end_edge)
{
  pp_trace_runs *r = tf->runs;
  if (!r && !(r = tf->runs = pp_calloc (1, sizeof *r)))
    return;
  if (r->edges + n > RUNS_MAX_EDGES)
    return;
  if ((r->n + 1) * 2 > r->cap)
    {
      size_t cap = r->cap ? 2 * r->cap : 64;
      run **slot = pp_calloc (cap, sizeof *slot);
      if (!slot)
	return;
      for (size_t i = 0; i < r->cap; i++)
	if (r->slot[i])
	  {
	    size_t j = run_hash (r->slot[i]->key, cap);
	    while (slot[j])
	      j = (j + 1) & (cap - 1);
	    slot[j] = r->slot[i];
	  }
      pp_free (r->slot);
      r->slot = slot;
      r->cap = cap;
    }
  run *x = pp_malloc (sizeof *x + n * sizeof *x->edges);
  if (!x)
    return;
  *x = (run) { key, n, end_block, end_edge, (uint8_t) end, 0 };
  memcpy (x->edges, edges, n * sizeof *edges);
  size_t i = run_hash (key, r->cap);
  while (r->slot[i])
    i = (i + 1) & (r->cap - 1);
  r->slot[i] = x;
  r->n++;
  r->edges += n;
}

void
pp_trace_function_free (pp_trace_function *tf)
{
  if (tf->choice && tf->g)
    for (uint32_t v = 0; v < tf->g->nnodes; v++)
      pp_free (tf->choice[v]);
  pp_free (tf->choice);
  pp_free (tf->witness_of_edge);
  pp_free (tf->edge_of_witness);
  pp_free (tf->decision);
  pp_free (tf->calls);
  pp_free (tf->reentry);
  pp_free (tf->only);
  pp_free (tf->step);
  pp_free (tf->walk);
  pp_free (tf->direct_at);
  pp_free (tf->direct);
  runs_free (tf->runs);
  memset (tf, 0, sizeof *tf);
}

int
pp_trace_function_direct (pp_trace_function *tf, uint32_t n, const uint32_t *block,
			  const pp_trace_callee *callee)
{
  const pp_graph *g = tf->g;
  for (uint32_t i = 0; i < n; i++)
    if (block[i] >= g->nnodes || !tf->calls[block[i]] || (i && block[i] < block[i - 1])
	|| (callee[i].tf ? callee[i].tf->width > PP_TRACE_DIRECT_WIDTH
	    : !(callee[i].id & PP_TRACE_SITE)))
      return -2;
  pp_trace_callee *d = pp_malloc ((n ? n : 1) * sizeof *d);
  if (!d)
    return -1;
  if (n)
    memcpy (d, callee, n * sizeof *d);
  pp_free (tf->direct);
  tf->direct = d;
  memset (tf->direct_at, 0, (g->nnodes + 1) * sizeof *tf->direct_at);
  for (uint32_t i = 0; i < n; i++)
    tf->direct_at[block[i] + 1]++;
  for (uint32_t v = 0; v < g->nnodes; v++)
    tf->direct_at[v + 1] += tf->direct_at[v];
  return 0;
}

bool
pp_trace_quiet_from (const pp_trace_function *tf, uint32_t v)
{
  for (;;)
    {
      uint32_t e = tf->step[v];
      if (e == PP_TRACE_STEP_CALLS || e == PP_TRACE_STEP_CHOOSE)
	return false;
      uint32_t walk = tf->walk[e];
      if (walk & (PP_TRACE_WALK_WITNESS | PP_TRACE_WALK_REENTRY))
	return false;
      if (walk & PP_TRACE_WALK_EXIT)
	return true;
      v = walk & PP_TRACE_WALK_DST;	/* ends: no cycle lacks a witness */
    }
}

bool
pp_trace_quiet_after (const pp_trace_function *tf, uint32_t e)
{
  uint32_t walk = tf->walk[e];
  if (walk & PP_TRACE_WALK_EXIT)
    return true;
  return !(walk & PP_TRACE_WALK_REENTRY)
	 && pp_trace_quiet_from (tf, walk & PP_TRACE_WALK_DST);
}

/* For predicate v: which successor edge leads, along edges without a witness,
   to each witness.  With the placement's guarantee (the unwitnessed real
   edges form a forest) no witness is reached from two successors; a trace
   that would need that is refused by leaving the choice empty.  */
static int
build_choice (pp_trace_function *tf, uint32_t v)
{
  const pp_graph *g = tf->g;
  uint32_t n = tf->nwitness ? tf->nwitness : 1;
  uint32_t nsucc = g->succ_start[v + 1] - g->succ_start[v];
  uint32_t *choice = pp_malloc (n * sizeof *choice);
  uint32_t *seen = pp_calloc (g->nnodes, sizeof *seen);
  uint32_t *stack = pp_malloc ((g->nnodes + 1) * sizeof *stack);
  pp_trace_choice_row *row = NULL;
  int status = -1;
  if (!choice || !seen || !stack || nsucc >= PP_TRACE_MAX_SUCCESSORS)
    goto out;
  for (uint32_t k = 0; k < n; k++)
    choice[k] = UINT32_MAX;
  uint32_t mark = 0;
  for (uint32_t i = 0; i < nsucc; i++)
    {
      uint32_t s = g->succ_edges[g->succ_start[v] + i];
      if (!pp_trace_real_edge (g, s))
	continue;
      mark++;
      uint32_t top = 0;
      /* Witnesses of s itself, or of the edges reachable after it.  */
      if (tf->witness_of_edge[s] >= 0)
	{
	  choice[tf->witness_of_edge[s]] = i;
	  continue;
	}
      stack[top++] = g->edges[s].dst;
      seen[g->edges[s].dst] = mark;
      while (top)
	{
	  uint32_t x = stack[--top];
	  for (uint32_t j = g->succ_start[x]; j < g->succ_start[x + 1]; j++)
	    {
	      uint32_t e = g->succ_edges[j];
	      if (!pp_trace_real_edge (g, e))
		continue;
	      int32_t k = tf->witness_of_edge[e];
	      if (k >= 0)
		{
		  /* Two successors reaching one witness: ambiguous.  */
		  choice[k] = choice[k] == UINT32_MAX || choice[k] == i
			      ? i : UINT32_MAX - 2;
		  continue;
		}
	      uint32_t y = g->edges[e].dst;
	      if (seen[y] != mark)
		{
		  seen[y] = mark;
		  stack[top++] = y;
		}
	    }
	}
    }
  uint32_t lo = n, hi = 0;
  for (uint32_t k = 0; k < n; k++)
    if (choice[k] < UINT32_MAX - 2)
      {
	lo = k < lo ? k : lo;
	hi = k;
      }
  uint32_t covered = lo <= hi ? hi - lo + 1 : 0;
  row = pp_malloc (sizeof *row + nsucc * sizeof *row->edge
		   + covered * sizeof *row->succ);
  if (!row)
    goto out;
  row->lo = covered ? lo : 0;
  row->n = covered;
  memcpy (row->edge, g->succ_edges + g->succ_start[v], nsucc * sizeof *row->edge);
  uint16_t *succ = (uint16_t *) (row->edge + nsucc);
  for (uint32_t i = 0; i < covered; i++)
    {
      uint32_t c = choice[lo + i];
      succ[i] = c >= UINT32_MAX - 2 ? PP_TRACE_NO_CHOICE
		: (uint16_t) (c | (tf->witness_of_edge[row->edge[c]] == (int32_t) (lo + i)
				   ? PP_TRACE_OWN_WITNESS : 0));
    }
  row->succ = succ;
  tf->choice[v] = row;
  status = 0;
out:
  pp_free (choice);
  pp_free (seen);
  pp_free (stack);
  return status;
}

uint32_t
pp_trace_choice (pp_trace_function *tf, uint32_t v, uint32_t k)
{
  if (v >= tf->g->nnodes || k >= tf->nwitness)
    return UINT32_MAX;
  if (!tf->choice[v] && build_choice (tf, v) != 0)
    return UINT32_MAX - 1;
  bool own;
  return pp_trace_choice_in (tf->choice[v], k, &own);
}

/* ------------------------------------------------------------------------- */
/* Regeneration.  */

enum frame_state
{
  AT_BLOCK,			/* arrived; the block is not reported yet */
  AT_REENTRY,			/* reported, reached normally: its LAND next */
  IN_CALLS,			/* its calls' activations may follow */
  CHOOSE,			/* leaves the block */
  ON_EDGE,			/* on edge `edge`: its witness */
  RETURNED,			/* took edge `edge` into EXIT */
};

typedef struct frame
{
  pp_trace_function *tf;
  uint32_t id;			/* the caller's name for the function */
  uint32_t block, edge;
  uint32_t next_direct;		/* IN_CALLS: the block's next direct call */
  /* k + 1 for a witness read and not yet consumed (a predicate's choice
     that a witness further on told), else 0.  Only edges without a
     witness lie between a predicate and that witness, so it is consumed
     before the activation needs another record.  */
  uint32_t pending;
  uint32_t last;		/* the last witness its walk read (a packed stream's
				   context; not one read after a call: measured,
				   the one before the call tells more) */
  uint8_t state;
  bool witness_read;		/* ON_EDGE: the edge's witness is consumed */
  /* IN_CALLS, the next call a call site whose record is read: the callee
     it announces.  */
  bool site_read;
  pp_trace_callee announced;
} frame;

/* What a thread's call site called last (trace.h "Announced calls"): per
   unit, per site.  */
enum { SITE_UNSEEN, SITE_OTHER, SITE_ANNOUNCED };
typedef struct site_slot
{
  pp_trace_callee callee;	/* SITE_ANNOUNCED: the function entered */
  uint8_t state;
} site_slot;

typedef struct site_tables
{
  struct { site_slot *slot; size_t n; } *unit;
  size_t nunits;
} site_tables;

/* The slot of site `site` of unit `unit`, or NULL without memory.  */
static site_slot *
site_of (site_tables *st, uint32_t unit, uint32_t site)
{
  if (unit >= st->nunits)
    {
      size_t n = (size_t) unit + 1;
      void *p = pp_realloc (st->unit, n * sizeof *st->unit);
      if (!p)
	return NULL;
      st->unit = p;
      memset (st->unit + st->nunits, 0, (n - st->nunits) * sizeof *st->unit);
      st->nunits = n;
    }
  if (site >= st->unit[unit].n)
    {
      size_t n = (size_t) site + 1 < 2 * st->unit[unit].n ? 2 * st->unit[unit].n
		 : (size_t) site + 1;
      site_slot *p = pp_realloc (st->unit[unit].slot, n * sizeof *p);
      if (!p)
	return NULL;
      memset (p + st->unit[unit].n, 0, (n - st->unit[unit].n) * sizeof *p);
      st->unit[unit].slot = p;
      st->unit[unit].n = n;
    }
  return &st->unit[unit].slot[site];
}

static void
site_tables_free (site_tables *st)
{
  for (size_t u = 0; u < st->nunits; u++)
    pp_free (st->unit[u].slot);
  pp_free (st->unit);
}

static int
regen_error (char *err, size_t errlen, const pp_trace_bits *b, const char *what)
{
  if (errlen)
    snprintf (err, errlen, "bit %llu: %s", (unsigned long long) pp_trace_bit (b),
	      what);
  return -1;
}

/* The successor edge *e of predicate v that witness k tells, and whether k
   is *e's own.  Returns NULL or what is wrong.  */
static inline const char *
choose (pp_trace_function *tf, uint32_t v, uint64_t k, uint32_t *e, bool *own)
{
  const pp_trace_choice_row *row = tf->choice[v];
  if (__builtin_expect (!row, 0))
    {
      if (pp_trace_choice (tf, v, (uint32_t) k) == UINT32_MAX - 1)
	return "out of memory";
      row = tf->choice[v];
    }
  *own = false;
  *e = row ? pp_trace_choice_in (row, k, own) : UINT32_MAX;
  return *e == UINT32_MAX ? "a witness no successor of the block leads to" : NULL;
}

/* A record of kind stat (PP_TRACE_STAT_*) of n bits consumed.  */
static inline void
count (const pp_trace_regen_ops *ops, unsigned stat, uint64_t n)
{
  if (ops->stats)
    {
      ops->stats->records[stat]++;
      ops->stats->bits[stat] += n;
    }
}

/* The next record into f->pending when it is a witness the window holds
   (most records: they need not go round pp_trace_regen's loop).  */
static inline bool
take_witness (pp_trace_bits *b, const pp_trace_regen_ops *ops, frame *f, unsigned width,
	      uint32_t where)
{
  uint64_t x, at = pp_trace_bit (b);
  bool got = get_fast (b, width, &x);
  if (__builtin_expect (!got && b->lazy, 0))
    {
      /* A packed stream has only the bits asked for: ask for these (the
	 window may move: positions from here on are the stream's).  */
      model (b, C_WITNESS, f->id, (f->last + 1) * 0x9e3779b97f4a7c15u ^ where);
      got = width && pp_trace_get (b, width, &x) == 0;
    }
  if (!got || x == pp_trace_escape (width))
    {
      b->pos = at - b->base;
      return false;
    }
  b->mark = at - b->base;
  f->pending = (uint32_t) x + 1;
  f->last = (uint32_t) x;
  count (ops, PP_TRACE_STAT_WITNESS, width);
  return true;
}

/* Moves frame f on as far as it can go without reading a record other than
   a witness.  One step of the loop is one block: the states are labels
   here, and stored in the frame only when another record is needed.
   Returns NULL or what is wrong.  */
static const char *
advance (pp_trace_bits *b, const pp_trace_regen_ops *ops, frame *f, size_t depth)
{
  pp_trace_function *tf = f->tf;
  uint32_t v = f->block, e = f->edge, walk;
  bool witness_read = f->witness_read;
  const char *wrong = NULL;
  /* The run being walked for the first time (runs: ops->no_blocks).  */
  bool rec = false;
  uint64_t rec_key = 0;
  uint32_t rec_n = 0, rec_edges[RUN_MAX_EDGES];
  run *x;
  /* A run starts at KEY: replayed when kept, else recorded.  */
#define RUN_BEGIN(KEY)							\
  do									\
    {									\
      rec_key = (KEY);							\
      if ((x = run_find (tf->runs, rec_key)))				\
	goto replay;							\
      rec = true;							\
      rec_n = 0;							\
    }									\
  while (0)
#define RUN_ENDS(END, BLOCK, EDGE)					\
  do									\
    {									\
      if (rec && !f->pending)						\
	run_keep (tf, rec_key, rec_edges, rec_n, (END), (BLOCK), (EDGE)); \
      rec = false;							\
    }									\
  while (0)
  switch (f->state)
    {
    case AT_REENTRY:		/* its LAND next (never a pending witness:
				   the walk that got here said so) */
    case RETURNED:
      return NULL;
    case AT_BLOCK:
      goto at_block;
    case IN_CALLS:
      /* A call block's activations may follow (LAND also lands here, in
	 any block).  */
      e = tf->step[v];
      if (e == PP_TRACE_STEP_CALLS)
	return NULL;
      goto chosen;
    case CHOOSE:
      goto choose;
    default:
      goto on_edge;
    }
  for (;;)
    {
    at_block:
      if (!ops->no_blocks)
	ops->event (ops->ctx, PP_TRACE_EV_BLOCK, depth, f->id, v);
      e = tf->step[v];
      if (e == PP_TRACE_STEP_CALLS)
	{
	  RUN_ENDS (RUN_CALLS, v, 0);
	  f->next_direct = tf->direct_at[v];
	  f->site_read = false;
	  f->state = IN_CALLS;
	  break;
	}
      goto chosen;
    choose:			/* after the calls */
      e = tf->only[v];
    chosen:
      if (e == PP_TRACE_STEP_CHOOSE)
	{
	  if (!f->pending)
	    {
	      RUN_ENDS (RUN_CHOOSE, v, 0);
	      if (!take_witness (b, ops, f, tf->width, v * 2))
		{
		  f->state = CHOOSE;
		  break;
		}
	      if (ops->no_blocks)
		RUN_BEGIN ((uint64_t) v << 32 | (f->pending - 1));
	    }
	  bool own;
	  if ((wrong = choose (tf, v, f->pending - 1, &e, &own)))
	    break;
	  if (own)
	    f->pending = 0;
	  witness_read = own;
	}
      else
	witness_read = false;
    on_edge:
      walk = tf->walk[e];
      if (walk & PP_TRACE_WALK_WITNESS && !witness_read)
	{
	  if (!f->pending)
	    {
	      RUN_ENDS (RUN_ON_EDGE, v, e);
	      if (!take_witness (b, ops, f, tf->width, e * 2 + 1))
		{
		  f->state = ON_EDGE;
		  f->edge = e;
		  f->witness_read = false;
		  break;
		}
	      if (ops->no_blocks)
		RUN_BEGIN ((uint64_t) 1 << 63 | (uint64_t) e << 32 | (f->pending - 1));
	    }
	  if (f->pending - 1 != (uint32_t) tf->witness_of_edge[e])
	    {
	      wrong = "a witness that is not the edge's";
	      break;
	    }
	  f->pending = 0;
	  witness_read = true;
	}
      if (walk & PP_TRACE_WALK_EXIT)
	{
	  /* The activation returns: no record says so (trace.h "Returns").  */
	  RUN_ENDS (RUN_RETURNED, v, e);
	  f->state = RETURNED;
	  f->edge = e;
	  break;
	}
      ops->event (ops->ctx, PP_TRACE_EV_EDGE, depth, f->id, e);
      if (rec)
	{
	  if (rec_n < RUN_MAX_EDGES)
	    rec_edges[rec_n++] = e;
	  else
	    rec = false;
	}
      v = walk & PP_TRACE_WALK_DST;
      if (walk & PP_TRACE_WALK_REENTRY)
	{
	  if (!ops->no_blocks)
	    ops->event (ops->ctx, PP_TRACE_EV_BLOCK, depth, f->id, v);
	  RUN_ENDS (RUN_REENTRY, v, e);
	  f->state = AT_REENTRY;
	  break;
	}
      continue;

    replay:
      /* The run from this witness, walked before: its edges, then where
	 it stopped, with the witness consumed on the way.  */
      if (ops->run)
	ops->run (ops->ctx, depth, f->id, x->edges, x->n, &x->tag);
      else
	for (uint32_t i = 0; i < x->n; i++)
	  ops->event (ops->ctx, PP_TRACE_EV_EDGE, depth, f->id, x->edges[i]);
      f->pending = 0;
      v = x->end_block;
      e = x->end_edge;
      /* Where it stopped: a call block, a predicate or an edge that needs
	 a witness through the walk's own stops; EXIT and a re-entry block
	 (its edge in the run) here.  */
      switch (x->end)
	{
	case RUN_CALLS:
	  goto at_block;
	case RUN_CHOOSE:
	  e = PP_TRACE_STEP_CHOOSE;
	  goto chosen;
	case RUN_ON_EDGE:
	  witness_read = false;
	  goto on_edge;
	case RUN_RETURNED:
	  f->state = RETURNED;
	  f->edge = e;
	  break;
	default:		/* the re-entry block, its edge in the run */
	  f->state = AT_REENTRY;
	  break;
	}
      break;
    }
#undef RUN_BEGIN
#undef RUN_ENDS
  f->block = v;
  if (!wrong && f->pending)
    wrong = f->state == AT_REENTRY ? "a re-entry block without its LAND"
	    : "a witness before the records its activation needs";
  return wrong;
}

/* The most direct calls regeneration enters in a row on its way to an ENTER
   deeper down (a bound against a corrupted depth).  */
#define PP_TRACE_MAX_DIRECT_RUN ((uint64_t) 1 << 20)

/* The next n <= 64 bits into *v without reading them: returns how many
   the stream has (n, or fewer at its end), UINT32_MAX on an error.  */
static unsigned
peek (pp_trace_bits *b, unsigned n, uint64_t *v)
{
  b->mark = b->pos;
  while (b->pos > b->nbits || b->nbits - b->pos < n)
    {
      b->want = b->pos > b->nbits ? n : n - (unsigned) (b->nbits - b->pos);
      int r = b->more ? b->more (b) : 0;
      if (r < 0)
	return UINT32_MAX;
      if (r == 0)
	break;
    }
  uint64_t left = b->pos < b->nbits ? b->nbits - b->pos : 0;
  unsigned got = left < n ? (unsigned) left : n;
  *v = 0;
  if (got && !get_fast (b, got, v))
    return UINT32_MAX;
  b->pos = b->mark;
  return got;
}

/* Pushes an activation of tf (reported as id) entered at its entry edge.  */
static frame *
push (frame **stack, size_t *depth, size_t *cap, pp_trace_function *tf, uint32_t id)
{
  if (PP_RESERVE (*stack, *cap, *depth + 1, 64))
    return NULL;
  frame *f = &(*stack)[(*depth)++];
  *f = (frame) { .tf = tf, .id = id, .edge = tf->entry_edge, .state = ON_EDGE };
  return f;
}

int
pp_trace_regen (pp_trace_bits *b, const pp_trace_regen_ops *ops, char *err,
		size_t errlen)
{
  frame *stack = NULL;
  size_t depth = 0, cap = 0;
  int status = 0;
  site_tables sites = { NULL, 0 };
  /* The stream's position when the last direct call was entered and the
     depth at the first of those entered there since.  */
  uint64_t quiet_bit = UINT64_MAX;
  size_t quiet_from = 0;
#define FAIL(what) do { status = regen_error (err, errlen, b, (what)); goto out; } while (0)
  /* The record just read is consumed: counted by kind.  */
#define COUNT(stat) count (ops, (stat), b->pos - b->mark)
  /* A return, which takes no bits.  */
#define COUNT_RETURN() count (ops, PP_TRACE_STAT_RETURN, 0)
  for (;;)
    {
      frame *f = depth ? &stack[depth - 1] : NULL;
      const char *wrong = f ? advance (b, ops, f, depth) : NULL;
      if (wrong)
	FAIL (wrong);
      if (f && f->state == RETURNED)
	{
	  COUNT_RETURN ();
	  ops->event (ops->ctx, PP_TRACE_EV_EDGE, depth, f->id, f->edge);
	  ops->event (ops->ctx, PP_TRACE_EV_RETURN, depth, f->id, 0);
	  depth--;
	  continue;
	}
      pp_trace_event ev;
      /* The next direct call of a call block: its activation comes next,
	 unless an ENTER at this depth comes first (of a callback, or of a
	 signal handler).  Whatever else follows is written in the width of
	 the callee or of a callee of its own direct calls, at most
	 PP_TRACE_DIRECT_WIDTH: it has a zero in its first
	 PP_TRACE_DIRECT_WIDTH + 2 bits, where an ENTER has ones.  */
      const pp_trace_callee *direct = NULL;
      unsigned width = f ? f->tf->width : 0;
      uint64_t ahead;
      int r;
      if (f && f->state == IN_CALLS && f->next_direct < f->tf->direct_at[f->block + 1])
	{
	  direct = &f->tf->direct[f->next_direct];
	  if (!direct->tf && !f->site_read)
	    {
	      /* A call site: its record, unless an ENTER (of a handler, or
		 of a callback of an earlier call) or a LAND comes first.  */
	      model (b, C_SITE, f->id, f->next_direct);
	      unsigned n = peek (b, PP_TRACE_DIRECT_WIDTH + 2, &ahead);
	      if (n == UINT32_MAX)
		FAIL ("malformed record");
	      if (n == 0)
		break;		/* the thread's records end here */
	      bool announced = false;
	      uint64_t unit = 0, function = 0;
	      int site = n == PP_TRACE_DIRECT_WIDTH + 2 && ahead == pp_trace_escape (n)
			 ? 2 : read_site (b, width, &announced, &unit, &function);
	      if (site < 0)
		FAIL ("malformed record");
	      if (site == 2)
		direct = NULL;	/* read as another record */
	      else
		{
		  site_slot *slot = site_of (&sites, f->tf->unit,
					     direct->id & PP_TRACE_SITE_NUMBER);
		  if (!slot)
		    FAIL ("out of memory");
		  if (site == 1)
		    {
		      if (slot->state == SITE_UNSEEN)
			FAIL ("a call site's first record says it calls what it called last");
		      COUNT (PP_TRACE_STAT_HIT);
		    }
		  else
		    {
		      slot->state = announced ? SITE_ANNOUNCED : SITE_OTHER;
		      if (unit)
			{
			  uint32_t id;
			  pp_trace_function *tf
			    = ops->lookup (ops->lookup_ctx ? ops->lookup_ctx : ops->ctx,
					   unit - 1, function, &id);
			  if (!tf)
			    FAIL ("a call site's callee the trace does not describe");
			  if (announced && tf->width > PP_TRACE_DIRECT_WIDTH)
			    FAIL ("a call site announces a function too wide for it");
			  slot->callee = (pp_trace_callee) { tf, id };
			}
		      else if (announced)
			FAIL ("a call site announces a function that is not traced");
		      COUNT (PP_TRACE_STAT_MISS);
		    }
		  if (slot->state != SITE_ANNOUNCED)
		    {
		      /* Its activations, if any, come with their ENTERs.  */
		      f->next_direct++;
		      continue;
		    }
		  f->site_read = true;
		  f->announced = slot->callee;
		}
	    }
	  if (direct && !direct->tf)
	    direct = &f->announced;
	}
      if (direct)
	{
	  model (b, C_DIRECT, direct->id, f->id);
	  unsigned n = peek (b, PP_TRACE_DIRECT_WIDTH + 2, &ahead);
	  if (n == UINT32_MAX)
	    FAIL ("malformed record");
	  if (n == PP_TRACE_DIRECT_WIDTH + 2 && ahead == pp_trace_escape (n))
	    width = PP_TRACE_DIRECT_WIDTH;	/* an ENTER, read in any width */
	  else
	    {
	      /* Direct calls that come round to a function again without a
		 record between can only be a run that ended in them (it
		 overflowed its stack).  */
	      if (pp_trace_bit (b) != quiet_bit)
		{
		  quiet_bit = pp_trace_bit (b);
		  quiet_from = depth;
		}
	      bool round = false;
	      for (size_t i = quiet_from; i < depth; i++)
		round |= stack[i].tf == direct->tf;
	      if (round && n == 0)
		break;
	      if (round)
		FAIL ("direct calls that come round without a record");
	      goto enter_direct;
	    }
	}
      if (f)
	model (b, C_RECORD, f->id, (uint64_t) f->state << 28 ^ f->block);
      else
	model (b, C_RECORD, UINT32_MAX, 0);
      r = read_record (b, width, &ev);
      if (r < 0)
	FAIL ("malformed record");
      if (direct && (r > 0 || ev.kind != PP_TRACE_ENTER || ev.depth != depth + 1))
	{
	  if (r > 0 || ev.kind != PP_TRACE_ENTER || ev.depth <= depth
	      || ev.depth - depth > PP_TRACE_MAX_DIRECT_RUN)
	    FAIL ("ENTER at a depth the regeneration is not at");
	  /* An ENTER of the callee's own calls: read again there.  */
	  b->pos = b->mark;
	enter_direct:
	  if (ops->stats)
	    {
	      if (f->site_read)
		ops->stats->announced++;
	      else
		ops->stats->direct++;
	    }
	  f->next_direct++;
	  f->site_read = false;
	  if (!push (&stack, &depth, &cap, direct->tf, direct->id))
	    FAIL ("out of memory");
	  ops->event (ops->ctx, PP_TRACE_EV_ENTER, depth, direct->id, 0);
	  continue;
	}
      if (r > 0)
	break;			/* the thread's records end here */
      if (f && f->state == AT_REENTRY)
	{
	  /* The LAND a re-entry block writes when reached normally.  */
	  if (ev.kind != PP_TRACE_LAND || ev.a != depth || ev.b != f->block)
	    FAIL ("a re-entry block without its LAND");
	  COUNT (PP_TRACE_STAT_LAND);
	  f->state = IN_CALLS;
	  f->next_direct = f->tf->direct_at[f->block];
	  f->site_read = false;
	  continue;
	}
      if (ev.kind == PP_TRACE_ENTER)
	{
	  uint32_t id;
	  pp_trace_function *tf = ops->lookup (ops->lookup_ctx ? ops->lookup_ctx
					       : ops->ctx, ev.a, ev.b, &id);
	  if (!tf)
	    FAIL ("ENTER of a function the trace does not describe");
	  if (ev.depth != depth + 1)
	    FAIL ("ENTER at a depth the regeneration is not at");
	  COUNT (PP_TRACE_STAT_ENTER);
	  if (!push (&stack, &depth, &cap, tf, id))
	    FAIL ("out of memory");
	  ops->event (ops->ctx, PP_TRACE_EV_ENTER, depth, id, 0);
	  continue;
	}
      if (ev.kind == PP_TRACE_LAND)
	{
	  if (ev.a == 0 || ev.a > depth)
	    FAIL ("LAND in an activation that is not live");
	  frame *to = &stack[ev.a - 1];
	  if (ev.b >= to->tf->g->nnodes || !to->tf->reentry[ev.b])
	    FAIL ("LAND at a block that is not a re-entry");
	  COUNT (PP_TRACE_STAT_LAND);
	  while (depth > ev.a)
	    {
	      ops->event (ops->ctx, PP_TRACE_EV_UNWIND, depth, stack[depth - 1].id, 0);
	      depth--;
	    }
	  /* An exception caught here took the edge from the call it left.  */
	  const pp_graph *tg = to->tf->g;
	  for (uint32_t i = tg->succ_start[to->block];
	       i < tg->succ_start[to->block + 1]; i++)
	    {
	      uint32_t e = tg->succ_edges[i];
	      if ((tg->edges[e].flags & PP_EDGE_EH) && tg->edges[e].dst == ev.b)
		{
		  ops->event (ops->ctx, PP_TRACE_EV_EDGE, depth, to->id, e);
		  break;
		}
	    }
	  to->block = (uint32_t) ev.b;
	  to->state = IN_CALLS;
	  to->pending = 0;
	  to->next_direct = to->tf->direct_at[to->block];
	  to->site_read = false;
	  ops->event (ops->ctx, PP_TRACE_EV_LAND, depth, to->id, to->block);
	  if (!ops->no_blocks)
	    ops->event (ops->ctx, PP_TRACE_EV_BLOCK, depth, to->id, to->block);
	  continue;
	}
      if (!f)
	FAIL ("a record outside every function");
      if (ev.kind < 0)
	{
	  /* A witness: advance consumes it, where the walk reaches its edge.
	     Read in a call block, the block's calls are over.  */
	  COUNT (PP_TRACE_STAT_WITNESS);
	  f->pending = (uint32_t) ev.a + 1;
	  if (f->state == IN_CALLS)
	    f->state = CHOOSE;
	  continue;
	}
      if (f->state == IN_CALLS)
	{
	  /* Not a call's: the block goes on, and reads it again.  */
	  b->pos = b->mark;
	  f->state = CHOOSE;
	  continue;
	}
      FAIL ("a control record of no kind");
    }
out:
  pp_free (stack);
  site_tables_free (&sites);
  return status;
#undef FAIL
#undef COUNT
#undef COUNT_RETURN
}
