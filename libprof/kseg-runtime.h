/* libprof, depth-k interprocedural segments (corelib/segments.h) counted at
   run time: the probes of the units of a mode of segments (pathprof-abi.h
   __pathprof_seg_*), once ip-program.c, which sets up the program, has
   handed it over (pp_kseg_init).  */

#ifndef PATHPROF_KSEG_RUNTIME_H
#define PATHPROF_KSEG_RUNTIME_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "ip-notes.h"
#include "numbering-cache.h"

/* The program kseg-runtime.c counts, as ip-program.c hands it over at the
   first ENTER: what it knows without any notes decoded (NUNITS units of
   NPROCS procedures, unit u's function 0 procedure FIRST_PROC[u]; UNITS in
   that order, NULL when none has compiled roots), and the rest on demand:
   LAYOUT () the program's layout (kept until the process ends), NOTES ()
   the units' notes, both called under LOCK the first time a root libprof
   numbers runs (NULL: they cannot be made, said); its units of MODE
   (notes.h's number), their segments of depth DEPTH; the segments from a
   start that has at most DENSE_MAX of them count in an array, the others
   in hashed places, a root's first table of HASHED of them (a power of 2;
   0: none); LOCK guards the supergraphs built at run time.  A program
   whose roots all ran compiled never makes its layout.  */
typedef struct pp_kseg_program
{
  uint32_t nunits, nprocs;
  const uint32_t *first_proc;
  struct __pathprof_unit *const *units;
  /* The layout, whose procedures have graphs only once proc has made
     them; the units' notes (outlined at least: every function's name and
     CFG checksum); and procedure p's function notes whole, its graph made
     in the layout (NULL: it cannot be, said).  kseg-runtime.c calls them
     under the lock, the layout first: proc for every procedure of a root's
     supergraph before the root is numbered or taken from the cache, so
     that an activation's procedure always has its graph.  */
  const pp_ip_layout *(*layout) (void);
  const pp_unit_notes *(*notes) (void);
  const pp_function_notes *(*proc) (uint32_t p);
  uint32_t mode, depth;
  uint64_t dense_max, hashed;
  pthread_mutex_t *lock;
} pp_kseg_program;
/* Returns 0, or -1 when out of memory.  */
int pp_kseg_init (const pp_kseg_program *program);

/* libprof's DENSE_MAX: as the paths mode's arrays (path-array-max).  */
#define PP_KSEG_DENSE_MAX 4096
/* libprof's HASHED: 4 KB a root that has segments no array places.  */
#define PP_KSEG_HASHED 256

/* The numbering cache's key for the program whose units' manifest hashes
   to PROGRAM, of MODE, DEPTH and DENSE_MAX as pp_kseg_init takes them.  */
uint64_t pp_kseg_cache_key (uint64_t program, uint32_t mode, uint32_t depth,
			    uint64_t dense_max);
/* The numbering cache (numbering-cache.h) at PATH (NULL: none; it takes
   PATH) of KEY: each root is taken from it where it has one, and
   pp_kseg_save_cache saves the roots numbered since (a dump).  */
void pp_kseg_open_cache (char *path, uint64_t key);
int pp_kseg_save_cache (void);
/* How many roots this process numbered (the others it took from the
   cache).  */
uint32_t pp_kseg_numbered (void);
/* Frees what pp_kseg_init and the supergraphs took (the unit tests set up
   one program after another).  */
void pp_kseg_free (void);

/* ENTER (pathprof-abi.h's __pathprof_seg_enter, which the units call
   once the program is set up), the function entered already resolved to
   its procedure (UINT32_MAX: none of the program).  Frames are addresses of
   struct __pathprof_ip_frame, never 0; the thread's dummy
   (pp_kseg_untracked) stands for every untracked activation.  The other
   probes are pathprof-abi.h's __pathprof_seg_*, here.  */
uint64_t pp_kseg_untracked (void);
uint64_t pp_kseg_enter (uint32_t proc, const void *self);

/* Dumps: the counts in the roots' arrays (preferential slots, and the
   arrays of starts with few segments) move to the tables (then read by
   their snapshot); a reset or a forked child zeroes them.  */
void pp_kseg_flush_slots (void);
void pp_kseg_reset_slots (void);

/* The thread's segments under way end where they are (the process ends).  */
void pp_kseg_end_thread_paths (void);

/* A count of the thread tables (ip-tables.h pp_ipt_number_fn): segment
   number A of root procedure CTX is the key (A, CTX).  */
bool pp_kseg_key (uint64_t ctx, uint64_t a, uint64_t b, uint64_t *key);

#endif
