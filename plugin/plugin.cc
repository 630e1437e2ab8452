/* pathprof GCC plugin: translates GIMPLE CFGs into core graphs, asks corelib/ for an
   instrumentation plan, and turns the plan back into GIMPLE probes plus the notes
   and registration records that libprof and the pathprof tool read.

   Where it runs: a simple IPA pass right after GCC's own "profile" pass (gcov's
   position).  Early inlining and early optimisations are done, so there are fewer
   blocks to probe; GCC's static branch estimates exist at -O1 and above; the CFG is
   the one gcov instruments, which makes line counts comparable with gcov's; and the
   pass sees the whole unit at once, so every counter array is sized before any
   probe refers to it.  See DESIGN.md and GCC-PLUGIN-NOTES.md.

   This is the only C++ in pathprof; every algorithm lives in corelib/ (pure C).  */

#include "gcc-plugin.h"
#include "plugin-version.h"
#include "tree.h"
#include "gimple.h"
#include "tree-pass.h"
#include "context.h"
#include "basic-block.h"
#include "cfg.h"
#include "cfganal.h"
#include "cfghooks.h"
#include "gimple-iterator.h"
#include "tree-cfg.h"
#include "tree-cfgcleanup.h"
#include "cgraph.h"
#include "ssa.h"
#include "tree-into-ssa.h"
#include "stringpool.h"
#include "attribs.h"
#include "stor-layout.h"
#include "varasm.h"
#include "fold-const.h"
#include "diagnostic-core.h"
#include "langhooks.h"
#include "memmodel.h"
#include "function.h"
#include "hash-set.h"
#include "hash-map.h"
#include "calls.h"
#include "gimplify.h"
#include "opts.h"
#include "toplev.h"

#include "corelib/coverage.h"
#include "corelib/edgeprof.h"
#include "corelib/paths.h"
#include "corelib/notes.h"
#include "corelib/profile.h"
#include "libprof/pathprof-abi.h"

int plugin_is_GPL_compatible;

static const char plugin_name[] = "pathprof";

/* ------------------------------------------------------------------------- */
/* Options.  */

struct option_value
{
  const char *name;
  int value;
};

static const option_value mode_values[] = {
  {"edge-counts", PP_MODE_EDGE_COUNTS},
  {"block-cover", PP_MODE_BLOCK_COVER},
  {"edge-cover", PP_MODE_EDGE_COVER},
  {"block-cover-edge-probes", PP_MODE_BLOCK_COVER_EDGE_PROBES},
  {"paths", PP_MODE_PATHS},
  {NULL, 0}
};

static bool
coverage_mode_p (int mode)
{
  return mode == PP_MODE_BLOCK_COVER || mode == PP_MODE_EDGE_COVER
	 || mode == PP_MODE_BLOCK_COVER_EDGE_PROBES;
}

static enum pp_coverage_mode
core_coverage_mode (int mode)
{
  switch (mode)
    {
    case PP_MODE_BLOCK_COVER:
      return PP_COVER_BLOCKS;
    case PP_MODE_EDGE_COVER:
      return PP_COVER_EDGES;
    default:
      return PP_COVER_BLOCKS_BY_EDGES;
    }
}

static const option_value weight_values[] = {
  {"gcc", PP_WEIGHTS_GCC},
  {"heuristic", PP_WEIGHTS_HEURISTIC},
  {"uniform", PP_WEIGHTS_UNIFORM},
  {NULL, 0}
};

static int option_mode = PP_MODE_EDGE_COUNTS;
static int option_weights = PP_WEIGHTS_GCC;
/* Functions with at most this many paths count them in an array; larger ones
   in a hash table in libprof.  */
static uint64_t option_path_array_max = 4096;
#define MAX_PATH_ARRAY (1u << 24)	/* 128 MiB of counters for one function */

static bool
parse_count (const char *key, const char *value, uint64_t *out)
{
  char *end;
  errno = 0;
  unsigned long long v = value ? strtoull (value, &end, 10) : 0;
  if (!value || !*value || *end || errno || value[0] == '-')
    {
      error ("pathprof: invalid value %qs for %<-fplugin-arg-pathprof-%s%>; "
	     "expected a non-negative integer", value ? value : "", key);
      return false;
    }
  if (v > MAX_PATH_ARRAY)
    {
      error ("pathprof: %<-fplugin-arg-pathprof-%s=%s%> is too large; at most %u",
	     key, value, MAX_PATH_ARRAY);
      return false;
    }
  *out = v;
  return true;
}

static bool
parse_choice (const char *key, const char *value, const option_value *choices,
	      int *out)
{
  if (value)
    for (const option_value *c = choices; c->name; c++)
      if (strcmp (c->name, value) == 0)
	{
	  *out = c->value;
	  return true;
	}
  char valid[256] = "";
  for (const option_value *c = choices; c->name; c++)
    {
      if (c != choices)
	strncat (valid, ", ", sizeof valid - strlen (valid) - 1);
      strncat (valid, c->name, sizeof valid - strlen (valid) - 1);
    }
  error ("pathprof: invalid value %qs for %<-fplugin-arg-pathprof-%s%>; "
	 "valid values are: %s", value ? value : "", key, valid);
  return false;
}

static bool
parse_options (struct plugin_name_args *info)
{
  bool ok = true;
  for (int i = 0; i < info->argc; i++)
    {
      const plugin_argument &arg = info->argv[i];
      if (strcmp (arg.key, "mode") == 0)
	ok &= parse_choice ("mode", arg.value, mode_values, &option_mode);
      else if (strcmp (arg.key, "weights") == 0)
	ok &= parse_choice ("weights", arg.value, weight_values, &option_weights);
      else if (strcmp (arg.key, "path-array-max") == 0)
	ok &= parse_count ("path-array-max", arg.value, &option_path_array_max);
      else
	{
	  error ("pathprof: unknown option %<-fplugin-arg-pathprof-%s%>; "
		 "valid options are: mode, weights, path-array-max", arg.key);
	  ok = false;
	}
    }
  return ok;
}

/* ------------------------------------------------------------------------- */
/* Source files and lines, recorded the way gcov records them.  */

/* The unit's file table: absolute paths, indexed by first appearance.  */
struct file_table
{
  hash_map<nofree_string_hash, unsigned> index;
  auto_vec<char *> names;

  unsigned lookup (const char *file)
  {
    if (!file)
      file = "<unknown>";
    if (unsigned *slot = index.get (file))
      return *slot;
    char *abs;
    if (IS_ABSOLUTE_PATH (file) || strcmp (file, "<unknown>") == 0
	|| strcmp (file, "<built-in>") == 0)
      abs = xstrdup (file);
    else
      abs = concat (getpwd (), "/", file + (strncmp (file, "./", 2) == 0 ? 2 : 0),
		    NULL);
    unsigned i = names.length ();
    names.safe_push (abs);
    index.put (ggc_strdup (file), i);
    return i;
  }
};

/* Appends (file, line) to a block's line list unless the block has it already.  */
static void
block_add_line (auto_vec<pp_line_ref> &lines, unsigned file, int line)
{
  pp_line_ref ref = {file, (uint32_t) MAX (1, line)};
  for (const pp_line_ref &r : lines)
    if (r.file == ref.file && r.line == ref.line)
      return;
  lines.safe_push (ref);
}

/* gcov attributes to a block the function's declaration line (first block only),
   the lines of its statements, and the goto line of its single successor edge when
   that location appears nowhere else in the function (a goto or return that the
   CFG builder folded into an edge).  */
static void
record_block_lines (basic_block bb, file_table &files,
		    hash_set<int_hash<location_t, 0, 1>> &seen,
		    auto_vec<pp_line_ref> &lines)
{
  if (bb == ENTRY_BLOCK_PTR_FOR_FN (cfun)->next_bb)
    {
      location_t loc = DECL_SOURCE_LOCATION (current_function_decl);
      seen.add (loc);
      expanded_location x = expand_location (loc);
      block_add_line (lines, files.lookup (x.file), x.line);
    }
  for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
       gsi_next (&gsi))
    {
      gimple *stmt = gsi_stmt (gsi);
      location_t loc = gimple_location (stmt);
      if (RESERVED_LOCATION_P (loc))
	continue;
      seen.add (loc);
      block_add_line (lines, files.lookup (gimple_filename (stmt)),
		      gimple_lineno (stmt));
    }
  if (single_succ_p (bb))
    {
      location_t loc = single_succ_edge (bb)->goto_locus;
      if (!RESERVED_LOCATION_P (loc) && !seen.contains (loc))
	{
	  expanded_location x = expand_location (loc);
	  block_add_line (lines, files.lookup (x.file), x.line);
	}
    }
}

/* ------------------------------------------------------------------------- */
/* CFG normalisation: make flow conservation hold for every execution.  */

/* Gives an edge whose goto location differs from its source block's last
   statement a block of its own, as gcov does, so the goto's line gets a count.  */
static void
split_goto_edges (void)
{
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    {
      if (single_succ_p (bb))
	continue;
      gimple *last = NULL;
      for (gimple_stmt_iterator gsi = gsi_last_nondebug_bb (bb); !gsi_end_p (gsi);
	   gsi_prev_nondebug (&gsi))
	{
	  last = gsi_stmt (gsi);
	  if (!RESERVED_LOCATION_P (gimple_location (last)))
	    break;
	}
      if (!last || !gimple_has_location (last))
	continue;
      location_t here = gimple_location (last);
      auto_vec<edge> to_split;
      edge e;
      edge_iterator ei;
      FOR_EACH_EDGE (e, ei, bb->succs)
	if (!RESERVED_LOCATION_P (e->goto_locus)
	    && !(e->flags & (EDGE_ABNORMAL | EDGE_EH))
	    && (LOCATION_FILE (e->goto_locus) != LOCATION_FILE (here)
		|| LOCATION_LINE (e->goto_locus) != LOCATION_LINE (here)))
	  to_split.safe_push (e);
      for (edge s : to_split)
	{
	  location_t locus = s->goto_locus;
	  basic_block mid = split_edge (s);
	  single_succ_edge (mid)->goto_locus = locus;
	}
    }
}

static bool
first_stmt_is_special_receiver (basic_block bb)
{
  gimple_stmt_iterator gsi = gsi_start_nondebug_after_labels_bb (bb);
  if (gsi_end_p (gsi))
    return false;
  gimple *first = gsi_stmt (gsi);
  return is_gimple_call (first)
	 && (gimple_call_builtin_p (first, BUILT_IN_SETJMP_RECEIVER)
	     || (gimple_call_flags (first) & ECF_RETURNS_TWICE)
	     || gimple_call_internal_p (first, IFN_ABNORMAL_DISPATCHER));
}

/* setjmp never leaves its caller early: its second return is a re-entry.  */
static bool
ends_with_returns_twice_call (basic_block bb)
{
  gimple_stmt_iterator gsi = gsi_last_nondebug_bb (bb);
  return !gsi_end_p (gsi) && is_gimple_call (gsi_stmt (gsi))
	 && (gimple_call_flags (gsi_stmt (gsi)) & ECF_RETURNS_TWICE);
}

static bool
is_abnormal_dispatcher (basic_block bb)
{
  gimple_stmt_iterator gsi = gsi_start_nondebug_after_labels_bb (bb);
  return !gsi_end_p (gsi)
	 && gimple_call_internal_p (gsi_stmt (gsi), IFN_ABNORMAL_DISPATCHER);
}

/* Abnormal edges (setjmp, computed and nonlocal goto) cannot carry probes.  Each
   is modelled as a leave of its source (source -> EXIT) and a re-entry of its
   destination (ENTRY -> destination): flow is then conserved and every other edge
   count stays exact.  A block that would get both a re-entry and a leave is split
   after its labels so that those two pinned edges never close a cycle.  */
struct abnormal_info
{
  auto_sbitmap leaves, reenters;
  abnormal_info (unsigned n) : leaves (n), reenters (n)
  {
    bitmap_clear (leaves);
    bitmap_clear (reenters);
  }
};

static void
find_abnormal_blocks (sbitmap leaves, sbitmap reenters)
{
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    {
      edge e;
      edge_iterator ei;
      FOR_EACH_EDGE (e, ei, bb->succs)
	if ((e->flags & EDGE_ABNORMAL)
	    && e->dest != EXIT_BLOCK_PTR_FOR_FN (cfun))
	  bitmap_set_bit (leaves, bb->index);
      FOR_EACH_EDGE (e, ei, bb->preds)
	if ((e->flags & EDGE_ABNORMAL)
	    && e->src != ENTRY_BLOCK_PTR_FOR_FN (cfun))
	  bitmap_set_bit (reenters, bb->index);
    }
}

static bool
has_exit_edge (basic_block bb)
{
  edge e;
  edge_iterator ei;
  FOR_EACH_EDGE (e, ei, bb->succs)
    if (e->dest == EXIT_BLOCK_PTR_FOR_FN (cfun))
      return true;
  return false;
}

/* Splits blocks so that every call that may not return ends its block, and
   re-entry blocks from their leaves.  Leaves the fake edges GCC adds for calls and
   noreturn blocks in the CFG (EDGE_FAKE); the caller removes them.  */
static void
normalise_cfg (void)
{
  flow_call_edges_add (NULL);
  add_noreturn_fake_exit_edges ();
  /* After the fake edges, as gcov: a call block's goto edge then gets its own
     block too, and the block numbering matches gcov's.  */
  split_goto_edges ();

  auto_sbitmap leaves (last_basic_block_for_fn (cfun));
  auto_sbitmap reenters (last_basic_block_for_fn (cfun));
  bitmap_clear (leaves);
  bitmap_clear (reenters);
  find_abnormal_blocks (leaves, reenters);
  auto_vec<basic_block> to_split;
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    if (bitmap_bit_p (reenters, bb->index)
	&& (bitmap_bit_p (leaves, bb->index) || has_exit_edge (bb))
	&& !first_stmt_is_special_receiver (bb))
      to_split.safe_push (bb);
  for (basic_block b : to_split)
    split_block_after_labels (b);
  /* A function whose first block is a re-entry target (setjmp first thing)
     gets an empty block in front of it: otherwise the entry edge and the fake
     re-entry both go ENTRY -> that block, and a paths profile could not tell
     how many paths started there by a call and how many by a longjmp.  */
  edge entry = single_succ_edge (ENTRY_BLOCK_PTR_FOR_FN (cfun));
  if (bitmap_bit_p (reenters, entry->dest->index))
    split_edge (entry);
  compact_blocks ();
}

/* ------------------------------------------------------------------------- */
/* GIMPLE CFG -> core graph + notes.  */

/* What the plugin keeps per instrumented function between planning and
   instrumenting: the GCC edge behind each core edge (NULL for fake ones).  */
struct function_plan
{
  cgraph_node *node;
  auto_vec<edge> gcc_edge;	/* indexed like the notes' edges */
  auto_vec<int32_t> value;	/* value index per edge, -1 if none */
  auto_vec<int32_t> block_value;	/* value index per block (block probes) */
  uint32_t value_offset;
  uint32_t nvalues;
  auto_vec<uint32_t> edge_src;	/* source block per edge */
  pp_paths *paths = NULL;	/* paths mode */
  int32_t path_table = -1;	/* index in the unit's path tables, if hashed */
  ~function_plan () { pp_paths_free (paths); }
};

static uint32_t
edge_flags_of (edge e)
{
  uint32_t f = 0;
  if (e->flags & EDGE_FAKE)
    f |= PP_EDGE_FAKE;
  if (e->flags & EDGE_EH)
    f |= PP_EDGE_EH;
  if (e->flags & EDGE_FALLTHRU)
    f |= PP_EDGE_FALLTHRU;
  if (e->flags & EDGE_TRUE_VALUE)
    f |= PP_EDGE_TRUE;
  if (e->flags & EDGE_FALSE_VALUE)
    f |= PP_EDGE_FALSE;
  return f;
}

static bool
gcc_estimates_available (void)
{
  return profile_status_for_fn (cfun) != PROFILE_ABSENT
	 && ENTRY_BLOCK_PTR_FOR_FN (cfun)->count.initialized_p ();
}

/* Edge counters on the chords of a maximum spanning tree.  GCC_WEIGHT is GCC's
   static estimate per edge, or NULL when it has none (at -O0).  */
/* The spanning-tree weighting chosen by -fplugin-arg-pathprof-weights.
   GCC_WEIGHT is GCC's static estimate per edge, or NULL when it has none (-O0):
   then the structural heuristic stands in.  */
static void
compute_weights (const pp_graph &g, const double *gcc_weight, auto_vec<double> &w,
		 int *weighting_used)
{
  w.safe_grow_cleared (g.nedges);
  int weighting = option_weights;
  if (weighting == PP_WEIGHTS_GCC && !gcc_weight)
    weighting = PP_WEIGHTS_HEURISTIC;
  if (weighting == PP_WEIGHTS_GCC)
    for (unsigned i = 0; i < g.nedges; i++)
      w[i] = gcc_weight[i];
  else if (weighting == PP_WEIGHTS_UNIFORM)
    pp_weights_uniform (&g, w.address ());
  else if (pp_weights_heuristic (&g, w.address ()) != 0)
    fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
  *weighting_used = weighting;
}

/* Ball-Larus path numbering with increments on the chords of a maximum spanning
   tree of the DAG.  */
static void
plan_paths (pp_graph &g, function_plan &plan, const double *gcc_weight,
	    int *weighting_used)
{
  auto_vec<double> w;
  compute_weights (g, gcc_weight, w, weighting_used);
  pp_paths_options opt = {};
  opt.weights = w.address ();
  int rc = pp_paths_plan (&g, &opt, &plan.paths);
  if (rc == PP_PATHS_ENOMEM)
    fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
  if (rc != PP_PATHS_OK)
    internal_error ("pathprof: %qD: path numbering failed: %s",
		    current_function_decl, pp_paths_strerror (rc));
  for (unsigned i = 0; i < g.nedges; i++)
    {
      const pp_path_action &a = plan.paths->action[i];
      if (plan.paths->path_end[i])
	g.edges[i].flags |= PP_EDGE_PATH_END;
      if (a.count != PP_PATH_COUNT_NONE)
	g.edges[i].flags |= PP_EDGE_PATH_COUNT;
      if (a.reg != PP_PATH_REG_NONE)
	g.edges[i].flags |= PP_EDGE_PATH_REG;
    }
  plan.nvalues = plan.paths->npaths <= option_path_array_max
		 ? (uint32_t) plan.paths->npaths : 0;
}

static void
plan_edge_counters (const pp_graph &g, function_plan &plan,
		    const double *gcc_weight, int *weighting_used)
{
  auto_vec<double> w;
  compute_weights (g, gcc_weight, w, weighting_used);

  int pinned_chords = 0;
  int n = pp_plan_edge_counters (&g, w.address (), plan.value.address (),
				 &pinned_chords);
  if (n < 0)
    fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
  if (pinned_chords > 0)
    warning_at (DECL_SOURCE_LOCATION (current_function_decl), 0,
		"pathprof: %qD: %d edge(s) of abnormal control flow cannot be "
		"counted exactly", current_function_decl, pinned_chords);
  plan.nvalues = n;
}

/* One-byte coverage probes on the fewest blocks or edges from which the
   coverage of every block or edge can be inferred.  */
static void
plan_coverage (const pp_graph &g, function_plan &plan)
{
  pp_coverage_plan cov;
  int rc = pp_coverage_plan_compute (&g, core_coverage_mode (option_mode), &cov);
  if (rc == PP_COVERAGE_NOMEM)
    fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
  if (rc != 0)
    internal_error ("pathprof: %qD: coverage planning failed (%d)",
		    current_function_decl, rc);
  for (uint32_t i = 0; i < cov.nprobes; i++)
    if (option_mode == PP_MODE_BLOCK_COVER)
      plan.block_value[cov.probes[i]] = i;
    else
      plan.value[cov.probes[i]] = i;
  if (cov.ninexact > 0)
    warning_at (DECL_SOURCE_LOCATION (current_function_decl), 0,
		"pathprof: %qD: the coverage of %u block(s) entered and left only "
		"through abnormal control flow cannot be inferred from edge probes",
		current_function_decl, cov.ninexact);
  plan.nvalues = cov.nprobes;
  pp_coverage_plan_free (&cov);
}

/* Builds the core graph of cfun (already normalised, fake edges still in the
   CFG), plans the counters and fills the function's notes.  */
static void
plan_function (function_plan &plan, pp_function_notes &fn, file_table &files,
	       int *weighting_used)
{
  unsigned nblocks = last_basic_block_for_fn (cfun);
  basic_block entry = ENTRY_BLOCK_PTR_FOR_FN (cfun);
  basic_block exit = EXIT_BLOCK_PTR_FOR_FN (cfun);
  gcc_assert (entry->index == 0 && exit->index == 1);

  auto_sbitmap leaves (nblocks), reenters (nblocks);
  bitmap_clear (leaves);
  bitmap_clear (reenters);
  find_abnormal_blocks (leaves, reenters);

  pp_graph g;
  if (pp_graph_init (&g, nblocks, 0, 1) != 0)
    fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
  auto_vec<double> gcc_weight;
  bool have_estimates = gcc_estimates_available ();
  auto add = [&] (unsigned src, unsigned dst, uint32_t flags, edge e) {
    if (pp_graph_add_edge (&g, src, dst, flags) == UINT32_MAX)
      fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
    plan.gcc_edge.safe_push (flags & PP_EDGE_FAKE ? NULL : e);
    plan.edge_src.safe_push (src);
    double w = 0;
    if (e && have_estimates && e->count ().initialized_p ())
      w = e->count ().to_gcov_type ();
    gcc_weight.safe_push (w);
  };

  basic_block bb;
  FOR_ALL_BB_FN (bb, cfun)
    {
      if (bb != entry && bb != exit && is_abnormal_dispatcher (bb))
	continue;		/* not user code; its edges are all abnormal */
      bool returns_twice = ends_with_returns_twice_call (bb);
      bool leaves_early = false;
      edge e;
      edge_iterator ei;
      FOR_EACH_EDGE (e, ei, bb->succs)
	{
	  if (e->flags & EDGE_ABNORMAL)
	    continue;
	  if (e->flags & EDGE_FAKE)
	    {
	      if (returns_twice)
		continue;
	      leaves_early = true;
	    }
	  add (bb->index, e->dest->index, edge_flags_of (e), e);
	}
      if (bitmap_bit_p (leaves, bb->index) && !leaves_early && !returns_twice)
	add (bb->index, 1, PP_EDGE_FAKE, NULL);
      if (bitmap_bit_p (reenters, bb->index))
	add (0, bb->index, PP_EDGE_FAKE, NULL);
    }
  add (1, 0, PP_EDGE_EXIT_ENTRY, NULL);
  if (pp_graph_finish (&g) != 0)
    fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");

  plan.value.safe_grow (g.nedges);
  plan.block_value.safe_grow (nblocks);
  for (unsigned i = 0; i < g.nedges; i++)
    plan.value[i] = -1;
  for (unsigned i = 0; i < nblocks; i++)
    plan.block_value[i] = -1;
  if (coverage_mode_p (option_mode))
    plan_coverage (g, plan);
  else if (option_mode == PP_MODE_PATHS)
    plan_paths (g, plan, have_estimates ? gcc_weight.address () : NULL,
		weighting_used);
  else
    plan_edge_counters (g, plan, have_estimates ? gcc_weight.address () : NULL,
			weighting_used);

  /* Notes.  */
  tree decl = current_function_decl;
  fn.asm_name = xstrdup (IDENTIFIER_POINTER (DECL_ASSEMBLER_NAME (decl)));
  fn.name = xstrdup (lang_hooks.decl_printable_name (decl, 2));
  expanded_location dx = expand_location (DECL_SOURCE_LOCATION (decl));
  fn.decl_file = files.lookup (dx.file);
  fn.decl_line = dx.line;
  fn.value_offset = plan.value_offset;
  fn.nvalues = plan.nvalues;
  fn.nblocks = nblocks;
  fn.blocks = XCNEWVEC (pp_block_notes, nblocks);
  hash_set<int_hash<location_t, 0, 1>> seen;
  FOR_EACH_BB_FN (bb, cfun)
    {
      auto_vec<pp_line_ref> lines;
      if (!is_abnormal_dispatcher (bb))
	record_block_lines (bb, files, seen, lines);
      pp_block_notes &b = fn.blocks[bb->index];
      b.flags = bb_has_eh_pred (bb) ? PP_BLOCK_LANDING_PAD : 0;
      b.value = plan.block_value[bb->index];
      b.nlines = lines.length ();
      b.lines = XNEWVEC (pp_line_ref, MAX (1u, b.nlines));
      if (b.nlines)
	memcpy (b.lines, lines.address (), b.nlines * sizeof (pp_line_ref));
    }
  for (unsigned i = 0; i < 2; i++)	/* ENTRY and EXIT */
    {
      fn.blocks[i].value = -1;
      fn.blocks[i].lines = XNEWVEC (pp_line_ref, 1);
    }
  fn.nedges = g.nedges;
  fn.edges = XNEWVEC (pp_edge_notes, g.nedges);
  uint64_t sum = pp_hash64 (&nblocks, sizeof nblocks, PP_HASH_SEED);
  for (unsigned i = 0; i < g.nedges; i++)
    {
      fn.edges[i].src = g.edges[i].src;
      fn.edges[i].dst = g.edges[i].dst;
      fn.edges[i].flags = g.edges[i].flags;
      fn.edges[i].value = plan.value[i];
      sum = pp_hash64 (&fn.edges[i], sizeof fn.edges[i], sum);
    }
  for (unsigned i = 0; i < nblocks; i++)
    {
      sum = pp_hash64 (&fn.blocks[i].value, sizeof fn.blocks[i].value, sum);
      sum = pp_hash64 (fn.blocks[i].lines,
			fn.blocks[i].nlines * sizeof (pp_line_ref), sum);
    }
  fn.cfg_checksum = sum;
  pp_graph_free (&g);
}

/* ------------------------------------------------------------------------- */
/* Probes.  */

static tree counter_type;	/* uint64_t */
static tree value_type;		/* counter_type, or unsigned char for coverage */
static tree counters_var;	/* the unit's value array */
static bool atomic_updates;

static tree
counter_ref (uint32_t index)
{
  return build4 (ARRAY_REF, value_type, counters_var,
		 build_int_cst (integer_type_node, index), NULL_TREE, NULL_TREE);
}

/* A coverage probe: one store of 1 into a byte, no load, no atomic: racing
   stores of the same value are harmless.  */
static gassign *
build_probe (uint32_t index)
{
  return gimple_build_assign (counter_ref (index), build_int_cst (value_type, 1));
}

/* Block probes go first in the block, after its labels, or right after a
   leading setjmp-like call (nothing may precede it); when that call also ends the
   block, on the block's one normal outgoing edge.  */
static void
insert_block_probe (basic_block bb, uint32_t index)
{
  gimple_stmt_iterator gsi = gsi_start_nondebug_after_labels_bb (bb);
  if (!gsi_end_p (gsi) && is_gimple_call (gsi_stmt (gsi))
      && (gimple_call_flags (gsi_stmt (gsi)) & ECF_RETURNS_TWICE))
    {
      gimple *call = gsi_stmt (gsi);
      if (!stmt_ends_bb_p (call))
	{
	  gsi_insert_after (&gsi, build_probe (index), GSI_NEW_STMT);
	  return;
	}
      edge e;
      edge_iterator ei;
      FOR_EACH_EDGE (e, ei, bb->succs)
	if (!(e->flags & (EDGE_ABNORMAL | EDGE_EH | EDGE_FAKE)))
	  {
	    gsi_insert_on_edge (e, build_probe (index));
	    return;
	  }
      internal_error ("pathprof: block %d has no edge for its probe", bb->index);
    }
  gsi = gsi_after_labels (bb);
  gsi_insert_before (&gsi, build_probe (index), GSI_SAME_STMT);
}

/* counter += 1 on edge e: a relaxed atomic add when the program is built for
   threads (-pthread gives -fprofile-update=prefer-atomic), otherwise a plain
   load/add/store, as gcov does.  */
static void
insert_increment (edge e, uint32_t index)
{
  tree one = build_int_cst (counter_type, 1);
  if (atomic_updates)
    {
      tree addr = build_fold_addr_expr (counter_ref (index));
      tree f = builtin_decl_explicit (BUILT_IN_ATOMIC_FETCH_ADD_8);
      gcall *call = gimple_build_call (f, 3, addr, one,
				       build_int_cst (integer_type_node,
						      MEMMODEL_RELAXED));
      gsi_insert_on_edge (e, call);
      return;
    }
  tree old_value = make_temp_ssa_name (counter_type, NULL, "PP_counter");
  gassign *load = gimple_build_assign (old_value, counter_ref (index));
  tree new_value = make_temp_ssa_name (counter_type, NULL, "PP_counter");
  gassign *add = gimple_build_assign (new_value, PLUS_EXPR, old_value, one);
  gassign *store = gimple_build_assign (counter_ref (index), new_value);
  gsi_insert_on_edge (e, load);
  gsi_insert_on_edge (e, add);
  gsi_insert_on_edge (e, store);
}

/* Calls that end the process without running exit handlers (or replace it):
   libprof must write the profile before them.  */
static bool
ends_process_without_exit_handlers (gcall *call)
{
  tree fndecl = gimple_call_fndecl (call);
  if (!fndecl || !DECL_NAME (fndecl))
    return false;
  static const char *const names[] = {
    "abort", "_exit", "_Exit", "quick_exit", "__assert_fail",
    "execl", "execle", "execlp", "execv", "execve", "execvp", "execvpe",
    "fexecve", NULL
  };
  const char *name = IDENTIFIER_POINTER (DECL_NAME (fndecl));
  for (const char *const *n = names; *n; n++)
    if (strcmp (name, *n) == 0)
      return DECL_EXTERNAL (fndecl) || fndecl_built_in_p (fndecl);
  return false;
}

static tree flush_decl;

static void
insert_flushes (void)
{
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
	 gsi_next (&gsi))
      if (gcall *call = dyn_cast<gcall *> (gsi_stmt (gsi)))
	if (ends_process_without_exit_handlers (call))
	  {
	    gcall *flush = gimple_build_call (flush_decl, 0);
	    gimple_set_location (flush, gimple_location (call));
	    gsi_insert_before (&gsi, flush, GSI_SAME_STMT);
	  }
}

/* Paths mode: the path register of the activation and the unit's hash-table
   descriptors (one per function whose paths are hashed).  */
static tree path_tables_var;
static tree count_path_decl;

static tree
load_register (tree reg, gimple_seq *seq)
{
  tree value = make_temp_ssa_name (counter_type, NULL, "PP_path");
  gimple_seq_add_stmt (seq, gimple_build_assign (value, reg));
  return value;
}

/* count[path]++ for the path number PATH (an SSA name or a constant).  */
static void
emit_path_count (const function_plan &plan, tree path, gimple_seq *seq)
{
  if (plan.path_table >= 0)
    {
      tree table = build4 (ARRAY_REF, TREE_TYPE (TREE_TYPE (path_tables_var)),
			   path_tables_var,
			   build_int_cst (integer_type_node, plan.path_table),
			   NULL_TREE, NULL_TREE);
      gimple_seq_add_stmt (seq, gimple_build_call (count_path_decl, 2,
						    build_fold_addr_expr (table),
						    path));
      return;
    }
  tree index = make_temp_ssa_name (counter_type, NULL, "PP_index");
  gimple_seq_add_stmt (seq, gimple_build_assign (index, PLUS_EXPR, path,
						 build_int_cstu (counter_type,
								 plan.value_offset)));
  tree ref = build4 (ARRAY_REF, counter_type, counters_var, index, NULL_TREE,
		     NULL_TREE);
  tree one = build_int_cst (counter_type, 1);
  if (atomic_updates)
    {
      /* A variable address must be computed into a register first.  */
      tree addr = make_temp_ssa_name (build_pointer_type (counter_type), NULL,
				      "PP_counter_addr");
      gimple_seq_add_stmt (seq, gimple_build_assign (addr,
						     build_fold_addr_expr (ref)));
      tree f = builtin_decl_explicit (BUILT_IN_ATOMIC_FETCH_ADD_8);
      gimple_seq_add_stmt (seq, gimple_build_call (f, 3, addr, one,
						    build_int_cst (integer_type_node,
								   MEMMODEL_RELAXED)));
      return;
    }
  tree old_value = make_temp_ssa_name (counter_type, NULL, "PP_counter");
  gimple_seq_add_stmt (seq, gimple_build_assign (old_value, ref));
  tree new_value = make_temp_ssa_name (counter_type, NULL, "PP_counter");
  gimple_seq_add_stmt (seq, gimple_build_assign (new_value, PLUS_EXPR, old_value,
						 one));
  gimple_seq_add_stmt (seq, gimple_build_assign (unshare_expr (ref), new_value));
}

/* The code of one path action (corelib/paths.h): count first, then the register.  */
static gimple_seq
build_path_action (const function_plan &plan, const pp_path_action &a, tree reg)
{
  gimple_seq seq = NULL;
  tree value = NULL_TREE;
  if (a.count == PP_PATH_COUNT_REG
      || (a.reg == PP_PATH_REG_ADD))
    value = load_register (reg, &seq);
  if (a.count == PP_PATH_COUNT_REG)
    {
      tree path = make_temp_ssa_name (counter_type, NULL, "PP_path");
      gimple_seq_add_stmt (&seq, gimple_build_assign (path, PLUS_EXPR, value,
						      build_int_cstu (counter_type,
								      a.count_offset)));
      emit_path_count (plan, path, &seq);
    }
  else if (a.count == PP_PATH_COUNT_CONST)
    emit_path_count (plan, build_int_cstu (counter_type, a.count_offset), &seq);
  if (a.reg == PP_PATH_REG_ADD)
    {
      tree sum = make_temp_ssa_name (counter_type, NULL, "PP_path");
      gimple_seq_add_stmt (&seq, gimple_build_assign (sum, PLUS_EXPR, value,
						      build_int_cstu (counter_type,
								      a.reg_value)));
      gimple_seq_add_stmt (&seq, gimple_build_assign (reg, sum));
    }
  else if (a.reg == PP_PATH_REG_SET)
    gimple_seq_add_stmt (&seq, gimple_build_assign (reg,
						    build_int_cstu (counter_type,
								    a.reg_value)));
  return seq;
}

static void
instrument_paths (function_plan &plan)
{
  /* The path register lives in memory of the activation (so each thread and
     each recursive call has its own); later passes promote it to a register.  */
  tree reg = create_tmp_var (counter_type, "PP_path_register");
  DECL_NOT_GIMPLE_REG_P (reg) = 1;
  const pp_paths *p = plan.paths;
  for (unsigned i = 0; i < p->nedges; i++)
    {
      const pp_path_action &a = p->action[i];
      if (a.count == PP_PATH_COUNT_NONE && a.reg == PP_PATH_REG_NONE)
	continue;
      gimple_seq seq = build_path_action (plan, a, reg);
      edge e = plan.gcc_edge[i];
      if (a.at_source_end || !e)
	{
	  gcc_assert (a.at_source_end);
	  basic_block src = e ? e->src
			      : BASIC_BLOCK_FOR_FN (cfun, plan.edge_src[i]);
	  gimple_stmt_iterator gsi = gsi_last_nondebug_bb (src);
	  gcc_assert (!gsi_end_p (gsi));
	  gsi_insert_seq_before (&gsi, seq, GSI_SAME_STMT);
	}
      else
	gsi_insert_seq_on_edge (e, seq);
    }
}

static void
instrument_function (function_plan &plan)
{
  if (plan.paths)
    {
      instrument_paths (plan);
      insert_flushes ();
      gsi_commit_edge_inserts ();
      return;
    }
  bool coverage = coverage_mode_p (option_mode);
  for (unsigned i = 0; i < plan.gcc_edge.length (); i++)
    if (plan.value[i] >= 0)
      {
	edge e = plan.gcc_edge[i];
	gcc_assert (e && !(e->flags & (EDGE_ABNORMAL | EDGE_FAKE)));
	uint32_t index = plan.value_offset + plan.value[i];
	if (coverage)
	  gsi_insert_on_edge (e, build_probe (index));
	else
	  insert_increment (e, index);
      }
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    if ((unsigned) bb->index < plan.block_value.length ()
	&& plan.block_value[bb->index] >= 0)
      insert_block_probe (bb, plan.value_offset + plan.block_value[bb->index]);
  insert_flushes ();
  gsi_commit_edge_inserts ();
}

/* ------------------------------------------------------------------------- */
/* Unit records: notes, the registration record and its constructor.  */

static tree
build_field (tree type, const char *name, tree *chain)
{
  tree f = build_decl (BUILTINS_LOCATION, FIELD_DECL, get_identifier (name), type);
  DECL_CHAIN (f) = *chain;
  *chain = f;
  return f;
}

static tree
static_var (const char *name, tree type, tree init, bool readonly)
{
  tree var = build_decl (BUILTINS_LOCATION, VAR_DECL, get_identifier (name), type);
  TREE_STATIC (var) = 1;
  TREE_PUBLIC (var) = 0;
  DECL_ARTIFICIAL (var) = 1;
  DECL_IGNORED_P (var) = 1;
  TREE_READONLY (var) = readonly;
  TREE_ADDRESSABLE (var) = 1;
  DECL_INITIAL (var) = init;
  return var;
}

/* struct __pathprof_unit, field for field as in libprof/pathprof-abi.h.  */
static void
emit_unit_record (const unsigned char *notes, size_t notes_len, uint64_t checksum,
		  const char *unit_name, uint32_t nvalues)
{
  tree u32 = unsigned_type_node;
  tree u64 = counter_type;
  tree record = make_node (RECORD_TYPE);
  tree fields = NULL_TREE;
  tree f_abi = build_field (u32, "abi_version", &fields);
  tree f_kind = build_field (u32, "value_kind", &fields);
  tree f_sum = build_field (u64, "checksum", &fields);
  tree f_name = build_field (const_ptr_type_node, "name", &fields);
  tree f_notes = build_field (const_ptr_type_node, "notes", &fields);
  tree f_notes_len = build_field (u32, "notes_len", &fields);
  tree f_nvalues = build_field (u32, "nvalues", &fields);
  tree f_values = build_field (ptr_type_node, "values", &fields);
  tree f_ntables = build_field (u32, "ntables", &fields);
  build_field (u32, "reserved", &fields);
  tree f_tables = build_field (ptr_type_node, "tables", &fields);
  tree f_next = build_field (ptr_type_node, "next", &fields);
  finish_builtin_struct (record, "__pathprof_unit", fields, NULL_TREE);

  tree notes_type = build_array_type_nelts (unsigned_char_type_node, notes_len);
  tree notes_str = build_string (notes_len, (const char *) notes);
  TREE_TYPE (notes_str) = notes_type;
  tree notes_var = static_var ("__pathprof_notes", notes_type, notes_str, true);
  varpool_node::finalize_decl (notes_var);

  vec<constructor_elt, va_gc> *elts = NULL;
  CONSTRUCTOR_APPEND_ELT (elts, f_abi, build_int_cst (u32, PATHPROF_ABI_VERSION));
  CONSTRUCTOR_APPEND_ELT (elts, f_kind,
			  build_int_cst (u32, coverage_mode_p (option_mode)
					 ? PP_VALUES_U8 : PP_VALUES_U64));
  CONSTRUCTOR_APPEND_ELT (elts, f_sum, build_int_cstu (u64, checksum));
  CONSTRUCTOR_APPEND_ELT (elts, f_name,
			  fold_convert (const_ptr_type_node,
					build_string_literal (strlen (unit_name) + 1,
							      unit_name)));
  CONSTRUCTOR_APPEND_ELT (elts, f_notes,
			  fold_convert (const_ptr_type_node,
					build_fold_addr_expr (notes_var)));
  CONSTRUCTOR_APPEND_ELT (elts, f_notes_len, build_int_cst (u32, notes_len));
  CONSTRUCTOR_APPEND_ELT (elts, f_nvalues, build_int_cst (u32, nvalues));
  CONSTRUCTOR_APPEND_ELT (elts, f_values,
			  fold_convert (ptr_type_node,
					build_fold_addr_expr (counters_var)));
  unsigned ntables = 0;
  tree tables = null_pointer_node;
  if (path_tables_var)
    {
      ntables = tree_to_uhwi (array_type_nelts (TREE_TYPE (path_tables_var))) + 1;
      tables = fold_convert (ptr_type_node, build_fold_addr_expr (path_tables_var));
    }
  CONSTRUCTOR_APPEND_ELT (elts, f_ntables, build_int_cst (u32, ntables));
  CONSTRUCTOR_APPEND_ELT (elts, f_tables, tables);
  CONSTRUCTOR_APPEND_ELT (elts, f_next, null_pointer_node);
  tree unit_var = static_var ("__pathprof_unit", record,
			      build_constructor (record, elts), false);
  varpool_node::finalize_decl (unit_var);

  tree fntype = build_function_type_list (void_type_node, ptr_type_node, NULL_TREE);
  tree reg = build_fn_decl ("__pathprof_register_unit", fntype);
  tree done = build_fn_decl ("__pathprof_unit_exit", fntype);
  /* Register before user constructors run; write the profile after user
     destructors and atexit handlers (smaller destructor priorities run later).  */
  cgraph_build_static_cdtor ('I',
			     build_call_expr (reg, 1, build_fold_addr_expr (unit_var)),
			     MAX_RESERVED_INIT_PRIORITY + 1);
  cgraph_build_static_cdtor ('D',
			     build_call_expr (done, 1, build_fold_addr_expr (unit_var)),
			     MAX_RESERVED_INIT_PRIORITY + 1);
}

/* struct __pathprof_path_table, as in libprof/pathprof-abi.h.  */
static tree
path_table_type (tree *f_function, tree *f_npaths)
{
  tree record = make_node (RECORD_TYPE);
  tree fields = NULL_TREE;
  *f_function = build_field (unsigned_type_node, "function", &fields);
  build_field (unsigned_type_node, "reserved", &fields);
  *f_npaths = build_field (counter_type, "npaths", &fields);
  build_field (ptr_type_node, "table", &fields);
  finish_builtin_struct (record, "__pathprof_path_table", fields, NULL_TREE);
  return record;
}

/* One hash-table descriptor per function with more paths than fit an array.  */
static void
create_path_tables (auto_delete_vec<function_plan> &plans)
{
  path_tables_var = NULL_TREE;
  count_path_decl = build_fn_decl ("__pathprof_count_path",
				   build_function_type_list (void_type_node,
							     ptr_type_node,
							     counter_type,
							     NULL_TREE));
  tree f_function, f_npaths;
  tree type = path_table_type (&f_function, &f_npaths);
  vec<constructor_elt, va_gc> *tables = NULL;
  unsigned ntables = 0;
  for (unsigned i = 0; i < plans.length (); i++)
    if (plans[i]->paths && plans[i]->nvalues == 0)
      {
	plans[i]->path_table = ntables++;
	vec<constructor_elt, va_gc> *fields = NULL;
	CONSTRUCTOR_APPEND_ELT (fields, f_function,
				build_int_cst (unsigned_type_node, i));
	CONSTRUCTOR_APPEND_ELT (fields, f_npaths,
				build_int_cstu (counter_type,
						plans[i]->paths->npaths));
	CONSTRUCTOR_APPEND_ELT (tables, NULL_TREE, build_constructor (type, fields));
      }
  if (ntables == 0)
    return;
  tree array = build_array_type_nelts (type, ntables);
  path_tables_var = static_var ("__pathprof_path_tables", array,
				build_constructor (array, tables), false);
  varpool_node::finalize_decl (path_tables_var);
}

static char *
absolute_unit_name (void)
{
  const char *name = main_input_filename ? main_input_filename : "<stdin>";
  if (IS_ABSOLUTE_PATH (name))
    return xstrdup (name);
  return concat (getpwd (), "/", name + (strncmp (name, "./", 2) == 0 ? 2 : 0),
		 NULL);
}

/* ------------------------------------------------------------------------- */
/* The pass.  */

static bool
want_function (cgraph_node *node)
{
  tree decl = node->decl;
  if (!gimple_has_body_p (decl) || node->thunk || DECL_EXTERNAL (decl))
    return false;
  if (DECL_SOURCE_LOCATION (decl) == BUILTINS_LOCATION)
    return false;
  if (lookup_attribute ("no_profile_instrument_function", DECL_ATTRIBUTES (decl))
      || lookup_attribute ("naked", DECL_ATTRIBUTES (decl)))
    return false;
  return true;
}

/* Atomic counter updates when asked with -fprofile-update=atomic or
   prefer-atomic, and by default for programs built with -pthread (which reaches
   cc1 as -D_REENTRANT), as gcov does; -fprofile-update=single turns them off.  */
static bool
want_atomic_updates (void)
{
  if (global_options_set.x_flag_profile_update)
    return flag_profile_update != PROFILE_UPDATE_SINGLE;
  for (unsigned i = 0; i < save_decoded_options_count; i++)
    if (save_decoded_options[i].opt_index == OPT_D
	&& save_decoded_options[i].arg
	&& strcmp (save_decoded_options[i].arg, "_REENTRANT") == 0)
      return true;
  return false;
}

static unsigned int
instrument_unit (void)
{
  atomic_updates = want_atomic_updates ();
  counter_type = long_long_unsigned_type_node;
  value_type = coverage_mode_p (option_mode) ? unsigned_char_type_node
					       : counter_type;
  flush_decl = build_fn_decl ("__pathprof_flush",
			      build_function_type_list (void_type_node, NULL_TREE));

  file_table files;
  auto_delete_vec<function_plan> plans;
  auto_vec<pp_function_notes> fns;
  uint32_t total = 0;
  int weighting_used = option_weights;
  cgraph_node *node;

  FOR_EACH_DEFINED_FUNCTION (node)
    {
      if (!want_function (node))
	continue;
      push_cfun (DECL_STRUCT_FUNCTION (node->decl));
      if (execute_fixup_cfg () & TODO_cleanup_cfg)
	cleanup_tree_cfg ();
      normalise_cfg ();
      function_plan *plan = new function_plan;
      plan->node = node;
      plan->value_offset = total;
      pp_function_notes fn = {};
      plan_function (*plan, fn, files, &weighting_used);
      remove_fake_edges ();
      total += plan->nvalues;
      plans.safe_push (plan);
      fns.safe_push (fn);
      free_dominance_info (CDI_DOMINATORS);
      free_dominance_info (CDI_POST_DOMINATORS);
      pop_cfun ();
    }
  if (plans.is_empty ())
    return 0;

  tree array_type = build_array_type_nelts (value_type, MAX (total, 1u));
  counters_var = static_var ("__pathprof_counters", array_type, NULL_TREE, false);
  varpool_node::finalize_decl (counters_var);
  if (option_mode == PP_MODE_PATHS)
    create_path_tables (plans);

  for (function_plan *plan : plans)
    {
      push_cfun (DECL_STRUCT_FUNCTION (plan->node->decl));
      instrument_function (*plan);
      pop_cfun ();
    }

  /* The instrumented functions now write memory: drop const/pure, refresh
     the calls' operands, re-merge split blocks, and rebuild SSA and the
     call graph edges.  */
  for (function_plan *plan : plans)
    {
      plan->node->set_const_flag (false, false);
      plan->node->set_pure_flag (false, false);
    }
  for (function_plan *plan : plans)
    {
      push_cfun (DECL_STRUCT_FUNCTION (plan->node->decl));
      basic_block bb;
      FOR_EACH_BB_FN (bb, cfun)
	for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
	     gsi_next (&gsi))
	  if (is_gimple_call (gsi_stmt (gsi)))
	    update_stmt (gsi_stmt (gsi));
      cleanup_tree_cfg ();
      update_ssa (TODO_update_ssa);
      cgraph_edge::rebuild_edges ();
      pop_cfun ();
    }

  pp_unit_notes notes = {};
  notes.mode = option_mode;
  notes.weighting = weighting_used;
  notes.unit_name = absolute_unit_name ();
  notes.nfiles = files.names.length ();
  notes.files = files.names.address ();
  notes.nfunctions = fns.length ();
  notes.functions = fns.address ();
  unsigned char *buf;
  size_t len;
  if (pp_notes_encode (&notes, &buf, &len) != 0)
    fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
  emit_unit_record (buf, len, pp_hash64 (buf, len, PP_HASH_SEED),
		    notes.unit_name, total);
  free (buf);
  for (pp_function_notes &fn : fns)
    {
      free (fn.asm_name);
      free (fn.name);
      for (unsigned i = 0; i < fn.nblocks; i++)
	free (fn.blocks[i].lines);
      free (fn.blocks);
      free (fn.edges);
    }
  free (notes.unit_name);
  return 0;
}

namespace {

const pass_data instrument_pass_data = {
  SIMPLE_IPA_PASS,
  "pathprof",			/* name */
  OPTGROUP_NONE,
  TV_NONE,
  0, 0, 0, 0, 0
};

class instrument_pass : public simple_ipa_opt_pass
{
public:
  instrument_pass (gcc::context *ctxt)
    : simple_ipa_opt_pass (instrument_pass_data, ctxt)
  {}
  bool gate (function *) final override { return !in_lto_p && !seen_error (); }
  unsigned int execute (function *) final override { return instrument_unit (); }
};

}

int
plugin_init (struct plugin_name_args *info, struct plugin_gcc_version *version)
{
  if (!plugin_default_version_check (version, &gcc_version))
    {
      error ("pathprof: this plugin was built for GCC %s and cannot be loaded "
	     "by GCC %s; rebuild pathprof with this compiler",
	     gcc_version.basever, version->basever);
      return 1;
    }
  if (!parse_options (info))
    return 1;
  /* As with gcov (-fprofile-arcs), no early partial inlining: it would split
     functions into *.part clones before they are instrumented, and line counts
     would no longer be comparable with gcov's.  */
  flag_partial_inlining = 0;

  static struct plugin_info plugin_info = {
    PATHPROF_VERSION,
    "pathprof: minimal coverage probes and optimal edge/path profiles.\n"
    "  -fplugin-arg-pathprof-mode=edge-counts|block-cover|edge-cover|"
    "block-cover-edge-probes|paths\n"
    "  -fplugin-arg-pathprof-path-array-max=N (default 4096)\n"
    "  -fplugin-arg-pathprof-weights=gcc|heuristic|uniform\n"
  };
  register_callback (plugin_name, PLUGIN_INFO, NULL, &plugin_info);

  struct register_pass_info pass;
  pass.pass = new instrument_pass (g);
  pass.reference_pass_name = "profile";
  pass.ref_pass_instance_number = 1;
  pass.pos_op = PASS_POS_INSERT_AFTER;
  register_callback (plugin_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &pass);
  return 0;
}
