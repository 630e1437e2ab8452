/* Unit tests of the notes and profile file formats (corelib/format/notes.c, corelib/format/profile.c):
   round trips of random content, rejection of every truncation and of random
   corruption without crashing, and the merge rules (sparse path counts too).  */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ip-notes.h"
#include "modes.h"
#include "notes.h"
#include "profile.h"
#include "unit.h"

static unsigned long long seed = 0x5eed0f0a7ull;

static uint32_t
rnd (uint32_t n)
{
  return (uint32_t) (unit_rand (&seed) % n);
}

static char *
random_string (const char *prefix)
{
  char *s = malloc (64);
  int n = snprintf (s, 64, "%s", prefix);
  uint32_t extra = rnd (12);
  for (uint32_t i = 0; i < extra; i++)
    s[n++] = (char) ('a' + rnd (26));
  s[n] = 0;
  return s;
}

/* ------------------------------------------------------------------------- */
/* Notes.  */

static void
random_notes (pp_unit_notes *n)
{
  memset (n, 0, sizeof *n);
  n->mode = pp_modes[rnd (pp_nmodes)].mode;
  n->weighting = rnd (3);
  n->depth = 1 + rnd (PP_SEGMENTS_MAX_DEPTH);	/* encoded by the modes of segments */
  n->unit_name = random_string ("/src/unit");
  n->nfiles = 1 + rnd (4);
  n->files = calloc (n->nfiles, sizeof *n->files);
  for (uint32_t i = 0; i < n->nfiles; i++)
    n->files[i] = random_string ("/src/file");
  n->nfunctions = rnd (5);
  n->functions = calloc (n->nfunctions + 1, sizeof *n->functions);
  uint32_t offset = 0;
  for (uint32_t i = 0; i < n->nfunctions; i++)
    {
      pp_function_notes *f = &n->functions[i];
      f->asm_name = random_string ("_Z");
      f->name = random_string ("fn");
      f->decl_file = rnd (n->nfiles);
      f->decl_line = (uint32_t) unit_rand (&seed);
      f->value_offset = offset;
      f->nvalues = rnd (9);
      offset += f->nvalues;
      f->nblocks = 2 + rnd (9);
      f->blocks = calloc (f->nblocks, sizeof *f->blocks);
      for (uint32_t b = 0; b < f->nblocks; b++)
	{
	  pp_block_notes *bn = &f->blocks[b];
	  bn->flags = rnd (2) ? PP_BLOCK_LANDING_PAD : 0;
	  bn->value = f->nvalues && rnd (2) ? (int32_t) rnd (f->nvalues) : -1;
	  bn->nlines = rnd (4);
	  bn->lines = calloc (bn->nlines + 1, sizeof *bn->lines);
	  for (uint32_t l = 0; l < bn->nlines; l++)
	    bn->lines[l] = (pp_line_ref) { rnd (n->nfiles), 1 + rnd (5000) };
	}
      f->nedges = rnd (16);
      f->edges = calloc (f->nedges + 1, sizeof *f->edges);
      for (uint32_t e = 0; e < f->nedges; e++)
	f->edges[e] = (pp_edge_notes) {
	  rnd (f->nblocks), rnd (f->nblocks), rnd (128),
	  f->nvalues && rnd (2) ? (int32_t) rnd (f->nvalues) : -1 };
      f->cfg_checksum = pp_notes_cfg_checksum (f);	/* what decoding gives */
      f->seg_checksum = unit_rand (&seed);	/* interproc-ppp, -residual */
      /* Encoded by the modes with calls: in blocks past ENTRY and EXIT,
	 in order.  */
      f->function_flags = rnd (8);
      f->ncalls = f->nblocks > 2 ? rnd (4) : 0;
      f->calls = calloc (f->ncalls + 1, sizeof *f->calls);
      for (uint32_t k = 0, b = 2; k < f->ncalls; k++)
	{
	  b += rnd (f->nblocks - b);
	  bool indirect = rnd (4) == 0;
	  f->calls[k] = (pp_call_notes) { b, indirect ? PP_CALL_INDIRECT : rnd (2),
					  indirect ? random_string ("") : random_string ("g") };
	}
      /* Encoded by the preferential modes: increasing.  */
      f->ninteresting = rnd (4);
      f->interesting = calloc (f->ninteresting + 1, sizeof *f->interesting);
      for (uint32_t k = 0; k < f->ninteresting; k++)
	f->interesting[k] = (k ? f->interesting[k - 1] + 1 : 0) + rnd (100);
      f->ppp_span = rnd (1000);
    }
}

/* Whether F and G, functions of notes of MODE, hold the same (the lines
   too where LINES).  */
static bool
function_equal (const pp_function_notes *f, const pp_function_notes *g, uint32_t mode,
		bool lines)
{
  const pp_mode_info *m = pp_mode_lookup (mode);
  bool segments = m && pp_mode_segments (m), preferential = m && m->preferential;
  bool calls = m && m->calls;
  if (strcmp (f->asm_name, g->asm_name) || strcmp (f->name, g->name)
      || f->decl_file != g->decl_file || f->decl_line != g->decl_line
      || f->cfg_checksum != g->cfg_checksum
      || f->value_offset != g->value_offset || f->nvalues != g->nvalues
      || f->nblocks != g->nblocks || f->nedges != g->nedges
      || (segments && preferential && f->seg_checksum != g->seg_checksum))
    return false;
  for (uint32_t k = 0; k < f->nblocks; k++)
    if (f->blocks[k].flags != g->blocks[k].flags
	|| f->blocks[k].value != g->blocks[k].value
	|| (lines && (f->blocks[k].nlines != g->blocks[k].nlines
		      || memcmp (f->blocks[k].lines, g->blocks[k].lines,
				 f->blocks[k].nlines * sizeof (pp_line_ref)))))
      return false;
  if (memcmp (f->edges, g->edges, f->nedges * sizeof (pp_edge_notes)))
    return false;
  if (preferential
      && (f->ninteresting != g->ninteresting || f->ppp_span != g->ppp_span
	  || memcmp (f->interesting, g->interesting,
		     f->ninteresting * sizeof *f->interesting)))
    return false;
  if (calls && (f->function_flags != g->function_flags || f->ncalls != g->ncalls))
    return false;
  for (uint32_t k = 0; calls && k < f->ncalls; k++)
    if (f->calls[k].block != g->calls[k].block || f->calls[k].flags != g->calls[k].flags
	|| strcmp (f->calls[k].callee, g->calls[k].callee))
      return false;
  return true;
}

static bool
notes_equal (const pp_unit_notes *a, const pp_unit_notes *b)
{
  const pp_mode_info *m = pp_mode_lookup (a->mode);
  bool segments = m && pp_mode_segments (m);
  if (a->mode != b->mode || a->weighting != b->weighting
      || strcmp (a->unit_name, b->unit_name) || a->nfiles != b->nfiles
      || a->nfunctions != b->nfunctions || (segments && a->depth != b->depth))
    return false;
  for (uint32_t i = 0; i < a->nfiles; i++)
    if (strcmp (a->files[i], b->files[i]))
      return false;
  for (uint32_t i = 0; i < a->nfunctions; i++)
    if (!function_equal (&a->functions[i], &b->functions[i], a->mode, true))
      return false;
  return true;
}

/* libprof's way to its own notes (notes.h): an outline, then the
   functions it wants one at a time, each the same as the whole unit's
   (pp_notes_decode_own); and an outline of a truncated encoding
   rejected.  */
static void
test_notes_outline (void)
{
  const char *why = "";
  unsigned functions = 0, cuts = 0;
  for (int iter = 0; iter < 500 && !*why; iter++)
    {
      pp_unit_notes n, whole, outline;
      unsigned char *buf;
      size_t len;
      char err[256];
      random_notes (&n);
      if (pp_notes_encode (&n, &buf, &len))
	why = "encode failed";
      else if (pp_notes_decode_own (buf, len, &whole, err, sizeof err))
	why = "decode failed";
      else if (pp_notes_decode_outline (buf, len, &outline, err, sizeof err))
	why = "outline failed";
      for (uint32_t f = 0; !*why && f < n.nfunctions; f++, functions++)
	{
	  const pp_function_notes *o = &outline.functions[f], *w = &whole.functions[f];
	  pp_function_notes fn;
	  /* An outline names a function by its asm name.  */
	  if (strcmp (o->asm_name, w->asm_name) || strcmp (o->name, w->asm_name)
	      || o->cfg_checksum != w->cfg_checksum || o->nblocks != w->nblocks
	      || o->nedges != w->nedges || o->blocks || o->edges || o->ninteresting
	      || o->function_flags != w->function_flags || o->ncalls != w->ncalls)
	    why = "an outline's function differs from the whole's";
	  for (uint32_t k = 0; !*why && k < o->ncalls; k++)
	    if (o->calls[k].block != w->calls[k].block
		|| strcmp (o->calls[k].callee, w->calls[k].callee))
	      why = "an outline's call differs from the whole's";
	  /* Backwards, as libprof asks: in no order.  */
	  uint32_t g = n.nfunctions - 1 - f;
	  if (*why)
	    ;
	  else if (pp_notes_decode_function (buf, len, &outline, g, &fn, err, sizeof err))
	    why = "a function of an outline does not decode";
	  else
	    {
	      if (!function_equal (&fn, &whole.functions[g], n.mode, false)
		  || fn.notes_at != whole.functions[g].notes_at)
		why = "a function decoded alone differs from the whole's";
	      pp_notes_function_free (&fn);
	    }
	}
      if (!*why)
	{
	  pp_notes_free (&whole);
	  pp_notes_free (&outline);
	}
      for (size_t cut = 0; cut < len && !*why; cut++, cuts++)
	if (pp_notes_decode_outline (buf, cut, &outline, err, sizeof err) == 0)
	  why = "an outline of a truncated encoding was accepted";
      free (buf);
      pp_notes_free (&n);
    }
  unit_result (!*why, "notes: an outline, then functions one at a time as whole",
	       "%s", why);
  printf ("note: %u functions decoded alone, %u truncated outlines rejected\n",
	  functions, cuts);
}

static void
test_notes_round_trip (void)
{
  const char *why = "";
  for (int iter = 0; iter < 500 && !*why; iter++)
    {
      pp_unit_notes n, d;
      unsigned char *buf, *again;
      size_t len, again_len;
      char err[256];
      random_notes (&n);
      if (pp_notes_encode (&n, &buf, &len))
	why = "encode failed";
      else if (pp_notes_decode (buf, len, &d, err, sizeof err))
	why = "decode failed";
      else
	{
	  if (!notes_equal (&n, &d))
	    why = "decoded notes differ";
	  else if (pp_notes_encode (&d, &again, &again_len))
	    why = "re-encode failed";
	  else
	    {
	      if (again_len != len || memcmp (again, buf, len))
		why = "re-encoding differs";
	      free (again);
	    }
	  pp_notes_free (&d);
	}
      if (!*why)
	free (buf);
      pp_notes_free (&n);
    }
  unit_result (!*why, "notes: random round trips", "%s", why);
}

static void
test_notes_truncations_and_flips (void)
{
  int truncations = 0, flips_rejected = 0, flips_accepted = 0;
  const char *why = "";
  for (int iter = 0; iter < 40 && !*why; iter++)
    {
      pp_unit_notes n, d;
      unsigned char *buf;
      size_t len;
      char err[256];
      random_notes (&n);
      pp_notes_encode (&n, &buf, &len);
      pp_notes_free (&n);
      for (size_t cut = 0; cut < len && !*why; cut++, truncations++)
	{
	  err[0] = 0;
	  if (pp_notes_decode (buf, cut, &d, err, sizeof err) == 0)
	    why = "a truncated encoding was accepted";
	  else if (!*err)
	    why = "no error message for a truncation";
	}
      unsigned char *copy = malloc (len);
      for (int f = 0; f < 200 && !*why; f++)
	{
	  memcpy (copy, buf, len);
	  size_t at = rnd ((uint32_t) len);
	  copy[at] ^= (unsigned char) (1 + rnd (255));
	  err[0] = 0;
	  if (pp_notes_decode (copy, len, &d, err, sizeof err) != 0)
	    {
	      flips_rejected++;
	      if (!*err)
		why = "no error message for a corruption";
	      continue;
	    }
	  /* Notes carry no checksum of their own (the profile checksums them), so a
	     flip in a free field such as a line number decodes; it must then be
	     exactly what the bytes say.  */
	  unsigned char *again;
	  size_t again_len;
	  flips_accepted++;
	  if (pp_notes_encode (&d, &again, &again_len) || again_len != len
	      || memcmp (again, copy, len))
	    why = "an accepted corruption does not re-encode to its bytes";
	  else
	    free (again);
	  pp_notes_free (&d);
	}
      free (copy);
      free (buf);
    }
  unit_result (!*why, "notes: every truncation rejected, random flips safe",
	       "%s", why);
  printf ("note: %d truncations rejected, %d flips rejected, %d decoded\n",
	  truncations, flips_rejected, flips_accepted);
}

static void
test_notes_random_garbage (void)
{
  unsigned char buf[512];
  bool ok = true;
  for (int iter = 0; iter < 20000; iter++)
    {
      size_t len = rnd (sizeof buf);
      for (size_t i = 0; i < len; i++)
	buf[i] = (unsigned char) unit_rand (&seed);
      /* Keep a valid header most of the time so the body gets exercised.  */
      if (len >= 12 && rnd (4))
	{
	  memcpy (buf, "PPNT\1\0\0\0", 8);
	  buf[8] = (unsigned char) (1 + rnd (6));
	  buf[9] = buf[10] = buf[11] = 0;
	}
      pp_unit_notes d;
      char err[256];
      if (pp_notes_decode (buf, len, &d, err, sizeof err) == 0)
	pp_notes_free (&d);
      else
	ok &= *err != 0;
    }
  unit_result (ok, "notes: random garbage never crashes", "missing message");
}

/* Encodes notes whose one function has the given fields, for error checks.  */
static void
encode_one_function (uint32_t src, int32_t value, uint32_t decl_file,
		     unsigned char **buf, size_t *len)
{
  pp_line_ref line = { 0, 7 };
  pp_block_notes blocks[3] = { { 0, -1, 0, NULL }, { 0, -1, 0, NULL },
			       { 0, -1, 1, &line } };
  pp_edge_notes edges[2] = { { src, 2, 0, value }, { 2, 1, 0, -1 } };
  pp_function_notes f = {
    .asm_name = "main", .name = "main", .decl_file = decl_file, .decl_line = 3,
    .value_offset = 0, .nvalues = 1, .nblocks = 3, .blocks = blocks, .nedges = 2,
    .edges = edges };
  char *files[1] = { "/src/a.c" };
  pp_unit_notes n = { .mode = PP_MODE_EDGE_COUNTS, .unit_name = "/src/a.c",
		      .nfiles = 1, .files = files, .nfunctions = 1,
		      .functions = &f };
  pp_notes_encode (&n, buf, len);
}

static bool
decode_fails_with (const unsigned char *buf, size_t len, const char *expect)
{
  pp_unit_notes d;
  char err[256] = "";
  if (pp_notes_decode (buf, len, &d, err, sizeof err) == 0)
    {
      pp_notes_free (&d);
      printf ("note: decoded, expected an error containing '%s'\n", expect);
      return false;
    }
  if (!strstr (err, expect))
    {
      printf ("note: error '%s' lacks '%s'\n", err, expect);
      return false;
    }
  return true;
}

static void
test_notes_errors (void)
{
  unsigned char *buf;
  size_t len;
  bool ok = true;

  encode_one_function (0, 0, 0, &buf, &len);
  pp_unit_notes d;
  char err[256];
  ok &= pp_notes_decode (buf, len, &d, err, sizeof err) == 0;
  if (ok)
    {
      ok &= pp_notes_check_values (&d, 1, err, sizeof err) == 0;
      ok &= pp_notes_check_values (&d, 0, err, sizeof err) != 0
	    && strstr (err, "'main'") != NULL;
      pp_notes_free (&d);
    }
  ok &= decode_fails_with (buf, len - 1, "truncated");
  ok &= decode_fails_with (buf, len - 1, "(function 'main')");
  buf[0] ^= 1;
  ok &= decode_fails_with (buf, len, "bad magic");
  buf[0] ^= 1;
  buf[4] = PP_NOTES_VERSION + 1;	/* a version this reader does not know */
  char unknown_version[32];
  snprintf (unknown_version, sizeof unknown_version, "version %u",
	    PP_NOTES_VERSION + 1);
  ok &= decode_fails_with (buf, len, unknown_version);
  buf[4] = PP_NOTES_VERSION;
  buf[8] = 99;
  ok &= decode_fails_with (buf, len, "unknown mode 99");
  ok &= decode_fails_with (buf, len, "(header)");
  buf[8] = PP_MODE_EDGE_COUNTS;

  unsigned char *longer = malloc (len + 3);
  memcpy (longer, buf, len);
  ok &= decode_fails_with (longer, len + 3, "3 unexpected bytes");
  free (longer);
  free (buf);

  encode_one_function (3, 0, 0, &buf, &len);
  ok &= decode_fails_with (buf, len, "edge source 3 out of range");
  ok &= decode_fails_with (buf, len, "(function 'main', edge 0)");
  free (buf);
  encode_one_function (0, 1, 0, &buf, &len);
  ok &= decode_fails_with (buf, len, "value index 1 out of range");
  free (buf);
  encode_one_function (0, -2, 0, &buf, &len);
  ok &= decode_fails_with (buf, len, "value index");
  free (buf);
  encode_one_function (0, 0, 1, &buf, &len);
  ok &= decode_fails_with (buf, len, "file index 1 out of range");

  /* A huge count must be refused before anything is allocated for it.  */
  size_t nfiles_at = 16 + 4 + strlen ("/src/a.c");
  memcpy (buf + nfiles_at, "\xff\xff\xff\x7f", 4);
  ok &= decode_fails_with (buf, len, "2147483647 files cannot fit");
  free (buf);
  unit_result (ok, "notes: clear errors for each kind of damage", "see notes");
}

/* The trace mode's direct calls: kept by a round trip, refused when a
   callee is not a function of the unit or the blocks are out of order.  */
static void
test_notes_direct (void)
{
  pp_line_ref line = { 0, 7 };
  pp_block_notes blocks[4] = { { 0, -1, 0, NULL }, { 0, -1, 0, NULL },
			       { PP_BLOCK_CALLS, -1, 1, &line },
			       { PP_BLOCK_CALLS, -1, 1, &line } };
  pp_edge_notes edges[3] = { { 0, 2, 0, -1 }, { 2, 3, 0, -1 }, { 3, 1, 0, 0 } };
  pp_direct_call direct[2] = { { 2, 0 }, { 3, 1 } };
  pp_function_notes f[2] = {
    { .asm_name = "f", .name = "f", .decl_line = 3, .nvalues = 1, .nblocks = 4,
      .blocks = blocks, .nedges = 3, .edges = edges, .ndirect = 2, .direct = direct },
    { .asm_name = "g", .name = "g", .decl_line = 9, .nvalues = 1, .nblocks = 4,
      .blocks = blocks, .nedges = 3, .edges = edges } };
  char *files[1] = { "/src/a.c" };
  pp_unit_notes n = { .mode = PP_MODE_TRACE, .unit_name = "/src/a.c", .nfiles = 1,
		      .files = files, .nfunctions = 2, .functions = f };
  unsigned char *buf;
  size_t len;
  pp_unit_notes d;
  char err[256];
  bool ok = pp_notes_encode (&n, &buf, &len) == 0
	    && pp_notes_decode (buf, len, &d, err, sizeof err) == 0;
  if (ok)
    {
      ok = d.functions[0].ndirect == 2 && d.functions[1].ndirect == 0
	   && d.functions[0].direct[0].block == 2 && d.functions[0].direct[0].callee == 0
	   && d.functions[0].direct[1].block == 3 && d.functions[0].direct[1].callee == 1;
      pp_notes_free (&d);
    }
  if (ok)
    free (buf);
  direct[1].callee = 2;
  ok = ok && pp_notes_encode (&n, &buf, &len) == 0
       && decode_fails_with (buf, len, "callee 2 out of range")
       && decode_fails_with (buf, len, "(function 'f', direct call 1)");
  if (ok)
    free (buf);
  direct[1] = (pp_direct_call) { 1, 0 };
  ok = ok && pp_notes_encode (&n, &buf, &len) == 0
       && decode_fails_with (buf, len, "direct call in block 1 out of order");
  if (ok)
    free (buf);
  unit_result (ok, "notes: the trace mode's direct calls round-trip, bad ones are "
	       "refused", "see notes");
}

static void
test_notes_graph_and_modes (void)
{
  unsigned char *buf;
  size_t len;
  pp_unit_notes d = { 0 };
  pp_graph g;
  char err[256];
  bool ok;
  encode_one_function (0, 0, 0, &buf, &len);
  ok = pp_notes_decode (buf, len, &d, err, sizeof err) == 0
       && pp_notes_function_graph (&d.functions[0], &g) == 0;
  if (ok)
    {
      ok = g.nnodes == 3 && g.nedges == 2 && g.entry == 0 && g.exit == 1
	   && g.edges[0].src == 0 && g.edges[0].dst == 2
	   && g.edges[1].src == 2 && g.edges[1].dst == 1
	   && pp_graph_out_degree (&g, 2) == 1 && pp_graph_in_degree (&g, 2) == 1;
      pp_graph_free (&g);
    }
  pp_notes_free (&d);
  free (buf);
  unit_result (ok, "notes: function graph", "graph differs from the notes");

  /* A recorded CFG checksum that does not match the graph is refused, naming
     the function: find the checksum's bytes and change one.  */
  encode_one_function (0, 0, 0, &buf, &len);
  ok = pp_notes_decode (buf, len, &d, err, sizeof err) == 0;
  size_t at = len;
  if (ok)
    {
      unsigned char want[8];
      for (int i = 0; i < 8; i++)
	want[i] = (unsigned char) (d.functions[0].cfg_checksum >> (8 * i));
      for (size_t i = 0; i + 8 <= len && at == len; i++)
	if (memcmp (buf + i, want, 8) == 0)
	  at = i;
      pp_notes_free (&d);
    }
  ok = ok && at < len;
  if (ok)
    {
      buf[at] ^= 1;
      ok = decode_fails_with (buf, len, "CFG checksum recorded for function "
			      "'main'");
    }
  free (buf);
  unit_result (ok, "notes: a CFG checksum that differs is refused",
	       "decoded, or the message does not name the function");

  ok = strcmp (pp_mode_name (PP_MODE_EDGE_COUNTS), "edge-counts") == 0
       && strcmp (pp_mode_name (PP_MODE_BLOCK_COVER_EDGE_PROBES),
		  "block-cover-edge-probes") == 0
       && strcmp (pp_mode_name (PP_MODE_PATHS), "paths") == 0
       && strcmp (pp_mode_name (0), "unknown") == 0
       && strcmp (pp_mode_name (1000), "unknown") == 0;
  unit_result (ok, "notes: mode names", "wrong name");
}

/* ------------------------------------------------------------------------- */
/* Profiles.  */

/* Gives u up to max_n sparse counts in order, of functions below 4 and paths
   below path_range (or near 2^63), some counts near UINT64_MAX.  */
static void
random_sparse (pp_unit_data *u, uint32_t max_n, uint32_t path_range)
{
  uint32_t n = rnd (max_n + 1);
  u->sparse = calloc (n + 1, sizeof *u->sparse);
  u->nsparse = 0;
  for (uint32_t function = 0; function < 4; function++)
    for (uint64_t path = 0; path < path_range && u->nsparse < n; path++)
      if (rnd (path_range * 4) < max_n)
	u->sparse[u->nsparse++] = (pp_sparse_count) {
	  function, rnd (8) ? path : ((uint64_t) 1 << 62) + path,
	  rnd (4) ? 1 + rnd (1000) : UINT64_MAX - rnd (1000) };
  /* The paths near 2^63 may have broken the order: keep the ordered prefix.  */
  for (uint32_t i = 1; i < u->nsparse; i++)
    if (!pp_sparse_before (&u->sparse[i - 1], &u->sparse[i]))
      u->nsparse = i;
}

/* Gives u up to max_n wide counts in increasing order, of a width that its
   checksum decides (a unit merges only with itself), numbers with few bits
   set so that some repeat across units.  */
static void
random_wide (pp_unit_data *u, uint32_t max_n)
{
  uint32_t w = 1 + (uint32_t) (u->checksum % 3), n = rnd (max_n + 1);
  u->wide_words = n ? w : 0;
  u->wide = calloc ((size_t) (n + 1) * (w + 1), 8);
  u->nwide = 0;
  uint64_t *prev = NULL;
  for (uint32_t i = 0; i < n; i++)
    {
      uint64_t *x = u->wide + (size_t) u->nwide * (w + 1);
      for (uint32_t k = 0; k < w; k++)
	x[k] = rnd (3) ? rnd (4) : (uint64_t) 1 << 63 | rnd (4);
      x[w] = rnd (4) ? 1 + rnd (1000) : UINT64_MAX - rnd (1000);
      if (!prev || pp_wide_before (prev, x, w))
	prev = x, u->nwide++;
    }
}

static void
fill_unit (pp_unit_data *u, const char *name, uint32_t kind, uint32_t nvalues)
{
  memset (u, 0, sizeof *u);
  u->name = strdup (name);
  u->notes_len = rnd (40);
  u->notes = malloc (u->notes_len + 1);
  for (uint32_t i = 0; i < u->notes_len; i++)
    u->notes[i] = (unsigned char) unit_rand (&seed);
  u->checksum = pp_hash64 (u->notes, u->notes_len, PP_HASH_SEED);
  u->runs = rnd (3) ? rnd (100) : UINT64_MAX - rnd (3);
  u->value_kind = kind;
  u->nvalues = nvalues;
  if (kind == PP_VALUES_U8)
    {
      uint8_t *v = malloc (nvalues + 1);
      for (uint32_t i = 0; i < nvalues; i++)
	v[i] = (uint8_t) rnd (2);
      u->values = v;
    }
  else
    {
      uint64_t *v = malloc (nvalues * 8 + 8);
      for (uint32_t i = 0; i < nvalues; i++)
	v[i] = rnd (4) ? rnd (1000) : UINT64_MAX - rnd (1000);
      u->values = v;
    }
  random_sparse (u, 8, 1000);
  random_wide (u, 6);
}

static void
free_unit (pp_unit_data *u)
{
  free (u->name);
  free (u->notes);
  free (u->values);
  free (u->sparse);
  free (u->wide);
}

static void
random_profile (pp_profile *p)
{
  memset (p, 0, sizeof *p);
  uint32_t n = rnd (6);
  for (uint32_t i = 0; i < n; i++)
    {
      pp_unit_data u;
      char name[32];
      snprintf (name, sizeof name, "/src/u%u.c", i);
      fill_unit (&u, name, rnd (2) ? PP_VALUES_U64 : PP_VALUES_U8, rnd (20));
      char err[256];
      if (pp_profile_merge_unit (p, &u, err, sizeof err) != 0)
	printf ("note: merge failed: %s\n", err);
      free_unit (&u);
    }
}

static unsigned char *
encode (const pp_profile *p, size_t *len)
{
  unsigned char *buf = NULL;
  if (pp_profile_encode (p, &buf, len))
    *len = 0;
  return buf;
}

static bool
profiles_equal (const pp_profile *a, const pp_profile *b)
{
  size_t la, lb;
  unsigned char *ea = encode (a, &la), *eb = encode (b, &lb);
  bool same = ea && eb && la == lb && memcmp (ea, eb, la) == 0;
  free (ea);
  free (eb);
  return same;
}

static void
test_profile_round_trip (void)
{
  const char *why = "";
  for (int iter = 0; iter < 500 && !*why; iter++)
    {
      pp_profile p, d;
      size_t len;
      char err[256];
      random_profile (&p);
      unsigned char *buf = encode (&p, &len);
      if (!buf)
	why = "encode failed";
      else if (pp_profile_decode (buf, len, &d, err, sizeof err))
	why = "decode failed";
      else
	{
	  if (d.nunits != p.nunits)
	    why = "unit count differs";
	  for (uint32_t i = 0; i < p.nunits && !*why; i++)
	    {
	      const pp_unit_data *u = &p.units[i], *v = &d.units[i];
	      size_t size = u->value_kind == PP_VALUES_U8 ? 1 : 8;
	      if (strcmp (u->name, v->name) || u->checksum != v->checksum
		  || u->runs != v->runs || u->notes_len != v->notes_len
		  || memcmp (u->notes, v->notes, u->notes_len)
		  || u->value_kind != v->value_kind || u->nvalues != v->nvalues
		  || memcmp (u->values, v->values, u->nvalues * size)
		  || u->nsparse != v->nsparse)
		why = "decoded unit differs";
	      for (uint32_t k = 0; k < u->nsparse && !*why; k++)
		if (u->sparse[k].function != v->sparse[k].function
		    || u->sparse[k].path != v->sparse[k].path
		    || u->sparse[k].count != v->sparse[k].count)
		  why = "decoded sparse counts differ";
	    }
	  if (!*why && !profiles_equal (&p, &d))
	    why = "re-encoding differs";
	  pp_profile_free (&d);
	}
      free (buf);
      pp_profile_free (&p);
    }
  unit_result (!*why, "profile: random round trips", "%s", why);
}

static void
test_profile_truncations_and_flips (void)
{
  const char *why = "";
  int truncations = 0, flips = 0;
  for (int iter = 0; iter < 60 && !*why; iter++)
    {
      pp_profile p, d;
      size_t len;
      char err[256], expect[64];
      random_profile (&p);
      unsigned char *buf = encode (&p, &len);
      pp_profile_free (&p);
      /* The empty prefix is the empty profile; every other one is truncated.  */
      for (size_t cut = 1; cut < len && !*why; cut++, truncations++)
	{
	  snprintf (expect, sizeof expect, "truncated at byte %zu", cut);
	  if (pp_profile_decode (buf, cut, &d, err, sizeof err) == 0)
	    why = "a truncated profile was accepted";
	  else if (strncmp (err, expect, strlen (expect)) != 0)
	    {
	      printf ("note: cut at %zu: '%s'\n", cut, err);
	      why = "a truncation is reported as something else";
	    }
	}
      unsigned char *copy = malloc (len);
      for (int f = 0; f < 100 && !*why; f++, flips++)
	{
	  memcpy (copy, buf, len);
	  copy[rnd ((uint32_t) len)] ^= (unsigned char) (1 + rnd (255));
	  err[0] = 0;
	  if (pp_profile_decode (copy, len, &d, err, sizeof err) == 0)
	    why = "a corrupted profile was accepted";
	  else if (!*err)
	    why = "no message for a corrupted profile";
	}
      free (copy);
      free (buf);
    }
  unit_result (!*why, "profile: every truncation and byte flip rejected", "%s",
	       why);
  printf ("note: %d truncations and %d flips rejected\n", truncations, flips);
}

static void
test_profile_garbage (void)
{
  unsigned char buf[300];
  bool ok = true;
  for (int iter = 0; iter < 20000; iter++)
    {
      size_t len = rnd (sizeof buf);
      for (size_t i = 0; i < len; i++)
	buf[i] = (unsigned char) unit_rand (&seed);
      if (len >= 16 && rnd (4))
	{
	  memcpy (buf, "PATHPROF\2\0\0\0", 12);
	  if (rnd (2))
	    memset (buf + 13, 0, 3);
	}
      pp_profile d;
      char err[256] = "";
      if (pp_profile_decode (buf, len, &d, err, sizeof err) == 0)
	ok &= len == 0;
      else
	ok &= *err != 0;
      pp_profile_free (&d);
    }
  unit_result (ok, "profile: random garbage rejected without crashing",
	       "garbage accepted or no message");
}

/* Re-seals a hand-edited profile so that only the edit is wrong.  */
static void
reseal (unsigned char *buf, size_t len)
{
  pp_profile_seal (buf, len);	/* nothing to do when the structure is broken */
}

static bool
profile_fails_with (const unsigned char *buf, size_t len, const char *expect)
{
  pp_profile d;
  char err[256] = "";
  if (pp_profile_decode (buf, len, &d, err, sizeof err) == 0)
    {
      pp_profile_free (&d);
      printf ("note: decoded, expected '%s'\n", expect);
      return false;
    }
  if (!strstr (err, expect))
    {
      printf ("note: error '%s' lacks '%s'\n", err, expect);
      return false;
    }
  return true;
}

/* The writer libprof uses (gathered writes, notes in place) writes exactly
   what pp_profile_encode encodes; decoding with borrowed notes gives the same
   profile; a trusted unit's damaged notes are taken from the trusted unit,
   any other unit's are refused; the trailer ignores the notes' bytes.  */
static void
test_profile_writer (void)
{
  pp_profile p = { 0 };
  pp_unit_data u[3];
  char err[256];
  bool ok = true;
  fill_unit (&u[0], "/src/a.c", PP_VALUES_U64, 3);
  fill_unit (&u[1], "/src/b.c", PP_VALUES_U8, 5);
  fill_unit (&u[2], "/src/c.c", PP_VALUES_U64, 0);
  for (int i = 0; i < 3; i++)
    ok &= pp_profile_merge_unit (&p, &u[i], err, sizeof err) == 0;
  size_t len, wlen;
  unsigned char *buf = encode (&p, &len), *written = NULL;
  FILE *tmp = tmpfile ();
  ok &= tmp && pp_profile_write (fileno (tmp), &p) == 0;
  if (tmp)
    {
      rewind (tmp);
      ok &= pp_read_all (fileno (tmp), &written, &wlen) == 0 && wlen == len
	    && memcmp (written, buf, len) == 0;
      fclose (tmp);
    }
  if (!ok)
    printf ("note: the writer and the encoder differ\n");

  pp_profile b;
  if (pp_profile_decode_borrowing (buf, len, NULL, 0, &b, err, sizeof err) == 0)
    {
      ok &= b.notes_borrowed && b.nunits == 3
	    && b.units[1].notes >= buf && b.units[1].notes < buf + len
	    && memcmp (b.units[1].notes, u[1].notes, u[1].notes_len) == 0;
      pp_profile_free (&b);
    }
  else
    ok = false;

  /* Damage a.c's notes: the trailer still holds.  */
  size_t notes_at = 16 + 4 + strlen (u[0].name) + 8 + 8 + 4;
  buf[notes_at + u[0].notes_len / 2] ^= 0x04;
  ok &= profile_fails_with (buf, len, "do not match its checksum");
  ok &= pp_profile_decode_borrowing (buf, len, &u[1], 1, &b, err, sizeof err) != 0
	&& strstr (err, "/src/a.c");
  if (pp_profile_decode_borrowing (buf, len, &u[0], 1, &b, err, sizeof err) == 0)
    {
      ok &= b.units[0].notes == u[0].notes;
      pp_profile_free (&b);
    }
  else
    {
      printf ("note: trusted unit refused: %s\n", err);
      ok = false;
    }
  free (buf);
  free (written);
  pp_profile_free (&p);
  for (int i = 0; i < 3; i++)
    free_unit (&u[i]);
  unit_result (ok, "profile: gathered writer equals the encoder; borrowed notes; "
	       "a trusted unit's damaged notes are replaced, others refused",
	       "see notes");
}

static void
test_profile_errors (void)
{
  pp_profile p = { 0 };
  pp_unit_data u;
  size_t len;
  char err[256];
  bool ok = true;
  fill_unit (&u, "/src/a.c", PP_VALUES_U64, 3);
  pp_profile_merge_unit (&p, &u, err, sizeof err);
  pp_profile_merge_unit (&p, &u, err, sizeof err);
  unsigned char *buf = encode (&p, &len);
  size_t kind_at = 16 + 4 + strlen (u.name) + 8 + 8 + 4 + u.notes_len;

  ok &= profile_fails_with ((const unsigned char *) "#!/bin/sh\n", 10,
			    "not a pathprof profile (bad magic)");
  ok &= profile_fails_with (buf, 5, "truncated at byte 5");
  buf[8] = 7;
  ok &= profile_fails_with (buf, len, "unsupported format version 7");
  buf[8] = PP_PROFILE_VERSION;
  buf[len - 20] ^= 0x10;
  ok &= profile_fails_with (buf, len, "bad trailer checksum: file is corrupted");
  buf[len - 20] ^= 0x10;
  buf[kind_at] = 9;
  reseal (buf, len);
  ok &= profile_fails_with (buf, len, "unknown value kind 9");
  buf[kind_at] = PP_VALUES_U64;
  if (u.notes_len)
    {
      buf[kind_at - 1] ^= 1;
      reseal (buf, len);
      ok &= profile_fails_with (buf, len, "do not match its checksum");
      buf[kind_at - 1] ^= 1;
    }
  memcpy (buf + 12, "\0\0\0\1", 4);
  reseal (buf, len);
  ok &= profile_fails_with (buf, len, "announces 16777216 units");
  free (buf);

  /* The same unit twice is a damaged file, not something to merge.  */
  pp_unit_data twice[2] = { p.units[0], p.units[0] };
  pp_profile dup = { .nunits = 2, .cap = 2, .units = twice };
  buf = encode (&dup, &len);
  ok &= profile_fails_with (buf, len, "appears twice");
  free (buf);

  pp_profile d;
  int sys_errno = 0;
  ok &= pp_profile_read_file ("/nonexistent/pathprof.data", &d, &sys_errno, err,
			      sizeof err) == -1 && sys_errno == ENOENT;
  pp_profile_free (&p);
  free_unit (&u);
  unit_result (ok, "profile: clear errors for each kind of damage", "see notes");
}

/* Wide path counts: written and read back, merged by adding equal numbers,
   refused out of order; a version 3 file (which has none) still reads.  */
static void
test_profile_wide (void)
{
  pp_unit_data u;
  uint64_t wide[3][3] = { { 5, 0, 1 }, { 1, 1, 2 }, { 0, 2, 3 } };
  pp_profile p = { .nunits = 1, .cap = 1, .units = &u }, d, m = { 0 };
  size_t len;
  char err[256];
  fill_unit (&u, "/src/w.c", PP_VALUES_U64, 2);
  free (u.wide);
  u.wide = &wide[0][0];
  u.wide_words = 2;
  u.nwide = 3;
  unsigned char *buf = encode (&p, &len);
  bool ok = buf && pp_profile_decode (buf, len, &d, err, sizeof err) == 0
	    && d.units[0].nwide == 3 && d.units[0].wide_words == 2
	    && memcmp (d.units[0].wide, wide, sizeof wide) == 0;
  /* Merged twice: the counts double.  */
  ok = ok && pp_profile_merge_unit (&m, &u, err, sizeof err) == 0
       && pp_profile_merge_unit (&m, &d.units[0], err, sizeof err) == 0
       && m.units[0].nwide == 3 && m.units[0].wide[2] == 2
       && m.units[0].wide[8] == 6;
  /* Out of order: the third number (2 << 64) made 0.  */
  if (buf)
    {
      unsigned char *bad = malloc (len);
      memcpy (bad, buf, len);
      size_t third = len - 8 - 3 * 8;
      memset (bad + third, 0, 16);
      reseal (bad, len);
      ok = ok && profile_fails_with (bad, len, "wide path counts of unit "
				     "'/src/w.c' are out of order or repeated (count 2)");
      free (bad);
    }
  /* Version 3: the same file without the wide section.  */
  u.nwide = u.wide_words = 0;
  free (buf);
  buf = encode (&p, &len);
  if (buf)
    {
      unsigned char *v3 = malloc (len);
      memcpy (v3, buf, len - 16);
      memcpy (v3 + len - 16, buf + len - 8, 8);
      v3[8] = 3;
      reseal (v3, len - 8);
      pp_profile o;
      ok = ok && pp_profile_decode (v3, len - 8, &o, err, sizeof err) == 0
	   && o.nunits == 1 && o.units[0].nwide == 0;
      if (ok)
	pp_profile_free (&o);
      free (v3);
    }
  free (buf);
  pp_profile_free (&d);
  pp_profile_free (&m);
  u.wide = NULL;
  free_unit (&u);
  unit_result (ok, "profile: wide path counts round-trip, merge and are checked; "
	       "version 3 files still read", err);
}

static void
test_profile_sparse_errors (void)
{
  pp_unit_data u;
  pp_sparse_count sorted[3] = { { 0, 7, 1 }, { 0, 9, 2 }, { 2, 1, 3 } };
  pp_profile p = { .nunits = 1, .cap = 1, .units = &u };
  size_t len;
  char err[256], expect[128];
  fill_unit (&u, "/src/s.c", PP_VALUES_U64, 2);
  free (u.sparse);
  free (u.wide);
  u.sparse = sorted;
  u.nsparse = 3;
  u.wide = NULL;
  u.nwide = u.wide_words = 0;
  unsigned char *buf = encode (&p, &len);
  size_t first = len - 8 - 8 - 3 * 20;
  bool ok = buf != NULL;
  ok = ok && profile_fails_with (buf, len - 30, "3 path counts at byte");

  /* Entry 1 repeats entry 0's key.  */
  unsigned char *bad = malloc (len);
  memcpy (bad, buf, len);
  memcpy (bad + first + 20, bad + first, 12);
  reseal (bad, len);
  snprintf (expect, sizeof expect, "corrupted at byte %zu: the path counts of "
	    "unit '/src/s.c' are out of order or repeated (function 0, path 7)",
	    first + 20);
  ok = ok && profile_fails_with (bad, len, expect);
  /* Entry 2 goes back to function 0.  */
  memcpy (bad, buf, len);
  bad[first + 40] = 0;
  reseal (bad, len);
  snprintf (expect, sizeof expect, "corrupted at byte %zu", first + 40);
  ok = ok && profile_fails_with (bad, len, expect)
       && profile_fails_with (bad, len, "(function 0, path 1)");
  free (bad);
  free (buf);

  /* Nothing writes or merges counts out of order.  */
  sorted[2].function = 0;
  pp_profile m = { 0 };
  unsigned char *out = NULL;
  errno = 0;
  ok = ok && pp_profile_encode (&p, &out, &len) == -1 && errno == EINVAL
       && pp_profile_merge_unit (&m, &u, err, sizeof err) == -1
       && strstr (err, "out of order") && m.nunits == 0;
  free (out);
  u.sparse = NULL;
  u.nsparse = 0;
  free_unit (&u);
  unit_result (ok, "profile: path counts out of order or repeated are corruption",
	       "see notes");
}

static void
test_profile_read_fd (void)
{
  char path[] = "/tmp/test-format-XXXXXX";
  int fd = mkstemp (path);
  pp_profile p, d;
  size_t len;
  char err[256];
  bool ok = fd >= 0;
  random_profile (&p);
  unsigned char *buf = encode (&p, &len);
  if (ok)
    {
      ok = pp_write_all (fd, buf, len) == 0 && lseek (fd, 0, SEEK_SET) == 0
	   && pp_profile_read_fd (fd, &d, err, sizeof err) == 0;
      if (ok)
	{
	  ok = profiles_equal (&p, &d);
	  pp_profile_free (&d);
	}
      ok &= pp_profile_read_file (path, &d, NULL, err, sizeof err) == 0
	    && profiles_equal (&p, &d);
      pp_profile_free (&d);
      ok &= ftruncate (fd, 0) == 0
	    && pp_profile_read_file (path, &d, NULL, err, sizeof err) == 0
	    && d.nunits == 0;
      close (fd);
      unlink (path);
    }
  free (buf);
  pp_profile_free (&p);
  unit_result (ok, "profile: read from a descriptor and a file", "mismatch");
}

/* ------------------------------------------------------------------------- */
/* Merging.  */

static uint64_t
u64_at (const pp_unit_data *u, uint32_t i)
{
  return ((const uint64_t *) u->values)[i];
}

static void
test_merge (void)
{
  pp_profile p = { 0 };
  pp_unit_data a, b, c;
  char err[256];
  bool ok = true;

  fill_unit (&a, "/src/a.c", PP_VALUES_U64, 4);
  uint64_t *av = a.values;
  av[0] = 5, av[1] = UINT64_MAX - 1, av[2] = 0, av[3] = UINT64_MAX;
  a.runs = 1;
  ok &= pp_profile_merge_unit (&p, &a, err, sizeof err) == 0 && p.nunits == 1;
  /* The profile keeps its own copy.  */
  av[0] = 7;
  ok &= u64_at (&p.units[0], 0) == 5;
  av[0] = 5;
  ok &= pp_profile_merge_unit (&p, &a, err, sizeof err) == 0 && p.nunits == 1;
  const pp_unit_data *m = pp_profile_find (&p, "/src/a.c", a.checksum);
  ok &= m && m->runs == 2 && u64_at (m, 0) == 10 && u64_at (m, 1) == UINT64_MAX
	&& u64_at (m, 2) == 0 && u64_at (m, 3) == UINT64_MAX;
  unit_result (ok, "merge: u64 values add and saturate, runs add", "wrong sums");

  ok = true;
  a.runs = UINT64_MAX;
  ok &= pp_profile_merge_unit (&p, &a, err, sizeof err) == 0
	&& pp_profile_find (&p, "/src/a.c", a.checksum)->runs == UINT64_MAX;
  unit_result (ok, "merge: runs saturate", "runs wrapped");

  fill_unit (&b, "/src/b.c", PP_VALUES_U8, 4);
  uint8_t *bv = b.values;
  bv[0] = 1, bv[1] = 0, bv[2] = 0, bv[3] = 1;
  ok = pp_profile_merge_unit (&p, &b, err, sizeof err) == 0;
  bv[0] = 0, bv[1] = 1, bv[2] = 0, bv[3] = 1;
  ok &= pp_profile_merge_unit (&p, &b, err, sizeof err) == 0 && p.nunits == 2;
  m = pp_profile_find (&p, "/src/b.c", b.checksum);
  const uint8_t *mv = m ? m->values : NULL;
  ok &= mv && mv[0] == 1 && mv[1] == 1 && mv[2] == 0 && mv[3] == 1;
  unit_result (ok, "merge: u8 values are or-ed", "wrong bytes");

  /* Same name, other checksum: stale, and p must not change.  */
  size_t before_len, after_len;
  unsigned char *before = encode (&p, &before_len), *after;
  fill_unit (&c, "/src/a.c", PP_VALUES_U64, 4);
  c.checksum ^= 1;		/* in case the random notes matched */
  ok = pp_profile_merge_unit (&p, &c, err, sizeof err) == 1
       && strstr (err, "/src/a.c") && strstr (err, "stale");
  after = encode (&p, &after_len);
  ok &= before_len == after_len && memcmp (before, after, before_len) == 0;
  free (after);
  unit_result (ok, "merge: stale unit returns 1, profile unchanged", "%s", err);

  /* Same name and checksum, other kind or size: refused, p unchanged.  */
  pp_unit_data k = a;
  k.value_kind = PP_VALUES_U8;
  ok = pp_profile_merge_unit (&p, &k, err, sizeof err) == -1
       && strstr (err, "u8") != NULL;
  k = a;
  k.nvalues = 3;
  ok &= pp_profile_merge_unit (&p, &k, err, sizeof err) == -1;
  k = a;
  k.value_kind = 42;
  ok &= pp_profile_merge_unit (&p, &k, err, sizeof err) == -1;
  after = encode (&p, &after_len);
  ok &= before_len == after_len && memcmp (before, after, before_len) == 0;
  free (after);
  unit_result (ok, "merge: kind or size mismatch refused, profile unchanged",
	       "%s", err);

  /* One source compiled twice into a program: checked as a set, both added.  */
  ok = pp_profile_check_unit (&p, &c, err, sizeof err) == 1
       && pp_profile_add_unit (&p, &c, err, sizeof err) == 0 && p.nunits == 3
       && pp_profile_find (&p, "/src/a.c", c.checksum)
       && pp_profile_find (&p, "/src/a.c", a.checksum)
       && pp_profile_check_unit (&p, &c, err, sizeof err) == 0
       && pp_profile_merge_unit (&p, &a, err, sizeof err) == 0;
  unit_result (ok, "merge: add_unit without stale check", "%s", err);

  free (before);
  free_unit (&a);
  free_unit (&b);
  free_unit (&c);
  pp_profile_free (&p);
}

/* The expected merge of sparse counts: a and b together, sorted by insertion,
   equal keys added with saturation.  Returns how many.  */
static uint32_t
brute_force_merge (const pp_unit_data *a, const pp_unit_data *b,
		   pp_sparse_count *out)
{
  uint32_t n = 0;
  const pp_unit_data *both[2] = { a, b };
  for (int w = 0; w < 2; w++)
    for (uint32_t i = 0; i < both[w]->nsparse; i++)
      {
	pp_sparse_count c = both[w]->sparse[i];
	uint32_t k = 0;
	while (k < n && pp_sparse_before (&out[k], &c))
	  k++;
	if (k < n && !pp_sparse_before (&c, &out[k]))
	  out[k].count = pp_sat_add (out[k].count, c.count);
	else
	  {
	    memmove (&out[k + 1], &out[k], (n - k) * sizeof *out);
	    out[k] = c;
	    n++;
	  }
      }
  return n;
}

static void
test_merge_sparse (void)
{
  const char *why = "";
  for (int iter = 0; iter < 300 && !*why; iter++)
    {
      pp_unit_data a, b;
      pp_profile p = { 0 };
      char err[256];
      fill_unit (&a, "/src/m.c", PP_VALUES_U64, 1);
      b = a;
      free (a.sparse);
      random_sparse (&a, 10, 12);
      random_sparse (&b, 10, 12);
      pp_sparse_count expect[20];
      uint32_t n = brute_force_merge (&a, &b, expect);
      if (pp_profile_merge_unit (&p, &a, err, sizeof err)
	  || pp_profile_merge_unit (&p, &b, err, sizeof err))
	why = "merge failed";
      else if (p.units[0].nsparse != n)
	why = "wrong number of merged counts";
      for (uint32_t i = 0; i < n && !*why; i++)
	if (pp_sparse_before (&p.units[0].sparse[i], &expect[i])
	    || pp_sparse_before (&expect[i], &p.units[0].sparse[i])
	    || p.units[0].sparse[i].count != expect[i].count)
	  why = "merged counts differ from the brute-force sums";
      pp_profile d;
      size_t len;
      unsigned char *buf = *why ? NULL : encode (&p, &len);
      if (!*why && (!buf || pp_profile_decode (buf, len, &d, err, sizeof err)))
	why = "the merged profile does not read back";
      else if (!*why)
	{
	  if (!profiles_equal (&p, &d))
	    why = "the merged profile reads back differently";
	  pp_profile_free (&d);
	}
      free (buf);
      free (b.sparse);
      free_unit (&a);
      pp_profile_free (&p);
    }
  unit_result (!*why, "merge: sparse path counts of equal keys add and saturate, "
	       "in order", "%s", why);
}

int
main (void)
{
  test_notes_round_trip ();
  test_notes_outline ();
  test_notes_truncations_and_flips ();
  test_notes_random_garbage ();
  test_notes_errors ();
  test_notes_direct ();
  test_notes_graph_and_modes ();
  test_profile_round_trip ();
  test_profile_truncations_and_flips ();
  test_profile_garbage ();
  test_profile_errors ();
  test_profile_writer ();
  test_profile_sparse_errors ();
  test_profile_wide ();
  test_profile_read_fd ();
  test_merge ();
  test_merge_sparse ();
  return unit_exit_status ();
}
