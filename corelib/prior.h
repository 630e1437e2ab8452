/* What a previous profile says about a function: the plugin learns from it (the
   preferential modes take their interesting paths from a paths profile,
   -fplugin-arg-pathprof-profile=FILE) and the tool reads path counts the same
   way.

   Path counts.  A function of a path-counting mode (paths, ppp, residual)
   counts path k in value k (an array of npaths values), path keys[k] in value k
   (preferential slots, notes.h), or in the unit's sparse counts (a libprof hash
   table), the last possibly beside slots.  pp_function_path_counts gathers them
   into one list by path number, checked against the numbering's npaths.

   Matching.  A function of the program being compiled is found in the profile
   by its unit (the main source file's absolute path) and assembler name; a
   unit of that name absent from the profile (built elsewhere) falls back to
   the one function of that assembler name the profile has, if only one.  The
   caller compares CFG checksums: a function whose CFG changed since the profile
   must not learn from it.  */

#ifndef PATHPROF_CORE_PRIOR_H
#define PATHPROF_CORE_PRIOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/notes.h"
#include "paths.h"
#include "format/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pp_path_count
{
  uint64_t path, count;
} pp_path_count;

/* The executed paths (count > 0) of FN, function INDEX of unit U, increasing by
   path, into a malloc'd *OUT of *N entries.  NPATHS is the function's number of
   paths (its numbering rebuilt from the notes).  Returns 0, or -1 with a reason
   in err: counters that do not fit the numbering, a counted hole, a sparse count
   out of range (a stale or corrupted profile), or no memory.  */
int pp_function_path_counts (const pp_function_notes *fn, uint32_t index,
			     const pp_unit_data *u, uint64_t npaths,
			     pp_path_count **out, uint32_t *n, char *err,
			     size_t errlen);

/* The hottest paths of COUNTS (n, any order) that together make at least
   PERCENT of the executions (100: every one), hottest first, ties by number;
   sorts COUNTS so and returns how many of its first entries those are.  */
uint32_t pp_select_hottest (pp_path_count *counts, uint32_t n, double percent);

/* The Ball-Larus numbering of a path-counting function from its notes FN on
   its graph G: the edges flagged PP_EDGE_PATH_END are the plan's cuts, so the
   numbers are the plan's.  Returns a pp_paths status (PP_PATHS_OK with *out
   set).  */
int pp_notes_paths_number (const pp_function_notes *fn, const pp_graph *g,
			   pp_paths **out);

/* Every edge count that the executed paths COUNTS (n, by path number) of a
   function imply, NUMBERING being its Ball-Larus numbering on G: a path counts
   each of its edges and the cut it ends on; a start at a re-entry target counts
   the edge from ENTRY that got there when only one could have (else those
   edges are marked unknown[e] and count 0); EXIT -> ENTRY counts the returns.
   A path that left through a call that did not return (exit or longjmp from a
   callee) was never counted, so neither are its edges.  counts[] and unknown[]
   (NULL: not wanted) are per edge and filled here.  Returns 0, or -1 when out
   of memory.  */
int pp_edge_counts_of_paths (const pp_graph *g, const pp_paths *numbering,
			     const pp_path_count *counts, uint32_t n,
			     uint64_t *edge_counts, bool *unknown);

/* A profile opened for learning.  A compiler loads it for every unit it
   compiles, so a unit's notes are decoded only when a function is looked up
   in it (decoded is then 1, or -1 when they do not decode).  */
typedef struct pp_prior_unit
{
  const pp_unit_data *data;
  int decoded;
  pp_unit_notes notes;
} pp_prior_unit;

typedef struct pp_prior
{
  pp_profile profile;
  uint32_t nunits;
  pp_prior_unit *units;
} pp_prior;

typedef struct pp_prior_function
{
  const pp_prior_unit *unit;
  uint32_t index;		/* in unit->notes.functions */
  const pp_function_notes *notes;
} pp_prior_function;

/* Reads FILE.  Returns 0, or -1 with a reason in err (the file's name not
   included).  */
int pp_prior_load (const char *file, pp_prior *prior, char *err, size_t errlen);
void pp_prior_free (pp_prior *prior);
/* The mode of unit i, read from its notes' header without decoding them (0
   when they are too short to say).  */
uint32_t pp_prior_unit_mode (const pp_prior *prior, uint32_t i);
/* The function UNIT_NAME:ASM_NAME of the profile (see Matching): 1 with *f
   set, 0 when there is none, or -1 with a reason in err when the notes of a
   unit it had to read do not decode (a corrupted profile).  */
int pp_prior_find (pp_prior *prior, const char *unit_name, const char *asm_name,
		   pp_prior_function *f, char *err, size_t errlen);

/* The edge counts of function F, whose graph is G (the caller's, of the same
   CFG checksum), from a profile of a mode that yields every edge count
   (edge-counts, paths, ppp, residual: pp_prior_yields_edge_counts); edges
   whose count the profile cannot tell (abnormal ones) get 0.  Returns 0, or -1
   with a reason in err (counters that contradict the graph: a stale or
   corrupted profile; no memory).  */
int pp_prior_edge_counts (const pp_prior_function *f, const pp_graph *g,
			  uint64_t *counts, char *err, size_t errlen);
/* Does a profile of MODE tell every edge's count?  */
bool pp_prior_yields_edge_counts (uint32_t mode);

/* Segments.  The preferential modes of segments (interproc-ppp,
   interproc-residual) learn from a profile of interproc-segments: its
   program records count each root's segments by (number, root procedure),
   the numbers those of the root's supergraph (segments.h) over the record's
   units.  pp_seg_prior_open lays out every program record of PRIOR (all of
   segments of depth DEPTH, their units in the profile; an empty profile has
   none, a profile with units but no record is refused); pp_seg_prior_learn
   finds function UNIT_NAME:ASM_NAME as a root: 1 with its executed segments
   (the hottest making PERCENT of its executions, pp_select_hottest: hottest
   first) in a malloc'd *INTERESTING of *N, their counts in a malloc'd
   *COUNTS where COUNTS is not NULL, and the pp_seg_checksum of its
   supergraph in *CHECKSUM, 0 when no record has the function, -1 with a
   reason in err.  */
struct pp_seg_record;
typedef struct pp_seg_prior
{
  uint32_t depth, nrecords;
  struct pp_seg_record *records;
} pp_seg_prior;

int pp_seg_prior_open (const pp_prior *prior, uint32_t depth, pp_seg_prior *sp,
		       char *err, size_t errlen);
int pp_seg_prior_learn (pp_seg_prior *sp, const char *unit_name,
			const char *asm_name, double percent,
			uint64_t **interesting, uint64_t **counts, uint32_t *n,
			uint64_t *checksum, char *err, size_t errlen);
void pp_seg_prior_free (pp_seg_prior *sp);
/* The training program of unit UNIT_NAME (compiled roots across units):
   the program record of SP that has a member of that name whose
   NFUNCTIONS functions have the CFG checksums CFG (notes order): 1 with
   the record's layout in *LAYOUT (libprof's, over its members' notes,
   *NOTES of *NUNITS) and the unit's member index in *UNIT; 0 where no
   record has such a unit.  */
struct pp_ip_layout;
int pp_seg_prior_program (const pp_seg_prior *sp, const char *unit_name,
			  const uint64_t *cfg, uint32_t nfunctions,
			  const struct pp_ip_layout **layout, const pp_unit_notes **notes,
			  uint32_t *nunits, uint32_t *unit);

#ifdef __cplusplus
}
#endif

#endif
