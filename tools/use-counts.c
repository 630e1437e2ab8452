/* A profile's exact edge counts, function by function, for the use build
   (use-counts.h).  */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "use-counts.h"

struct use_counts
{
  report r;
  uint64_t max, runs;
};

/* Does unit U tell every edge's count?  NULL, or why not.  */
static const char *
not_counted (const report_unit *u)
{
  if (!u->counts || !u->edges_determined)
    return "which does not count every edge";
  if (u->mode->calls && !u->numbered)
    return "whose runs could not number their paths";
  return NULL;
}

int
use_counts_open (const char *path, use_counts **out, char *err, size_t errlen)
{
  use_counts *u = calloc (1, sizeof *u);
  if (!u)
    {
      snprintf (err, errlen, "out of memory");
      return -1;
    }
  if (report_load (&u->r, path, err, errlen))
    {
      free (u);
      return -1;
    }
  for (uint32_t i = 0; i < u->r.nunits; i++)
    {
      const report_unit *ru = &u->r.units[i];
      const char *why = not_counted (ru);
      if (why)
	{
	  snprintf (err, errlen, "unit %s is a %s profile, %s; the use build "
		    "reads a profile of a counting mode but block-counts "
		    "(edge-counts, paths, ppp, residual, the interprocedural "
		    "modes) or a trace", ru->data->name, ru->mode->name, why);
	  use_counts_close (u);
	  return -1;
	}
      if (ru->data->runs > u->runs)
	u->runs = ru->data->runs;
      for (uint32_t j = 0; j < ru->notes.nfunctions; j++)
	{
	  const report_function *f = &ru->functions[j];
	  for (uint32_t e = 0; e < f->graph.nedges; e++)
	    if (f->edge_counts[e] > u->max)
	      u->max = f->edge_counts[e];
	}
    }
  *out = u;
  return 0;
}

void
use_counts_close (use_counts *u)
{
  if (!u)
    return;
  report_free (&u->r);
  free (u);
}

/* The executions of F's blocks (ENTRY and EXIT not counted).  */
static uint64_t
executions_of (const report_function *f)
{
  uint64_t sum = 0;
  for (uint32_t v = 0; v < f->graph.nnodes; v++)
    if (v != f->graph.entry && v != f->graph.exit)
      sum += f->block_counts[v];
  return sum;
}

/* F's counts into *COUNTS and *EXECUTIONS; 1.  */
static int
found (const report_function *f, const uint64_t **counts, uint64_t *executions)
{
  *counts = f->edge_counts;
  *executions = executions_of (f);
  return 1;
}

static const report_function *
in_unit (const report_unit *ru, const char *asm_name)
{
  for (uint32_t j = 0; j < ru->notes.nfunctions; j++)
    if (strcmp (ru->functions[j].notes->asm_name, asm_name) == 0)
      return &ru->functions[j];
  return NULL;
}

int
use_counts_find (const use_counts *u, const char *unit_name,
		 const char *asm_name, uint64_t cfg_checksum, uint32_t nedges,
		 const uint64_t **counts, uint64_t *executions)
{
  /* The unit's records (a profile may hold several builds of one unit):
     the one whose function has this control flow.  */
  bool unit_seen = false, stale = false;
  for (uint32_t i = 0; i < u->r.nunits; i++)
    {
      const report_unit *ru = &u->r.units[i];
      if (strcmp (ru->data->name, unit_name) != 0)
	continue;
      unit_seen = true;
      const report_function *f = in_unit (ru, asm_name);
      if (f && f->notes->cfg_checksum == cfg_checksum
	  && f->graph.nedges == nedges)
	return found (f, counts, executions);
      stale |= f != NULL;
    }
  if (unit_seen)
    return stale ? -1 : 0;
  /* Not built where the profile's unit was: the one function of that name.  */
  const report_function *only = NULL;
  for (uint32_t i = 0; i < u->r.nunits; i++)
    {
      const report_function *f = in_unit (&u->r.units[i], asm_name);
      if (f && only)
	return 0;
      if (f)
	only = f;
    }
  if (!only)
    return 0;
  if (only->notes->cfg_checksum != cfg_checksum || only->graph.nedges != nedges)
    return -1;
  return found (only, counts, executions);
}

uint64_t
use_counts_max (const use_counts *u)
{
  return u->max;
}

uint64_t
use_counts_runs (const use_counts *u)
{
  return u->runs;
}

uint64_t
use_counts_unit_executions (const use_counts *u, const char *unit_name)
{
  uint64_t sum = 0;
  for (uint32_t i = 0; i < u->r.nunits; i++)
    {
      const report_unit *ru = &u->r.units[i];
      if (strcmp (ru->data->name, unit_name) == 0)
	for (uint32_t j = 0; j < ru->notes.nfunctions; j++)
	  sum += executions_of (&ru->functions[j]);
    }
  return sum;
}
