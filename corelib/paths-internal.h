/* What the numbering (paths.c) gives the placement (paths-place.c): the numbering's
   working state, which pp_paths_plan extends with the probes.  The calls go one
   way only, from paths-place.c into paths.c.  */

#ifndef PATHPROF_CORE_PATHS_INTERNAL_H
#define PATHPROF_CORE_PATHS_INTERNAL_H

#include <stdlib.h>

#include "format/alloc.h"
#include "paths.h"

struct pp_paths_build
{
  const pp_graph *g;
  pp_paths *p;			/* the result */
  bool *reentry;		/* per node: target of a fake re-entry */
  bool *useful;			/* per node: on some ENTRY -> EXIT path of the DAG */
  bool *head;			/* per node: has a start edge */
  uint32_t *topo;		/* the useful nodes in topological order of the DAG */
  uint32_t ntopo;
  /* pp_paths_build_number_given: the path ends are the only backedges, and
     no region cut is made on an edge with keep[e].  */
  bool given;
  const bool *keep;
};

/* Zeroed array of n elements; never a zero-sized request.  */
static inline void *
pp_paths_alloc (size_t n, size_t size)
{
  return pp_calloc (n ? n : 1, size);
}

/* pp_paths_build_number's ways: region cuts until at most limit paths;
   without counting the paths before them exactly where they are more than
   2^64 (b->p->npaths_uncut NULL then: only a report prints it, from
   pp_paths_number, and a supergraph's count in GMP is a large part of
   numbering it at run time).  */
enum { PP_PATHS_MAY_CUT = 1, PP_PATHS_ROUGH = 2 };
/* Checks that g follows paths.h's conventions, then computes the roles, the DAG and
   the numbering into a new b->p, as FLAGS say.  Returns a pp_paths_status
   (ERANGE when more than limit paths remain); whatever it is,
   pp_paths_build_free must follow.  */
int pp_paths_build_number (struct pp_paths_build *b, const pp_graph *g,
			   const bool *path_end, uint64_t limit, unsigned flags);
/* The same with the graph's cuts given: CUTS (with the edges into re-entry
   targets) must break every cycle, else PP_PATHS_EGRAPH; region cuts until
   at most limit paths, never on an edge with KEEP[e] (may be NULL); rough
   (PP_PATHS_ROUGH).  */
int pp_paths_build_number_given (struct pp_paths_build *b, const pp_graph *g,
				 const bool *cuts, const bool *keep, uint64_t limit);
/* Frees the working state, and b->p unless the caller took it (set it to NULL).  */
void pp_paths_build_free (struct pp_paths_build *b);

#endif
