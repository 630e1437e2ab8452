/* The interprocedural mode in the report layer: a profile's program records
   (corelib/ip-notes.h), each numbered again from its member units' notes with
   the code libprof numbered it with, its path counts decoded, and every edge
   count of the member functions derived from them.  */

#ifndef PATHPROF_TOOLS_IP_COUNTS_H
#define PATHPROF_TOOLS_IP_COUNTS_H

#include "interproc.h"
#include "ip-notes.h"
#include "report.h"
#include "segments.h"

/* Segments: a root's supergraph and its numbering, as libprof made them.  */
typedef struct report_root
{
  bool tried, ok;
  pp_seg_graph s;
  pp_paths *paths;
} report_root;

typedef struct report_program
{
  const pp_unit_data *data;	/* the record */
  pp_ip_manifest manifest;
  report_unit **units;		/* per member unit, in manifest order */
  pp_ip_layout layout;
  pp_ip_numbering nb;		/* context and piecewise paths */
  bool numbered;
  report_root *roots;		/* segments: per procedure, built when needed */
  size_t bits;			/* segments: of the most paths of a root built */
  size_t largest_bits;		/* of the largest path number counted */
} report_program;

/* Whether a profile record is a program record.  */
bool report_is_program (const pp_unit_data *u);

/* Numbers program p (its record in p->data) over the loaded units of r and
   adds the counts of its paths to their functions' edge counts.  Returns 0,
   or -1 with a reason in err (a member unit missing from the profile, a
   count beyond the numbering: a stale or damaged profile).  */
int report_program_load (report_program *p, const report *r, char *err,
			 size_t errlen);
void report_program_free (report_program *p);

/* The function of procedure proc: its unit and index.  */
const report_function *report_program_function (const report_program *p,
						uint32_t proc,
						const report_unit **unit);

/* One path of a program record: pp_ip_decode's steps in order, and where
   the path's own part starts (own: its last surrogate from ENTRY, after the
   context prefix that the paths before it ran; 0 when it has none, as every
   piecewise path).  */
typedef struct report_ip_step
{
  int kind;			/* enum pp_ip_step_kind */
  uint32_t a, b;
} report_ip_step;

typedef struct report_ip_path
{
  report_ip_step *steps;
  uint32_t nsteps, cap, own;
} report_ip_path;

/* Segments: the supergraph of root procedure ROOT, numbered (built on first
   use); NULL when out of memory or ROOT is no procedure.  */
const report_root *report_program_root (report_program *p, uint32_t root);

/* Decodes NUM into PATH (whose array it reuses; free steps when done).
   Returns 0, -1 when out of memory, -2 when NUM is beyond the numbering.  */
int report_program_decode (const report_program *p, const mpz_t num,
			   report_ip_path *path);

/* The mode reader of the interprocedural mode (report.c): every edge count
   derived (from the program records, added later: report_program_load).  */
int report_read_interproc (report_function *f, const pp_unit_data *u,
			   const pp_mode_info *mode, char *err, size_t errlen);

#endif
