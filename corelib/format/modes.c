/* The mode table (modes.h).  Planners are in plan.c (pp_plan_mode).  */

#include <string.h>

#include "modes.h"
#include "ip-records.h"
#include "notes.h"
#include "profile.h"

const pp_mode_info pp_modes[] = {
  { .mode = PP_MODE_EDGE_COUNTS, .name = "edge-counts",
    .family = PP_FAMILY_EDGE_COUNTS,
    .summary = "exact edge, block, line and call counts from counters on spanning-tree chords",
    .value_kind = PP_VALUES_U64, .value_action = PP_PROBE_COUNT,
    .value_sites = PP_SITES (PP_SITE_EDGE),
    .weighted = true, .counts = true, .edges_determined = true,
    .planner = PP_PLANNER_EDGE_COUNTS },
  { .mode = PP_MODE_BLOCK_COVER, .name = "block-cover",
    .family = PP_FAMILY_COVERAGE,
    .summary = "block and line coverage from the fewest block probes, or edge probes where they cost less",
    .value_kind = PP_VALUES_U8, .value_action = PP_PROBE_MARK,
    .value_sites = PP_SITES (PP_SITE_BLOCK) | PP_SITES (PP_SITE_EDGE),
    .weighted = true,
    .planner = PP_PLANNER_COVERAGE, .plan_arg = PP_COVER_BLOCKS },
  { .mode = PP_MODE_EDGE_COVER, .name = "edge-cover",
    .family = PP_FAMILY_COVERAGE,
    .summary = "edge, branch, block and line coverage from the fewest edge probes",
    .value_kind = PP_VALUES_U8, .value_action = PP_PROBE_MARK,
    .value_sites = PP_SITES (PP_SITE_EDGE),
    .weighted = true, .edges_determined = true,
    .planner = PP_PLANNER_COVERAGE, .plan_arg = PP_COVER_EDGES },
  { .mode = PP_MODE_BLOCK_COVER_EDGE_PROBES, .name = "block-cover-edge-probes",
    .family = PP_FAMILY_COVERAGE,
    .summary = "block and line coverage from at most twice the fewest edge probes",
    .value_kind = PP_VALUES_U8, .value_action = PP_PROBE_MARK,
    .value_sites = PP_SITES (PP_SITE_EDGE),
    .weighted = true,
    .planner = PP_PLANNER_COVERAGE, .plan_arg = PP_COVER_BLOCKS_BY_EDGES },
  { .mode = PP_MODE_BLOCK_COUNTS, .name = "block-counts",
    .family = PP_FAMILY_BLOCK_COUNTS,
    .summary = "exact block, line and call counts from fewer counters than edge-counts",
    .value_kind = PP_VALUES_U64, .value_action = PP_PROBE_COUNT,
    .value_sites = PP_SITES (PP_SITE_EDGE),
    .weighted = true, .counts = true,
    .planner = PP_PLANNER_BLOCK_COUNTS },
  { .mode = PP_MODE_PATHS, .name = "paths",
    .family = PP_FAMILY_PATHS,
    .summary = "acyclic (Ball-Larus) path counts, and every count derived from them",
    .value_kind = PP_VALUES_U64, .value_action = -1,
    .value_sites = PP_SITES (PP_SITE_EDGE),
    .weighted = true, .counts = true, .edges_determined = true,
    .planner = PP_PLANNER_PATHS },
  { .mode = PP_MODE_PPP, .name = "ppp",
    .family = PP_FAMILY_PATHS,
    .summary = "preferential paths: the interesting paths of a paths profile in compact slots, every other path exactly",
    .value_kind = PP_VALUES_U64, .value_action = -1,
    .value_sites = PP_SITES (PP_SITE_EDGE),
    .weighted = true, .counts = true, .edges_determined = true,
    .planner = PP_PLANNER_PATHS, .preferential = true },
  { .mode = PP_MODE_RESIDUAL, .name = "residual",
    .family = PP_FAMILY_PATHS,
    .summary = "residual paths: the paths a run took that a paths profile (the tests) never did",
    .value_kind = PP_VALUES_U64, .value_action = -1,
    .value_sites = PP_SITES (PP_SITE_EDGE),
    .weighted = true, .counts = true, .edges_determined = true,
    .planner = PP_PLANNER_PATHS, .preferential = true, .untested = true },
  { .mode = PP_MODE_TRACE, .name = "trace",
    .family = PP_FAMILY_TRACE,
    .summary = "the complete block sequence of every thread, regenerated from witnesses on few edges",
    .value_kind = PP_VALUES_U8, .value_action = PP_PROBE_TRACE_WITNESS,
    .value_sites = PP_SITES (PP_SITE_EDGE),
    .weighted = true,
    .planner = PP_PLANNER_TRACE, .traced = true },
  /* The interprocedural rows: -fplugin-arg-pathprof-interproc=KIND picks
     one of them (pp_mode_interproc), by KIND (plan_arg) and by whether it
     learns as the mode given does.  */
  { .mode = PP_MODE_INTERPROC, .name = "interproc",
    .family = PP_FAMILY_INTERPROC,
    .summary = "interprocedural (Melski-Reps context) path counts, and every count derived from them",
    .value_kind = PP_VALUES_U64, .value_action = PP_PROBE_IP_EDGE,
    .value_sites = PP_SITES (PP_SITE_EDGE),
    .counts = true, .edges_determined = true,
    .planner = PP_PLANNER_INTERPROC, .plan_arg = PP_IP_CONTEXT, .calls = true },
  { .mode = PP_MODE_INTERPROC_PIECEWISE, .name = "interproc-piecewise",
    .family = PP_FAMILY_INTERPROC,
    .summary = "interprocedural (Melski-Reps piecewise) path counts: paths from loop head or entry to backedge or exit, across calls and returns",
    .value_kind = PP_VALUES_U64, .value_action = PP_PROBE_IP_EDGE,
    .value_sites = PP_SITES (PP_SITE_EDGE),
    .counts = true, .edges_determined = true,
    .planner = PP_PLANNER_INTERPROC, .plan_arg = PP_IP_PIECEWISE, .calls = true },
  { .mode = PP_MODE_INTERPROC_SEGMENTS, .name = "interproc-segments",
    .family = PP_FAMILY_INTERPROC,
    .summary = "interprocedural path segments of depth k (-fplugin-arg-pathprof-depth): paths through calls up to k deep, counted per root function",
    .value_kind = PP_VALUES_U64, .value_action = PP_PROBE_IP_EDGE,
    .value_sites = PP_SITES (PP_SITE_EDGE),
    .counts = true, .edges_determined = true,
    .planner = PP_PLANNER_INTERPROC, .plan_arg = PP_IP_SEGMENTS, .calls = true },
  { .mode = PP_MODE_INTERPROC_PPP, .name = "interproc-ppp",
    .family = PP_FAMILY_INTERPROC,
    .summary = "preferential segments: as interproc-segments, the interesting segments of a previous segments profile counted in arrays",
    .value_kind = PP_VALUES_U64, .value_action = PP_PROBE_IP_EDGE,
    .value_sites = PP_SITES (PP_SITE_EDGE),
    .counts = true, .edges_determined = true,
    .planner = PP_PLANNER_INTERPROC, .plan_arg = PP_IP_SEGMENTS, .preferential = true,
    .calls = true },
  { .mode = PP_MODE_INTERPROC_RESIDUAL, .name = "interproc-residual",
    .family = PP_FAMILY_INTERPROC,
    .summary = "residual segments: the depth-k segments a run took that a segments profile (the tests) never did",
    .value_kind = PP_VALUES_U64, .value_action = PP_PROBE_IP_EDGE,
    .value_sites = PP_SITES (PP_SITE_EDGE),
    .counts = true, .edges_determined = true,
    .planner = PP_PLANNER_INTERPROC, .plan_arg = PP_IP_SEGMENTS, .preferential = true,
    .untested = true, .calls = true },
};
const unsigned pp_nmodes = sizeof pp_modes / sizeof *pp_modes;

const pp_mode_info *
pp_mode_lookup (uint32_t mode)
{
  for (unsigned i = 0; i < pp_nmodes; i++)
    if (pp_modes[i].mode == mode)
      return &pp_modes[i];
  return NULL;
}

bool
pp_mode_segments (const pp_mode_info *m)
{
  return m->calls && m->plan_arg == PP_IP_SEGMENTS;
}

unsigned
pp_mode_ip_width (const pp_mode_info *m)
{
  return !m->calls ? 0 : m->preferential ? 2 : 1;
}

const pp_mode_info *
pp_mode_interproc (const pp_mode_info *base, uint32_t kind)
{
  if (!base->calls && !base->preferential)
    return NULL;
  for (unsigned i = 0; i < pp_nmodes; i++)
    {
      const pp_mode_info *m = &pp_modes[i];
      if (m->calls && m->plan_arg == (int) kind
	  && m->preferential == base->preferential && m->untested == base->untested)
	return m;
    }
  return NULL;
}

const pp_mode_info *
pp_mode_by_name (const char *name)
{
  for (unsigned i = 0; name && i < pp_nmodes; i++)
    if (strcmp (pp_modes[i].name, name) == 0)
      return &pp_modes[i];
  return NULL;
}

const char *
pp_mode_name (uint32_t mode)
{
  const pp_mode_info *m = pp_mode_lookup (mode);
  return m ? m->name : "unknown";
}

bool
pp_mode_value_kind_ok (const pp_mode_info *m, uint32_t kind)
{
  return kind == m->value_kind
	 || (m->value_action == PP_PROBE_MARK && kind == PP_VALUES_U64);
}
