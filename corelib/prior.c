/* What a previous profile says about a function (prior.h).  */

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/alloc.h"
#include "ip-notes.h"
#include "prior.h"
#include "edgeprof.h"
#include "format/modes.h"
#include "plan.h"

static int
by_path (const void *a, const void *b)
{
  const pp_path_count *x = a, *y = b;
  return (x->path > y->path) - (x->path < y->path);
}

int
pp_function_path_counts (const pp_function_notes *fn, uint32_t index,
			 const pp_unit_data *u, uint64_t npaths,
			 pp_path_count **out, uint32_t *n, char *err,
			 size_t errlen)
{
  *out = NULL;
  *n = 0;
  /* The unit's sparse counts of this function: a binary search for the first.  */
  uint32_t first = 0, hi = u->nsparse;
  while (first < hi)
    {
      uint32_t mid = first + (hi - first) / 2;
      if (u->sparse[mid].function < index)
	first = mid + 1;
      else
	hi = mid;
    }
  uint32_t end = first;
  while (end < u->nsparse && u->sparse[end].function == index)
    end++;
  if (fn->nvalues && u->value_kind != PP_VALUES_U64)
    return pp_fail (err, errlen, "path counts that are not counters (corrupted "
		 "profile)");
  if (fn->nkeys == 0 && fn->nvalues && fn->nvalues != npaths)
    return pp_fail (err, errlen, "%" PRIu32 " path counters for %" PRIu64 " paths "
		 "(corrupted profile)", fn->nvalues, npaths);
  if (fn->nkeys == 0 && fn->nvalues && end > first)
    return pp_fail (err, errlen, "path counts both in counters and in a table "
		 "(corrupted profile)");
  for (uint32_t i = 0; i < fn->ninteresting; i++)
    if (fn->interesting[i] >= npaths)
      return pp_fail (err, errlen, "interesting path %" PRIu64 " but the function "
		   "has %" PRIu64 " paths (corrupted profile)", fn->interesting[i],
		   npaths);
  size_t most = (size_t) fn->nvalues + (end - first);
  pp_path_count *c = pp_malloc ((most ? most : 1) * sizeof *c);
  if (!c)
    return pp_fail (err, errlen, "out of memory");
  uint32_t k = 0;
  const uint64_t *values = (const uint64_t *) u->values + fn->value_offset;
  for (uint32_t v = 0; v < fn->nvalues; v++)
    {
      if (!values[v])
	continue;
      uint64_t path = fn->nkeys ? fn->keys[v] : v;
      if (path == UINT64_MAX)
	{
	  pp_free (c);
	  return pp_fail (err, errlen, "a count in slot %" PRIu32 ", which counts no "
		       "path (corrupted profile)", v);
	}
      c[k++] = (pp_path_count) { path, values[v] };
    }
  for (uint32_t i = first; i < end; i++)
    {
      if (u->sparse[i].path >= npaths)
	{
	  pp_free (c);
	  return pp_fail (err, errlen, "a count of path %" PRIu64 " but the function "
		       "has %" PRIu64 " paths (corrupted profile)", u->sparse[i].path,
		       npaths);
	}
      if (u->sparse[i].count)
	c[k++] = (pp_path_count) { u->sparse[i].path, u->sparse[i].count };
    }
  pp_sort (c, k, sizeof *c, by_path);
  uint32_t m = 0;
  for (uint32_t i = 0; i < k; i++)
    if (m && c[m - 1].path == c[i].path)
      c[m - 1].count = pp_sat_add (c[m - 1].count, c[i].count);
    else
      c[m++] = c[i];
  *out = c;
  *n = m;
  return 0;
}

static int
hottest_first (const void *a, const void *b)
{
  const pp_path_count *x = a, *y = b;
  if (x->count != y->count)
    return x->count < y->count ? 1 : -1;
  return (x->path > y->path) - (x->path < y->path);
}

uint32_t
pp_select_hottest (pp_path_count *counts, uint32_t n, double percent)
{
  if (n == 0)
    return 0;
  pp_sort (counts, n, sizeof *counts, hottest_first);
  if (percent >= 100)
    return n;
  long double total = 0, taken = 0;
  for (uint32_t i = 0; i < n; i++)
    total += counts[i].count;
  uint32_t k = 0;
  while (k < n && taken * 100 < total * percent)
    taken += counts[k++].count;
  return k;
}

int
pp_prior_load (const char *file, pp_prior *prior, char *err, size_t errlen)
{
  memset (prior, 0, sizeof *prior);
  if (pp_profile_read_file (file, &prior->profile, NULL, err, errlen))
    return -1;
  prior->units = pp_calloc (prior->profile.nunits ? prior->profile.nunits : 1,
			 sizeof *prior->units);
  if (!prior->units)
    {
      pp_prior_free (prior);
      return pp_fail (err, errlen, "out of memory");
    }
  for (uint32_t i = 0; i < prior->profile.nunits; i++)
    prior->units[i].data = &prior->profile.units[i];
  prior->nunits = prior->profile.nunits;
  return 0;
}

void
pp_prior_free (pp_prior *prior)
{
  for (uint32_t i = 0; i < prior->nunits; i++)
    pp_notes_free (&prior->units[i].notes);
  pp_free (prior->units);
  pp_profile_free (&prior->profile);
  memset (prior, 0, sizeof *prior);
}

uint32_t
pp_prior_unit_mode (const pp_prior *prior, uint32_t i)
{
  const pp_unit_data *u = prior->units[i].data;
  if (u->notes_len < 12)
    return 0;
  const unsigned char *m = u->notes + 8;	/* after magic and version */
  return m[0] | (uint32_t) m[1] << 8 | (uint32_t) m[2] << 16 | (uint32_t) m[3] << 24;
}

/* Decodes unit i's notes once.  Returns 0, or -1 with err set.  */
static int
decode_unit (pp_prior *prior, uint32_t i, char *err, size_t errlen)
{
  pp_prior_unit *pu = &prior->units[i];
  if (pu->decoded == 0)
    {
      char why[256];
      pu->decoded = pp_notes_decode (pu->data->notes, pu->data->notes_len,
				     &pu->notes, why, sizeof why) == 0
		    && pp_notes_check_values (&pu->notes, pu->data->nvalues, why,
					      sizeof why) == 0 ? 1 : -1;
      if (pu->decoded < 0)
	{
	  pp_notes_free (&pu->notes);
	  return pp_fail (err, errlen, "unit %s: notes %s", pu->data->name, why);
	}
    }
  return pu->decoded > 0 ? 0
	 : pp_fail (err, errlen, "unit %s: notes do not decode", pu->data->name);
}

static bool
find_in_unit (const pp_prior_unit *pu, const char *asm_name, pp_prior_function *f)
{
  for (uint32_t k = 0; k < pu->notes.nfunctions; k++)
    if (strcmp (pu->notes.functions[k].asm_name, asm_name) == 0)
      {
	*f = (pp_prior_function) { pu, k, &pu->notes.functions[k] };
	return true;
      }
  return false;
}

int
pp_prior_find (pp_prior *prior, const char *unit_name, const char *asm_name,
	       pp_prior_function *f, char *err, size_t errlen)
{
  bool unit_seen = false;
  for (uint32_t i = 0; i < prior->nunits; i++)
    if (strcmp (prior->units[i].data->name, unit_name) == 0)
      {
	unit_seen = true;
	if (decode_unit (prior, i, err, errlen))
	  return -1;
	if (find_in_unit (&prior->units[i], asm_name, f))
	  return 1;
      }
  if (unit_seen)
    return 0;
  unsigned found = 0;
  pp_prior_function only;
  for (uint32_t i = 0; i < prior->nunits && found < 2; i++)
    {
      const pp_unit_data *d = prior->units[i].data;
      if (pp_ip_manifest_p (d->notes, d->notes_len))
	continue;		/* a program record, no unit */
      if (decode_unit (prior, i, err, errlen))
	return -1;
      if (find_in_unit (&prior->units[i], asm_name, &only))
	found++;
    }
  if (found != 1)
    return 0;
  *f = only;
  return 1;
}

/* ------------------------------------------------------------------------- */
/* Edge counts.  */

/* The edges ENTRY -> h that start paths at a re-entry target h (the function's
   entry or a fake re-entry): together they started the paths that began at h
   minus those that came through a cut.  One such edge gets the difference (a
   fake re-entry may be negative: a path after the cut was lost); several, only
   when it is 0.  */
static void
count_starts (const pp_graph *g, const pp_paths *p, const uint64_t *starts,
	      uint64_t *counts, bool *unknown)
{
  for (uint32_t h = 0; h < g->nnodes; h++)
    {
      uint32_t nstart = 0, start = PP_PATH_NONE;
      uint64_t through_cuts = 0;
      for (uint32_t i = g->pred_start[h]; i < g->pred_start[h + 1]; i++)
	{
	  uint32_t e = g->pred_edges[i];
	  if (p->role[e] == PP_PATH_ROLE_START)
	    {
	      nstart++;
	      start = e;
	    }
	  else if (p->role[e] == PP_PATH_ROLE_BACK
		   || p->role[e] == PP_PATH_ROLE_CUT)
	    through_cuts = pp_sat_add (through_cuts, counts[e]);
	}
      if (nstart == 0)
	continue;
      int64_t rest = (int64_t) (starts[h] - through_cuts);
      bool fake = (g->edges[start].flags & PP_EDGE_FAKE) != 0;
      if (rest == 0 || (nstart == 1 && (rest > 0 || fake)))
	{
	  if (nstart == 1)
	    counts[start] = (uint64_t) rest;
	  continue;
	}
      for (uint32_t i = g->pred_start[h]; i < g->pred_start[h + 1]; i++)
	if (unknown && p->role[g->pred_edges[i]] == PP_PATH_ROLE_START)
	  unknown[g->pred_edges[i]] = true;
    }
}

int
pp_edge_counts_of_paths (const pp_graph *g, const pp_paths *p,
			 const pp_path_count *executed, uint32_t n,
			 uint64_t *counts, bool *unknown)
{
  uint32_t *edges = pp_malloc ((p->max_path_edges + 1) * sizeof *edges);
  uint64_t *starts = pp_calloc (g->nnodes + 1, sizeof *starts);
  if (!edges || !starts)
    {
      pp_free (edges);
      pp_free (starts);
      return -1;
    }
  memset (counts, 0, g->nedges * sizeof *counts);
  if (unknown)
    memset (unknown, 0, g->nedges * sizeof *unknown);
  for (uint32_t i = 0; i < n; i++)
    {
      uint64_t c = executed[i].count;
      pp_path path = { .edges = edges };
      if (pp_paths_decode (p, executed[i].path, &path) != PP_PATHS_OK)
	abort ();		/* pp_function_path_counts checked the range */
      for (uint32_t k = 0; k < path.nedges; k++)
	counts[path.edges[k]] = pp_sat_add (counts[path.edges[k]], c);
      if (path.end_edge != PP_PATH_NONE)
	counts[path.end_edge] = pp_sat_add (counts[path.end_edge], c);
      if (path.start_node != g->entry)
	starts[path.start_node] = pp_sat_add (starts[path.start_node], c);
    }
  count_starts (g, p, starts, counts, unknown);
  uint64_t returns = 0;
  for (uint32_t i = g->pred_start[g->exit]; i < g->pred_start[g->exit + 1]; i++)
    returns = pp_sat_add (returns, counts[g->pred_edges[i]]);
  for (uint32_t e = 0; e < g->nedges; e++)
    if (p->role[e] == PP_PATH_ROLE_CLOSING)
      counts[e] = returns;
  pp_free (edges);
  pp_free (starts);
  return 0;
}

int
pp_notes_paths_number (const pp_function_notes *fn, const pp_graph *g,
		       pp_paths **out)
{
  bool *path_end = pp_malloc (g->nedges ? g->nedges : 1);
  if (!path_end)
    return PP_PATHS_ENOMEM;
  for (uint32_t e = 0; e < g->nedges; e++)
    path_end[e] = (fn->edges[e].flags & PP_EDGE_PATH_END) != 0;
  int rc = pp_paths_number (g, path_end, out);
  pp_free (path_end);
  return rc;
}

bool
pp_prior_yields_edge_counts (uint32_t mode)
{
  const pp_mode_info *m = pp_mode_lookup (mode);
  return m && m->counts && m->edges_determined && !m->traced;
}

/* Counters on edges (edge-counts): the rest by flow propagation.  */
static int
edge_counts_of_counters (const pp_prior_function *f, const pp_mode_info *mode,
			 const pp_graph *g, uint64_t *counts, char *err,
			 size_t errlen)
{
  const pp_function_notes *fn = f->notes;
  pp_plan plan;
  if (pp_plan_from_notes (fn, mode, &plan, err, errlen))
    return -1;
  int32_t *counter_of_edge = pp_plan_counter_of_edge (&plan, g->nedges);
  bool *known = pp_malloc ((g->nedges ? g->nedges : 1) * sizeof *known);
  int rc = -1;
  if (counter_of_edge && known)
    rc = pp_propagate_counts_signed_fakes
	   (g, counter_of_edge, (const uint64_t *) f->unit->data->values
				+ fn->value_offset, counts, known);
  if (rc == 2)
    for (uint32_t e = 0; e < g->nedges; e++)
      if (!known[e])
	counts[e] = 0;
  pp_free (counter_of_edge);
  pp_free (known);
  pp_plan_free (&plan);
  if (rc == 1)
    return pp_fail (err, errlen, "function %s: the counters contradict the "
		 "control-flow graph (stale or corrupted profile)", fn->name);
  return rc < 0 ? pp_fail (err, errlen, "out of memory") : 0;
}

int
pp_prior_edge_counts (const pp_prior_function *f, const pp_graph *g,
		      uint64_t *counts, char *err, size_t errlen)
{
  const pp_mode_info *mode = pp_mode_lookup (f->unit->notes.mode);
  if (!pp_prior_yields_edge_counts (f->unit->notes.mode))
    return pp_fail (err, errlen, "unit %s is a %s profile, which does not count "
		 "every edge", f->unit->data->name,
		 pp_mode_name (f->unit->notes.mode));
  if (!pp_mode_counts_paths (mode))
    return edge_counts_of_counters (f, mode, g, counts, err, errlen);
  pp_paths *numbering = NULL;
  int rc = pp_notes_paths_number (f->notes, g, &numbering);
  if (rc == PP_PATHS_ENOMEM)
    return pp_fail (err, errlen, "out of memory");
  if (rc != PP_PATHS_OK)
    return pp_fail (err, errlen, "function %s: the paths cannot be numbered: %s "
		 "(corrupted profile)", f->notes->name, pp_paths_strerror (rc));
  pp_path_count *executed = NULL;
  uint32_t n = 0;
  int status = pp_function_path_counts (f->notes, f->index, f->unit->data,
					numbering->npaths, &executed, &n, err,
					errlen);
  if (status == 0 && pp_edge_counts_of_paths (g, numbering, executed, n, counts,
					      NULL))
    status = pp_fail (err, errlen, "out of memory");
  pp_free (executed);
  pp_paths_free (numbering);
  return status;
}
