/* pathprof GCC plugin: its options (-fplugin-arg-pathprof-KEY=VALUE), read
   once at plugin_init: the mode (a row of corelib's mode table), its
   parameters, the previous profile the preferential modes and
   weights=profile read (corelib/prior.h), and the use build's profile
   (use.cc).  The pass (plugin.cc) reads what they say through the option_
   variables pathprof-plugin.h declares.  */

#include "pathprof-plugin.h"
#include "corelib/edgeprof.h"
#include "corelib/ip-notes.h"
#include "corelib/paths.h"

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
int option_all_witnesses;
/* Segments: where roots are numbered, by the plugin where it can (a root
   whose supergraph is its own function: compiled.cc) or always by libprof
   at run time (for comparison).  */
static const option_value roots_values[] = {
  {"compiled", 1},
  {"runtime", 0},
  {NULL, 0}
};
int option_compiled_roots = 1;
static bool roots_given;

/* Interprocedural paths: Melski and Reps' context paths, their piecewise
   paths or depth-k segments (k the depth option), enum pp_ip_kind; the
   mode's row of that kind is pp_mode_interproc's.  -1: not given.  */
static const option_value interproc_values[] = {
  {"context", PP_IP_CONTEXT},
  {"piecewise", PP_IP_PIECEWISE},
  {"segments", PP_IP_SEGMENTS},
  {NULL, 0}
};
static int option_interproc = -1;
/* Segments: how many calls deep a root's paths follow (0: not given, 1).  */
uint64_t option_depth;

const pp_mode_info *option_mode = pp_mode_lookup (PP_MODE_EDGE_COUNTS);
/* -1 until given: gcc, or profile in the modes that read a profile anyway
   (its counts place the chords of the paths they count).  */
int option_weights = -1;
/* Functions with at most this many paths count them in an array; larger ones
   in a hash table in libprof.  */
uint64_t option_path_array_max = 4096;
#define MAX_PATH_ARRAY (1u << 24)	/* 128 MiB of counters for one function */
/* The previous profile the preferential modes learn from and weights=profile
   weights by, and which of its paths are interesting: those making
   option_hot_percent of each function's path executions (100: every path that
   ran).  */
const char *option_profile;
double option_hot_percent = 100;
pp_prior prior;
/* The preferential modes of segments: the profile's program records.  */
pp_seg_prior seg_prior;

/* The use build (use.cc): the profile given to GCC's optimiser (an empty
   value: the default file), NULL when the plugin instruments; and whether to
   say per unit how much of it was used.  */
const char *option_use;
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
	  const pp_mode_info *m = pp_mode_lookup (mode);
	  if (!pp_ip_manifest_p (d->notes, d->notes_len)
	      && !(m && pp_mode_segments (m) && !m->preferential))
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

bool
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
      else if (strcmp (arg.key, "roots") == 0)
	{
	  ok &= parse_choice ("roots", arg.value, roots_values, &option_compiled_roots);
	  roots_given = true;
	}
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
		   "interesting, witnesses, interproc, depth, roots, use, verbose",
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
      const pp_mode_info *row = pp_mode_interproc (option_mode,
						   (uint32_t) option_interproc);
      if (!row)
	{
	  error ("pathprof: %<-fplugin-arg-pathprof-interproc%> is only read by "
		 "mode interproc (and by ppp and residual with "
		 "%<segments%>), not by mode %qs", option_mode->name);
	  return false;
	}
      option_mode = row;
    }
  if (option_weights < 0)
    option_weights = option_mode->preferential && option_mode->weighted
		     ? PP_WEIGHTS_PROFILE : PP_WEIGHTS_GCC;
  if (ok && roots_given && !pp_mode_segments (option_mode))
    {
      error ("pathprof: %<-fplugin-arg-pathprof-roots%> is only read by "
	     "%<-fplugin-arg-pathprof-interproc=segments%>, not by mode %qs",
	     option_mode->name);
      return false;
    }
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
char *
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
		 "  -fplugin-arg-pathprof-roots=compiled|runtime (segments: "
		 "number the roots the plugin can when compiling, or all at run "
		 "time; default compiled)\n"
		 "  -fplugin-arg-pathprof-use[=FILE] (optimise with the counts of "
		 "FILE, default $PATHPROF_FILE or pathprof.data; no probes)\n"
		 "  -fplugin-arg-pathprof-verbose (use: say per unit how much of "
		 "the profile was used)\n", NULL);
}
