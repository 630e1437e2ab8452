/* pathprof GCC plugin: the use build (-fplugin-arg-pathprof-use=FILE).  It
   inserts no probe: it gives GCC's optimiser the exact block and edge counts
   of a pathprof profile, as -fprofile-use gives those of .gcda files.

   How GCC is told.  At gcov's position (where -fprofile-use reads its
   counts), each function is normalised and described exactly as the
   training build did (cfg.cc), so its CFG checksum says whether the profile
   is about this very control flow.  If it is, the profile's edge counts
   (tools/use-counts.h, through the report layer: any mode that tells every
   edge's count, program records and traces included) become the
   blocks' precise counts and the edges' probabilities, the function's
   profile is marked read, and its loops get the iteration bounds the counts
   imply, as GCC's compute_branch_probabilities does; else the function keeps
   GCC's static estimate and a warning names it (-Wmissing-profile: its
   control flow changed, or it is not in the profile; not
   -Wcoverage-mismatch, which GCC makes an error by default).  After
   the unit, GCC's profile summary (profile_info: runs, peak count) is set and
   -fbranch-probabilities turned on, which the passes that follow read as
   "feedback available" (the inliner requires it with read counts, the
   feedback function splitter runs on it).  That flag is turned on only now:
   given on the command line it would have made GCC look for .gcda files and
   run its own reader over the same functions.

   The optimisations -fprofile-use enables are enabled at plugin_init, each
   only when the command line does not set it (use_enable_fdo): all of them
   but value profiling, which needs value histograms no pathprof mode keeps.
   See DESIGN.md "Optimising with a profile".  */

#include "pathprof-plugin.h"
#include "profile.h"
#include "predict.h"
#include "gcov-io.h"
#include "tools/use-counts.h"

static use_counts *use_profile;	/* NULL: no file (built without) */
static const char *use_file;
static bool use_verbose;
/* -fpartial-inlining as the command line had it: off until the counts are
   in, as in the training build (plugin_init), then given back.  */
static int use_partial_inlining;

/* Sets an optimisation option that the command line left alone.  */
#define ENABLE_UNSET(flag, value)                                  \
  do                                                               \
    if (!global_options_set.x_##flag)                              \
      global_options.x_##flag = (value);                           \
  while (0)

/* What -fprofile-use turns on (GCC 12's enable_fdo_optimizations and
   -fprofile-reorder-functions) but -fbranch-probabilities, which comes with
   the counts, and value profiles.  */
static void
use_enable_fdo (void)
{
  ENABLE_UNSET (flag_unroll_loops, 1);
  ENABLE_UNSET (flag_peel_loops, 1);
  ENABLE_UNSET (flag_tracer, 1);
  ENABLE_UNSET (flag_inline_functions, 1);
  ENABLE_UNSET (flag_ipa_cp, 1);
  ENABLE_UNSET (flag_ipa_cp_clone, 1);
  ENABLE_UNSET (flag_ipa_bit_cp, 1);
  ENABLE_UNSET (flag_predictive_commoning, 1);
  ENABLE_UNSET (flag_split_loops, 1);
  ENABLE_UNSET (flag_unswitch_loops, 1);
  ENABLE_UNSET (flag_gcse_after_reload, 1);
  ENABLE_UNSET (flag_tree_loop_vectorize, 1);
  ENABLE_UNSET (flag_tree_slp_vectorize, 1);
  ENABLE_UNSET (flag_version_loops_for_strides, 1);
  ENABLE_UNSET (flag_vect_cost_model, VECT_COST_MODEL_DYNAMIC);
  ENABLE_UNSET (flag_tree_loop_distribute_patterns, 1);
  ENABLE_UNSET (flag_loop_interchange, 1);
  ENABLE_UNSET (flag_unroll_jam, 1);
  ENABLE_UNSET (flag_tree_loop_distribution, 1);
  ENABLE_UNSET (flag_profile_reorder_functions, 1);
  /* As finish_options derives it from the two above.  */
  ENABLE_UNSET (flag_cunroll_grow_size,
		flag_unroll_loops || flag_peel_loops || optimize >= 3);
}

bool
use_profile_init (const char *file, bool verbose)
{
  if (!file || !*file)
    {
      file = getenv ("PATHPROF_FILE");
      if (!file || !*file)
	file = "pathprof.data";
      else if (strchr (file, '%'))
	{
	  error ("pathprof: %<PATHPROF_FILE=%s%> names one file per process; "
		 "merge them (%<pathprof merge%>) and give the result with "
		 "%<-fplugin-arg-pathprof-use=FILE%>", file);
	  return false;
	}
    }
  use_file = file;
  use_verbose = verbose;
  use_enable_fdo ();
  use_partial_inlining = flag_partial_inlining;
  /* As -fprofile-use without its .gcda file: said, and built without.  */
  if (access (file, F_OK) != 0 && errno == ENOENT)
    {
      warning (OPT_Wmissing_profile, "pathprof: %s: no such profile; the "
	       "static estimates are used", file);
      return true;
    }
  char err[512];
  if (use_counts_open (file, &use_profile, err, sizeof err))
    {
      error ("pathprof: %s: %s", file, err);
      return false;
    }
  return true;
}

/* ------------------------------------------------------------------------- */
/* One function.  */

struct unit_stats
{
  unsigned functions, annotated, stale, missing;
  uint64_t executions;		/* the annotated functions' blocks' */
};

/* A block's read count; with -fprofile-partial-training a 0 is only a
   guess (the training may not have covered it), as GCC reads it.  */
static profile_count
read_count (uint64_t n)
{
  if (!n && flag_profile_partial_training)
    return profile_count::guessed_zero ();
  return profile_count::from_gcov_type
	   ((gcov_type) MIN (n, (uint64_t) profile_count::max_count));
}

/* A function the training never ran keeps GCC's estimates, marked as
   counting 0 in the whole program, as GCC keeps them.  */
static void
set_untrained (void)
{
  basic_block bb;
  FOR_ALL_BB_FN (bb, cfun)
    if (!(bb->count == profile_count::zero ()))
      bb->count = bb->count.global0 ();
}

/* Gives cfun (normalised; its core graph G, REC mapping G's edges to GCC's)
   the counts COUNTS.  A block's count is what enters it (ENTRY's: the calls);
   an edge's probability its count over its source's.  Abnormal edges, which
   the core graph models as a leave of their source and a re-entry of their
   destination, share what their source's other edges do not take; the block
   that dispatches them (setjmp's receiver) counts the re-entries it makes.  */
static void
set_counts (const pp_graph &g, const function_record &rec, const uint64_t *counts)
{
  unsigned n = last_basic_block_for_fn (cfun);
  auto_vec<uint64_t> count, reentries, normal_out;
  count.safe_grow_cleared (n);
  reentries.safe_grow_cleared (n);
  normal_out.safe_grow_cleared (n);
  bool ran = false;
  for (uint32_t e = 0; e < g.nedges; e++)
    {
      uint32_t src = g.edges[e].src, dst = g.edges[e].dst;
      ran |= counts[e] != 0;
      if (src == g.entry && (g.edges[e].flags & PP_EDGE_FAKE))
	reentries[dst] += counts[e];
      else if (src == g.entry)
	count[src] += counts[e];
      if (dst != g.entry)
	count[dst] += counts[e];
      if (rec.gcc_edge[e])
	normal_out[src] += counts[e];
    }
  profile_status_for_fn (cfun) = PROFILE_READ;
  if (!ran && flag_guess_branch_prob && !flag_profile_partial_training)
    {
      set_untrained ();
      compute_function_frequency ();
      return;
    }
  basic_block bb;
  FOR_ALL_BB_FN (bb, cfun)
    {
      edge e;
      edge_iterator ei;
      unsigned abnormal = 0;
      uint64_t dispatched = 0;
      FOR_EACH_EDGE (e, ei, bb->succs)
	if (e->flags & EDGE_ABNORMAL)
	  {
	    abnormal++;
	    dispatched += reentries[e->dest->index];
	  }
      /* The abnormal dispatcher, outside the core graph, runs once per
	 re-entry it makes.  */
      uint64_t total = count[bb->index];
      if (abnormal && bb != ENTRY_BLOCK_PTR_FOR_FN (cfun)
	  && is_abnormal_dispatcher (bb))
	total = count[bb->index] = dispatched;
      bb->count = read_count (total);
      /* Never ran: GCC's estimates stay, as in compute_branch_probabilities.  */
      if (!abnormal || !total)
	continue;
      uint64_t rest = total - MIN (total, normal_out[bb->index]);
      FOR_EACH_EDGE (e, ei, bb->succs)
	if (e->flags & EDGE_ABNORMAL)
	  e->probability = profile_probability::probability_in_gcov_type
			     ((gcov_type) (rest / abnormal), (gcov_type) total);
    }
  for (uint32_t e = 0; e < g.nedges; e++)
    if (edge ge = rec.gcc_edge[e])
      {
	uint64_t total = count[ge->src->index];
	if (total)
	  ge->probability = profile_probability::probability_in_gcov_type
			      ((gcov_type) MIN (counts[e], total), (gcov_type) total);
	if (total && !counts[e] && flag_profile_partial_training)
	  ge->probability = ge->probability.guessed ();
      }
  /* The counts bound every loop's iterations, as GCC records for read
     profiles before later passes change them.  */
  for (auto loop : loops_list (cfun, 0))
    if (loop->header->count > 0 && loop->header->count.reliable_p ())
      {
	gcov_type nit = expected_loop_iterations_unbounded (loop);
	loop->any_estimate = false;
	record_niter_bound (loop, gcov_type_to_wide_int (nit), true, false);
      }
  compute_function_frequency ();
}

/* Finds FN (graph G) in the profile and gives cfun its counts; counts it
   in ST.  */
static void
annotate_function (const pp_graph &g, const function_record &rec,
		   const pp_function_notes &fn, const char *unit, unit_stats &st)
{
  st.functions++;
  const uint64_t *counts;
  uint64_t executions;
  int found = use_counts_find (use_profile, unit, fn.asm_name,
			       pp_notes_cfg_checksum (&fn), g.nedges, &counts,
			       &executions);
  location_t loc = DECL_SOURCE_LOCATION (current_function_decl);
  if (!found)
    {
      st.missing++;
      warning_at (loc, OPT_Wmissing_profile, "pathprof: %qD is not in %s; "
		  "the static estimate is used", current_function_decl,
		  use_file);
      return;
    }
  if (found < 0)
    {
      st.stale++;
      warning_at (loc, OPT_Wmissing_profile, "pathprof: %qD: control flow "
		  "changed since %s was made; the static estimate is used",
		  current_function_decl, use_file);
      return;
    }
  set_counts (g, rec, counts);
  st.annotated++;
  st.executions += executions;
}

/* ------------------------------------------------------------------------- */
/* The unit.  */

/* -fpartial-inlining as given, and -fbranch-probabilities if COUNTS were
   read, for every function from now on: in the default options and in each
   function's own (__attribute__ ((optimize))).  With counts, a function
   that stores differences of its labels' addresses in static data gets
   -fno-reorder-blocks-and-partition: GCC 12 would split it into hot and
   cold parts in two sections, and the differences across them do not
   assemble (GCC's own -fprofile-use fails so on the torture test
   pr70460.c).  */
static void
set_feedback_options (bool counts)
{
  cgraph_node *node;
  FOR_EACH_FUNCTION (node)
    {
      tree opts = DECL_FUNCTION_SPECIFIC_OPTIMIZATION (node->decl);
      function *fn = DECL_STRUCT_FUNCTION (node->decl);
      bool labels = counts && fn && fn->has_forced_label_in_static;
      if (opts == optimization_default_node)
	opts = NULL_TREE;
      if (!opts && !labels)
	continue;
      cl_optimization_restore (&global_options, &global_options_set,
			       TREE_OPTIMIZATION (opts ? opts
						  : optimization_default_node));
      global_options.x_flag_branch_probabilities |= counts;
      global_options.x_flag_partial_inlining |= use_partial_inlining;
      if (labels)
	global_options.x_flag_reorder_blocks_and_partition = 0;
      DECL_FUNCTION_SPECIFIC_OPTIMIZATION (node->decl)
	= build_optimization_node (&global_options, &global_options_set);
    }
  cl_optimization_restore (&global_options, &global_options_set,
			   TREE_OPTIMIZATION (optimization_default_node));
  global_options.x_flag_branch_probabilities |= counts;
  global_options.x_flag_partial_inlining = use_partial_inlining;
  optimization_default_node
    = build_optimization_node (&global_options, &global_options_set);
  optimization_current_node = optimization_default_node;
}

unsigned int
annotate_unit (void)
{
  if (!use_profile)
    {
      set_feedback_options (false);
      return 0;
    }
  /* GCC's summary of the profile, which hotness is measured against
     (compute_function_frequency reads it).  */
  static gcov_summary summary;
  summary.runs = (gcov_unsigned_t) MIN (MAX (use_counts_runs (use_profile),
					     (uint64_t) 1), (uint64_t) UINT32_MAX);
  summary.sum_max = (gcov_type) MIN (use_counts_max (use_profile),
				     (uint64_t) profile_count::max_count);
  profile_info = &summary;

  char *unit = absolute_unit_name ();
  file_table files;
  unit_stats st = {};
  for_each_taken_function ([&] (cgraph_node *node) {
      function_record rec;
      rec.node = node;
      pp_graph g;
      auto_vec<double> estimates;
      build_core_graph (&g, rec, estimates);
      pp_function_notes fn = {};
      describe_function (fn, g, files, false);
      annotate_function (g, rec, fn, unit, st);
      free_function_notes (fn);
      pp_graph_free (&g);
    }, [] (cgraph_node *) {
      /* Re-merge the blocks normalisation split; the calls' edges in the
	 call graph take their blocks' counts.  */
      cleanup_tree_cfg ();
      update_max_bb_count ();
      cgraph_edge::rebuild_edges ();
    });

  /* A function without counts that functions with counts call (stale, or
     not in the profile) gets GCC's estimate scaled to its calls and is hot
     if they are.  GCC would warn again for each; the warning above said
     it, so GCC's is silenced as -fprofile-correction silences it.  */
  int correction = flag_profile_correction;
  flag_profile_correction = 1;
  handle_missing_profiles ();
  flag_profile_correction = correction;
  set_feedback_options (true);

  if (use_verbose)
    {
      uint64_t all = use_counts_unit_executions (use_profile, unit);
      char share[32];
      snprintf (share, sizeof share, "%.1f%%",
		all ? 100.0 * (double) st.executions / (double) all : 0.0);
      inform (UNKNOWN_LOCATION, "pathprof: %s: %u of %u functions annotated "
	      "from %s (%u stale, %u not in it), holding %s of the block "
	      "executions it counts in the unit", unit, st.annotated,
	      st.functions, use_file, st.stale, st.missing, share);
    }
  free (unit);
  use_counts_close (use_profile);
  use_profile = NULL;
  return 0;
}
