/* pathprof GCC plugin: options, the pass, and the driver that takes each unit
   through the other files (pathprof-plugin.h lists them): normalise every
   function's CFG and build its core graph (cfg.cc), ask the mode's planner in
   corelib/ for its plan (the mode table, corelib/modes.h), create the unit's
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
#include "corelib/profile.h"

int plugin_is_GPL_compatible;

static const char plugin_name[] = "pathprof";

/* ------------------------------------------------------------------------- */
/* Options.  */

struct option_value
{
  const char *name;
  int value;
};

static const option_value weight_values[] = {
  {"gcc", PP_WEIGHTS_GCC},
  {"heuristic", PP_WEIGHTS_HEURISTIC},
  {"uniform", PP_WEIGHTS_UNIFORM},
  {"profile", PP_WEIGHTS_PROFILE},
  {NULL, 0}
};

/* Trace mode: witnesses where Ball and Larus put them, or on every edge (the
   exhaustive tracer the tests check the placement against).  */
static const option_value witness_values[] = {
  {"optimal", 0},
  {"all", 1},
  {NULL, 0}
};
static int option_all_witnesses;

/* Interprocedural paths: Melski and Reps' context paths (mode interproc),
   their piecewise paths (the row interproc-piecewise) or depth-k segments
   (interproc-segments, k the depth option): the same probes (segments: on
   every edge), which the runtime numbers differently.  -1: not given.  */
static const option_value interproc_values[] = {
  {"context", PP_MODE_INTERPROC},
  {"piecewise", PP_MODE_INTERPROC_PIECEWISE},
  {"segments", PP_MODE_INTERPROC_SEGMENTS},
  {NULL, 0}
};
static int option_interproc = -1;
/* Segments: how many calls deep a root's paths follow (0: not given, 1).  */
static uint64_t option_depth;

static const pp_mode_info *option_mode = pp_mode_lookup (PP_MODE_EDGE_COUNTS);
/* -1 until given: gcc, or profile in the modes that read a profile anyway
   (its counts place the chords of the paths they count).  */
static int option_weights = -1;
/* Functions with at most this many paths count them in an array; larger ones
   in a hash table in libprof.  */
static uint64_t option_path_array_max = 4096;
#define MAX_PATH_ARRAY (1u << 24)	/* 128 MiB of counters for one function */
/* The previous profile the preferential modes learn from and weights=profile
   weights by, and which of its paths are interesting: those making
   option_hot_percent of each function's path executions (100: every path that
   ran).  */
static const char *option_profile;
static double option_hot_percent = 100;
static pp_prior prior;
/* The preferential modes of segments: the profile's program records.  */
static pp_seg_prior seg_prior;

/* The use build (use.cc): the profile given to GCC's optimiser (an empty
   value: the default file), NULL when the plugin instruments; and whether to
   say per unit how much of it was used.  */
static const char *option_use;
static bool option_verbose;

/* Appends NAME to the comma-separated list VALID (of SIZE bytes).  */
static void
list_append (char *valid, size_t size, const char *name)
{
  if (*valid)
    strncat (valid, ", ", size - strlen (valid) - 1);
  strncat (valid, name, size - strlen (valid) - 1);
}

static void
invalid_value (const char *key, const char *value, const char *valid)
{
  error ("pathprof: invalid value %qs for %<-fplugin-arg-pathprof-%s%>; "
	 "valid values are: %s", value ? value : "", key, valid);
}

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
    list_append (valid, sizeof valid, c->name);
  invalid_value (key, value, valid);
  return false;
}

/* The modes are the rows of corelib's mode table.  */
static bool
parse_mode (const char *value)
{
  if (const pp_mode_info *m = pp_mode_by_name (value))
    {
      option_mode = m;
      return true;
    }
  char valid[256] = "";
  for (unsigned i = 0; i < pp_nmodes; i++)
    list_append (valid, sizeof valid, pp_modes[i].name);
  invalid_value ("mode", value, valid);
  return false;
}

/* The preferential modes learn from a profile of paths, weights=profile from
   one with edge counts (a profile of paths has them).  */
static bool
load_prior (void)
{
  bool weights = option_weights == PP_WEIGHTS_PROFILE;
  if (!option_mode->preferential && !weights)
    {
      if (option_profile)
	error ("pathprof: %<-fplugin-arg-pathprof-profile%> is only read by the "
	       "modes that learn from a previous run (ppp, residual) and with "
	       "%<-fplugin-arg-pathprof-weights=profile%>, not by mode %qs",
	       option_mode->name);
      return !option_profile;
    }
  if (!option_profile)
    {
      if (option_mode->preferential)
	error ("pathprof: mode %qs learns its interesting paths from a %s "
	       "profile: give %<-fplugin-arg-pathprof-profile=FILE%>",
	       option_mode->name, pp_mode_segments (option_mode) ? "segments" : "paths");
      else
	error ("pathprof: %<-fplugin-arg-pathprof-weights=profile%> weights by "
	       "the edge counts of a previous run: give "
	       "%<-fplugin-arg-pathprof-profile=FILE%>");
      return false;
    }
  char err[512];
  if (pp_prior_load (option_profile, &prior, err, sizeof err))
    {
      error ("pathprof: %s: %s", option_profile, err);
      return false;
    }
  if (option_mode->preferential && pp_mode_segments (option_mode))
    {
      /* Segments learn from the program records of a segments profile.  */
      for (uint32_t i = 0; i < prior.nunits; i++)
	{
	  const pp_unit_data *d = prior.units[i].data;
	  uint32_t mode = pp_prior_unit_mode (&prior, i);
	  if (!pp_ip_manifest_p (d->notes, d->notes_len)
	      && mode != PP_MODE_INTERPROC_SEGMENTS)
	    {
	      error ("pathprof: %s: unit %s is a %s profile; mode %qs learns from "
		     "a profile of %<-fplugin-arg-pathprof-interproc=segments%>",
		     option_profile, d->name, pp_mode_name (mode), option_mode->name);
	      return false;
	    }
	}
      if (pp_seg_prior_open (&prior, (uint32_t) option_depth, &seg_prior, err,
			     sizeof err))
	{
	  error ("pathprof: %s: %s; mode %qs learns from a profile of "
		 "%<-fplugin-arg-pathprof-interproc=segments%>", option_profile,
		 err, option_mode->name);
	  return false;
	}
      return true;
    }
  for (uint32_t i = 0; i < prior.nunits; i++)
    {
      uint32_t mode = pp_prior_unit_mode (&prior, i);
      const pp_mode_info *m = pp_mode_lookup (mode);
      if (option_mode->preferential && (!m || !pp_mode_counts_paths (m)))
	{
	  error ("pathprof: %s: unit %s is a %s profile; mode %qs learns from a "
		 "profile of paths (mode paths)", option_profile,
		 prior.units[i].data->name, pp_mode_name (mode), option_mode->name);
	  return false;
	}
      if (weights && !pp_prior_yields_edge_counts (mode))
	{
	  error ("pathprof: %s: unit %s is a %s profile; "
		 "%<-fplugin-arg-pathprof-weights=profile%> needs edge counts "
		 "(a profile of mode edge-counts, paths, ppp or residual)",
		 option_profile, prior.units[i].data->name, pp_mode_name (mode));
	  return false;
	}
    }
  return true;
}

/* all, or hot:P with 0 < P <= 100.  */
static bool
parse_interesting (const char *value)
{
  char *end;
  if (value && strcmp (value, "all") == 0)
    {
      option_hot_percent = 100;
      return true;
    }
  if (value && strncmp (value, "hot:", 4) == 0)
    {
      errno = 0;
      double p = strtod (value + 4, &end);
      if (value[4] && !*end && !errno && p > 0 && p <= 100)
	{
	  option_hot_percent = p;
	  return true;
	}
    }
  invalid_value ("interesting", value, "all, hot:P");
  return false;
}

static bool
parse_options (struct plugin_name_args *info)
{
  bool ok = true;
  const char *instrumenting = NULL;	/* an option only instrumenting reads */
  for (int i = 0; i < info->argc; i++)
    {
      const plugin_argument &arg = info->argv[i];
      if (strcmp (arg.key, "use") == 0)
	{
	  option_use = arg.value ? arg.value : "";
	  continue;
	}
      if (strcmp (arg.key, "verbose") == 0 && !arg.value)
	{
	  option_verbose = true;
	  continue;
	}
      instrumenting = arg.key;
      if (strcmp (arg.key, "mode") == 0)
	ok &= parse_mode (arg.value);
      else if (strcmp (arg.key, "weights") == 0)
	ok &= parse_choice ("weights", arg.value, weight_values, &option_weights);
      else if (strcmp (arg.key, "path-array-max") == 0)
	ok &= parse_count ("path-array-max", arg.value, &option_path_array_max);
      else if (strcmp (arg.key, "profile") == 0 && arg.value && *arg.value)
	option_profile = arg.value;
      else if (strcmp (arg.key, "interesting") == 0)
	ok &= parse_interesting (arg.value);
      else if (strcmp (arg.key, "witnesses") == 0)
	ok &= parse_choice ("witnesses", arg.value, witness_values,
			    &option_all_witnesses);
      else if (strcmp (arg.key, "interproc") == 0)
	ok &= parse_choice ("interproc", arg.value, interproc_values,
			    &option_interproc);
      else if (strcmp (arg.key, "depth") == 0)
	{
	  bool good = parse_count ("depth", arg.value, &option_depth);
	  if (good && (option_depth < 1 || option_depth > PP_SEGMENTS_MAX_DEPTH))
	    {
	      error ("pathprof: %<-fplugin-arg-pathprof-depth=%s%>: the depth is "
		     "1 to %u", arg.value, PP_SEGMENTS_MAX_DEPTH);
	      good = false;
	    }
	  ok &= good;
	}
      else
	{
	  if (strcmp (arg.key, "profile") == 0)
	    error ("pathprof: %<-fplugin-arg-pathprof-profile%> needs a file name");
	  else
	    error ("pathprof: unknown option %<-fplugin-arg-pathprof-%s%>; valid "
		   "options are: mode, weights, path-array-max, profile, "
		   "interesting, witnesses, interproc, depth, use, verbose",
		   arg.key);
	  ok = false;
	}
    }
  if (option_use)
    {
      if (instrumenting)
	{
	  error ("pathprof: %<-fplugin-arg-pathprof-use%> optimises with a "
		 "profile and instruments nothing; "
		 "%<-fplugin-arg-pathprof-%s%> cannot go with it",
		 instrumenting);
	  return false;
	}
      return ok && use_profile_init (option_use, option_verbose);
    }
  if (option_verbose)
    {
      error ("pathprof: %<-fplugin-arg-pathprof-verbose%> is only read with "
	     "%<-fplugin-arg-pathprof-use%>");
      ok = false;
    }
  if (ok && option_interproc >= 0)
    {
      /* ppp and residual learn interprocedural segments with segments.  */
      bool learns = option_mode->preferential && !option_mode->calls
		    && option_interproc == PP_MODE_INTERPROC_SEGMENTS;
      if (!option_mode->calls && !learns)
	{
	  error ("pathprof: %<-fplugin-arg-pathprof-interproc%> is only read by "
		 "mode interproc (and by ppp and residual with "
		 "%<segments%>), not by mode %qs", option_mode->name);
	  return false;
	}
      uint32_t row = (uint32_t) option_interproc;
      if (learns)
	row = option_mode->untested ? PP_MODE_INTERPROC_RESIDUAL : PP_MODE_INTERPROC_PPP;
      option_mode = pp_mode_lookup (row);
    }
  if (option_weights < 0)
    option_weights = option_mode->preferential && option_mode->weighted
		     ? PP_WEIGHTS_PROFILE : PP_WEIGHTS_GCC;
  if (ok && option_depth && !pp_mode_segments (option_mode))
    {
      error ("pathprof: %<-fplugin-arg-pathprof-depth%> is only read by "
	     "%<-fplugin-arg-pathprof-interproc=segments%>, not by mode %qs",
	     option_mode->name);
      return false;
    }
  if (!option_depth)
    option_depth = 1;
  return ok && load_prior ();
}

/* The --help text of the plugin (gcc --help=... -fplugin=pathprof prints the
   PLUGIN_INFO help), the modes from the mode table.  */
static char *
help_text (void)
{
  char modes[512] = "";
  for (unsigned i = 0; i < pp_nmodes; i++)
    {
      if (i)
	strncat (modes, "|", sizeof modes - strlen (modes) - 1);
      strncat (modes, pp_modes[i].name, sizeof modes - strlen (modes) - 1);
    }
  return concat ("pathprof: minimal coverage probes and optimal edge/path "
		 "profiles.\n  -fplugin-arg-pathprof-mode=", modes,
		 "\n  -fplugin-arg-pathprof-path-array-max=N (default 4096)\n"
		 "  -fplugin-arg-pathprof-weights=gcc|heuristic|uniform|profile "
		 "(default gcc; ppp, residual: profile)\n"
		 "  -fplugin-arg-pathprof-profile=FILE (ppp, residual: the paths "
		 "profile to learn from; weights=profile: a profile with edge "
		 "counts)\n"
		 "  -fplugin-arg-pathprof-interesting=all|hot:P (ppp: which of its "
		 "paths; default all)\n"
		 "  -fplugin-arg-pathprof-witnesses=optimal|all (trace: all is the "
		 "exhaustive tracer, for testing)\n"
		 "  -fplugin-arg-pathprof-interproc=context|piecewise|segments "
		 "(interproc: which paths; default context)\n"
		 "  -fplugin-arg-pathprof-depth=K (interproc=segments: calls "
		 "followed, 1 to 8; default 1)\n"
		 "  -fplugin-arg-pathprof-use[=FILE] (optimise with the counts of "
		 "FILE, default $PATHPROF_FILE or pathprof.data; no probes)\n"
		 "  -fplugin-arg-pathprof-verbose (use: say per unit how much of "
		 "the profile was used)\n", NULL);
}

/* ------------------------------------------------------------------------- */
/* The pass.  */

bool
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

/* The same for the preferential modes of segments: FN's interesting
   segments as a root, and the checksum of the supergraph they belong to.  */
static void
learn_segments (const pp_function_notes &fn, learnt &out, uint64_t *checksum)
{
  char err[512];
  char *unit = absolute_unit_name ();
  uint64_t *interesting;
  uint32_t n;
  int found = pp_seg_prior_learn (&seg_prior, unit, fn.asm_name, option_hot_percent,
				  &interesting, &n, checksum, err, sizeof err);
  free (unit);
  if (found < 0)
    error ("pathprof: %s: function %qs: %s", option_profile, fn.name, err);
  for (uint32_t i = 0; found > 0 && i < n; i++)
    out.interesting.safe_push (interesting[i]);
  if (found > 0)
    free (interesting);
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
  int rc = option_mode->plan (option_mode, &g, &in, &rec.plan, &why);
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

void
free_function_notes (pp_function_notes &fn)
{
  free (fn.asm_name);
  free (fn.name);
  for (unsigned i = 0; i < fn.nblocks; i++)
    free (fn.blocks[i].lines);
  free (fn.blocks);
  free (fn.edges);
  for (unsigned k = 0; k < fn.ncalls; k++)
    free (fn.calls[k].callee);
  free (fn.calls);
  free (fn.direct);
}

/* The trace mode's direct calls (corelib/trace.h): a call whose callee is
   a function of the unit the plugin traces, which no other definition can
   replace, narrow enough (PP_TRACE_DIRECT_WIDTH).  Into each record and its
   notes, with the blocks numbered as the notes number them.  */
static void
find_direct_calls (auto_delete_vec<function_record> &records,
		   auto_vec<pp_function_notes> &fns)
{
  hash_map<tree, unsigned> index;
  for (function_record *rec : records)
    index.put (rec->node->decl, rec->index);
  for (function_record *rec : records)
    {
      push_cfun (DECL_STRUCT_FUNCTION (rec->node->decl));
      auto_vec<pp_direct_call> direct;
      basic_block bb;
      FOR_EACH_BB_FN (bb, cfun)
	for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
	     gsi_next (&gsi))
	  {
	    /* A call to a GCC builtin (__cyg_profile_func_enter may have a
	       body here) does not make a call block.  */
	    gcall *call = dyn_cast<gcall *> (gsi_stmt (gsi));
	    tree fndecl = call && user_call_p (call) ? gimple_call_fndecl (call) : NULL_TREE;
	    cgraph_node *node = fndecl ? cgraph_node::get (fndecl) : NULL;
	    if (!node)
	      continue;
	    enum availability avail;
	    node = node->ultimate_alias_target (&avail);
	    unsigned *callee = avail >= AVAIL_AVAILABLE ? index.get (node->decl) : NULL;
	    if (!callee || !decl_binds_to_current_def_p (fndecl)
		|| pp_trace_width (records[*callee]->plan.nvalues) > PP_TRACE_DIRECT_WIDTH)
	      continue;
	    rec->direct_calls.safe_push (call);
	    rec->direct_callees.safe_push (*callee);
	    records[*callee]->called_directly = true;
	    direct.safe_push ({ (uint32_t) bb->index, *callee });
	  }
      pop_cfun ();
      pp_function_notes &fn = fns[rec->index];
      fn.ndirect = direct.length ();
      fn.direct = XNEWVEC (pp_direct_call, MAX (1u, fn.ndirect));
      for (unsigned k = 0; k < fn.ndirect; k++)
	fn.direct[k] = direct[k];
    }
}

static unsigned int
instrument_unit (void)
{
  probe_target target = {};
  target.atomic = want_atomic_updates ();
  target.calls = option_mode->calls;
  target.calls_in_place = option_mode->calls
			   && option_mode->plan_arg == PP_IP_SEGMENTS;

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
  for (function_record *rec : records)
    {
      push_cfun (DECL_STRUCT_FUNCTION (rec->node->decl));
      insert_probes (*rec, target);
      pop_cfun ();
    }

  /* The instrumented functions now write memory: drop const/pure, refresh
     the calls' operands, re-merge split blocks, and rebuild SSA and the
     call graph edges.  */
  for (function_record *rec : records)
    {
      rec->node->set_const_flag (false, false);
      rec->node->set_pure_flag (false, false);
    }
  for (function_record *rec : records)
    {
      push_cfun (DECL_STRUCT_FUNCTION (rec->node->decl));
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
  return 0;
}
