/* Per-line execution counts with gcov's semantics.

   A line's count is not simply the sum of the counts of the blocks on it: a loop
   written on one line ("for (i = 0; i < n; i++) x++;") spans several blocks, and
   gcov counts such a line once per entry plus once per turn of each loop that stays
   on the line.  The rules, reproduced from gcov (GCC 12) so that the numbers agree
   line for line:

   - A block's lines form runs of consecutive entries from the same file; the block
     is attached to the highest line of each run (its "anchor").  gcov sorts each run
     before taking its last line, hence the highest.  Neither ENTRY nor the block
     numbered last is attached anywhere: gcov 12 still takes the last block for
     EXIT, as it was before EXIT became block 1.
   - A line that anchors a set S of blocks counts the edges entering S from
     outside S, plus the cycle count of S: the elementary circuits of the subgraph
     induced by S are enumerated (Hawick and James, with blocking) from each block of
     S in increasing order, over blocks numbered at least the start block and
     successors sorted by destination; each circuit found adds the minimum residual
     count along it and subtracts it from every edge of the circuit.
   - Any other line that appears in blocks counts the sum of those blocks' counts.
   - S gathers the blocks of every function of a unit, as gcov does for one .gcda
     file: the rules above add up per function, except that a line anchoring some
     block of the unit ignores the blocks where it is not an anchor.  Units then
     add up, as lcov adds up the per-file results of gcov.

   Functions of the coverage modes come with whether each block ran instead of
   edge counts.  Every line gets whether it was covered, attributed as above: a line
   anchoring blocks is covered iff one of the blocks it anchors ran, any other line
   iff one of the blocks mentioning it ran; so a counted line is covered iff its
   count is not 0.

   A line "exists" when some block mentions it.  Blocks only reachable through
   exception edges are "exceptional" (gcov prints "=====" rather than "#####" for a
   line that has only such blocks and never ran); gcov infers exception edges as the
   non-fake, non-fallthru successors of a block that also has a fake edge to EXIT, and
   only in functions that have some.  */

#ifndef PATHPROF_TOOLS_LINE_COUNTS_H
#define PATHPROF_TOOLS_LINE_COUNTS_H

#include <stdbool.h>
#include <stdint.h>
#include "graph.h"
#include "notes.h"

typedef struct line_count
{
  uint32_t line;		/* numbered from 1 */
  uint64_t count;
  bool exists;			/* some block has code on the line */
  bool unexceptional;		/* ... and one of them is not exceptional */
  bool has_unexecuted_block;	/* an unexceptional block on the line never ran */
  bool covered;			/* a block the line is attributed to ran */
  bool uncounted;		/* a coverage function has code on the line: count
				   holds only what counted functions add */
} line_count;

/* The lines of one source that some block names, by increasing line number
   after each line_counts_commit (sparse: a #line directive may name line
   4000000000).  */
typedef struct line_source
{
  char *path;
  uint32_t nlines, lines_cap;
  line_count *lines;
  /* Private: open addressing, line -> index in lines + 1 (0: empty).  */
  uint32_t index_cap;
  uint32_t *index;
} line_source;

/* The entry of LINE in s, or NULL.  O(log nlines).  */
const line_count *line_source_find (const line_source *s, uint32_t line);

struct line_function;
struct line_anchor;

typedef struct line_counts
{
  uint32_t nsources, sources_cap;
  line_source *sources;
  /* The functions of the unit being counted and their (line, block) anchors: a
     line's count needs every anchor of the unit before it can be computed.  */
  uint32_t nfunctions, functions_cap;
  struct line_function *functions;
  size_t nanchors, anchors_cap;
  struct line_anchor *anchors;
} line_counts;

void line_counts_init (line_counts *lc);
void line_counts_free (line_counts *lc);

/* Index of the source with this path, added (with no lines) if new.  Returns 0, or -1
   on allocation failure.  */
int line_counts_source (line_counts *lc, const char *path, uint32_t *index);

/* Adds a function of the unit being counted: its graph (numbered as gcov numbers
   blocks: the last node matters), the count of every edge, the line lists of its
   nodes (blocks[v] for node v) and, for each file index used in those lists, the
   index of its source in lc.  The arrays are only referenced, not copied: they must
   outlive the next line_counts_commit.  Returns 0, or -1 on allocation failure.  */
int line_counts_add_function (line_counts *lc, const pp_graph *g,
			      const uint64_t *edge_counts,
			      const pp_block_notes *blocks,
			      const uint32_t *source_of_file);

/* The same with flow counts (block-counts: pp_propagate_vertex_counts) instead
   of edge counts: sums over a block's edges are exact modulo 2^64, single edges
   only where they lie on no cycle of unmeasured edges, which must hold for the
   edges between two blocks of one line (the mode's planner keeps them).  */
int line_counts_add_flow_function (line_counts *lc, const pp_graph *g,
				   const uint64_t *flow_counts,
				   const pp_block_notes *blocks,
				   const uint32_t *source_of_file);

/* The same for a function of a coverage mode: RAN[v] says whether node v ran.
   Its lines get coverage and no count.  RAN is referenced like the arrays above.  */
int line_counts_add_covered_function (line_counts *lc, const pp_graph *g,
				      const bool *ran,
				      const pp_block_notes *blocks,
				      const uint32_t *source_of_file);

/* Counts the lines of the functions added since the previous commit (one unit) and
   adds them to the sources' lines.  Returns 0, or -1 on allocation failure.  */
int line_counts_commit (line_counts *lc);

/* The line of its own file that gcov attributes a block's branches to: the anchor of
   its last run.  Returns false when the block has no lines.  */
bool line_counts_block_anchor (const pp_block_notes *block, pp_line_ref *anchor);

/* The sum of v's incoming edge counts, saturating.  */
uint64_t line_counts_node_count (const pp_graph *g, const uint64_t *edge_counts,
				 uint32_t v);
/* The same from flow counts, modulo 2^64 (EXIT's: its outgoing edge).  */
uint64_t line_counts_node_flow (const pp_graph *g, const uint64_t *flow_counts,
				uint32_t v);

#endif
