/* pathprof-hw: runs the hardware path profiler model (hw.h) on a branch
   stream and prints the Hot Path Table's hottest paths, decoded to blocks
   where the stream labels them, and how much of the complete path profile
   the table captured.  The last line is "overlap P% with an HPT of B bytes".  */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw.h"
#include "trace-branches.h"

static void
usage (FILE *out)
{
  fprintf (out,
    "Usage: pathprof-hw [OPTIONS] FILE\n"
    "Models the hardware path profiler (path stack, PPCR, Hot Path Table) on the\n"
    "branch stream FILE ('pathprof trace --branches' output, or with --perf the\n"
    "text of 'perf script -F ip,brstack'; - for standard input).\n\n"
    "Input:\n"
    "  --perf                 FILE is perf script -F ip,brstack text\n"
    "Path detector:\n"
    "  --paths KIND           ball-larus (default, table 5.1), extended-loop,\n"
    "                         extended-interproc or wpp (table 5.2)\n"
    "  --extension N          extended paths: how many backward branches or calls\n"
    "                         a path may span (default 1)\n"
    "  --ppcr SPEC            a mapping of your own, TYPE=OPS;... with TYPE call,\n"
    "                         return, indirect, forward, backward and OPS a comma\n"
    "                         list of update, update-count, pop, push\n"
    "  --max-length N         branches per path descriptor, 1..64 (default 32);\n"
    "                         longer paths are split\n"
    "  --stack-depth N        path stack entries (default 32)\n"
    "  --overflow POLICY      drop-oldest (default) or grow\n"
    "  --queue N              branch queue entries (default 4)\n"
    "  --metric METRIC        what a path adds to its count: frequency (default,\n"
    "                         1) or branches (its 8-bit event counter of retired\n"
    "                         branches)\n"
    "Hot Path Table:\n"
    "  --entries N            entries (default 512)\n"
    "  --ways N               associativity (default 4)\n"
    "  --index SCHEME         address (start address from bit 4 up) or xor\n"
    "                         (default: that XOR length XOR outcomes)\n"
    "  --replace POLICY       lfu (default) or lru\n"
    "  --address-bits N       start address bits per entry, for the size (default 32)\n"
    "Output:\n"
    "  --top N                hottest paths to print (default 10)\n"
    "  --software FILE        compare the complete profile with the paths of a\n"
    "                         paths-mode run of the same program and input\n"
    "                         ('pathprof paths --descriptors' output)\n"
    "  --help, --version\n");
}

struct ctx
{
  hw_model *m;
};

static const uint8_t trace_kinds[] = {
  [TRACE_BRANCH_COND_TAKEN] = HW_COND_TAKEN,
  [TRACE_BRANCH_COND_NOT_TAKEN] = HW_COND_NOT_TAKEN,
  [TRACE_BRANCH_JUMP] = HW_JUMP,
  [TRACE_BRANCH_INDIRECT_JUMP] = HW_INDIRECT_JUMP,
  [TRACE_BRANCH_CALL] = HW_CALL,
  [TRACE_BRANCH_RETURN] = HW_RETURN,
};

static void
on_trace_branch (void *c, uint32_t thread, enum trace_branch_kind kind, uint64_t src,
		 uint64_t dst)
{
  hw_branch b = { trace_kinds[kind], thread, src, dst, 1 };
  hw_model_branch (((struct ctx *) c)->m, &b);
}

/* A run's branches: its forward ones in a row to the model at once, as far
   as it takes them, the others one at a time.  */
static void
on_trace_run (void *c, uint32_t thread, const trace_branch_run *r)
{
  hw_model *m = ((struct ctx *) c)->m;
  for (uint32_t i = 0; i < r->n;)
    {
      uint32_t want = r->fwd[i];
      if (want)
	{
	  uint32_t k = hw_model_forward (m, thread, want, trace_branch_run_taken (r, i),
					 r->dst + i, 1);
	  i += k;
	  if (k == want)
	    continue;		/* else branch i ends or splits the path */
	}
      hw_branch b = { trace_kinds[r->kinds[i]], thread, r->src[i], r->dst[i], 1 };
      hw_model_branch (m, &b);
      i++;
    }
}

struct label_ctx
{
  hw_labels *l;
  bool failed;
};

static void
on_trace_label (void *c, uint64_t addr, const char *text)
{
  struct label_ctx *lc = c;
  lc->failed |= hw_labels_add (lc->l, addr, text) != 0;
}

/* A trace file: its branch stream, regenerated a chunk at a time straight
   into the model (what `pathprof trace --branches` would print).  Errors
   name the file.  */
static int
read_trace (const char *file, hw_labels *labels, struct ctx *ctx, char *err,
	    size_t errlen)
{
  trace_file t;
  if (trace_file_read (file, &t, err, errlen))
    return -1;
  trace_branches b;
  struct label_ctx lab = { labels, false };
  int status = 0;
  if (trace_branches_init (&b, &t))
    {
      trace_file_free (&t);
      return snprintf (err, errlen, "out of memory"), -1;
    }
  if (trace_branches_labels (&b, on_trace_label, &lab) || lab.failed)
    {
      snprintf (err, errlen, "out of memory");
      status = -1;
    }
  for (uint32_t i = 0; i < t.nthreads && status == 0; i++)
    {
      char why[300];
      status = trace_branches_thread (&b, i, on_trace_branch, on_trace_run, ctx, why,
				      sizeof why);
      if (status)
	snprintf (err, errlen, "%.4096s: %s", file, why);
    }
  trace_branches_free (&b);
  trace_file_free (&t);
  return status;
}

static void
on_branch (void *c, const hw_branch *b)
{
  hw_model_branch (((struct ctx *) c)->m, b);
}

static void
on_sample_end (void *c)
{
  hw_model_end_thread (((struct ctx *) c)->m, 0);
}

static int
number (const char *option, const char *arg, uint64_t min, uint64_t max,
	uint64_t *out)
{
  char *end;
  errno = 0;
  unsigned long long v = strtoull (arg, &end, 10);
  if (errno || end == arg || *end || v < min || v > max || arg[0] == '-')
    {
      fprintf (stderr, "pathprof-hw: --%s %s: expected a number from %" PRIu64
	       " to %" PRIu64 "\n", option, arg, min, max);
      return -1;
    }
  *out = v;
  return 0;
}

static int
choice (const char *option, const char *arg, const char *const *names, int *out)
{
  for (int i = 0; names[i]; i++)
    if (strcmp (arg, names[i]) == 0)
      {
	*out = i;
	return 0;
      }
  fprintf (stderr, "pathprof-hw: --%s %s: expected", option, arg);
  for (int i = 0; names[i]; i++)
    fprintf (stderr, "%s %s", i ? (names[i + 1] ? "," : " or") : "", names[i]);
  fputc ('\n', stderr);
  return -1;
}

static int
by_count (const void *a, const void *b)
{
  const hw_hpt_entry *x = a, *y = b;
  if (x->valid != y->valid)
    return x->valid ? -1 : 1;
  return (x->count < y->count) - (x->count > y->count);
}

static void
print_address (const hw_labels *l, uint64_t addr)
{
  const char *label = hw_label (l, addr);
  if (label)
    printf ("%s", label);
  else
    printf ("0x%" PRIx64, addr);
}

static void
print_row (const char *what, const hw_compare_row *r, const hw_compare_row *all)
{
  printf ("  %s: %" PRIu64 " paths, %" PRIu64 " executions (%.1f%%)\n", what,
	  r->paths, r->executions,
	  all->executions ? 100.0 * (double) r->executions / (double) all->executions
	  : 0.0);
}

/* --software: the software paths found among the complete profile's.  */
static int
compare_software (const char *file, const hw_labels *labels,
		  const hw_profile *complete, uint32_t max_length)
{
  FILE *in = fopen (file, "r");
  if (!in)
    {
      fprintf (stderr, "pathprof-hw: %s: %s\n", file, strerror (errno));
      return -1;
    }
  hw_comparison c;
  char err[600];
  int status = hw_compare (in, labels, complete, max_length, &c, err, sizeof err);
  fclose (in);
  if (status)
    {
      fprintf (stderr, "pathprof-hw: %s: %s\n", file, err);
      return -1;
    }
  printf ("software paths of %s: %" PRIu64 " paths, %" PRIu64 " executions\n",
	  file, c.software.paths, c.software.executions);
  print_row ("the same path with the same count", &c.same, &c.software);
  print_row ("the same path with another count", &c.other_count, &c.software);
  print_row ("no such hardware path", &c.missing, &c.software);
  print_row ("(in those three, sharing a descriptor: counted together)",
	     &c.shared, &c.software);
  for (int r = 0; r < HW_COMPARE_NREASONS; r++)
    {
      char what[64];
      snprintf (what, sizeof what, "ends otherwise (%s)", hw_compare_reason_name (r));
      print_row (what, &c.reason[r], &c.software);
    }
  printf ("hardware paths: %" PRIu64 " paths, %" PRIu64 " executions; found by "
	  "the software paths: %" PRIu64 " paths, %" PRIu64 " executions (%.1f%%)\n",
	  c.hardware.paths, c.hardware.executions, c.hardware_matched.paths,
	  c.hardware_matched.executions,
	  c.hardware.executions ? 100.0 * (double) c.hardware_matched.executions
				  / (double) c.hardware.executions : 0.0);
  return 0;
}

int
main (int argc, char **argv)
{
  static const struct option options[] = {
    { "perf", no_argument, NULL, 'P' },
    { "paths", required_argument, NULL, 'k' },
    { "extension", required_argument, NULL, 'x' },
    { "ppcr", required_argument, NULL, 'p' },
    { "max-length", required_argument, NULL, 'l' },
    { "stack-depth", required_argument, NULL, 'd' },
    { "overflow", required_argument, NULL, 'o' },
    { "queue", required_argument, NULL, 'q' },
    { "metric", required_argument, NULL, 'M' },
    { "entries", required_argument, NULL, 'e' },
    { "ways", required_argument, NULL, 'w' },
    { "index", required_argument, NULL, 'i' },
    { "replace", required_argument, NULL, 'r' },
    { "address-bits", required_argument, NULL, 'a' },
    { "top", required_argument, NULL, 't' },
    { "software", required_argument, NULL, 's' },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 }
  };
  static const char *const overflow_names[] = { "drop-oldest", "grow", NULL };
  static const char *const metric_names[] = { "frequency", "branches", NULL };
  static const char *const index_names[] = { "address", "xor", NULL };
  static const char *const replace_names[] = { "lfu", "lru", NULL };
  bool perf = false;
  const char *software = NULL;
  const char *paths = "ball-larus", *ppcr = NULL;
  uint64_t extension = 1, max_length = 32, stack_depth = 32, queue = 4;
  uint64_t entries = 512, ways = 4, address_bits = 32, top = 10;
  int overflow = HW_OVERFLOW_DROP_OLDEST, metric = HW_METRIC_FREQUENCY;
  int index = HW_INDEX_XOR, replace = HW_REPLACE_LFU;
  int c, bad = 0;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":", options, NULL)) != -1)
    switch (c)
      {
      case 'P': perf = true; break;
      case 's': software = optarg; break;
      case 'k': paths = optarg; break;
      case 'p': ppcr = optarg; break;
      case 'x': bad |= number ("extension", optarg, 0, 1000000, &extension); break;
      case 'l': bad |= number ("max-length", optarg, 1, 64, &max_length); break;
      case 'd': bad |= number ("stack-depth", optarg, 1, 1u << 24, &stack_depth); break;
      case 'q': bad |= number ("queue", optarg, 1, 1u << 20, &queue); break;
      case 'e': bad |= number ("entries", optarg, 1, 1u << 24, &entries); break;
      case 'w': bad |= number ("ways", optarg, 1, 1u << 24, &ways); break;
      case 'a': bad |= number ("address-bits", optarg, 1, 64, &address_bits); break;
      case 't': bad |= number ("top", optarg, 0, UINT32_MAX, &top); break;
      case 'o': bad |= choice ("overflow", optarg, overflow_names, &overflow); break;
      case 'M': bad |= choice ("metric", optarg, metric_names, &metric); break;
      case 'i': bad |= choice ("index", optarg, index_names, &index); break;
      case 'r': bad |= choice ("replace", optarg, replace_names, &replace); break;
      case 'h': usage (stdout); return 0;
      case 'V': printf ("pathprof-hw %s\n", PATHPROF_VERSION); return 0;
      default:
	fprintf (stderr, "pathprof-hw: %s: %s\n", argv[optind - 1],
		 c == ':' ? "needs a value" : "unknown option");
	bad = 1;
      }
  if (!bad && optind + 1 != argc)
    {
      fprintf (stderr, "pathprof-hw: give one branch stream file\n");
      bad = 1;
    }
  hw_config cfg = { .max_length = (uint32_t) max_length,
		    .stack_depth = (uint32_t) stack_depth,
		    .overflow = (uint8_t) overflow, .metric = (uint8_t) metric,
		    .queue = (uint32_t) queue };
  char err[4500];
  if (!bad && ppcr && hw_ppcr_parse (&cfg.ppcr, ppcr, err, sizeof err))
    {
      fprintf (stderr, "pathprof-hw: --ppcr: %s\n", err);
      bad = 1;
    }
  else if (!bad && !ppcr && hw_ppcr_preset (&cfg.ppcr, paths, (uint32_t) extension))
    {
      fprintf (stderr, "pathprof-hw: --paths %s: expected ball-larus, extended-loop, "
	       "extended-interproc or wpp\n", paths);
      bad = 1;
    }
  if (!bad && entries % ways)
    {
      fprintf (stderr, "pathprof-hw: --entries %" PRIu64 " is not a multiple of "
	       "--ways %" PRIu64 "\n", entries, ways);
      bad = 1;
    }
  if (bad)
    {
      usage (stderr);
      return 2;
    }
  const char *file = argv[optind];
  bool trace = !perf && strcmp (file, "-") != 0 && trace_file_is_trace (file);
  FILE *in = trace ? NULL : strcmp (file, "-") == 0 ? stdin : fopen (file, "r");
  if (!trace && !in)
    {
      fprintf (stderr, "pathprof-hw: %s: %s\n", file, strerror (errno));
      return 1;
    }
  hw_hpt hpt;
  hw_model m;
  hw_labels labels = { 0 };
  if (hw_hpt_init (&hpt, (uint32_t) entries, (uint32_t) ways, index, replace)
      || hw_model_init (&m, &cfg, &hpt))
    {
      fprintf (stderr, "pathprof-hw: out of memory\n");
      return 1;
    }
  struct ctx ctx = { &m };
  int status = trace ? read_trace (file, &labels, &ctx, err, sizeof err)
	       : hw_read (in, perf, &labels, on_branch, on_sample_end, &ctx, err,
			  sizeof err);
  if (in && in != stdin)
    fclose (in);
  if (status && trace)
    fprintf (stderr, "pathprof-hw: %s\n", err);
  else if (status)
    fprintf (stderr, "pathprof-hw: %s: %s\n", file, err);
  else
    {
      hw_model_flush (&m);
      if (m.failed)
	{
	  fprintf (stderr, "pathprof-hw: %s: out of memory\n", file);
	  status = -1;
	}
    }
  if (status == 0)
    {
      printf ("%s: %" PRIu64 " branches; %" PRIu64 " paths, %zu distinct; stack "
	      "overflows %" PRIu64 ", underflows %" PRIu64 ", splits %" PRIu64 "\n",
	      file, m.branches, m.paths, m.complete.n, m.overflows, m.underflows,
	      m.splits);
      printf ("HPT: %u entries, %u-way, %s indexing, %s replacement: %" PRIu64
	      " lookups, %" PRIu64 " misses, %" PRIu64 " replacements\n",
	      hpt.entries, hpt.ways, index_names[index], replace_names[replace],
	      hpt.lookups, hpt.misses, hpt.replacements);
      hw_hpt_entry *sorted = malloc ((hpt.entries + 1) * sizeof *sorted);
      if (sorted)
	{
	  memcpy (sorted, hpt.e, hpt.entries * sizeof *sorted);
	  qsort (sorted, hpt.entries, sizeof *sorted, by_count);
	  for (uint64_t i = 0; i < top && i < hpt.entries && sorted[i].valid; i++)
	    {
	      const hw_hpt_entry *e = &sorted[i];
	      const hw_profile_entry *pe = hw_profile_find (&m.complete, &e->path);
	      printf ("path %" PRIu64 ": count %" PRIu32 " (complete %" PRIu64 "), "
		      "start 0x%" PRIx64 ", length %u, outcomes ", i + 1, e->count,
		      pe ? pe->count : 0, e->path.start, e->path.length);
	      for (unsigned b = 0; b < e->path.length; b++)
		putchar ((e->path.outcomes >> b) & 1 ? '1' : '0');
	      printf ("\n  ");
	      for (uint32_t t = 0; pe && t < pe->nbranches; t++)
		{
		  if (t)
		    printf (" -> ");
		  print_address (&labels, pe->targets[t]);
		}
	      putchar ('\n');
	    }
	  free (sorted);
	}
      if (software && compare_software (software, &labels, &m.complete,
					 (uint32_t) max_length))
	status = -1;
      printf ("overlap %.1f%% with an HPT of %" PRIu64 " bytes\n",
	      hw_overlap (&hpt, &m.complete),
	      hw_hpt_bytes (&hpt, (unsigned) address_bits, (unsigned) max_length));
    }
  hw_model_free (&m);
  hw_hpt_free (&hpt);
  hw_labels_free (&labels);
  return status ? 1 : 0;
}
