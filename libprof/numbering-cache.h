/* libprof: the numbering cache, a file of the numberings a process made at
   run time (one opaque record per procedure: a segments root's block,
   kseg-runtime.c; or, for context and piecewise paths, the program's
   numbering as corelib's block under procedure 0, ip-program.c; and in
   both, the program's layout past them, PP_NCACHE_LAYOUT), so that the next
   run of the same program adopts them instead of making them again.

   Format (host byte order: the file is only read on the machine that wrote
   it, by the same program):
     8 bytes "PPNUMBR1", u32 version (2), u32 nentries, u64 key,
     u64 hash (pp_hash64 of the index), then the index:
     nentries x { u32 proc, u32 zero, u64 offset, u64 length, u64 hash }
     sorted by proc, no proc twice, then the records where the index puts
     them (each a multiple of 8 bytes, its hash numbering-cache.c's
     record_sum of them).
   KEY names the program and what the records mean (its units' notes, the
   numbering's parameters, libprof's record layout): a file of another key
   is stale, never read, and replaced at the next save.  A writer replaces
   the file by renaming a new one over it, so that a process that mapped
   the old one keeps reading it; two processes saving at once leave one
   file whole, the other's new records for a later run to save.  */

#ifndef PATHPROF_NUMBERING_CACHE_H
#define PATHPROF_NUMBERING_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pp_ncache
{
  char *path;			/* NULL: no cache (PATHPROF_NUMBERING_FILE empty) */
  uint64_t key;
  unsigned char *data;		/* the file, read whole at open, or NULL */
  size_t data_len;
  uint32_t nentries;		/* in the file's index (0: none) */
} pp_ncache;

/* The records that are not a procedure's (a segments root's), by the
   number the index gives them: past any procedure.  */
#define PP_NCACHE_LAYOUT (UINT32_MAX - 1)	/* the program's layout */

/* Opens the cache of the program KEY at PATH (NULL: none; the cache takes
   it).  A missing or stale file opens as empty; a damaged one too, said
   once naming the file.  Returns 0.  */
int pp_ncache_open (pp_ncache *c, char *path, uint64_t key);
/* Record P's bytes (its length in *LEN; P a procedure, or
   PP_NCACHE_LAYOUT), 8-byte aligned, or NULL when the file has none or it
   is damaged (said, naming the file).  It lives as
   long as the cache, and the caller may change it (adopt a root in place):
   a later find of the same record checks the bytes as they are then.  */
unsigned char *pp_ncache_find (const pp_ncache *c, uint32_t p, size_t *len);

/* Says, once per process, that the file is damaged (WHAT: how), and that
   the numberings it holds are made again.  */
void pp_ncache_damaged (const pp_ncache *c, const char *what);

/* One record to save: procedure proc's bytes (or PP_NCACHE_LAYOUT's).  */
typedef struct pp_ncache_record
{
  uint32_t proc;
  const unsigned char *bytes;
  size_t len;
} pp_ncache_record;

/* Replaces the file with NREC records, sorted by proc, no proc twice.
   Returns 0, or -1 with the reason said (naming the file).  */
int pp_ncache_save (const pp_ncache *c, const pp_ncache_record *rec, uint32_t nrec);
void pp_ncache_close (pp_ncache *c);

/* A cache key: the parameters WHAT[0 .. N) that say what the records mean
   (the program record's checksum first), with libprof's version.  */
uint64_t pp_ncache_key (const uint64_t *what, size_t n);

/* The program's layout (ip-notes.h), kept in every interprocedural mode's
   file as record PP_NCACHE_LAYOUT.  pp_ncache_adopt_layout: L adopted from
   the cache (its arrays stay in the cache's memory) for a program of NUNITS
   units, or false (a record that cannot be adopted said as damage).
   pp_ncache_layout_record: the record to save for L: the cache's own
   bytes, else L packed into *PACKED (free it after the save); -1 when out
   of memory.  */
struct pp_ip_layout;
bool pp_ncache_adopt_layout (const pp_ncache *c, uint32_t nunits,
			     struct pp_ip_layout *l);
int pp_ncache_layout_record (const pp_ncache *c, const struct pp_ip_layout *l,
			     pp_ncache_record *rec, uint64_t **packed);

#endif
