/* Per-line execution counts with gcov's semantics: see line-counts.h.  */

#include "line-counts.h"

#include <stdlib.h>
#include <string.h>
#include "profile.h"

struct line_function
{
  const pp_graph *g;
  const uint64_t *edge_counts;	/* NULL in a coverage function */
  bool flow;			/* edge_counts are flow counts: sums modulo 2^64 */
  const bool *ran;		/* per node, in a coverage function */
  const pp_block_notes *blocks;
  const uint32_t *source_of_file;
};

/* Block `block' of function `function' is anchored on (source, line).  */
struct line_anchor
{
  uint32_t source, line, function, block;
};

void
line_counts_init (line_counts *lc)
{
  memset (lc, 0, sizeof *lc);
}

void
line_counts_free (line_counts *lc)
{
  for (uint32_t i = 0; i < lc->nsources; i++)
    {
      free (lc->sources[i].path);
      free (lc->sources[i].lines);
      free (lc->sources[i].index);
    }
  free (lc->sources);
  free (lc->functions);
  free (lc->anchors);
  line_counts_init (lc);
}

/* Grows *array (of *cap elements of size elt) to hold at least need elements.  */
static int
reserve (void **array, size_t *cap, size_t need, size_t elt)
{
  if (need <= *cap)
    return 0;
  size_t n = *cap ? *cap : 8;
  while (n < need)
    n *= 2;
  void *p = realloc (*array, n * elt);
  if (!p)
    return -1;
  *array = p;
  *cap = n;
  return 0;
}

int
line_counts_source (line_counts *lc, const char *path, uint32_t *index)
{
  for (uint32_t i = 0; i < lc->nsources; i++)
    if (strcmp (lc->sources[i].path, path) == 0)
      {
	*index = i;
	return 0;
      }
  size_t cap = lc->sources_cap;
  if (reserve ((void **) &lc->sources, &cap, lc->nsources + 1,
	       sizeof *lc->sources))
    return -1;
  lc->sources_cap = cap;
  line_source *s = &lc->sources[lc->nsources];
  memset (s, 0, sizeof *s);
  if (!(s->path = strdup (path)))
    return -1;
  *index = lc->nsources++;
  return 0;
}

static uint32_t
line_hash (uint32_t line, uint32_t cap)
{
  return (uint32_t) ((line * UINT64_C (0x9e3779b97f4a7c15)) >> 32) & (cap - 1);
}

/* Rebuilds s's index for its lines as they are now, with room to grow.
   Returns 0, or -1 on allocation failure.  */
static int
reindex (line_source *s)
{
  uint32_t cap = 64;
  while (cap < 2 * (s->nlines + 1))
    {
      if (cap > UINT32_MAX / 2)
	return -1;
      cap *= 2;
    }
  uint32_t *index = calloc (cap, sizeof *index);
  if (!index)
    return -1;
  for (uint32_t i = 0; i < s->nlines; i++)
    {
      uint32_t h = line_hash (s->lines[i].line, cap);
      while (index[h])
	h = (h + 1) & (cap - 1);
      index[h] = i + 1;
    }
  free (s->index);
  s->index = index;
  s->index_cap = cap;
  return 0;
}

/* The entry for line `line' of source s, added if new (lines stay unsorted
   until sort_lines).  NULL on allocation failure.  */
static line_count *
source_line (line_source *s, uint32_t line)
{
  if (s->index_cap == 0 && reindex (s))
    return NULL;
  uint32_t h = line_hash (line, s->index_cap);
  for (; s->index[h]; h = (h + 1) & (s->index_cap - 1))
    if (s->lines[s->index[h] - 1].line == line)
      return &s->lines[s->index[h] - 1];
  size_t cap = s->lines_cap;
  if (reserve ((void **) &s->lines, &cap, (size_t) s->nlines + 1, sizeof *s->lines))
    return NULL;
  s->lines_cap = (uint32_t) cap;
  line_count *l = &s->lines[s->nlines];
  memset (l, 0, sizeof *l);
  l->line = line;
  s->index[h] = ++s->nlines;
  if (2 * (s->nlines + 1) > s->index_cap && reindex (s))
    return NULL;
  return l;
}

static int
by_line (const void *a, const void *b)
{
  const line_count *x = a, *y = b;
  return (x->line > y->line) - (x->line < y->line);
}

/* Sorts every source's lines by number and reindexes them.  */
static int
sort_lines (line_counts *lc)
{
  for (uint32_t i = 0; i < lc->nsources; i++)
    {
      line_source *s = &lc->sources[i];
      if (s->nlines > 1)
	qsort (s->lines, s->nlines, sizeof *s->lines, by_line);
      if (reindex (s))
	return -1;
    }
  return 0;
}

const line_count *
line_source_find (const line_source *s, uint32_t line)
{
  uint32_t lo = 0, hi = s->nlines;
  while (lo < hi)
    {
      uint32_t mid = lo + (hi - lo) / 2;
      if (s->lines[mid].line < line)
	lo = mid + 1;
      else
	hi = mid;
    }
  return lo < s->nlines && s->lines[lo].line == line ? &s->lines[lo] : NULL;
}

uint64_t
line_counts_node_count (const pp_graph *g, const uint64_t *edge_counts,
			uint32_t v)
{
  /* EXIT's incoming fake leaves may be negative (a call that returned more
     often than it was made, after fork); its one outgoing edge is the count.  */
  if (v == g->exit)
    {
      uint64_t sum = 0;
      for (uint32_t i = g->succ_start[v]; i < g->succ_start[v + 1]; i++)
	sum = pp_sat_add (sum, edge_counts[g->succ_edges[i]]);
      return sum;
    }
  uint64_t sum = 0;
  for (uint32_t i = g->pred_start[v]; i < g->pred_start[v + 1]; i++)
    sum = pp_sat_add (sum, edge_counts[g->pred_edges[i]]);
  return sum;
}

uint64_t
line_counts_node_flow (const pp_graph *g, const uint64_t *flow_counts, uint32_t v)
{
  /* Modulo 2^64: the stand-in counts of figure 8 may wrap; their sum does not.  */
  uint32_t start = v == g->exit ? g->succ_start[v] : g->pred_start[v];
  uint32_t end = v == g->exit ? g->succ_start[v + 1] : g->pred_start[v + 1];
  const uint32_t *edges = v == g->exit ? g->succ_edges : g->pred_edges;
  uint64_t sum = 0;
  for (uint32_t i = start; i < end; i++)
    sum += flow_counts[edges[i]];
  return sum;
}

/* The anchor of the run of b->lines starting at *pos, which is advanced past it.  */
static pp_line_ref
next_run_anchor (const pp_block_notes *b, uint32_t *pos)
{
  pp_line_ref anchor = b->lines[*pos];
  uint32_t i = *pos + 1;
  for (; i < b->nlines && b->lines[i].file == anchor.file; i++)
    if (b->lines[i].line > anchor.line)
      anchor.line = b->lines[i].line;
  *pos = i;
  return anchor;
}

bool
line_counts_block_anchor (const pp_block_notes *block, pp_line_ref *anchor)
{
  if (block->nlines == 0)
    return false;
  uint32_t start = block->nlines - 1;
  while (start > 0 && block->lines[start - 1].file == block->lines[start].file)
    start--;
  *anchor = next_run_anchor (block, &start);
  return true;
}

static int
add_function (line_counts *lc, const pp_graph *g, const uint64_t *edge_counts,
	      bool flow, const bool *ran, const pp_block_notes *blocks,
	      const uint32_t *source_of_file)
{
  size_t cap = lc->functions_cap;
  if (reserve ((void **) &lc->functions, &cap, lc->nfunctions + 1,
	       sizeof *lc->functions))
    return -1;
  lc->functions_cap = cap;
  uint32_t fn = lc->nfunctions;

  for (uint32_t v = 0; v < g->nnodes; v++)
    {
      /* gcov 12 still takes the last block for EXIT, as before EXIT became
	 block 1: the last block anchors nothing.  */
      if (v == g->entry || v == g->nnodes - 1)
	continue;
      for (uint32_t pos = 0; pos < blocks[v].nlines;)
	{
	  pp_line_ref a = next_run_anchor (&blocks[v], &pos);
	  if (reserve ((void **) &lc->anchors, &lc->anchors_cap,
		       lc->nanchors + 1, sizeof *lc->anchors))
	    return -1;
	  lc->anchors[lc->nanchors++] = (struct line_anchor)
	    { source_of_file[a.file], a.line, fn, v };
	}
    }
  lc->functions[fn] = (struct line_function)
    { g, edge_counts, flow, ran, blocks, source_of_file };
  lc->nfunctions++;
  return 0;
}

int
line_counts_add_function (line_counts *lc, const pp_graph *g,
			  const uint64_t *edge_counts,
			  const pp_block_notes *blocks,
			  const uint32_t *source_of_file)
{
  return add_function (lc, g, edge_counts, false, NULL, blocks, source_of_file);
}

int
line_counts_add_flow_function (line_counts *lc, const pp_graph *g,
			       const uint64_t *flow_counts,
			       const pp_block_notes *blocks,
			       const uint32_t *source_of_file)
{
  return add_function (lc, g, flow_counts, true, NULL, blocks, source_of_file);
}

int
line_counts_add_covered_function (line_counts *lc, const pp_graph *g,
				  const bool *ran, const pp_block_notes *blocks,
				  const uint32_t *source_of_file)
{
  return add_function (lc, g, NULL, false, ran, blocks, source_of_file);
}

static bool
block_ran (const struct line_function *f, uint32_t v)
{
  if (f->ran)
    return f->ran[v];
  return (f->flow ? line_counts_node_flow (f->g, f->edge_counts, v)
	  : line_counts_node_count (f->g, f->edge_counts, v)) != 0;
}

/* gcov's exception edges: non-fake, non-fallthru successors of a block (not ENTRY)
   that also has a fake edge, i.e. of a call that may not return.  */
static bool
is_throw_edge (const pp_graph *g, uint32_t e)
{
  const pp_edge *edge = &g->edges[e];
  if (edge->src == g->entry
      || edge->flags & (PP_EDGE_FAKE | PP_EDGE_FALLTHRU | PP_EDGE_EXIT_ENTRY))
    return false;
  for (uint32_t i = g->succ_start[edge->src]; i < g->succ_start[edge->src + 1];
       i++)
    if (g->edges[g->succ_edges[i]].flags & PP_EDGE_FAKE)
      return true;
  return false;
}

/* Marks the blocks reachable from ENTRY only through fake or exception edges.
   Like gcov, marks none in a function without exception edges.  Returns 0 or -1.  */
static int
find_exceptional_blocks (const pp_graph *g, bool *exceptional)
{
  memset (exceptional, 0, g->nnodes * sizeof *exceptional);
  bool has_throw = false;
  for (uint32_t e = 0; e < g->nedges && !has_throw; e++)
    has_throw = is_throw_edge (g, e);
  if (!has_throw)
    return 0;

  uint32_t *queue = malloc (g->nnodes * sizeof *queue);
  if (!queue)
    return -1;
  for (uint32_t v = 0; v < g->nnodes; v++)
    exceptional[v] = true;
  uint32_t n = 0;
  exceptional[g->entry] = false;
  queue[n++] = g->entry;
  while (n)
    {
      uint32_t v = queue[--n];
      for (uint32_t i = g->succ_start[v]; i < g->succ_start[v + 1]; i++)
	{
	  uint32_t e = g->succ_edges[i];
	  uint32_t w = g->edges[e].dst;
	  if (!(g->edges[e].flags & (PP_EDGE_FAKE | PP_EDGE_EXIT_ENTRY))
	      && !is_throw_edge (g, e) && exceptional[w])
	    {
	      exceptional[w] = false;
	      queue[n++] = w;
	    }
	}
    }
  free (queue);
  return 0;
}

/* Orders anchors by line, so that anchored () can search them.  */
static int
compare_anchor_lines (const void *a, const void *b)
{
  const struct line_anchor *x = a, *y = b;
  if (x->source != y->source)
    return x->source < y->source ? -1 : 1;
  return x->line < y->line ? -1 : x->line > y->line;
}

static bool
anchored (const line_counts *lc, uint32_t source, uint32_t line)
{
  struct line_anchor key = { source, line, 0, 0 };
  return lc->nanchors != 0	/* bsearch wants a valid base even for 0 */
	 && bsearch (&key, lc->anchors, lc->nanchors, sizeof key,
		  compare_anchor_lines) != NULL;
}

/* Sets the flags of every line the pending blocks mention, and adds the block
   counts to the lines that anchor no pending block.  lc->anchors are sorted by
   line.  */
static int
add_block_sums (line_counts *lc)
{
  for (uint32_t fn = 0; fn < lc->nfunctions; fn++)
    {
      const struct line_function *f = &lc->functions[fn];
      const pp_graph *g = f->g;
      bool *exceptional = malloc (g->nnodes * sizeof *exceptional);
      if (!exceptional || find_exceptional_blocks (g, exceptional))
	{
	  free (exceptional);
	  return -1;
	}
      for (uint32_t v = 0; v < g->nnodes; v++)
	{
	  bool ran = block_ran (f, v);
	  uint64_t count
	    = f->edge_counts ? line_counts_node_count (g, f->edge_counts, v) : 0;
	  for (uint32_t i = 0; i < f->blocks[v].nlines; i++)
	    {
	      pp_line_ref r = f->blocks[v].lines[i];
	      line_count *l = source_line (&lc->sources[f->source_of_file[r.file]],
					   r.line);
	      if (!l)
		{
		  free (exceptional);
		  return -1;
		}
	      l->exists = true;
	      l->uncounted |= !f->edge_counts;
	      if (!anchored (lc, f->source_of_file[r.file], r.line))
		{
		  l->count = pp_sat_add (l->count, count);
		  l->covered |= ran;
		}
	      if (!exceptional[v])
		{
		  l->unexceptional = true;
		  if (!ran)
		    l->has_unexecuted_block = true;
		}
	    }
	}
      free (exceptional);
    }
  return 0;
}

/* Successor edges of every node in gcov's order: by destination, then as recorded
   (out-degrees are small: insertion sort).  */
static uint32_t *
sorted_successors (const pp_graph *g)
{
  uint32_t *succ = malloc ((g->nedges ? g->nedges : 1) * sizeof *succ);
  if (!succ)
    return NULL;
  memcpy (succ, g->succ_edges, g->nedges * sizeof *succ);
  for (uint32_t v = 0; v < g->nnodes; v++)
    for (uint32_t i = g->succ_start[v] + 1; i < g->succ_start[v + 1]; i++)
      {
	uint32_t e = succ[i], j = i;
	for (; j > g->succ_start[v]
	     && g->edges[succ[j - 1]].dst > g->edges[e].dst; j--)
	  succ[j] = succ[j - 1];
	succ[j] = e;
      }
  return succ;
}

/* A node list that grows; used for the paths and for the blocking lists.  */
struct node_list
{
  uint32_t n, cap;
  uint32_t *items;
};

static int
node_list_push (struct node_list *l, uint32_t v)
{
  size_t cap = l->cap;
  if (reserve ((void **) &l->items, &cap, l->n + 1, sizeof *l->items))
    return -1;
  l->cap = cap;
  l->items[l->n++] = v;
  return 0;
}

/* State of the circuit search over one line's block set S in one function.  */
struct circuits
{
  const pp_graph *g;
  const uint32_t *succ;		/* sorted_successors */
  bool *in_set;			/* per node: in S */
  uint64_t *residual;		/* per edge */
  bool *blocked;		/* per node */
  struct node_list *unblock_with;	/* per node: nodes to unblock with it */
  struct node_list path;	/* edges from the start node */
  uint32_t start;
  uint64_t count;
  bool failed;			/* allocation failure */
};

static void
unblock (struct circuits *c, uint32_t u)
{
  if (!c->blocked[u])
    return;
  c->blocked[u] = false;
  struct node_list *l = &c->unblock_with[u];
  while (l->n)
    unblock (c, l->items[--l->n]);
}

static bool
path_has_spent_edge (const struct circuits *c)
{
  for (uint32_t i = 0; i < c->path.n; i++)
    if (c->residual[c->path.items[i]] == 0)
      return true;
  return false;
}

/* Takes the circuit on the path: its minimum residual is the number of turns it
   accounts for.  */
static void
take_circuit (struct circuits *c)
{
  uint64_t turns = UINT64_MAX;
  for (uint32_t i = 0; i < c->path.n; i++)
    if (c->residual[c->path.items[i]] < turns)
      turns = c->residual[c->path.items[i]];
  c->count = pp_sat_add (c->count, turns);
  for (uint32_t i = 0; i < c->path.n; i++)
    c->residual[c->path.items[i]] -= turns;
}

/* Whether edge e leads to a node the search from c->start may visit.  */
static bool
searchable (const struct circuits *c, uint32_t e)
{
  uint32_t w = c->g->edges[e].dst;
  return w >= c->start && c->residual[e] > 0 && c->in_set[w];
}

/* Hawick and James' circuit search from node v; returns whether a circuit through
   v was found.  */
static bool
circuit (struct circuits *c, uint32_t v)
{
  const pp_graph *g = c->g;
  bool found = false;
  c->blocked[v] = true;

  for (uint32_t i = g->succ_start[v]; i < g->succ_start[v + 1] && !c->failed;
       i++)
    {
      uint32_t e = c->succ[i];
      if (!searchable (c, e))
	continue;
      uint32_t w = g->edges[e].dst;
      if (node_list_push (&c->path, e))
	{
	  c->failed = true;
	  break;
	}
      if (w == c->start)
	{
	  take_circuit (c);
	  found = true;
	}
      else if (!path_has_spent_edge (c) && !c->blocked[w])
	found |= circuit (c, w);
      c->path.n--;
    }

  if (found)
    unblock (c, v);
  else
    for (uint32_t i = g->succ_start[v]; i < g->succ_start[v + 1]; i++)
      {
	uint32_t e = c->succ[i];
	if (!searchable (c, e))
	  continue;
	struct node_list *l = &c->unblock_with[g->edges[e].dst];
	bool listed = false;
	for (uint32_t k = 0; k < l->n && !listed; k++)
	  listed = l->items[k] == v;
	if (!listed && node_list_push (l, v))
	  c->failed = true;
      }
  return found;
}

/* The count of a line anchoring blocks set[0..n-1] (increasing) of one function:
   the entries into the set plus the turns of the circuits within it.  c->in_set,
   c->blocked and c->unblock_with are clear on entry and on return.  */
static uint64_t
anchored_count (struct circuits *c, const uint64_t *edge_counts, bool flow,
		const uint32_t *set, uint32_t n)
{
  const pp_graph *g = c->g;
  uint64_t count = 0;
  for (uint32_t k = 0; k < n; k++)
    c->in_set[set[k]] = true;
  for (uint32_t k = 0; k < n; k++)
    {
      uint32_t v = set[k];
      for (uint32_t i = g->pred_start[v]; i < g->pred_start[v + 1]; i++)
	{
	  uint32_t e = g->pred_edges[i];
	  /* Flow counts: the entries into the set are exact as a sum only (the
	     set's blocks' totals less the exact counts of the edges within).  */
	  if (!c->in_set[g->edges[e].src])
	    count = flow ? count + edge_counts[e]
			 : pp_sat_add (count, edge_counts[e]);
	}
      for (uint32_t i = g->succ_start[v]; i < g->succ_start[v + 1]; i++)
	c->residual[g->succ_edges[i]] = edge_counts[g->succ_edges[i]];
    }

  c->count = 0;
  for (uint32_t k = 0; k < n && !c->failed; k++)
    {
      c->start = set[k];
      c->path.n = 0;
      circuit (c, set[k]);
      for (uint32_t j = 0; j < n; j++)
	{
	  c->blocked[set[j]] = false;
	  c->unblock_with[set[j]].n = 0;
	}
    }

  for (uint32_t k = 0; k < n; k++)
    c->in_set[set[k]] = false;
  return pp_sat_add (count, c->count);
}

static int
compare_anchors (const void *a, const void *b)
{
  const struct line_anchor *x = a, *y = b;
  if (x->function != y->function)
    return x->function < y->function ? -1 : 1;
  if (x->source != y->source)
    return x->source < y->source ? -1 : 1;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  return x->block < y->block ? -1 : x->block > y->block;
}

static void
free_circuits (struct circuits *c, uint32_t nnodes)
{
  if (c->unblock_with)
    for (uint32_t v = 0; v < nnodes; v++)
      free (c->unblock_with[v].items);
  free (c->unblock_with);
  free ((void *) c->succ);
  free (c->in_set);
  free (c->residual);
  free (c->blocked);
  free (c->path.items);
  memset (c, 0, sizeof *c);
}

static int
init_circuits (struct circuits *c, const pp_graph *g)
{
  memset (c, 0, sizeof *c);
  c->g = g;
  c->succ = sorted_successors (g);
  c->in_set = calloc (g->nnodes, sizeof *c->in_set);
  c->residual = calloc (g->nedges ? g->nedges : 1, sizeof *c->residual);
  c->blocked = calloc (g->nnodes, sizeof *c->blocked);
  c->unblock_with = calloc (g->nnodes, sizeof *c->unblock_with);
  if (!c->succ || !c->in_set || !c->residual || !c->blocked || !c->unblock_with)
    {
      free_circuits (c, g->nnodes);
      return -1;
    }
  return 0;
}

/* Adds up the anchored counts and coverage of the lines anchored in function fn,
   whose anchors are anchors[0..n-1], sorted by line.  */
static int
add_function_anchored_counts (line_counts *lc, uint32_t fn,
			      const struct line_anchor *anchors, size_t n)
{
  const struct line_function *f = &lc->functions[fn];
  struct circuits c;
  uint32_t *set = malloc (n * sizeof *set);
  if (!set || init_circuits (&c, f->g))
    {
      free (set);
      return -1;
    }
  for (size_t i = 0; i < n && !c.failed;)
    {
      uint32_t source = anchors[i].source, line = anchors[i].line, nset = 0;
      for (; i < n && anchors[i].source == source && anchors[i].line == line; i++)
	if (nset == 0 || set[nset - 1] != anchors[i].block)
	  set[nset++] = anchors[i].block;
      line_count *l = source_line (&lc->sources[source], line);
      if (!l)
	{
	  c.failed = true;
	  break;
	}
      for (uint32_t k = 0; k < nset && !l->covered; k++)
	l->covered = block_ran (f, set[k]);
      if (f->edge_counts)
	l->count = pp_sat_add (l->count,
			       anchored_count (&c, f->edge_counts, f->flow, set,
					       nset));
    }
  int status = c.failed ? -1 : 0;
  free_circuits (&c, f->g->nnodes);
  free (set);
  return status;
}

/* Adds the anchored counts of the pending anchors.  */
static int
add_anchored_counts (line_counts *lc)
{
  if (lc->nanchors)		/* qsort wants a valid base even for 0 */
    qsort (lc->anchors, lc->nanchors, sizeof *lc->anchors, compare_anchors);
  for (size_t i = 0; i < lc->nanchors;)
    {
      size_t first = i;
      uint32_t fn = lc->anchors[first].function;
      while (i < lc->nanchors && lc->anchors[i].function == fn)
	i++;
      if (add_function_anchored_counts (lc, fn, lc->anchors + first, i - first))
	return -1;
    }
  return 0;
}

int
line_counts_commit (line_counts *lc)
{
  if (lc->nanchors)
    qsort (lc->anchors, lc->nanchors, sizeof *lc->anchors, compare_anchor_lines);
  int status = add_block_sums (lc);
  if (status == 0)
    status = add_anchored_counts (lc);
  if (status == 0)
    status = sort_lines (lc);
  lc->nfunctions = 0;
  lc->nanchors = 0;
  return status;
}
