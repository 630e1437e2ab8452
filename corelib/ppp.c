/* Preferential path numbering (ppp.h): figure 10 of the paper over the DAG of a
   Ball-Larus numbering.  */

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "format/alloc.h"
#include "ppp.h"

/* One interesting path crossing one DAG edge: which path, and the Ball-Larus
   sum of its edges before that one (its prefix, unique per prefix at the edge's
   source).  */
struct crossing
{
  uint64_t prefix;
  uint32_t path;
};

static int
by_value (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return (x > y) - (x < y);
}

/* The DAG edges of path NUMBER (< npaths) from ENTRY to EXIT into OUT, which
   has room for every edge of the DAG; returns how many.  */
static uint32_t
dag_path (const pp_paths *p, uint64_t number, uint32_t *out)
{
  uint32_t n = 0;
  for (uint32_t v = p->dag.entry; v != p->dag.exit; v = p->dag.edges[out[n - 1]].dst)
    out[n++] = pp_paths_dag_step (p, v, &number);
  return n;
}

struct ppp_work
{
  uint32_t *start;		/* per DAG edge: its first crossing (CSR) */
  struct crossing *cross;
  int64_t *pid;			/* per interesting path */
  uint64_t *prefixes;		/* scratch: the distinct prefixes at a node */
  uint64_t *merged;		/* scratch: as many, for merge_runs */
  uint32_t *runs;		/* scratch: per out-edge of a node, its end */
  int64_t *cis;			/* scratch: per distinct prefix */
};

/* Sorts A, whose values are NRUNS sorted runs ending at END[0 .. NRUNS),
   by merging the runs pairwise (TMP as large as A); returns the sorted
   array, A or TMP.  */
static uint64_t *
merge_runs (uint64_t *a, uint64_t *tmp, uint32_t *end, uint32_t nruns)
{
  while (nruns > 1)
    {
      uint32_t out = 0, at = 0, k = 0;
      for (uint32_t r = 0; r < nruns; r += 2)
	{
	  uint32_t i = at, mid = end[r], j = mid, stop = r + 1 < nruns ? end[r + 1] : mid;
	  while (i < mid && j < stop)
	    tmp[out++] = a[j] < a[i] ? a[j++] : a[i++];
	  while (i < mid)
	    tmp[out++] = a[i++];
	  while (j < stop)
	    tmp[out++] = a[j++];
	  end[k++] = out;
	  at = stop;
	}
      uint64_t *t = a;
      a = tmp;
      tmp = t;
      nruns = k;
    }
  return a;
}

/* The crossings of every DAG edge, each edge's sorted by prefix.  */
static int
collect_crossings (const pp_paths *p, const pp_ppp *ppp, struct ppp_work *w)
{
  const pp_graph *d = &p->dag;
  uint32_t *edges = pp_malloc ((d->nedges + 1) * sizeof *edges);
  w->start = pp_calloc (d->nedges + 2, sizeof *w->start);
  if (!edges || !w->start)
    {
      pp_free (edges);
      return PP_PATHS_ENOMEM;
    }
  size_t total = 0;
  for (uint32_t i = 0; i < ppp->ninteresting; i++)
    {
      uint32_t n = dag_path (p, ppp->interesting[i], edges);
      for (uint32_t k = 0; k < n; k++)
	w->start[edges[k] + 2]++;
      total += n;
    }
  for (uint32_t e = 0; e < d->nedges; e++)
    w->start[e + 2] += w->start[e + 1];
  w->cross = pp_malloc ((total ? total : 1) * sizeof *w->cross);
  if (!w->cross)
    {
      pp_free (edges);
      return PP_PATHS_ENOMEM;
    }
  for (uint32_t i = 0; i < ppp->ninteresting; i++)
    {
      uint32_t n = dag_path (p, ppp->interesting[i], edges);
      uint64_t prefix = 0;
      for (uint32_t k = 0; k < n; k++)
	{
	  w->cross[w->start[edges[k] + 1]++] = (struct crossing) { prefix, i };
	  prefix += p->dag_val[edges[k]];
	}
    }
  /* Each edge's crossings come sorted by prefix: the paths are taken in
     increasing number, and through one node v a path's number is its prefix
     there plus a number below numPaths (v), so two prefixes at v differ by
     at least numPaths (v) and order the numbers as they are ordered.  */
  pp_free (edges);
  return PP_PATHS_OK;
}

/* Index of PREFIX among the n sorted distinct prefixes.  */
static uint32_t
prefix_index (const uint64_t *prefixes, uint32_t n, uint64_t prefix)
{
  return pp_lower_bound64 (prefixes, n, prefix);
}

/* Assigns the weights of v's out-edges (figure 10, lines 2-21).  */
static int
assign_node (const pp_paths *p, pp_ppp *ppp, struct ppp_work *w, uint32_t v)
{
  const pp_graph *d = &p->dag;
  /* The distinct prefixes at v: each out-edge's come sorted
     (collect_crossings), so their concatenation often is too (ENTRY's are
     all 0) and needs no sort.  */
  uint32_t nprefixes = 0, nruns = 0;
  bool sorted = true;
  for (uint32_t k = d->succ_start[v]; k < d->succ_start[v + 1]; k++)
    {
      uint32_t e = d->succ_edges[k];
      for (uint32_t c = w->start[e]; c < w->start[e + 1]; c++)
	{
	  sorted &= nprefixes == 0 || w->prefixes[nprefixes - 1] <= w->cross[c].prefix;
	  w->prefixes[nprefixes++] = w->cross[c].prefix;
	}
      if (w->start[e] < w->start[e + 1])
	w->runs[nruns++] = nprefixes;
    }
  if (nprefixes == 0)
    return PP_PATHS_OK;
  uint64_t *prefixes = w->prefixes;
  if (!sorted)
    prefixes = merge_runs (w->prefixes, w->merged, w->runs, nruns);
  uint32_t ndistinct = 1;
  for (uint32_t i = 1; i < nprefixes; i++)
    if (prefixes[i] != prefixes[ndistinct - 1])
      prefixes[ndistinct++] = prefixes[i];
  memset (w->cis, 0, ndistinct * sizeof *w->cis);

  for (uint32_t k = d->succ_start[v]; k < d->succ_start[v + 1]; k++)
    {
      uint32_t e = d->succ_edges[k], first = w->start[e], end = w->start[e + 1];
      if (first == end)
	continue;
      /* The join: the largest weight any prefix needs.  Groups of equal prefix
	 are consecutive.  */
      bool set = false;
      int64_t weight = 0;
      for (uint32_t c = first; c < end;)
	{
	  uint64_t q = w->cross[c].prefix;
	  int64_t lowest = w->pid[w->cross[c].path];
	  for (c++; c < end && w->cross[c].prefix == q; c++)
	    if (w->pid[w->cross[c].path] < lowest)
	      lowest = w->pid[w->cross[c].path];
	  int64_t proposal;
	  if (__builtin_sub_overflow (w->cis[prefix_index (prefixes, ndistinct, q)],
				      lowest, &proposal))
	    return PP_PATHS_ERANGE;
	  if (!set || proposal > weight)
	    weight = proposal, set = true;
	}
      ppp->dag_weight[e] = (uint64_t) weight;
      for (uint32_t c = first; c < end;)
	{
	  uint64_t q = w->cross[c].prefix;
	  int64_t highest = INT64_MIN;
	  for (; c < end && w->cross[c].prefix == q; c++)
	    {
	      int64_t *pid = &w->pid[w->cross[c].path];
	      if (__builtin_add_overflow (*pid, weight, pid) || *pid == INT64_MAX)
		return PP_PATHS_ERANGE;
	      if (*pid > highest)
		highest = *pid;
	    }
	  w->cis[prefix_index (prefixes, ndistinct, q)] = highest + 1;
	}
    }
  return PP_PATHS_OK;
}

/* Every path's number lies in lowest .. highest: per node in postorder
   (successors first), the least and the largest sum of weights to EXIT.  */
static int
bound_numbers (const pp_graph *d, const pp_dfs *dfs, pp_ppp *ppp)
{
  int64_t *low = pp_malloc ((d->nnodes ? d->nnodes : 1) * sizeof *low);
  int64_t *high = pp_malloc ((d->nnodes ? d->nnodes : 1) * sizeof *high);
  if (!low || !high)
    {
      pp_free (low);
      pp_free (high);
      return PP_PATHS_ENOMEM;
    }
  bool bounded = true;
  for (uint32_t i = 0; i < dfs->npost && bounded; i++)
    {
      uint32_t v = dfs->postorder[i];
      low[v] = high[v] = 0;
      for (uint32_t k = d->succ_start[v]; k < d->succ_start[v + 1]; k++)
	{
	  uint32_t e = d->succ_edges[k], t = d->edges[e].dst;
	  int64_t weight = (int64_t) ppp->dag_weight[e], l, h;
	  if (__builtin_add_overflow (low[t], weight, &l)
	      || __builtin_add_overflow (high[t], weight, &h))
	    {
	      bounded = false;
	      break;
	    }
	  if (k == d->succ_start[v] || l < low[v])
	    low[v] = l;
	  if (k == d->succ_start[v] || h > high[v])
	    high[v] = h;
	}
    }
  ppp->bounded = bounded && dfs->npost;
  ppp->lowest = ppp->bounded ? low[d->entry] : 0;
  ppp->highest = ppp->bounded ? high[d->entry] : 0;
  pp_free (low);
  pp_free (high);
  return PP_PATHS_OK;
}

int
pp_ppp_number (const pp_paths *p, const uint64_t *interesting, uint32_t n,
	       pp_ppp *out)
{
  const pp_graph *d = &p->dag;
  memset (out, 0, sizeof *out);
  struct ppp_work w = { 0 };
  pp_dfs dfs = { 0 };
  int status = PP_PATHS_ENOMEM;
  out->interesting = pp_malloc ((n ? n : 1) * sizeof *out->interesting);
  out->dag_weight = pp_calloc (d->nedges ? d->nedges : 1, sizeof *out->dag_weight);
  if (!out->interesting || !out->dag_weight)
    goto done;
  if (n)
    {
      memcpy (out->interesting, interesting, n * sizeof *interesting);
      bool sorted = true;	/* notes list them increasing */
      for (uint32_t i = 1; i < n && sorted; i++)
	sorted = interesting[i - 1] <= interesting[i];
      if (!sorted)
	pp_sort (out->interesting, n, sizeof *out->interesting, by_value);
    }
  for (uint32_t i = 0; i < n; i++)
    {
      if (out->interesting[i] >= p->npaths)
	{
	  status = PP_PATHS_EINVAL;
	  goto done;
	}
      if (out->ninteresting == 0
	  || out->interesting[i] != out->interesting[out->ninteresting - 1])
	out->interesting[out->ninteresting++] = out->interesting[i];
    }
  out->id = pp_calloc (out->ninteresting ? out->ninteresting : 1, sizeof *out->id);
  w.pid = pp_calloc (out->ninteresting ? out->ninteresting : 1, sizeof *w.pid);
  if (!out->id || !w.pid || (status = collect_crossings (p, out, &w)) != PP_PATHS_OK)
    goto done;
  status = PP_PATHS_ENOMEM;
  /* A node's prefixes are at most the crossings of its out-edges.  */
  uint32_t most = 1;
  for (uint32_t v = 0; v < d->nnodes; v++)
    {
      uint32_t crossings = 0;
      for (uint32_t i = d->succ_start[v]; i < d->succ_start[v + 1]; i++)
	crossings += w.start[d->succ_edges[i] + 1] - w.start[d->succ_edges[i]];
      if (crossings > most)
	most = crossings;
    }
  uint32_t degree = 1;
  for (uint32_t v = 0; v < d->nnodes; v++)
    if (d->succ_start[v + 1] - d->succ_start[v] > degree)
      degree = d->succ_start[v + 1] - d->succ_start[v];
  w.prefixes = pp_malloc (most * sizeof *w.prefixes);
  w.merged = pp_malloc (most * sizeof *w.merged);
  w.runs = pp_malloc (degree * sizeof *w.runs);
  w.cis = pp_malloc (most * sizeof *w.cis);
  if (!w.prefixes || !w.merged || !w.runs || !w.cis
      || pp_dfs_init (&dfs, d, PP_DFS_SUCCS, 0, NULL, NULL))
    goto done;
  /* Postorder of a DAG from ENTRY: every node after its successors.  */
  pp_dfs_run (&dfs, d->entry);
  status = PP_PATHS_OK;
  for (uint32_t i = 0; i < dfs.npost && status == PP_PATHS_OK; i++)
    status = assign_node (p, out, &w, dfs.postorder[i]);
  if (status != PP_PATHS_OK)
    goto done;
  for (uint32_t i = 0; i < out->ninteresting; i++)
    {
      out->id[i] = (uint64_t) w.pid[i];
      if (out->id[i] + 1 > out->span)
	out->span = out->id[i] + 1;
    }
  status = bound_numbers (d, &dfs, out);
done:
  pp_dfs_free (&dfs);
  pp_free (w.start);
  pp_free (w.cross);
  pp_free (w.pid);
  pp_free (w.prefixes);
  pp_free (w.merged);
  pp_free (w.runs);
  pp_free (w.cis);
  if (status != PP_PATHS_OK)
    pp_ppp_free (out);
  return status;
}

uint64_t
pp_ppp_slot (const pp_ppp *ppp, uint64_t path)
{
  uint32_t lo = 0, hi = ppp->ninteresting;
  while (lo < hi)
    {
      uint32_t mid = lo + (hi - lo) / 2;
      if (ppp->interesting[mid] < path)
	lo = mid + 1;
      else
	hi = mid;
    }
  return lo < ppp->ninteresting && ppp->interesting[lo] == path
	 ? ppp->id[lo] : UINT64_MAX;
}

uint64_t
pp_ppp_path_sum (const pp_paths *p, const pp_ppp *ppp, const pp_path *path)
{
  uint64_t sum = 0;
  if (path->start_node != p->dag.entry)
    sum += ppp->dag_weight[p->start_of_node[path->start_node]];
  for (uint32_t k = 0; k < path->nedges; k++)
    sum += ppp->dag_weight[p->dag_of_edge[path->edges[k]]];
  if (path->end_edge != PP_PATH_NONE)
    sum += ppp->dag_weight[p->dag_of_edge[path->end_edge]];
  return sum;
}
