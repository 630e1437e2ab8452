/* The interprocedural modes' program records: how a profile names the
   units one numbering of a program covers (ip-notes.h builds the program
   itself from their notes).  */

#ifndef PATHPROF_CORE_IP_RECORDS_H
#define PATHPROF_CORE_IP_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The program record of a profile (the interprocedural mode): its counts
   are keyed by path numbers of one numbering of one set of units, which
   its notes, the manifest, name:
     u32 PP_IP_MANIFEST_MAGIC, u32 PP_IP_MANIFEST_VERSION, u32 kind
     (enum pp_ip_kind), u32 depth (segments: k; else 0; not in version
     1), u32 nunits, per unit (sorted by name, then checksum): str name,
     u64 checksum
   Its name is "interprocedural paths XXXXXXXXXXXXXXXX", the manifest's
   checksum in hexadecimal, so that the records of several programs sharing
   a profile file never meet; its values are the paths counted and the
   paths lost (not named by a number: see libprof/ctx-runtime.c).  */
#define PP_IP_MANIFEST_MAGIC 0x50495050u	/* "PPIP" */
#define PP_IP_MANIFEST_VERSION 5u	/* 2: the depth; 3: segments cut at
					   each procedure's own backedges; 4:
					   no region cut into a leave; 5: the
					   region cuts' threshold bisected
					   (paths.c cut_regions) */

enum pp_ip_kind
{
  PP_IP_CONTEXT = 0,
  PP_IP_PIECEWISE = 1,
  PP_IP_SEGMENTS = 2,		/* depth-k segments (segments.h), numbered per root */
};

/* The depths of segments (-fplugin-arg-pathprof-depth): 1 .. this.  */
#define PP_SEGMENTS_MAX_DEPTH 8u

typedef struct pp_ip_manifest
{
  uint32_t kind, depth, nunits;
  char **names;
  uint64_t *checksums;
} pp_ip_manifest;

/* Returns 0, or -1 when out of memory.  */
int pp_ip_manifest_encode (const pp_ip_manifest *m, unsigned char **buf,
			   uint32_t *len);
/* Returns 0, or -1 with err set (not a manifest, damaged, out of memory).  */
int pp_ip_manifest_decode (const unsigned char *buf, size_t len,
			   pp_ip_manifest *m, char *err, size_t errlen);
void pp_ip_manifest_free (pp_ip_manifest *m);
/* Whether notes bytes are a manifest (a program record), not a unit's.  */
bool pp_ip_manifest_p (const unsigned char *buf, size_t len);
/* The record's name for a manifest of checksum SUM.  */
void pp_ip_record_name (char *buf, size_t len, uint64_t sum);
/* Opens program record RECORD, a unit of PROFILE: decodes its manifest
   into M and finds each member unit among PROFILE's by name and checksum,
   MEMBER[m] the data of member m (M->nunits of them, allocated: pp_free
   it).  Returns 0, or -1 with err set, naming the record and what is wrong
   (not a manifest, a member the profile lacks, out of memory); M is then
   empty and MEMBER NULL.  */
int pp_ip_record_open (const pp_profile *profile, const pp_unit_data *record,
		       pp_ip_manifest *m, const pp_unit_data ***member, char *err,
		       size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
