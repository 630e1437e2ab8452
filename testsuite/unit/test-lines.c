/* Unit tests of gcov's line counts (tools/line-counts.c) on hand-built graphs.
   Each graph is the CFG GCC builds at -O0 for the code in its comment; node 0 is
   ENTRY, node 1 EXIT, and every edge carries the count of one run.  */

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include "unit.h"
#include "../../tools/line-counts.h"

struct test_edge
{
  uint32_t src, dst, flags;
  uint64_t count;
};

struct test_function
{
  pp_graph graph;
  uint64_t *counts;
  pp_block_notes *blocks;
};

#define BLOCK(refs) { 0, -1, sizeof (refs) / sizeof *(refs), (refs) }
#define NO_BLOCK { 0, -1, 0, NULL }

static int
build (struct test_function *f, const struct test_edge *edges, uint32_t nedges,
       pp_block_notes *blocks, uint32_t nblocks)
{
  f->blocks = blocks;
  f->counts = malloc (nedges * sizeof *f->counts);
  if (!f->counts || pp_graph_init (&f->graph, nblocks, 0, 1))
    return -1;
  for (uint32_t e = 0; e < nedges; e++)
    {
      if (pp_graph_add_edge (&f->graph, edges[e].src, edges[e].dst,
			     edges[e].flags) == UINT32_MAX)
	return -1;
      f->counts[e] = edges[e].count;
    }
  return pp_graph_finish (&f->graph);
}

static void
release (struct test_function *f)
{
  pp_graph_free (&f->graph);
  free (f->counts);
}

/* Computes the line counts of the functions, all in files 0 and 1, taking each
   function for a unit of its own when separate_units.  */
static int
compute_units (line_counts *lc, struct test_function *fns, uint32_t nfns,
	       uint32_t *source_of_file, bool separate_units)
{
  line_counts_init (lc);
  if (line_counts_source (lc, "/src/a.c", &source_of_file[0])
      || line_counts_source (lc, "/src/b.h", &source_of_file[1]))
    return -1;
  for (uint32_t i = 0; i < nfns; i++)
    if (line_counts_add_function (lc, &fns[i].graph, fns[i].counts,
				  fns[i].blocks, source_of_file)
	|| (separate_units && line_counts_commit (lc)))
      return -1;
  return separate_units ? 0 : line_counts_commit (lc);
}

/* The same, all functions in one unit.  */
static int
compute (line_counts *lc, struct test_function *fns, uint32_t nfns,
	 uint32_t *source_of_file)
{
  return compute_units (lc, fns, nfns, source_of_file, false);
}

static const line_count *
get_line (const line_counts *lc, uint32_t source, uint32_t line)
{
  return line_source_find (&lc->sources[source], line);
}

static void
check_count (const char *name, const line_counts *lc, uint32_t source,
	     uint32_t line, uint64_t expected)
{
  const line_count *l = get_line (lc, source, line);
  if (!l || !l->exists)
    unit_result (0, name, "line %" PRIu32 " does not exist", line);
  else
    unit_result (l->count == expected, name,
		 "line %" PRIu32 ": expected %" PRIu64 ", got %" PRIu64, line,
		 expected, l->count);
}

static void
check_absent (const char *name, const line_counts *lc, uint32_t source,
	      uint32_t line)
{
  const line_count *l = get_line (lc, source, line);
  unit_result (!l || !l->exists, name, "line %" PRIu32 " exists", line);
}

/* 1 int f (int n)
   2 {
   3   int i, x = 0; for (i = 0; i < n; i++) x++;
   4   return x;
   5 }
   called once with n = 10: line 3 runs once on entry and once per turn.  */
static void
test_loop_on_one_line (void)
{
  static pp_line_ref b2[] = { { 0, 1 }, { 0, 3 } }, b3[] = { { 0, 3 } },
    b4[] = { { 0, 3 } }, b5[] = { { 0, 4 } };
  static pp_block_notes blocks[] = { NO_BLOCK, NO_BLOCK, BLOCK (b2), BLOCK (b3),
				     BLOCK (b4), BLOCK (b5) };
  static const struct test_edge edges[] = {
    { 0, 2, PP_EDGE_FALLTHRU, 1 }, { 2, 4, 0, 1 },
    { 3, 4, PP_EDGE_FALLTHRU, 10 }, { 4, 3, PP_EDGE_TRUE, 10 },
    { 4, 5, PP_EDGE_FALSE | PP_EDGE_FALLTHRU, 1 }, { 5, 1, 0, 1 },
    { 1, 0, PP_EDGE_EXIT_ENTRY, 1 },
  };
  struct test_function f;
  line_counts lc;
  uint32_t sources[2];
  if (build (&f, edges, 7, blocks, 6) || compute (&lc, &f, 1, sources))
    {
      unit_result (0, "loop on one line", "out of memory");
      return;
    }
  check_count ("loop on one line: declaration line", &lc, sources[0], 1, 1);
  check_count ("loop on one line: entries plus turns", &lc, sources[0], 3, 11);
  check_count ("loop on one line: line after the loop", &lc, sources[0], 4, 1);
  check_absent ("loop on one line: line without code", &lc, sources[0], 2);
  line_counts_free (&lc);
  release (&f);
}

/* 3   for (i = 0; i < n; i++) for (j = 0; j < m; j++) x++;
   with n = 2, m = 3: the outer circuit is taken first from block 3 (2 turns), then
   the inner one from block 4 (6 turns).  */
static void
test_nested_loops_on_one_line (void)
{
  static pp_line_ref b2[] = { { 0, 1 }, { 0, 3 } }, l3[] = { { 0, 3 } },
    b8[] = { { 0, 4 } };
  static pp_block_notes blocks[] = { NO_BLOCK, NO_BLOCK, BLOCK (b2), BLOCK (l3),
				     BLOCK (l3), BLOCK (l3), BLOCK (l3),
				     BLOCK (l3), BLOCK (b8) };
  static const struct test_edge edges[] = {
    { 0, 2, PP_EDGE_FALLTHRU, 1 }, { 2, 7, 0, 1 }, { 3, 5, 0, 2 },
    { 4, 5, PP_EDGE_FALLTHRU, 6 }, { 5, 4, PP_EDGE_TRUE, 6 },
    { 5, 6, PP_EDGE_FALSE | PP_EDGE_FALLTHRU, 2 }, { 6, 7, PP_EDGE_FALLTHRU, 2 },
    { 7, 3, PP_EDGE_TRUE, 2 }, { 7, 8, PP_EDGE_FALSE | PP_EDGE_FALLTHRU, 1 },
    { 8, 1, 0, 1 }, { 1, 0, PP_EDGE_EXIT_ENTRY, 1 },
  };
  struct test_function f;
  line_counts lc;
  uint32_t sources[2];
  if (build (&f, edges, 11, blocks, 9) || compute (&lc, &f, 1, sources))
    {
      unit_result (0, "nested loops on one line", "out of memory");
      return;
    }
  check_count ("nested loops on one line", &lc, sources[0], 3, 9);
  line_counts_free (&lc);
  release (&f);
}

/* Three elementary circuits on one line's blocks 2, 3, 4, every edge taken 3 times:
   A = 2>3>2, C = 2>3>4>2 (both from block 2, A first since successors go by
   destination) and B = 3>4>3 (from block 3).  A spends edge 2>3, so C is not taken;
   B then adds 3: 3 entries + 3 + 3.  Taking C first would give 3 + 3.  */
static void
test_greedy_circuit_order (void)
{
  static pp_line_ref l7[] = { { 0, 7 } }, b5[] = { { 0, 8 } };
  static pp_block_notes blocks[] = { NO_BLOCK, NO_BLOCK, BLOCK (l7), BLOCK (l7),
				     BLOCK (l7), BLOCK (b5) };
  static const struct test_edge edges[] = {
    { 0, 2, 0, 3 }, { 2, 3, 0, 3 }, { 3, 2, 0, 3 }, { 3, 4, 0, 3 },
    { 4, 3, 0, 3 }, { 4, 2, 0, 3 }, { 4, 5, 0, 3 }, { 5, 1, 0, 3 },
    { 1, 0, PP_EDGE_EXIT_ENTRY, 3 },
  };
  struct test_function f;
  line_counts lc;
  uint32_t sources[2];
  if (build (&f, edges, 9, blocks, 6) || compute (&lc, &f, 1, sources))
    {
      unit_result (0, "greedy circuit order", "out of memory");
      return;
    }
  check_count ("greedy circuit order", &lc, sources[0], 7, 9);
  line_counts_free (&lc);
  release (&f);
}

/* 10   x = c ? 1 : 2;
   11   return x;
   called 5 times, c never false: line 10 spans three blocks but runs 5 times,
   and one of its blocks never ran.  Line 9 (the declaration) only starts block 2,
   which line 10 ends: it counts the block.  */
static void
test_line_split_across_blocks (void)
{
  static pp_line_ref b2[] = { { 0, 9 }, { 0, 10 } }, l10[] = { { 0, 10 } },
    b5[] = { { 0, 11 } };
  static pp_block_notes blocks[] = { NO_BLOCK, NO_BLOCK, BLOCK (b2), BLOCK (l10),
				     BLOCK (l10), BLOCK (b5) };
  static const struct test_edge edges[] = {
    { 0, 2, PP_EDGE_FALLTHRU, 5 }, { 2, 3, PP_EDGE_TRUE, 5 },
    { 2, 4, PP_EDGE_FALSE, 0 }, { 3, 5, 0, 5 }, { 4, 5, PP_EDGE_FALLTHRU, 0 },
    { 5, 1, 0, 5 }, { 1, 0, PP_EDGE_EXIT_ENTRY, 5 },
  };
  struct test_function f;
  line_counts lc;
  uint32_t sources[2];
  if (build (&f, edges, 7, blocks, 6) || compute (&lc, &f, 1, sources))
    {
      unit_result (0, "line split across blocks", "out of memory");
      return;
    }
  check_count ("line split across blocks", &lc, sources[0], 10, 5);
  check_count ("line split across blocks: declaration", &lc, sources[0], 9, 5);
  const line_count *l = get_line (&lc, sources[0], 10);
  unit_result (l && l->has_unexecuted_block && l->unexceptional,
	       "line split across blocks: unexecuted block flagged",
	       "flags not set");
  l = get_line (&lc, sources[0], 11);
  unit_result (l && !l->has_unexecuted_block,
	       "line split across blocks: no unexecuted block after", "flag set");
  line_counts_free (&lc);
  release (&f);
}

/* Line 20 starts blocks 2 and 3 but ends neither: it counts both blocks (3 + 4).
   Line 30 ends block 4 and also starts block 5: only the entries into block 4
   count (4), not block 5.  Block 2 ends with a line of a header (file 1): each
   file's run of lines anchors the block, on 21 and on the header's 5.  */
static void
test_line_not_last_in_any_block (void)
{
  static pp_line_ref b2[] = { { 0, 20 }, { 0, 21 }, { 1, 5 } },
    b3[] = { { 0, 20 }, { 0, 22 } }, b4[] = { { 0, 30 } },
    b5[] = { { 0, 30 }, { 0, 31 } };
  static pp_block_notes blocks[] = { NO_BLOCK, NO_BLOCK, BLOCK (b2), BLOCK (b3),
				     BLOCK (b4), BLOCK (b5) };
  static const struct test_edge edges[] = {
    { 0, 2, 0, 3 }, { 0, 3, 0, 4 }, { 2, 4, 0, 3 }, { 3, 4, 0, 1 },
    { 3, 5, 0, 3 }, { 4, 1, 0, 4 }, { 5, 1, 0, 3 },
    { 1, 0, PP_EDGE_EXIT_ENTRY, 7 },
  };
  struct test_function f;
  line_counts lc;
  uint32_t sources[2];
  if (build (&f, edges, 8, blocks, 6) || compute (&lc, &f, 1, sources))
    {
      unit_result (0, "line not last in any block", "out of memory");
      return;
    }
  check_count ("line not last in any block: block sum", &lc, sources[0], 20, 7);
  check_count ("line last in one block, not in another", &lc, sources[0], 30, 4);
  check_count ("line of another file in a block", &lc, sources[1], 5, 3);
  check_count ("line ending a run of a block", &lc, sources[0], 21, 3);
  line_counts_free (&lc);
  release (&f);
}

/* 10 void foo () { a = 1; }   (blocks 2 and 3 of foo: 10, 12; then 13)
   15 void bar () { a++; }     (one block: 15, 17, 18)
   22   foo (); ... bar ();     (in main, inlined: block 4 has 26, 17, 18)
   bar never runs on its own, main's inlined copy once.  gcov 12 attaches no line
   to the block numbered last (it takes it for EXIT): bar's only block anchors
   nothing, so line 18 counts the blocks it appears in (0 + 1), whereas line 12
   anchors foo's block 2 and ignores main's.  */
static void
test_last_block_anchors_nothing (void)
{
  static pp_line_ref foo2[] = { { 0, 10 }, { 0, 12 } }, foo3[] = { { 0, 13 } },
    bar2[] = { { 0, 15 }, { 0, 17 }, { 0, 18 } },
    main2[] = { { 0, 20 }, { 0, 12 }, { 0, 22 } },
    main3[] = { { 0, 24 }, { 0, 25 } }, main4[] = { { 0, 26 }, { 0, 17 }, { 0, 18 } };
  static pp_block_notes foo_blocks[] = { NO_BLOCK, NO_BLOCK, BLOCK (foo2),
					 BLOCK (foo3) };
  static pp_block_notes bar_blocks[] = { NO_BLOCK, NO_BLOCK, BLOCK (bar2) };
  static pp_block_notes main_blocks[] = { NO_BLOCK, NO_BLOCK, BLOCK (main2),
					  BLOCK (main3), BLOCK (main4), NO_BLOCK };
  static const struct test_edge foo_edges[] = {
    { 0, 2, 0, 0 }, { 2, 3, 0, 0 }, { 3, 1, 0, 0 }, { 1, 0, PP_EDGE_EXIT_ENTRY, 0 },
  };
  static const struct test_edge bar_edges[] = {
    { 0, 2, 0, 0 }, { 2, 1, 0, 0 }, { 1, 0, PP_EDGE_EXIT_ENTRY, 0 },
  };
  static const struct test_edge main_edges[] = {
    { 0, 2, 0, 1 }, { 2, 3, 0, 1 }, { 3, 4, PP_EDGE_TRUE, 1 },
    { 3, 5, PP_EDGE_FALSE, 1 }, { 4, 3, 0, 1 }, { 5, 1, 0, 1 },
    { 1, 0, PP_EDGE_EXIT_ENTRY, 1 },
  };
  struct test_function f[3];
  line_counts lc;
  uint32_t sources[2];
  if (build (&f[0], foo_edges, 4, foo_blocks, 4)
      || build (&f[1], bar_edges, 3, bar_blocks, 3)
      || build (&f[2], main_edges, 7, main_blocks, 6)
      || compute (&lc, f, 3, sources))
    {
      unit_result (0, "last block anchors nothing", "out of memory");
      return;
    }
  check_count ("last block anchors nothing", &lc, sources[0], 18, 1);
  check_count ("last block anchors nothing: line 13", &lc, sources[0], 13, 0);
  check_count ("anchor in one function only", &lc, sources[0], 12, 0);
  check_count ("line anchored by a loop body", &lc, sources[0], 26, 1);
  const line_count *l = get_line (&lc, sources[0], 18);
  unit_result (l && l->has_unexecuted_block,
	       "last block anchors nothing: unexecuted block flagged",
	       "flag not set");
  line_counts_free (&lc);

  /* As separate units, foo's anchored count (0) and main's block (1) add up.  */
  if (compute_units (&lc, f, 3, sources, true))
    unit_result (0, "anchor in another unit", "out of memory");
  else
    check_count ("anchor in another unit", &lc, sources[0], 12, 1);
  line_counts_free (&lc);
  for (int i = 0; i < 3; i++)
    release (&f[i]);
}

/* The same header line anchoring blocks of two functions: the counts add up.  */
static void
test_functions_add_up (void)
{
  static pp_line_ref b2[] = { { 1, 2 } }, b3[] = { { 1, 9 } };
  static pp_block_notes blocks[] = { NO_BLOCK, NO_BLOCK, BLOCK (b2), BLOCK (b3) };
  static const struct test_edge edges_f[] = {
    { 0, 2, 0, 4 }, { 2, 3, 0, 4 }, { 3, 1, 0, 4 }, { 1, 0, PP_EDGE_EXIT_ENTRY, 4 },
  };
  static const struct test_edge edges_g[] = {
    { 0, 2, 0, 6 }, { 2, 3, 0, 6 }, { 3, 1, 0, 6 }, { 1, 0, PP_EDGE_EXIT_ENTRY, 6 },
  };
  struct test_function f[2];
  line_counts lc;
  uint32_t sources[2];
  if (build (&f[0], edges_f, 4, blocks, 4)
      || build (&f[1], edges_g, 4, blocks, 4) || compute (&lc, f, 2, sources))
    {
      unit_result (0, "functions add up", "out of memory");
      return;
    }
  check_count ("functions add up", &lc, sources[1], 2, 10);
  check_count ("functions add up: last blocks", &lc, sources[1], 9, 10);
  line_counts_free (&lc);
  release (&f[0]);
  release (&f[1]);
}

/* 40   g ();        (may throw: fake edge to EXIT, exception edge to block 4)
   41   return 0;
   42   catch: ...   (landing pad, never run)
   Line 42 never ran and is only reached through an exception: "=====".  */
static void
test_exceptional_blocks (void)
{
  static pp_line_ref b2[] = { { 0, 40 } }, b3[] = { { 0, 41 } },
    b4[] = { { 0, 42 } };
  static pp_block_notes blocks[] = { NO_BLOCK, NO_BLOCK, BLOCK (b2), BLOCK (b3),
				     BLOCK (b4) };
  static const struct test_edge edges[] = {
    { 0, 2, 0, 2 }, { 2, 3, PP_EDGE_FALLTHRU, 2 }, { 2, 4, PP_EDGE_EH, 0 },
    { 2, 1, PP_EDGE_FAKE, 0 }, { 3, 1, 0, 2 }, { 4, 1, 0, 0 },
    { 1, 0, PP_EDGE_EXIT_ENTRY, 2 },
  };
  struct test_function f;
  line_counts lc;
  uint32_t sources[2];
  if (build (&f, edges, 7, blocks, 5) || compute (&lc, &f, 1, sources))
    {
      unit_result (0, "exceptional blocks", "out of memory");
      return;
    }
  const line_count *l = get_line (&lc, sources[0], 42);
  unit_result (l && l->exists && l->count == 0 && !l->unexceptional,
	       "exceptional blocks: landing pad", "not marked exceptional");
  l = get_line (&lc, sources[0], 41);
  unit_result (l && l->count == 2 && l->unexceptional,
	       "exceptional blocks: normal path", "marked exceptional");
  line_counts_free (&lc);
  release (&f);
}

static void
test_block_anchor (void)
{
  static pp_line_ref sorted[] = { { 0, 7 }, { 0, 3 } },
    files[] = { { 0, 5 }, { 1, 100 }, { 0, 6 }, { 0, 2 } };
  pp_block_notes a = BLOCK (sorted), b = BLOCK (files), none = NO_BLOCK;
  pp_line_ref r = { 0, 0 };
  unit_result (line_counts_block_anchor (&a, &r) && r.file == 0 && r.line == 7,
	       "block anchor: highest line of the run", "got %" PRIu32, r.line);
  unit_result (line_counts_block_anchor (&b, &r) && r.file == 0 && r.line == 6,
	       "block anchor: last run", "got %" PRIu32 ":%" PRIu32, r.file,
	       r.line);
  unit_result (!line_counts_block_anchor (&none, &r),
	       "block anchor: block without lines", "found one");
}

int
main (void)
{
  test_loop_on_one_line ();
  test_nested_loops_on_one_line ();
  test_greedy_circuit_order ();
  test_line_split_across_blocks ();
  test_line_not_last_in_any_block ();
  test_last_block_anchors_nothing ();
  test_functions_add_up ();
  test_exceptional_blocks ();
  test_block_anchor ();
  return unit_exit_status ();
}
