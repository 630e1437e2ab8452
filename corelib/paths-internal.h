/* What paths.c (DAG and numbering) hands to paths-place.c (placement).  */

#ifndef PATHPROF_CORE_PATHS_INTERNAL_H
#define PATHPROF_CORE_PATHS_INTERNAL_H

#include <stdlib.h>

#include "paths.h"

struct pp_paths_build
{
  const pp_graph *g;
  pp_paths *p;
  bool *reentry;		/* per node: target of a fake re-entry */
  bool *useful;			/* per node: on some ENTRY -> EXIT path of the DAG */
  bool *head;			/* per node: has a start edge */
  uint32_t *topo;		/* the useful nodes in topological order of the DAG */
  uint32_t ntopo;
};

/* Zeroed array of n elements; never a zero-sized request.  */
static inline void *
pp_paths_alloc (size_t n, size_t size)
{
  return calloc (n ? n : 1, size);
}

/* Fills p->dag_on_tree, p->dag_inc and p->action.  Returns a pp_paths_status.  */
int pp_paths_place (const struct pp_paths_build *b, const double *weights);

#endif
