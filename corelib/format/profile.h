/* Profile files: what libprof writes at exit and the tool reads.

   A profile holds one record per compiled unit: the unit's notes (verbatim, as the
   plugin embedded them) and its run-time values.  Encoding (little-endian):
     8 bytes "PATHPROF", u32 PP_PROFILE_VERSION, u32 nunits
     per unit:
       str name (u32 length + bytes), u64 checksum (pp_hash64 of the notes), u64 runs
       u32 notes_len, notes bytes
       u32 value_kind (enum pp_value_kind), u32 nvalues, values
         (PP_VALUES_U64: 8 bytes each; PP_VALUES_U8: 1 byte each)
       u32 nsparse, nsparse x (u32 function, u64 path, u64 count)
         -- the path counts of the functions whose paths libprof counted in a
            hash table (paths mode), sorted by (function, path), no key twice
       u32 wide_words, u32 nwide, nwide x (wide_words x u64, u64 count)
         -- (version 4) path counts keyed by numbers of wide_words 64-bit
            words, least significant first (the interprocedural modes'
            program record), in increasing order, no key twice; version 3
            files have none
     u64 trailer: pp_hash64 chained (from PP_HASH_SEED) over the header (its
       16 bytes), then per unit over its head (name length to notes_len) and
       its tail (value_kind to its last sparse count): every byte but the
       notes, which the unit's checksum in its head stands for (each unit's
       notes are checked against it on decoding; a writer need not hash them)
   A unit is identified by (name, checksum).  Merging adds u64 values and the
   counts of equal sparse and wide keys (saturating at UINT64_MAX) and ORs u8
   values; runs add up.  */

#ifndef PATHPROF_CORE_PROFILE_H
#define PATHPROF_CORE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PP_PROFILE_MAGIC "PATHPROF"
#define PP_PROFILE_VERSION 4u	/* 4: wide path counts; 3 (read too): the
				   trailer leaves the notes to their checksums */
#define PP_PROFILE_WIDE_WORDS_MAX 1024u	/* 65,536-bit path numbers */

enum pp_value_kind
{
  PP_VALUES_U64 = 1,		/* counters: summed when merged */
  PP_VALUES_U8 = 2,		/* coverage bytes: or-ed when merged */
};

/* One path count of a function counted in a hash table.  */
typedef struct pp_sparse_count
{
  uint32_t function;		/* index in the unit's notes */
  uint64_t path, count;
} pp_sparse_count;

typedef struct pp_unit_data
{
  char *name;
  uint64_t checksum, runs;
  uint32_t notes_len;
  unsigned char *notes;
  uint32_t value_kind, nvalues;
  void *values;			/* uint64_t[nvalues] or uint8_t[nvalues] */
  uint32_t nsparse;
  pp_sparse_count *sparse;	/* sorted by (function, path), no key twice */
  /* Wide path counts: nwide entries of wide_words + 1 u64 each (the number,
     least significant word first, then the count), increasing.  */
  uint32_t wide_words, nwide;
  uint64_t *wide;		/* this and sparse may be NULL when empty */
} pp_unit_data;

typedef struct pp_profile
{
  uint32_t nunits, cap;
  pp_unit_data *units;
  /* The units' notes are not the profile's own (pp_profile_decode_borrowing):
     they are neither copied nor freed, and units added later borrow theirs.  */
  bool notes_borrowed;
} pp_profile;

/* Error reporting: functions that can fail write a one-line reason into err (never
   NULL, errlen > 0) such as "truncated at byte 812" or "not a pathprof profile";
   callers prefix the file name.  pp_fail writes one (printf's FMT) and returns
   -1, for corelib's and libprof's functions alike.  */
int pp_fail (char *err, size_t errlen, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));

/* Parses a profile held in memory.  The structure and the trailer checksum are
   verified before anything is allocated, then each unit's notes are checked against
   its checksum and (name, checksum) pairs must be unique.  Returns 0, or -1 with err
   set ("truncated at byte 812 (...)", "not a pathprof profile (bad magic)",
   "unsupported format version 7 (...)", "bad trailer checksum: file is corrupted",
   "corrupted at byte 40: ...", also for sparse counts out of order).  0 bytes
   decode as an empty profile.  */
int pp_profile_decode (const unsigned char *buf, size_t len, pp_profile *p,
		       char *err, size_t errlen);
/* The same for a writer that merges into the file and writes it back at once
   (libprof): notes are not copied but borrowed from buf, which must outlive
   p, and the units equal (name, checksum and notes length) to one of TRUSTED
   take that unit's notes, whose bytes in buf are not checked: the writer
   replaces them with its own.  Every other unit's notes are checked.  */
int pp_profile_decode_borrowing (const unsigned char *buf, size_t len,
				 const pp_unit_data *trusted, uint32_t ntrusted,
				 pp_profile *p, char *err, size_t errlen);
/* Recomputes the trailer of an encoded profile of len bytes in place (for
   tests that patch bytes).  Returns 0, or -1 when its structure is broken.  */
int pp_profile_seal (unsigned char *buf, size_t len);
/* Reads a whole profile from an open descriptor (from its current offset).
   Returns 0, or -1 with err set.  An empty file (0 bytes) reads as an empty profile. */
int pp_profile_read_fd (int fd, pp_profile *p, char *err, size_t errlen);
/* Reads a file by name; a missing file is an error (errno ENOENT is kept in *sys_errno
   when sys_errno is non-NULL, so callers can treat it as empty).  */
int pp_profile_read_file (const char *path, pp_profile *p, int *sys_errno,
			  char *err, size_t errlen);
/* Encodes a profile into a malloc'd buffer.  Returns 0, or -1 (errno EINVAL for a
   unit of unknown kind or with sparse counts out of order).  */
int pp_profile_encode (const pp_profile *p, unsigned char **buf, size_t *len);
/* Writes p to fd as pp_profile_encode would encode it, with gathered writes
   that take the notes from where they are (no copy, no hashing of them).
   Retries short writes and EINTR.  Returns 0 or -1 with errno set.  */
int pp_profile_write (int fd, const pp_profile *p);
/* Writes the whole buffer to fd, retrying short writes and EINTR.  Returns 0 or -1
   with errno set.  */
int pp_write_all (int fd, const void *buf, size_t len);
/* Reads fd to its end into a malloc'd buffer, retrying EINTR.  Returns 0, or -1 with
   errno set.  */
int pp_read_all (int fd, unsigned char **buf, size_t *len);
/* fstat, through fstatat as libprof's stat of a path: its exit then binds
   one libc function for both (DESIGN.md, "The cost of a short run").  */
struct stat;
int pp_fstat (int fd, struct stat *st);
/* strlen of a short string (a unit name, a path), as a loop for the same
   reason (libprof is built with -fno-tree-loop-distribute-patterns, which
   keeps GCC from making it a strlen call again).  */
static inline size_t
pp_short_strlen (const char *s)
{
  const char *e = s;
  while (*e)
    e++;
  return (size_t) (e - s);
}

/* Merges unit u into p: adds to the unit with the same name and checksum, or appends
   a copy.  Returns 0; 1 when p has a unit with u's name but none with u's checksum
   (stale: compiled from different sources), with err naming both checksums; -1 on
   allocation failure or kind/size mismatch (err set).  p is unchanged unless 0 is
   returned.  u's sparse counts must be in order (else -1).  */
int pp_profile_merge_unit (pp_profile *p, const pp_unit_data *u, char *err,
			   size_t errlen);
/* The two halves of pp_profile_merge_unit, for callers that merge a set of units
   which may legitimately share a name (one source compiled twice into a program):
   check every unit against the profile first, then add them all.
   pp_profile_check_unit returns what pp_profile_merge_unit would, without changing
   p; pp_profile_add_unit merges without the stale check (-1 on allocation failure
   or kind/size mismatch, p unchanged).  */
int pp_profile_check_unit (const pp_profile *p, const pp_unit_data *u, char *err,
			   size_t errlen);
int pp_profile_add_unit (pp_profile *p, const pp_unit_data *u, char *err,
			 size_t errlen);
/* Finds a unit by name and checksum, or NULL.  */
pp_unit_data *pp_profile_find (const pp_profile *p, const char *name,
			       uint64_t checksum);
void pp_profile_free (pp_profile *p);

/* Whether wide number a (words words, least significant first) is below b.  */
static inline int pp_wide_before (const uint64_t *a, const uint64_t *b,
				  uint32_t words)
{
  for (uint32_t i = words; i-- > 0;)
    if (a[i] != b[i])
      return a[i] < b[i];
  return 0;
}

/* Whether sparse count a comes strictly before b in the (function, path) order
   of a unit's sparse counts.  */
static inline int pp_sparse_before (const pp_sparse_count *a,
				    const pp_sparse_count *b)
{ return a->function < b->function
	 || (a->function == b->function && a->path < b->path); }

/* Saturating addition used for all u64 merges.  */
static inline uint64_t pp_sat_add (uint64_t a, uint64_t b)
{ return a + b < a ? UINT64_MAX : a + b; }
static inline uint64_t pp_sat_mul (uint64_t a, uint64_t b)
{ return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

#ifdef __cplusplus
}
#endif

#endif
