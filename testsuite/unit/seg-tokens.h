/* Segments written as tokens, for the unit tests of segments (test-segments,
   test-kseg): a segment is T_START, the call sites from the root to the copy
   it starts in, T_AT and the vertex it starts at, then per step T_EDGE e
   (an edge of a copy's graph), T_CALL, T_RETURN or T_SUMMARY with the site,
   and T_CUT after the step that cut it.  The tests write the segments they
   find by walking programs this way and decode S's numbers into the same
   tokens (seg_tokens_of_number), then compare the sorted lists.  */

#ifndef PATHPROF_UNIT_SEG_TOKENS_H
#define PATHPROF_UNIT_SEG_TOKENS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"
#include "segments.h"

#define SEG_MAXTOK 512		/* tokens of one segment */
#define SEG_MAX 4096		/* segments of one list */

enum seg_token
{
  T_START = 0x80000000u,	/* then the start's call sites, T_AT, vertex */
  T_AT,
  T_EDGE,			/* then the graph edge */
  T_CALL,			/* then the site */
  T_RETURN,
  T_SUMMARY,
  T_CUT,			/* the segment ended on the step before */
};

/* A list of segments (a multiset once sorted).  */
struct seg_list
{
  uint32_t n, lost;
  uint32_t len[SEG_MAX];
  uint32_t tok[SEG_MAX][SEG_MAXTOK];
  bool overflow;
};

static inline void
seg_keep (struct seg_list *l, const uint32_t *tok, uint32_t ntok)
{
  if (l->n == SEG_MAX || ntok > SEG_MAXTOK)
    {
      l->overflow = true;
      return;
    }
  memcpy (l->tok[l->n], tok, ntok * sizeof *tok);
  l->len[l->n++] = ntok;
}

static inline int
seg_cmp (const void *a, const void *b)
{
  const uint32_t *x = a, *y = b;
  for (uint32_t i = 0; i < SEG_MAXTOK; i++)
    if (x[i] != y[i])
      return x[i] < y[i] ? -1 : 1;
  return 0;
}

static inline void
seg_sort (struct seg_list *l)
{
  for (uint32_t i = 0; i < l->n; i++)
    memset (l->tok[i] + l->len[i], 0xff, (SEG_MAXTOK - l->len[i]) * sizeof (uint32_t));
  qsort (l->tok, l->n, sizeof l->tok[0], seg_cmp);
}

/* The start at S node V: its copy's chain of sites from the root, then the
   vertex; *COPY_OUT the copy.  */
static inline void
seg_start_tokens (const pp_seg_graph *s, uint32_t v, uint32_t *tok, uint32_t *n,
		  uint32_t *copy_out)
{
  uint32_t c = 0;
  for (uint32_t i = 0; i < s->ncopies; i++)
    if (s->copies[i].first_node <= v)
      c = i;
  *copy_out = c;
  uint32_t chain[SEG_MAXTOK], depth = 0;
  for (uint32_t i = c; i != 0 && depth < SEG_MAXTOK; i = s->copies[i].parent)
    chain[depth++] = s->copies[i].site;
  tok[(*n)++] = T_START;
  while (depth)
    tok[(*n)++] = chain[--depth];
  tok[(*n)++] = T_AT;
  tok[(*n)++] = v - s->copies[c].first_node;
}

/* Segment NUMBER of P (S's numbering) as tokens into TOK (SEG_MAXTOK of
   them), EDGES room for p->max_path_edges; the number of tokens, or
   UINT32_MAX when NUMBER is no segment.  */
static inline uint32_t
seg_tokens_of_number (const pp_seg_graph *s, const pp_paths *p, uint64_t number,
		      uint32_t *edges, uint32_t *tok)
{
  pp_path path = { .edges = edges };
  uint32_t nt = 0, c;
  if (pp_paths_decode (p, number, &path) != PP_PATHS_OK)
    return UINT32_MAX;
  seg_start_tokens (s, path.start_node, tok, &nt, &c);
  for (uint32_t i = 0; i <= path.nedges && nt + 3 < SEG_MAXTOK; i++)
    {
      uint32_t se = i < path.nedges ? path.edges[i] : path.end_edge;
      if (se == PP_PATH_NONE)
	break;
      if (s->kind[se] == PP_SEG_LEAVE)
	continue;		/* after the leave u -> L, which says it */
      static const uint32_t kinds[] = { T_EDGE, T_CALL, T_RETURN, T_SUMMARY };
      tok[nt++] = kinds[s->kind[se]];
      tok[nt++] = s->arg[se];
      if (i == path.nedges)
	tok[nt++] = T_CUT;
    }
  return nt;
}

#endif
