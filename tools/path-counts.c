/* Paths mode: path counts and the edge counts they imply (path-counts.h).  */

#include "path-counts.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
out_of_memory (char *err, size_t errlen)
{
  snprintf (err, errlen, "out of memory");
  return -1;
}

static int
number_paths (function_paths *fp, const report_function *f, char *err,
	      size_t errlen)
{
  int rc = pp_notes_paths_number (f->notes, &f->graph, &fp->numbering);
  if (rc == PP_PATHS_ENOMEM)
    return out_of_memory (err, errlen);
  if (rc != PP_PATHS_OK)
    {
      snprintf (err, errlen, "the paths cannot be numbered: %s (corrupted "
		"profile)", pp_paths_strerror (rc));
      return -1;
    }
  return 0;
}

int
function_paths_load (function_paths *fp, const report_function *f,
		     const pp_unit_data *u, char *err, size_t errlen)
{
  memset (fp, 0, sizeof *fp);
  if (number_paths (fp, f, err, errlen))
    return -1;
  return pp_function_path_counts (f->notes, f->index, u, fp->numbering->npaths,
				  &fp->executed, &fp->nexecuted, err, errlen);
}

void
function_paths_free (function_paths *fp)
{
  pp_paths_free (fp->numbering);
  free (fp->executed);
  memset (fp, 0, sizeof *fp);
}

static int
hottest_first (const void *a, const void *b)
{
  const path_count *x = a, *y = b;
  if (x->count != y->count)
    return x->count < y->count ? 1 : -1;
  return (x->path > y->path) - (x->path < y->path);
}

void
function_paths_sort_hottest (function_paths *fp)
{
  if (fp->nexecuted)
    qsort (fp->executed, fp->nexecuted, sizeof *fp->executed, hottest_first);
}

int
function_path_work (const report_function *f, const function_paths *fp,
		    path_probe_work *w, char *err, size_t errlen)
{
  const pp_paths *p = fp->numbering;
  uint32_t *edges = malloc ((p->max_path_edges + 1) * sizeof *edges);
  /* Per edge, the path counts and register updates of its probes.  */
  uint8_t *counts_on = calloc (f->graph.nedges + 1, 1);
  uint8_t *updates_on = calloc (f->graph.nedges + 1, 1);
  if (!edges || !counts_on || !updates_on)
    {
      free (edges);
      free (counts_on);
      free (updates_on);
      return out_of_memory (err, errlen);
    }
  for (uint32_t i = 0; i < f->plan.nprobes; i++)
    {
      const pp_probe *probe = &f->plan.probes[i];
      if (probe->site == PP_SITE_BLOCK)
	continue;
      counts_on[probe->where] += pp_probe_counts_path (probe->action);
      updates_on[probe->where] += pp_probe_sets_register (probe->action);
    }
  for (uint32_t i = 0; i < fp->nexecuted; i++)
    {
      uint64_t c = fp->executed[i].count;
      pp_path path = { .edges = edges };
      if (pp_paths_decode (p, fp->executed[i].path, &path) != PP_PATHS_OK)
	abort ();		/* function_paths_load checked the range */
      uint64_t counts = 0, updates = 0, simple = 1;
      if (path.end_edge != PP_PATH_NONE)
	edges[path.nedges++] = path.end_edge;
      for (uint32_t k = 0; k < path.nedges; k++)
	{
	  uint32_t e = edges[k], d = p->dag_of_edge[e];
	  counts += counts_on[e];
	  updates += updates_on[e];
	  simple += p->role[e] == PP_PATH_ROLE_DAG && p->dag_val[d] != 0;
	}
      w->paths = pp_sat_add (w->paths, c);
      w->counts = pp_sat_add (w->counts, pp_sat_mul (counts, c));
      w->updates = pp_sat_add (w->updates, pp_sat_mul (updates, c));
      w->simple_updates = pp_sat_add (w->simple_updates, pp_sat_mul (simple, c));
    }
  free (edges);
  free (counts_on);
  free (updates_on);
  return 0;
}

int
report_read_paths (report_function *f, const pp_unit_data *u,
		   const pp_mode_info *mode, char *err, size_t errlen)
{
  (void) mode;
  function_paths fp = { 0 };
  const pp_graph *g = &f->graph;
  bool *unknown = malloc ((g->nedges ? g->nedges : 1) * sizeof *unknown);
  int status = unknown ? function_paths_load (&fp, f, u, err, errlen)
		       : out_of_memory (err, errlen);
  if (status == 0 && pp_edge_counts_of_paths (g, fp.numbering, fp.executed,
					      fp.nexecuted, f->edge_counts,
					      unknown))
    status = out_of_memory (err, errlen);
  if (status == 0)
    for (uint32_t e = 0; e < g->nedges; e++)
      {
	f->edge_source[e] = unknown[e] ? REPORT_EDGE_UNKNOWN : REPORT_EDGE_DERIVED;
	f->unknown_edges += unknown[e];
      }
  function_paths_free (&fp);
  free (unknown);
  return status;
}
