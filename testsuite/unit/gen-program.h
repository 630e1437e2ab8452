/* Random programs for the interprocedural unit tests (corelib/interproc.h's
   model): procedures with loops, call sites (a call vertex with no
   intraprocedural successor, its return vertex with no intraprocedural
   predecessor), fake leaves and re-entries.  Deterministic from the seed.  */

#ifndef PATHPROF_UNIT_GEN_PROGRAM_H
#define PATHPROF_UNIT_GEN_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "graph.h"
#include "interproc.h"
#include "plan.h"
#include "unit.h"

/* A random procedure: ENTRY 0, EXIT 1, a chain of blocks with random extra
   edges (forward, backward, self loops), and call sites made by splitting a
   block u into u -> c (the call) and r (the return) taking u's successors.  */
static inline void
random_proc (pp_graph *g, uint32_t p, uint32_t nprocs, unsigned long long *rng,
	     pp_ip_call *calls, uint32_t *ncalls)
{
  uint32_t inner = 1 + (uint32_t) (unit_rand (rng) % 5);
  uint32_t nsites = (uint32_t) (unit_rand (rng) % 3);
  uint32_t n = 2 + inner + 2 * nsites;
  struct { uint32_t s, d; } e[64];
  uint32_t m = 0;
  e[m++].s = 0, e[m - 1].d = 2;
  for (uint32_t i = 0; i < inner; i++)
    {
      uint32_t v = 2 + i;
      uint32_t next = i + 1 < inner ? v + 1 : 1;
      e[m].s = v, e[m++].d = next;
      if (unit_rand (rng) % 2)
	{
	  uint32_t t = unit_rand (rng) % 4 == 0 ? 1 : 2 + (uint32_t) (unit_rand (rng) % inner);
	  e[m].s = v, e[m++].d = t;
	}
    }
  /* Call sites: block u's edges move to r; u -> c.  Or, two calls in a
     row: the return vertex of the previous site is the call vertex, its
     edges move to r (c stays unused).  */
  uint32_t prev_r = UINT32_MAX;
  for (uint32_t k = 0; k < nsites; k++)
    {
      uint32_t u = 2 + (uint32_t) (unit_rand (rng) % inner);
      uint32_t c = 2 + inner + 2 * k, r = c + 1;
      if (prev_r != UINT32_MAX && unit_rand (rng) % 3 == 0)
	{
	  for (uint32_t i = 0; i < m; i++)
	    if (e[i].s == prev_r)
	      e[i].s = r;
	  calls[(*ncalls)++] = (pp_ip_call) { p, prev_r, r,
					      (uint32_t) (unit_rand (rng) % nprocs) };
	  prev_r = r;
	  continue;
	}
      bool taken = false;
      for (uint32_t j = 0; j < *ncalls; j++)
	taken |= calls[j].proc == p && calls[j].call == u;
      if (taken)
	continue;
      for (uint32_t i = 0; i < m; i++)
	if (e[i].s == u)
	  e[i].s = r;
      e[m].s = u, e[m++].d = c;
      calls[(*ncalls)++] = (pp_ip_call) { p, c, r, (uint32_t) (unit_rand (rng) % nprocs) };
      prev_r = r;
    }
  /* Fake edges: leaves (calls that may not return, call vertices too) and
     re-entries (longjmp targets, return vertices too).  */
  uint32_t nreal = m;
  for (uint32_t v = 2; v < n && m < 62; v++)
    {
      if (unit_rand (rng) % 6 == 0)
	e[m].s = v, e[m++].d = 1;
      if (unit_rand (rng) % 8 == 0)
	e[m].s = 0, e[m++].d = v;
    }
  pp_graph_init (g, n, 0, 1);
  for (uint32_t i = 0; i < m; i++)
    pp_graph_add_edge (g, e[i].s, e[i].d, i < nreal ? 0 : PP_EDGE_FAKE);
  pp_graph_finish (g);
}

/* The calls' start per procedure (random_proc appends them procedure by
   procedure), for pp_ip_program.call_start: START has NPROCS + 1 entries.  */
static inline const uint32_t *
program_call_start (const pp_ip_call *calls, uint32_t ncalls, uint32_t nprocs,
		    uint32_t *start)
{
  for (uint32_t p = 0; p <= nprocs; p++)
    start[p] = 0;
  for (uint32_t i = 0; i < ncalls; i++)
    start[calls[i].proc + 1]++;
  for (uint32_t p = 0; p < nprocs; p++)
    start[p + 1] += start[p];
  return start;
}

/* The roles the plugin would place probes by (plan.h pp_plan_ip_roles) for
   procedure P, graph G, of a random program: of G with each of P's call
   sites an edge c -> r that is not real, as the plugin's graph has the call
   inside a block.  malloc'd, G's edges first.  */
static inline uint8_t *
program_roles (const pp_graph *g, uint32_t p, const pp_ip_call *calls,
	       uint32_t ncalls)
{
  pp_graph a;
  bool ok = pp_graph_init (&a, g->nnodes, g->entry, g->exit) == 0;
  for (uint32_t e = 0; ok && e < g->nedges; e++)
    ok = pp_graph_add_edge (&a, g->edges[e].src, g->edges[e].dst,
			    g->edges[e].flags) != UINT32_MAX;
  for (uint32_t s = 0; ok && s < ncalls; s++)
    if (calls[s].proc == p)
      ok = pp_graph_add_edge (&a, calls[s].call, calls[s].ret, PP_EDGE_EH) != UINT32_MAX;
  uint8_t *role = ok ? (uint8_t *) malloc (a.nedges + 1) : NULL;
  if (!role || pp_graph_finish (&a) || pp_plan_ip_roles (&a, NULL, role))
    abort ();
  pp_graph_free (&a);
  return role;
}

#endif
