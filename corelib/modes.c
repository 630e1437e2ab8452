/* The mode table (modes.h).  Planners are in plan.c.  */

#include <string.h>

#include "modes.h"
#include "coverage.h"
#include "ip-notes.h"
#include "profile.h"

const pp_mode_info pp_modes[] = {
  { PP_MODE_EDGE_COUNTS, "edge-counts",
    "exact edge, block, line and call counts from counters on spanning-tree chords",
    PP_VALUES_U64, PP_PROBE_COUNT, PP_SITES (PP_SITE_EDGE), true, true, true,
    pp_plan_edge_counts, 0, false, false, false, false },
  { PP_MODE_BLOCK_COVER, "block-cover",
    "block and line coverage from the fewest block probes, or edge probes where they cost less",
    PP_VALUES_U8, PP_PROBE_MARK,
    PP_SITES (PP_SITE_BLOCK) | PP_SITES (PP_SITE_EDGE), true, false, false,
    pp_plan_coverage, PP_COVER_BLOCKS, false, false, false, false },
  { PP_MODE_EDGE_COVER, "edge-cover",
    "edge, branch, block and line coverage from the fewest edge probes",
    PP_VALUES_U8, PP_PROBE_MARK, PP_SITES (PP_SITE_EDGE), true, false, true,
    pp_plan_coverage, PP_COVER_EDGES, false, false, false, false },
  { PP_MODE_BLOCK_COVER_EDGE_PROBES, "block-cover-edge-probes",
    "block and line coverage from at most twice the fewest edge probes",
    PP_VALUES_U8, PP_PROBE_MARK, PP_SITES (PP_SITE_EDGE), true, false, false,
    pp_plan_coverage, PP_COVER_BLOCKS_BY_EDGES, false, false, false, false },
  { PP_MODE_BLOCK_COUNTS, "block-counts",
    "exact block, line and call counts from fewer counters than edge-counts",
    PP_VALUES_U64, PP_PROBE_COUNT, PP_SITES (PP_SITE_EDGE), true, true, false,
    pp_plan_block_counts, 0, false, false, false, false },
  { PP_MODE_PATHS, "paths",
    "acyclic (Ball-Larus) path counts, and every count derived from them",
    PP_VALUES_U64, -1, PP_SITES (PP_SITE_EDGE), true, true, true,
    pp_plan_paths, 0, false, false, false, false },
  { PP_MODE_PPP, "ppp",
    "preferential paths: the interesting paths of a paths profile in compact slots, every other path exactly",
    PP_VALUES_U64, -1, PP_SITES (PP_SITE_EDGE), true, true, true,
    pp_plan_paths, 0, true, false, false, false },
  { PP_MODE_RESIDUAL, "residual",
    "residual paths: the paths a run took that a paths profile (the tests) never did",
    PP_VALUES_U64, -1, PP_SITES (PP_SITE_EDGE), true, true, true,
    pp_plan_paths, 0, true, true, false, false },
  { PP_MODE_TRACE, "trace",
    "the complete block sequence of every thread, regenerated from witnesses on few edges",
    PP_VALUES_U8, PP_PROBE_TRACE_WITNESS, PP_SITES (PP_SITE_EDGE), true, false, false,
    pp_plan_trace, 0, false, false, true, false },
  { PP_MODE_INTERPROC, "interproc",
    "interprocedural (Melski-Reps context) path counts, and every count derived from them",
    PP_VALUES_U64, PP_PROBE_IP_EDGE, PP_SITES (PP_SITE_EDGE), false, true, true,
    pp_plan_interproc, PP_IP_CONTEXT, false, false, false, true },
  /* -fplugin-arg-pathprof-mode=interproc -fplugin-arg-pathprof-interproc=piecewise.  */
  { PP_MODE_INTERPROC_PIECEWISE, "interproc-piecewise",
    "interprocedural (Melski-Reps piecewise) path counts: paths from loop head or entry to backedge or exit, across calls and returns",
    PP_VALUES_U64, PP_PROBE_IP_EDGE, PP_SITES (PP_SITE_EDGE), false, true, true,
    pp_plan_interproc, PP_IP_PIECEWISE, false, false, false, true },
  /* -fplugin-arg-pathprof-mode=interproc -fplugin-arg-pathprof-interproc=segments.  */
  { PP_MODE_INTERPROC_SEGMENTS, "interproc-segments",
    "interprocedural path segments of depth k (-fplugin-arg-pathprof-depth): paths through calls up to k deep, counted per root function",
    PP_VALUES_U64, PP_PROBE_IP_EDGE, PP_SITES (PP_SITE_EDGE), false, true, true,
    pp_plan_interproc, PP_IP_SEGMENTS, false, false, false, true },
  /* -fplugin-arg-pathprof-mode=ppp -fplugin-arg-pathprof-interproc=segments.  */
  { PP_MODE_INTERPROC_PPP, "interproc-ppp",
    "preferential segments: as interproc-segments, the interesting segments of a previous segments profile counted in arrays",
    PP_VALUES_U64, PP_PROBE_IP_EDGE, PP_SITES (PP_SITE_EDGE), false, true, true,
    pp_plan_interproc, PP_IP_SEGMENTS, true, false, false, true },
  /* -fplugin-arg-pathprof-mode=residual -fplugin-arg-pathprof-interproc=segments.  */
  { PP_MODE_INTERPROC_RESIDUAL, "interproc-residual",
    "residual segments: the depth-k segments a run took that a segments profile (the tests) never did",
    PP_VALUES_U64, PP_PROBE_IP_EDGE, PP_SITES (PP_SITE_EDGE), false, true, true,
    pp_plan_interproc, PP_IP_SEGMENTS, true, true, false, true },
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
