/* Trace files (corelib/trace.h has the format): read, regenerated thread by
   thread, and turned into edge counts, which the report layer reads like an
   edge-counts profile, so that show, lcov and json accept a trace.  */

#ifndef PATHPROF_TOOLS_TRACE_FILE_H
#define PATHPROF_TOOLS_TRACE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"
#include "notes.h"
#include "profile.h"
#include "trace.h"

typedef struct trace_unit
{
  char *name;
  unsigned char *raw_notes;
  uint32_t raw_len;
  pp_unit_notes notes;
  pp_graph *graphs;		/* per function */
  pp_trace_function *functions;	/* per function */
  uint32_t first;		/* number of its first function among all units' */
} trace_unit;

/* A thread's records are not kept: reading a trace indexes where they are
   (a segment per RECORDS chunk, 24 bytes per MiB of trace), and regeneration
   reads them a chunk at a time, so that memory does not grow with the
   trace.  */
typedef struct trace_segment
{
  uint32_t file;		/* in trace_file.files */
  uint64_t offset;		/* of its first byte of bits */
  uint64_t nbits;
} trace_segment;

typedef struct trace_thread
{
  uint32_t id;
  uint64_t nbits;		/* of all its segments (packed: of its records) */
  uint32_t nsegs, segcap;
  trace_segment *segs;		/* in order: a forked child's first come from
				   its parent's file */
  /* A packed thread (corelib/trace-pack.h) has no segments: its records,
     its parent's included, are packed_bytes coded bytes at packed_offset
     of files[packed_file], in the model packed_model says.  */
  bool packed;
  uint32_t packed_file, packed_model;
  uint64_t packed_offset, packed_bytes;
} trace_thread;

typedef struct trace_file
{
  uint32_t nunits;
  trace_unit *units;
  uint32_t nthreads;
  trace_thread *threads;	/* in order of first chunk */
  uint32_t nfunctions;		/* of all units */
  uint32_t nfiles;
  char **files;			/* the file read, then its fork parents */
  pp_trace_regen_stats stats;	/* of every regeneration so far */
  uint64_t pid;			/* the header's */
  uint64_t packed_bytes;	/* of every packed thread */
} trace_file;

/* Is the file at path a trace (by its first bytes)?  */
bool trace_file_is_trace (const char *path);
/* Reads path (and, for a forked process, the parent's file its FORK chunk
   names).  Returns 0, or -1 with a reason in err.  */
int trace_file_read (const char *path, trace_file *t, char *err, size_t errlen);
void trace_file_free (trace_file *t);
/* The unit and function of a function number of regeneration events.  */
void trace_file_function (const trace_file *t, uint32_t id, uint32_t *unit,
			  uint32_t *function);
/* Regenerates thread i, calling event (as pp_trace_regen_ops) on each event.
   Returns 0, or -1 with a reason in err.  */
int trace_file_regen (trace_file *t, uint32_t i,
		      void (*event) (void *ctx, enum pp_trace_ev ev, size_t depth,
				     uint32_t id, uint32_t x),
		      void *ctx, char *err, size_t errlen);
/* The same without PP_TRACE_EV_BLOCK events (pp_trace_regen_ops.no_blocks),
   and with run (when not NULL) taking the runs regeneration replays
   (pp_trace_regen_ops.run).  */
int trace_file_regen_edges (trace_file *t, uint32_t i,
			    void (*event) (void *ctx, enum pp_trace_ev ev,
					   size_t depth, uint32_t id, uint32_t x),
			    pp_trace_run_fn *run,
			    void *ctx, char *err, size_t errlen);
/* Writes t to path with every thread packed (trace-pack.h), or with unpack
   every thread's records as one RECORDS chunk; either way self-contained (a
   forked child's records include its parent's).  The records are the same
   bit for bit.  *bytes gets the coded bytes written (packed) or the records'
   bytes (unpacked).  Returns 0, or -1 with a reason in err (path is then
   removed).  */
int trace_file_pack (trace_file *t, const char *path, bool unpack, uint64_t *bytes,
		     char *err, size_t errlen);
/* The edge counts of every thread's regeneration, as a profile of edge-counts
   units (every edge but the fake ones measured).  Returns 0, or -1 with a
   reason in err.  */
int trace_file_to_profile (trace_file *t, pp_profile *p, char *err, size_t errlen);

#endif
