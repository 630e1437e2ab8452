/* The modes: one table, one row a mode, shared by the plugin (option spelling,
   value type, planner) and the tool (what a profile of the mode holds).  A new mode
   is a row here plus its planner (plan.h's shape); the plugin's inserter and the
   notes need nothing mode-specific.  The notes record the row's `mode` number.  */

#ifndef PATHPROF_CORE_MODES_H
#define PATHPROF_CORE_MODES_H

#include <stdbool.h>
#include <stdint.h>

#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pp_mode_info pp_mode_info;

/* What a profile of the mode holds, and so how the tool reads it
   (tools/report.c keeps one reader a family).  */
enum pp_mode_family
{
  PP_FAMILY_EDGE_COUNTS,	/* counters on spanning-tree chords */
  PP_FAMILY_BLOCK_COUNTS,	/* counters that give block counts only */
  PP_FAMILY_COVERAGE,		/* coverage bytes */
  PP_FAMILY_PATHS,		/* intraprocedural path counts */
  PP_FAMILY_INTERPROC,		/* interprocedural paths, in program records */
  PP_FAMILY_TRACE,		/* a trace file (the profile has the notes only) */
  PP_FAMILY_COUNT
};

/* Makes the plan of one function for MODE.  Returns PP_PLAN_OK with *out
   filled, PP_PLAN_ENOMEM, or PP_PLAN_EGRAPH with *why set to a static message;
   on failure *out is empty.  */
typedef int pp_planner (const pp_mode_info *mode, const pp_graph *g,
			const pp_plan_input *in, pp_plan *out, const char **why);

struct pp_mode_info
{
  uint32_t mode;		/* enum pp_mode (notes.h), recorded in the notes */
  const char *name;		/* -fplugin-arg-pathprof-mode= spelling */
  uint32_t family;		/* enum pp_mode_family */
  const char *summary;		/* what a profile of the mode tells, one line */
  uint32_t value_kind;		/* enum pp_value_kind (profile.h): one value of
				   the unit's array, a coverage byte or a counter */
  int value_action;		/* what a value index on a block or edge stores
				   (PP_PROBE_MARK, PP_PROBE_COUNT); -1: the values
				   are path counts */
  uint8_t value_sites;		/* where those probes may be: PP_SITES of
				   PP_SITE_BLOCK, PP_SITE_EDGE; block-cover's are
				   on a function's blocks, or on its edges where
				   those cost less (pp_plan_coverage), never
				   both */
  bool weighted;		/* the planner reads edge weights (spanning trees) */
  bool counts;			/* the profile yields counts, not only coverage */
  bool edges_determined;	/* every edge's count or coverage is known */
  pp_planner *plan;
  int plan_arg;			/* the planner's own parameter */
  bool preferential;		/* learns interesting paths from a paths profile
				   (-fplugin-arg-pathprof-profile), lists them in
				   the notes */
  bool untested;		/* ... as the tested paths: what it reports is
				   the others (pathprof residual) */
  bool traced;			/* what a run records is a trace file (trace.h);
				   the profile only carries the notes */
  bool calls;			/* the notes list every function's calls
				   (interprocedural paths) */
};

/* The planners (plan.c).  */
pp_planner pp_plan_edge_counts;	/* counters on maximum-spanning-tree chords */
pp_planner pp_plan_block_counts;	/* of those, what block and line counts need */
pp_planner pp_plan_coverage;	/* plan_arg: enum pp_coverage_mode */
pp_planner pp_plan_trace;	/* witnesses for regenerating executions */
pp_planner pp_plan_interproc;	/* interprocedural paths: every real edge,
				   entry, exits, re-entries */
pp_planner pp_plan_paths;	/* Ball-Larus paths, increments on chords; the
				   preferential modes' interesting paths in
				   slots by preferential number (ppp.h) */

/* The bit of SITE in pp_mode_info.value_sites.  */
#define PP_SITES(site) (1u << (site))

/* Does the mode report exact coverage only for the blocks a report shows
   (block-cover: those with lines; pp_plan_coverage_of), the others inexact?
   The mode whose probes may be on blocks.  */
static inline bool pp_mode_shown_blocks (const pp_mode_info *m)
{ return (m->value_sites & PP_SITES (PP_SITE_BLOCK)) != 0; }

/* Does the mode count depth-k interprocedural segments (segments.h; its
   notes give k)?  */
bool pp_mode_segments (const pp_mode_info *m);
/* The row that -fplugin-arg-pathprof-interproc=KIND (enum pp_ip_kind)
   selects from mode BASE: the interprocedural row of that kind that learns
   as BASE does (interproc's for a mode of calls, interproc-ppp's for ppp,
   interproc-residual's for residual), or NULL where there is none.  */
const pp_mode_info *pp_mode_interproc (const pp_mode_info *base, uint32_t kind);

/* May a unit of the mode have values of KIND?  The mode's own, and in the
   coverage modes counters too: a unit whose functions count where that
   costs less than coverage bytes (pp_plan_coverage) has counters for all
   its values, its coverage bytes 0 or 1.  */
bool pp_mode_value_kind_ok (const pp_mode_info *m, uint32_t kind);

/* Are the mode's values path counts (numbered paths, not probe sites)?  */
static inline bool pp_mode_counts_paths (const pp_mode_info *m)
{ return m->value_action < 0; }

extern const pp_mode_info pp_modes[];
extern const unsigned pp_nmodes;

/* The row of a mode number or option spelling, or NULL.  */
const pp_mode_info *pp_mode_lookup (uint32_t mode);
const pp_mode_info *pp_mode_by_name (const char *name);

/* The plan of a function of MODE back from its notes, as far as they record it:
   every probe's site, action and value index; path operands are not recorded (0:
   the tool rebuilds the numbering, which needs none of them).  Returns 0, or -1
   with a reason in err when a value index appears twice, not at all, or where
   the mode puts none (a corrupted profile), or on allocation failure.  */
int pp_plan_from_notes (const pp_function_notes *fn, const pp_mode_info *mode,
			pp_plan *plan, char *err, size_t errlen);

/* The mode's option spelling ("edge-counts", ...), or "unknown".  */
const char *pp_mode_name (uint32_t mode);

#ifdef __cplusplus
}
#endif

#endif
