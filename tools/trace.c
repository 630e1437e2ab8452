/* pathprof trace: the regenerated execution of every thread of a trace file,
   block by block with source lines, calls, returns and longjmps; or, with
   --branches, the branch stream that pathprof-hw reads (hw/): one record per
   retired branch of the machine of branch-layout.h.  The last line says what the trace cost
   against recording every branch outcome (Ball-Larus 1994, table 3).  */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "trace-branches.h"

static const pp_function_notes *
notes_of (const trace_branches *b, uint32_t id, const trace_unit **unit)
{
  uint32_t u, f;
  trace_file_function (b->t, id, &u, &f);
  *unit = &b->t->units[u];
  return &b->t->units[u].notes.functions[f];
}

static void
print_block (const trace_branches *p, size_t depth, uint32_t id, uint32_t block)
{
  const trace_unit *u;
  const pp_function_notes *fn = notes_of (p, id, &u);
  printf ("%*s%s block %u", (int) (2 * depth), "", fn->name, block);
  const pp_block_notes *b = &fn->blocks[block];
  for (uint32_t i = 0; i < b->nlines; i++)
    {
      const char *file = u->notes.files[b->lines[i].file];
      const char *base = strrchr (file, '/');
      if (i == 0 || b->lines[i].file != b->lines[i - 1].file)
	printf ("%s%s:%u", i ? ", " : "  ", base ? base + 1 : file, b->lines[i].line);
      else
	printf (",%u", b->lines[i].line);
    }
  putchar ('\n');
}

/* The execution as text: every block, call, return and longjmp, printed
   along the branch module's events, which count what the cost line needs.  */
static void
print_event (void *ctx, enum pp_trace_ev ev, size_t depth, uint32_t id, uint32_t x)
{
  trace_branches *p = ctx;
  const trace_unit *u;
  const pp_function_notes *fn = notes_of (p, id, &u);
  switch (ev)
    {
    case PP_TRACE_EV_ENTER:
      printf ("%*scall %s\n", (int) (2 * depth - 2), "", fn->name);
      break;
    case PP_TRACE_EV_BLOCK:
      print_block (p, depth, id, x);
      break;
    case PP_TRACE_EV_EDGE:
      break;
    case PP_TRACE_EV_RETURN:
    case PP_TRACE_EV_UNWIND:
      printf ("%*s%s %s\n", (int) (2 * depth - 2), "",
	      ev == PP_TRACE_EV_RETURN ? "return from" : "left by longjmp:", fn->name);
      break;
    case PP_TRACE_EV_LAND:
      printf ("%*slongjmp to %s block %u\n", (int) (2 * depth), "", fn->name, x);
      break;
    }
  trace_branches_event (p, ev, depth, id, x);
}

static void
print_branch (void *ctx, uint32_t thread, enum trace_branch_kind kind, uint64_t src,
	      uint64_t dst)
{
  (void) ctx;
  (void) thread;
  printf ("%s 0x%" PRIx64 " 0x%" PRIx64 "\n", trace_branch_kind_name (kind), src, dst);
}

static void
print_label (void *ctx, uint64_t addr, const char *text)
{
  (void) ctx;
  printf ("label 0x%" PRIx64 " %s\n", addr, text);
}

int
trace_command (int argc, char **argv)
{
  bool branches = false, summary = false;
  const char *file, *pack = NULL, *unpack = NULL;
  const tool_option options[] = {
    { .name = "branches", .on = &branches },
    { .name = "summary", .on = &summary },
    { .name = "pack", .text = &pack },
    { .name = "unpack", .text = &unpack },
    { .name = NULL },
  };
  int parsed = tool_file_arguments (argc, argv, options, "trace file", &file);
  if (parsed >= 0)
    return parsed;
  if (pack && unpack)
    return tool_usage_error ("trace: --pack and --unpack exclude each other");
  trace_file t;
  char err[600];
  if (trace_file_read (file, &t, err, sizeof err))
    {
      tool_error (NULL, "%s", err);
      return 1;
    }
  if (pack || unpack)
    {
      /* The records the same bit for bit, packed (trace-pack.h) or not.  */
      uint64_t bits = 0, bytes;
      for (uint32_t i = 0; i < t.nthreads; i++)
	bits += t.threads[i].nbits;
      int rc = trace_file_pack (&t, pack ? pack : unpack, !pack, &bytes, err,
				sizeof err);
      if (rc)
	tool_error (NULL, "%s", err);
      else
	printf ("%s: %u thread(s), %" PRIu64 " bytes of records %s %" PRIu64 " bytes "
		"(%.2f times smaller)\n", pack ? pack : unpack, t.nthreads,
		(bits + 7) / 8, pack ? "packed into" : "in", bytes,
		bytes ? (double) bits / 8 / (double) bytes : 0.0);
      trace_file_free (&t);
      return rc ? 1 : 0;
    }
  trace_branches b;
  int status = 0;
  if (trace_branches_init (&b, &t))
    {
      tool_error (file, "out of memory");
      trace_file_free (&t);
      return 1;
    }
  branches &= !summary;
  if (branches)
    {
      printf ("# pathprof-branches 1\n# from %s\n", file);
      if (trace_branches_labels (&b, print_label, NULL))
	{
	  tool_error (file, "out of memory");
	  status = 1;
	}
    }
  uint64_t bits = 0;
  for (uint32_t i = 0; i < t.nthreads && status == 0; i++)
    {
      if (!summary)
	printf (branches ? "thread %u\n" : "thread %u:\n", t.threads[i].id);
      bits += t.threads[i].nbits;
      int rc;
      if (branches || summary)
	rc = trace_branches_thread (&b, i, branches ? print_branch : NULL, NULL, NULL,
				    err, sizeof err);
      else
	{
	  b.thread = t.threads[i].id;
	  b.branch = NULL;
	  rc = trace_file_regen (&t, i, print_event, &b, err, sizeof err);
	  if (rc == 0 && b.failed)
	    {
	      snprintf (err, sizeof err, "out of memory");
	      rc = -1;
	    }
	}
      if (rc)
	{
	  tool_error (file, "%s", err);
	  status = 1;
	}
    }
  if (status == 0 && summary)
    {
      /* What each kind of record cost (the bits of records the regeneration
	 consumed; a killed process's last partial record is in neither).  */
      static const char *const kinds[PP_TRACE_NSTATS] = {
	[PP_TRACE_STAT_WITNESS] = "witness", [PP_TRACE_STAT_ENTER] = "ENTER",
	[PP_TRACE_STAT_RETURN] = "RETURN", [PP_TRACE_STAT_LAND] = "LAND",
	[PP_TRACE_STAT_HIT] = "HIT", [PP_TRACE_STAT_MISS] = "MISS" };
      uint64_t all = 0;
      for (int k = 0; k < PP_TRACE_NSTATS; k++)
	all += t.stats.bits[k];
      printf ("%-9s %14s %14s %9s %7s\n", "record", "count", "bits", "each", "share");
      for (int k = 0; k < PP_TRACE_NSTATS; k++)
	printf ("%-9s %14" PRIu64 " %14" PRIu64 " %9.2f %6.1f%%\n", kinds[k],
		t.stats.records[k], t.stats.bits[k],
		t.stats.records[k] ? (double) t.stats.bits[k] / (double) t.stats.records[k]
		: 0.0, all ? 100.0 * (double) t.stats.bits[k] / (double) all : 0.0);
      printf ("%-9s %14" PRIu64 " %14d %9.2f %6.1f%%\n", "direct", t.stats.direct,
	      0, 0.0, 0.0);
      printf ("%-9s %14" PRIu64 " %14d %9.2f %6.1f%%\n", "announced",
	      t.stats.announced, 0, 0.0, 0.0);
    }
  if (status == 0)
    {
      double per = b.blocks ? 1000.0 / (double) b.blocks : 0;
      if (t.packed_bytes)
	printf ("%spacked: %" PRIu64 " bytes, %.1f bytes per 1000 blocks\n",
		branches ? "# " : "", t.packed_bytes, (double) t.packed_bytes * per);
      printf ("%s%" PRIu64 " blocks, %" PRIu64 " calls in %u thread(s): %.1f trace "
	      "bytes per 1000 blocks, %.1f to record every branch outcome\n",
	      branches ? "# " : "", b.blocks, b.calls, t.nthreads,
	      (double) bits / 8 * per, (double) b.outcome_bits / 8 * per);
    }
  trace_branches_free (&b);
  trace_file_free (&t);
  return status;
}
