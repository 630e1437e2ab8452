/* The modes: one table, one row a mode, shared by the plugin (option spelling,
   value type, planner) and the tool (what a profile of the mode holds).  A new mode
   is a row here plus its planner (corelib/plan.h); the plugin's inserter and the
   notes need nothing mode-specific.  The notes record the row's `mode` number.  */

#ifndef PATHPROF_CORE_MODES_H
#define PATHPROF_CORE_MODES_H

#include <stdbool.h>
#include <stdint.h>

#include "probes.h"

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

/* The coverage planner's kinds (coverage.h), its rows' plan_arg.  */
enum pp_coverage_mode
{
  PP_COVER_BLOCKS = 0,		/* block coverage from block probes */
  PP_COVER_EDGES = 1,		/* edge coverage from edge probes */
  PP_COVER_BLOCKS_BY_EDGES = 2,	/* block coverage from edge probes */
};

/* The planners (plan.c, pp_plan_mode): a row names its planner, not its
   code, so that what reads the table (notes, profiles, libprof) links no
   placement algorithm.  */
enum pp_planner_id
{
  PP_PLANNER_EDGE_COUNTS,	/* counters on maximum-spanning-tree chords */
  PP_PLANNER_BLOCK_COUNTS,	/* of those, what block and line counts need */
  PP_PLANNER_COVERAGE,		/* plan_arg: enum pp_coverage_mode */
  PP_PLANNER_TRACE,		/* witnesses for regenerating executions */
  PP_PLANNER_INTERPROC,		/* interprocedural paths: every real edge,
				   entry, exits, re-entries; plan_arg: enum
				   pp_ip_kind */
  PP_PLANNER_PATHS,		/* Ball-Larus paths, increments on chords; the
				   preferential modes' interesting paths in
				   slots by preferential number (ppp.h) */
  PP_PLANNER_COUNT
};

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
  uint8_t planner;		/* enum pp_planner_id */
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
/* The registers an activation of the mode's interprocedural code adds
   edge values to (pathprof-abi.h __pathprof_ip_step's width): a segments
   root's r, and q where the mode is preferential; context and piecewise
   paths' sum A (their B is 0 wherever the code adds: libprof takes the
   edges of a procedure whose pieces are not numbered itself); 0 for a
   mode without calls.  */
unsigned pp_mode_ip_width (const pp_mode_info *m);
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

/* The mode's option spelling ("edge-counts", ...), or "unknown".  */
const char *pp_mode_name (uint32_t mode);

#ifdef __cplusplus
}
#endif

#endif
