/* pathprof GCC plugin: the pass, and the driver that takes each unit
   through the other files (pathprof-plugin.h lists them): normalise every
   function's CFG and build its core graph (cfg.cc), ask the mode's planner in
   corelib/ for its plan (the mode table, corelib/format/modes.h), create the unit's
   values (unit.cc), emit every plan's probes (probes.cc), then the notes and the
   registration record (unit.cc).

   Where it runs: a simple IPA pass right after GCC's own "profile" pass (gcov's
   position).  Early inlining and early optimisations are done, so there are fewer
   blocks to probe; GCC's static branch estimates exist at -O1 and above; the CFG is
   the one gcov instruments, which makes line counts comparable with gcov's; and the
   pass sees the whole unit at once, so every counter array is sized before any
   probe refers to it.  See DESIGN.md and GCC-PLUGIN-NOTES.md.

   This and the other plugin files are the only C++ in pathprof; every algorithm
   lives in corelib/ (pure C).  */

#include "pathprof-plugin.h"
#include "plugin-version.h"
#include "corelib/edgeprof.h"
#include "corelib/trace.h"
#include "corelib/ip-notes.h"
#include "corelib/paths.h"
#include "corelib/prior.h"
#include "corelib/format/profile.h"

int plugin_is_GPL_compatible;

static const char plugin_name[] = "pathprof";

/* ------------------------------------------------------------------------- */
/* The pass.  */

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

/* The function FN (graph G) in the previous profile: true with *PF set when
   it is there with the same control flow; a warning naming it when its control
   flow changed since (nothing is learnt from it then).  */
static bool
find_prior (const pp_graph &g, const pp_function_notes &fn, pp_prior_function *pf)
{
  char *unit = absolute_unit_name ();
  char err[256];
  int found = pp_prior_find (&prior, unit, fn.asm_name, pf, err, sizeof err);
  free (unit);
  if (found < 0)
    fatal_error (UNKNOWN_LOCATION, "pathprof: %s: %s", option_profile, err);
  if (!found)
    return false;
  if (pf->notes->cfg_checksum == pp_notes_cfg_checksum (&fn)
      && pf->notes->nedges == g.nedges)
    return true;
  if (option_mode->preferential)
    warning_at (DECL_SOURCE_LOCATION (current_function_decl), 0,
		"pathprof: %qD: control flow changed since %s was made; its "
		"paths are all uninteresting, as in mode paths%s",
		current_function_decl, option_profile,
		option_weights == PP_WEIGHTS_PROFILE
		? ", and its probes are weighted by static estimates" : "");
  else
    warning_at (DECL_SOURCE_LOCATION (current_function_decl), 0,
		"pathprof: %qD: control flow changed since %s was made; its "
		"probes are weighted by static estimates",
		current_function_decl, option_profile);
  return false;
}

/* What the previous profile says about the paths of function FN (graph G,
   found there as PF): its path ends, so that the numbering is the profile's,
   and its interesting paths.  */
struct learnt
{
  auto_vec<bool> path_end;
  auto_vec<uint64_t> interesting;
  auto_vec<uint64_t> counts;	/* segments: the training run's, per interesting */
};

static void
learn_function (const pp_graph &g, const pp_function_notes &fn,
		const pp_prior_function &pf, learnt &out)
{
  char err[256];
  out.path_end.safe_grow_cleared (g.nedges);
  for (uint32_t e = 0; e < g.nedges; e++)
    out.path_end[e] = (pf.notes->edges[e].flags & PP_EDGE_PATH_END) != 0;
  pp_paths *numbering;
  int rc = pp_paths_number (&g, out.path_end.address (), &numbering);
  if (rc == PP_PATHS_ENOMEM)
    fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
  pp_path_count *counts = NULL;
  uint32_t n = 0;
  if (rc != PP_PATHS_OK
      || pp_function_path_counts (pf.notes, pf.index, pf.unit->data,
				  numbering->npaths, &counts, &n, err, sizeof err))
    {
      error ("pathprof: %s: function %qs: %s", option_profile, fn.name,
	     rc != PP_PATHS_OK ? pp_paths_strerror (rc) : err);
      out.path_end.truncate (0);
    }
  else
    {
      n = pp_select_hottest (counts, n, option_hot_percent);
      for (uint32_t i = 0; i < n; i++)
	out.interesting.safe_push (counts[i].path);
    }
  free (counts);
  pp_paths_free (numbering);
}

/* Root ASM_NAME of unit UNIT_NAME as the training profile has it
   (pp_seg_prior_learn): its interesting segments, hottest first, with their
   counts, and the checksum of its supergraph.  Returns 1, 0 where the
   profile has no such root, or -1 with a reason in ERR.  */
int
learn_root_segments (const char *unit_name, const char *asm_name,
		     auto_vec<uint64_t> &numbers, auto_vec<uint64_t> &counts,
		     uint64_t *checksum, char *err, size_t errlen)
{
  uint64_t *interesting, *hot;
  uint32_t n;
  int found = pp_seg_prior_learn (&seg_prior, unit_name, asm_name, option_hot_percent,
				  &interesting, &hot, &n, checksum, err, errlen);
  if (found <= 0)
    return found;
  for (uint32_t i = 0; i < n; i++)
    {
      numbers.safe_push (interesting[i]);
      counts.safe_push (hot[i]);
    }
  free (interesting);
  free (hot);
  return 1;
}

/* The same for the preferential modes of segments: FN's interesting
   segments as a root, and the checksum of the supergraph they belong to.  */
static void
learn_segments (const pp_function_notes &fn, learnt &out, uint64_t *checksum)
{
  char err[512];
  char *unit = absolute_unit_name ();
  if (learn_root_segments (unit, fn.asm_name, out.interesting, out.counts, checksum, err,
			   sizeof err) < 0)
    error ("pathprof: %s: function %qs: %s", option_profile, fn.name, err);
  free (unit);
}

/* Plans cfun (normalised, GCC's fake edges still in its CFG) with the chosen
   mode's planner and describes it in FN.  *WEIGHTING receives the spanning-tree
   weighting used, if the mode has one.  */
static void
plan_function (function_record &rec, pp_function_notes &fn, file_table &files,
	       int *weighting)
{
  pp_graph g;
  auto_vec<double> gcc_weight;
  build_core_graph (&g, rec, gcc_weight);

  describe_function (fn, g, files, option_mode->calls);
  pp_prior_function pf;
  bool in_prior = prior.nunits && find_prior (g, fn, &pf);

  auto_vec<double> w;
  auto_vec<uint64_t> counts;
  pp_plan_input in = {};
  in.path_array_max = option_path_array_max;
  in.all_witnesses = option_all_witnesses;
  /* A coverage mode's function may count its edges where that costs less
     (pp_plan_coverage).  A counter increment is one instruction, as a
     coverage store is, when GCC optimises; three at -O0 (load, add, store);
     a locked add under atomic updates, where racing coverage stores need
     none: then never.  */
  if (option_mode->value_action == PP_PROBE_MARK && !want_atomic_updates ())
    in.counter_cost = optimize ? 1 : 3;
  if (option_mode->weighted)
    {
      if (in_prior && option_weights == PP_WEIGHTS_PROFILE)
	{
	  char err[256];
	  counts.safe_grow_cleared (g.nedges);
	  if (pp_prior_edge_counts (&pf, &g, counts.address (), err, sizeof err))
	    fatal_error (UNKNOWN_LOCATION, "pathprof: %s: %s", option_profile, err);
	}
      w.safe_grow_cleared (g.nedges);
      *weighting = pp_plan_weights (&g, option_weights,
				    gcc_weight.is_empty () ? NULL
				    : gcc_weight.address (),
				    counts.is_empty () ? NULL : counts.address (),
				    w.address ());
      if (*weighting < 0)
	fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
      in.weights = w.address ();
    }
  in.notes = &fn;
  learnt prior_paths;
  uint64_t seg_checksum = 0;
  if (option_mode->preferential && in_prior && pp_mode_segments (option_mode))
    {
      learn_segments (fn, prior_paths, &seg_checksum);
      in.interesting = prior_paths.interesting.address ();
      in.ninteresting = prior_paths.interesting.length ();
      rec.learnt.safe_splice (prior_paths.interesting);
      rec.learnt_counts.safe_splice (prior_paths.counts);
    }
  else if (option_mode->preferential && in_prior)
    {
      learn_function (g, fn, pf, prior_paths);
      if (!prior_paths.path_end.is_empty ())
	in.prior_path_end = prior_paths.path_end.address ();
      in.interesting = prior_paths.interesting.address ();
      in.ninteresting = prior_paths.interesting.length ();
    }
  const char *why = NULL;
  int rc = pp_plan_mode (option_mode, &g, &in, &rec.plan, &why);
  if (rc == PP_PLAN_ENOMEM)
    fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
  if (rc != PP_PLAN_OK)
    internal_error ("pathprof: %qD: %s planning failed: %s",
		    current_function_decl, option_mode->name, why);
  if (rec.plan.pinned_chords > 0)
    warning_at (DECL_SOURCE_LOCATION (current_function_decl), 0,
		"pathprof: %qD: %d edge(s) of abnormal control flow cannot be "
		"counted exactly", current_function_decl, rec.plan.pinned_chords);
  if (rec.plan.ninexact > 0)
    warning_at (DECL_SOURCE_LOCATION (current_function_decl), 0,
		"pathprof: %qD: the coverage of %u block(s) entered and left only "
		"through abnormal control flow cannot be inferred from edge probes",
		current_function_decl, rec.plan.ninexact);

  fn.value_offset = rec.value_offset;
  pp_plan_to_notes (&rec.plan, &fn);
  fn.seg_checksum = seg_checksum;
  pp_graph_free (&g);
}

/* Does the trace plan's function write no record (its ENTER has
   PP_TRACE_LAST)?  */
bool
trace_leaf (const pp_plan &plan)
{
  for (uint32_t i = 0; i < plan.nprobes; i++)
    if (plan.probes[i].action == PP_PROBE_TRACE_ENTER)
      return plan.probes[i].operand & PP_TRACE_LAST;
  return false;
}

/* The trace mode's direct calls (corelib/trace.h): a call whose callee is
   a function of the unit the plugin traces, which no other definition can
   replace, narrow enough (PP_TRACE_DIRECT_WIDTH); but not the call of a
   function without records that another call of its block follows, not
   direct: that call's callbacks (an ENTER) could be told from it only by
   order.  And its call sites ("Announced calls"): every other call the
   plugin cannot name a traced callee of (through a pointer, of a function
   of another unit or that another definition may replace), but for calls
   that return twice, whose block must start with them.  Into each record
   and its notes, with the blocks numbered as the notes number them.  */
static void
find_direct_calls (auto_delete_vec<function_record> &records,
		   auto_vec<pp_function_notes> &fns)
{
  hash_map<tree, unsigned> index;
  for (function_record *rec : records)
    {
      index.put (rec->node->decl, rec->index);
      rec->by_address = rec->node->address_taken || TREE_PUBLIC (rec->node->decl);
    }
  uint32_t nsites = 0;
  for (function_record *rec : records)
    {
      push_cfun (DECL_STRUCT_FUNCTION (rec->node->decl));
      auto_vec<pp_direct_call> direct;
      basic_block bb;
      FOR_EACH_BB_FN (bb, cfun)
	{
	  /* The block's calls, last first: a callee's index, UINT_MAX for a
	     call that is not direct (OTHER_AFTER: one comes later), or
	     PP_TRACE_SITE | flags for a call site (ENTER_AFTER: a call that
	     is neither comes later).  */
	  auto_vec<gcall *> calls;
	  auto_vec<unsigned> callees;
	  bool other_after = false, enter_after = false;
	  for (gimple_stmt_iterator gsi = gsi_last_bb (bb); !gsi_end_p (gsi);
	       gsi_prev (&gsi))
	    {
	      /* A call to a GCC builtin (__cyg_profile_func_enter may have a
		 body here) does not make a call block.  */
	      gcall *call = dyn_cast<gcall *> (gsi_stmt (gsi));
	      if (!call || !user_call_p (call))
		continue;
	      tree fndecl = gimple_call_fndecl (call);
	      cgraph_node *node = fndecl ? cgraph_node::get (fndecl) : NULL;
	      enum availability avail = AVAIL_NOT_AVAILABLE;
	      if (node)
		node = node->ultimate_alias_target (&avail);
	      unsigned *callee = node && avail >= AVAIL_AVAILABLE
				 ? index.get (node->decl) : NULL;
	      bool ok = callee && decl_binds_to_current_def_p (fndecl)
			&& pp_trace_width (records[*callee]->plan.nvalues)
			   <= PP_TRACE_DIRECT_WIDTH
			&& !(trace_leaf (records[*callee]->plan) && other_after);
	      bool site = !callee && !(gimple_call_flags (call) & ECF_RETURNS_TWICE);
	      calls.safe_push (call);
	      callees.safe_push (ok ? *callee
				 : site ? PP_TRACE_SITE
					  | (enter_after ? PP_TRACE_SITE_ENTER_AFTER : 0)
				 : UINT_MAX);
	      other_after |= !ok;
	      enter_after |= !ok && !site;
	    }
	  for (unsigned k = calls.length (); k-- > 0;)
	    if (callees[k] == UINT_MAX)
	      continue;
	    else if (callees[k] & PP_TRACE_SITE)
	      {
		uint32_t word = callees[k] | nsites++;
		rec->site_calls.safe_push (calls[k]);
		rec->site_words.safe_push (word);
		direct.safe_push ({ (uint32_t) bb->index, word });
	      }
	    else
	      {
		rec->direct_calls.safe_push (calls[k]);
		rec->direct_callees.safe_push (callees[k]);
		records[callees[k]]->called_directly = true;
		direct.safe_push ({ (uint32_t) bb->index, callees[k] });
	      }
	}
      pop_cfun ();
      pp_function_notes &fn = fns[rec->index];
      fn.ndirect = direct.length ();
      fn.direct = XNEWVEC (pp_direct_call, MAX (1u, fn.ndirect));
      for (unsigned k = 0; k < fn.ndirect; k++)
	fn.direct[k] = direct[k];
    }
  if (nsites > PP_TRACE_SITE_NUMBER)
    fatal_error (UNKNOWN_LOCATION, "pathprof: more than %u call sites in a unit",
		 PP_TRACE_SITE_NUMBER);
  for (function_record *rec : records)
    rec->entered_in_place = rec->called_directly
			    || (rec->by_address
				&& pp_trace_width (rec->plan.nvalues)
				   <= PP_TRACE_DIRECT_WIDTH);
}

static unsigned int
instrument_unit (void)
{
  probe_target target = {};
  target.atomic = want_atomic_updates ();
  target.calls = option_mode->calls;
  target.calls_in_place = pp_mode_segments (option_mode);
  target.ip_width = pp_mode_ip_width (option_mode);

  file_table files;
  auto_delete_vec<function_record> records;
  auto_vec<pp_function_notes> fns;
  uint32_t total = 0;
  int weighting = option_weights;

  for_each_taken_function ([&] (cgraph_node *node) {
      function_record *rec = new function_record;
      rec->node = node;
      rec->value_offset = total;
      rec->index = records.length ();
      pp_function_notes fn = {};
      plan_function (*rec, fn, files, &weighting);
      total += rec->plan.nvalues;
      records.safe_push (rec);
      fns.safe_push (fn);
    }, [] (cgraph_node *) {});
  if (records.is_empty ())
    return 0;
  if (option_mode->traced)
    find_direct_calls (records, fns);
  uint64_t ncompiled_counts;
  auto_delete_vec<function_record> for_others;
  plan_compiled_roots (records, fns, &ncompiled_counts, for_others);
  /* A traced unit's records go to the trace file, which has its notes: it
     has no values and libprof writes no profile for it.  */
  if (option_mode->traced)
    total = 0;
  /* A coverage unit where some function counts has counters for values,
     its coverage bytes 0 or 1 (modes.h pp_mode_value_kind_ok).  */
  uint32_t value_kind = option_mode->value_kind;
  for (function_record *rec : records)
    for (uint32_t i = 0; i < rec->plan.nprobes; i++)
      if (rec->plan.probes[i].action == PP_PROBE_COUNT)
	value_kind = PP_VALUES_U64;
  target.value_type = value_kind == PP_VALUES_U8
		      ? unsigned_char_type_node : long_long_unsigned_type_node;

  create_unit_values (target, total, records);
  create_compiled_counts (target, ncompiled_counts, records);
  /* A compiled root's own code counts as the paths mode does, in the
     unit's compiled counts or its path tables (compiled.cc).  */
  probe_target compiled = target;
  compiled.values = target.compiled_counts;
  compiled.value_type = long_long_unsigned_type_node;
  compiled.calls = compiled.calls_in_place = false;
  compiled.ip_width = 0;
  for (function_record *rec : records)
    {
      push_cfun (DECL_STRUCT_FUNCTION (rec->node->decl));
      if (rec->dyn)
	insert_compiled_root (*rec, target, compiled);
      else
	insert_probes (*rec, target);
      pop_cfun ();
    }
  for (function_record *copy : for_others)
    {
      push_cfun (DECL_STRUCT_FUNCTION (copy->node->decl));
      insert_clone_for_other (*copy, target, compiled);
      pop_cfun ();
    }

  /* The instrumented functions now write memory: drop const/pure, refresh
     the calls' operands, re-merge split blocks, and rebuild SSA and the
     call graph edges.  */
  auto_vec<cgraph_node *> nodes;
  for (function_record *rec : records)
    {
      nodes.safe_push (rec->node);
      if (rec->dyn)
	nodes.safe_push (rec->dyn->node);
      for (function_record *copy : rec->copies)
	nodes.safe_push (copy->node);
    }
  for (function_record *copy : for_others)
    nodes.safe_push (copy->node);
  for (cgraph_node *node : nodes)
    take_purity (node);
  for (cgraph_node *node : nodes)
    {
      push_cfun (DECL_STRUCT_FUNCTION (node->decl));
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
  notes.mode = option_mode->mode;
  notes.weighting = weighting;
  notes.depth = (uint32_t) option_depth;
  notes.unit_name = absolute_unit_name ();
  notes.nfiles = files.names.length ();
  notes.files = files.names.address ();
  notes.nfunctions = fns.length ();
  notes.functions = fns.address ();
  emit_unit_record (notes, target, value_kind, total);
  if (option_mode->traced && trace_markers_late ())
    keep_trace_target (target);
  target.trace_key_fn.release ();
  for (pp_function_notes &fn : fns)
    free_function_notes (fn);
  free (notes.unit_name);
  return 0;
}

namespace {

/* The plugin's pass: instrument_unit, or the use build's annotate_unit.  */
const pass_data unit_pass_data = {
  SIMPLE_IPA_PASS,
  "pathprof",			/* name */
  OPTGROUP_NONE,
  TV_NONE,
  0, 0, 0, 0, 0
};

class unit_pass : public simple_ipa_opt_pass
{
  unsigned int (*run) (void);
public:
  unit_pass (gcc::context *ctxt, unsigned int (*run_unit) (void))
    : simple_ipa_opt_pass (unit_pass_data, ctxt), run (run_unit)
  {}
  bool gate (function *) final override { return !in_lto_p && !seen_error (); }
  unsigned int execute (function *) final override { return run (); }
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
     would no longer be comparable with gcov's.  The use build does the same,
     to see the control flow the training build saw; it gives the option back
     once the counts are in (use.cc).  */
  flag_partial_inlining = 0;

  static struct plugin_info plugin_info = { PATHPROF_VERSION, help_text () };
  register_callback (plugin_name, PLUGIN_INFO, NULL, &plugin_info);

  struct register_pass_info pass;
  pass.pass = new unit_pass (g, option_use ? annotate_unit : instrument_unit);
  pass.reference_pass_name = "profile";
  pass.ref_pass_instance_number = 1;
  pass.pos_op = PASS_POS_INSERT_AFTER;
  register_callback (plugin_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &pass);
  if (!option_use)
    register_inliner_view (plugin_name);
  if (!option_use && option_mode->traced)
    register_trace_pass (plugin_name);
  return 0;
}
