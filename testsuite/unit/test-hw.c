/* The hardware path profiler model (hw/) against straightforward references:
   on random branch streams the path stack with the Ball-Larus mapping finds
   exactly the paths of a per-activation reference (each activation's branches
   cut after every backward or indirect branch, calls and returns not in the
   path); a Hot Path Table large enough and fully associative holds exactly
   the complete profile (overlap 100%); LFU and LRU evict the entries they
   should; the readers accept and refuse what they should.  */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw.h"
#include "unit.h"

/* ---- The reference: activations as arrays of branches.  */

struct ref_act
{
  uint64_t start, outcomes;
  unsigned length;
};

struct ref
{
  struct ref_act acts[4096];
  int depth;
  hw_profile paths;
};

static void
ref_end (struct ref *r, struct ref_act *a)
{
  hw_path p = { a->start, a->outcomes, (uint8_t) a->length };
  hw_profile_add (&r->paths, &p, 1);
}

static void
ref_branch (struct ref *r, const hw_branch *b)
{
  bool backward = b->dst <= b->src;
  if (b->kind == HW_CALL)
    {
      r->acts[r->depth++] = (struct ref_act) { b->dst, 0, 0 };
      return;
    }
  if (b->kind == HW_RETURN)
    {
      ref_end (r, &r->acts[--r->depth]);
      return;
    }
  struct ref_act *a = &r->acts[r->depth - 1];
  a->outcomes |= (uint64_t) (b->kind != HW_COND_NOT_TAKEN) << a->length;
  a->length++;
  if (backward || b->kind == HW_INDIRECT_JUMP)
    {
      ref_end (r, a);
      *a = (struct ref_act) { b->dst, 0, 0 };
    }
}

/* A random well-nested stream: calls and returns balanced, every other
   branch conditional, a jump or indirect, forward or backward.  */
static size_t
random_stream (unsigned long long *rng, hw_branch *out, size_t max)
{
  size_t n = 0;
  int depth = 1;
  uint64_t pc = 0x1000;
  while (n < max - 64)
    {
      unsigned r = (unsigned) (unit_rand (rng) % 100);
      hw_branch b = { HW_JUMP, 0, pc, 0, 1 };
      if (r < 8 && depth < 60)
	{
	  b.kind = HW_CALL;
	  b.dst = 0x100000 * (1 + unit_rand (rng) % 8);
	  depth++;
	}
      else if (r < 16 && depth > 1)
	{
	  b.kind = HW_RETURN;
	  b.dst = pc + 4;
	  depth--;
	}
      else
	{
	  static const uint8_t kinds[] = { HW_COND_TAKEN, HW_COND_NOT_TAKEN, HW_JUMP,
					   HW_INDIRECT_JUMP };
	  b.kind = kinds[unit_rand (rng) % 4];
	  int64_t step = (int64_t) (unit_rand (rng) % 64) * 4 - 96;
	  b.dst = pc + (uint64_t) step;
	}
      out[n++] = b;
      pc = b.dst + 4 * (unit_rand (rng) % 4);
    }
  while (depth > 1)		/* return to the outermost activation */
    {
      out[n++] = (hw_branch) { HW_RETURN, 0, pc, pc + 64, 1 };
      depth--;
    }
  return n;
}

static void
check_stack (void)
{
  struct unit_property same = { .name = "hw: Ball-Larus path stack finds the reference's paths" };
  struct unit_property full = { .name = "hw: an HPT holding every path equals the complete profile (overlap 100%)" };
  static hw_branch stream[4096];
  static struct ref r;
  unsigned long long rng = 7;
  for (int c = 0; c < 2000; c++)
    {
      size_t n = random_stream (&rng, stream, sizeof stream / sizeof *stream);
      hw_config cfg = { .max_length = 64, .stack_depth = 4096,
			.overflow = HW_OVERFLOW_GROW, .queue = 1 + c % 5 };
      hw_ppcr_preset (&cfg.ppcr, "ball-larus", 0);
      hw_hpt hpt;
      hw_hpt_init (&hpt, 4096, 4096, c % 2 ? HW_INDEX_XOR : HW_INDEX_ADDRESS,
		   HW_REPLACE_LFU);
      hw_model m;
      hw_model_init (&m, &cfg, &hpt);
      memset (&r, 0, sizeof r);
      hw_profile_init (&r.paths);
      /* Both start inside one activation that began at the first branch.  */
      r.acts[0] = (struct ref_act) { stream[0].src, 0, 0 };
      r.depth = 1;
      for (size_t i = 0; i < n; i++)
	{
	  hw_model_branch (&m, &stream[i]);
	  ref_branch (&r, &stream[i]);
	}
      hw_model_flush (&m);
      while (r.depth)
	ref_end (&r, &r.acts[--r.depth]);
      bool ok = m.complete.n == r.paths.n && m.complete.total == r.paths.total;
      for (size_t i = 0; ok && i < r.paths.cap; i++)
	if (r.paths.e[i].path.length != 0xff)
	  {
	    const hw_profile_entry *e = hw_profile_find (&m.complete, &r.paths.e[i].path);
	    ok = e && e->count == r.paths.e[i].count;
	  }
      unit_check (&same, ok, "case %d: %zu paths (%llu executions), reference %zu (%llu)",
		  c, m.complete.n, (unsigned long long) m.complete.total, r.paths.n,
		  (unsigned long long) r.paths.total);
      bool all = hw_overlap (&hpt, &m.complete) > 99.999999 && hpt.replacements == 0;
      for (uint32_t i = 0; all && i < hpt.entries; i++)
	if (hpt.e[i].valid)
	  {
	    const hw_profile_entry *e = hw_profile_find (&m.complete, &hpt.e[i].path);
	    all = e && e->count == hpt.e[i].count;
	  }
      unit_check (&full, all, "case %d: overlap %.3f", c, hw_overlap (&hpt, &m.complete));
      hw_model_free (&m);
      hw_hpt_free (&hpt);
      hw_profile_free (&r.paths);
    }
  unit_report (&same);
  unit_report (&full);
}

static bool
forward_direct (const hw_branch *b)
{
  return b->kind <= HW_JUMP && b->dst > b->src;
}

/* Two models' complete profiles (with each path's first branches) and
   HPTs are the same.  */
static bool
same_models (const hw_model *a, const hw_model *b, const hw_hpt *ha, const hw_hpt *hb)
{
  bool ok = a->complete.n == b->complete.n && a->complete.total == b->complete.total
	    && a->branches == b->branches && a->paths == b->paths
	    && a->splits == b->splits && a->overflows == b->overflows;
  for (size_t i = 0; ok && i < a->complete.cap; i++)
    {
      const hw_profile_entry *x = &a->complete.e[i];
      if (x->path.length == 0xff)
	continue;
      const hw_profile_entry *y = hw_profile_find (&b->complete, &x->path);
      ok = y && y->count == x->count && y->nbranches == x->nbranches
	   && memcmp (y->targets, x->targets, x->nbranches * sizeof *x->targets) == 0;
    }
  for (uint32_t i = 0; ok && i < ha->entries; i++)
    ok = ha->e[i].valid == hb->e[i].valid
	 && (!ha->e[i].valid || (hw_path_equal (&ha->e[i].path, &hb->e[i].path)
				 && ha->e[i].count == hb->e[i].count));
  return ok;
}

/* hw_model_forward, the common case of a run of branches at once (what
   pathprof-hw does with a trace's runs), against the same branches one at a
   time: every path, count, first branches and HPT entry the same, with the
   runs cut anywhere, paths that split, stacks that overflow and mappings
   whose forward branches do more than update.  */
static void
check_forward (void)
{
  struct unit_property same = { .name = "hw: forward branches taken as a run are the branches one at a time" };
  static hw_branch stream[4096];
  static const char *const presets[] = { "ball-larus", "wpp", "extended-loop",
					 "extended-interproc" };
  unsigned long long rng = 11;
  unsigned long long at_once = 0;
  for (int c = 0; c < 1000; c++)
    {
      size_t n = random_stream (&rng, stream, sizeof stream / sizeof *stream);
      /* Mostly forward branches, as in real programs' runs.  */
      for (size_t i = 0; i < n; i++)
	if (stream[i].kind <= HW_JUMP && unit_rand (&rng) % 4)
	  stream[i].dst = stream[i].src + 4 + 4 * (unit_rand (&rng) % 32);
      uint32_t events = 1 + (uint32_t) (unit_rand (&rng) % 40);
      for (size_t i = 0; i < n; i++)
	stream[i].events = events;
      hw_config cfg = { .max_length = 2 + (uint32_t) (unit_rand (&rng) % 63),
			.stack_depth = 1 + (uint32_t) (unit_rand (&rng) % 16),
			.overflow = c % 2 ? HW_OVERFLOW_DROP_OLDEST : HW_OVERFLOW_GROW,
			.metric = c % 5 < 2 ? HW_METRIC_EVENTS : HW_METRIC_FREQUENCY,
			.queue = 1 };
      hw_ppcr_preset (&cfg.ppcr, presets[c % 4], 1 + (uint32_t) (c % 3));
      hw_hpt ha, hb;
      hw_hpt_init (&ha, 64, 4, HW_INDEX_XOR, c % 3 ? HW_REPLACE_LFU : HW_REPLACE_LRU);
      hw_hpt_init (&hb, 64, 4, HW_INDEX_XOR, c % 3 ? HW_REPLACE_LFU : HW_REPLACE_LRU);
      hw_model a, b;
      hw_model_init (&a, &cfg, &ha);
      hw_model_init (&b, &cfg, &hb);
      /* In step: after each run, the paths under way the same, events and
	 all (the next update would clamp a wrong sum of events again).  */
      bool stacks = true;
      for (size_t i = 0; i < n;)
	{
	  uint32_t k = 0, took = 0;
	  uint64_t taken = 0, dst[64];
	  while (i + k < n && k < 64 && forward_direct (&stream[i + k]))
	    {
	      taken |= (uint64_t) (stream[i + k].kind != HW_COND_NOT_TAKEN) << k;
	      dst[k] = stream[i + k].dst;
	      k++;
	    }
	  if (k)
	    took = hw_model_forward (&b, 0, 1 + (uint32_t) (unit_rand (&rng) % k), taken,
				     dst, events);
	  if (!took)
	    hw_model_branch (&b, &stream[i]);
	  at_once += took;
	  for (size_t j = i + (took ? took : 1); i < j; i++)
	    hw_model_branch (&a, &stream[i]);
	  if (a.last_stack >= a.nstacks || b.last_stack >= b.nstacks)
	    {
	      stacks &= a.last_stack == b.last_stack && a.nstacks == b.nstacks;
	      continue;
	    }
	  const hw_stack *x = &a.stacks[a.last_stack], *y = &b.stacks[b.last_stack];
	  stacks &= a.last_stack == b.last_stack && x->depth == y->depth
		    && (!x->depth || (hw_path_equal (&x->e[x->depth - 1].path,
						     &y->e[y->depth - 1].path)
				      && x->e[x->depth - 1].events == y->e[y->depth - 1].events
				      && x->e[x->depth - 1].ntargets
					 == y->e[y->depth - 1].ntargets));
	}
      stacks &= a.nstacks == b.nstacks;
      for (uint32_t k = 0; stacks && k < a.nstacks; k++)
	{
	  const hw_stack *x = &a.stacks[k], *y = &b.stacks[k];
	  stacks = x->depth == y->depth;
	  for (uint32_t d = 0; stacks && d < x->depth; d++)
	    stacks = hw_path_equal (&x->e[d].path, &y->e[d].path)
		     && x->e[d].events == y->e[d].events
		     && x->e[d].extension == y->e[d].extension
		     && x->e[d].ntargets == y->e[d].ntargets;
	}
      hw_model_flush (&a);
      hw_model_flush (&b);
      unit_check (&same, stacks && same_models (&a, &b, &ha, &hb), "case %d (%s, max length %u): "
		  "%llu branches, %llu paths against %llu, %llu", c, presets[c % 4],
		  cfg.max_length, (unsigned long long) a.branches,
		  (unsigned long long) a.paths, (unsigned long long) b.branches,
		  (unsigned long long) b.paths);
      hw_model_free (&a);
      hw_model_free (&b);
      hw_hpt_free (&ha);
      hw_hpt_free (&hb);
    }
  /* Not a test that passes by never taking a run.  */
  unit_check (&same, at_once > 100000, "%llu branches taken at once", at_once);
  unit_report (&same);
}

static void
check_replacement (void)
{
  hw_hpt h;
  hw_path a = { 0x100, 0, 1 }, b = { 0x200, 0, 1 }, c = { 0x300, 0, 1 };
  /* One set of two ways: a counted 3 times, b once; c evicts b under LFU
     (fewest counts) and a under LRU (a was used before b).  */
  hw_hpt_init (&h, 2, 2, HW_INDEX_ADDRESS, HW_REPLACE_LFU);
  hw_hpt_add (&h, &a, 1);
  hw_hpt_add (&h, &a, 2);
  hw_hpt_add (&h, &b, 1);
  hw_hpt_add (&h, &c, 1);
  bool lfu = (hw_path_equal (&h.e[0].path, &a) && h.e[0].count == 3
	      && hw_path_equal (&h.e[1].path, &c) && h.replacements == 1);
  hw_hpt_free (&h);
  hw_hpt_init (&h, 2, 2, HW_INDEX_ADDRESS, HW_REPLACE_LRU);
  hw_hpt_add (&h, &a, 1);
  hw_hpt_add (&h, &a, 2);
  hw_hpt_add (&h, &b, 1);
  hw_hpt_add (&h, &c, 1);
  bool lru = (hw_path_equal (&h.e[0].path, &c) && hw_path_equal (&h.e[1].path, &b));
  hw_hpt_free (&h);
  unit_result (lfu, "hw: LFU evicts the least counted entry of the set", "");
  unit_result (lru, "hw: LRU evicts the least recently used entry of the set", "");
  hw_hpt_init (&h, 512, 4, HW_INDEX_XOR, HW_REPLACE_LFU);
  unit_result (hw_hpt_bytes (&h, 32, 32) == 6528,
	       "hw: a 512-entry HPT of 32-branch descriptors takes 6528 bytes", "%llu",
	       (unsigned long long) hw_hpt_bytes (&h, 32, 32));
  hw_hpt_free (&h);
}

/* ---- The Hot Path Table and the complete profile against plain tables:
   random sequences of few distinct paths (the same path again and again, as
   a loop's), tables small enough to evict.  */

struct ref_entry
{
  hw_path path;
  uint32_t count;
  uint64_t used;
  bool valid;
};

static uint32_t
ref_set (uint32_t sets, int index, const hw_path *p)
{
  uint64_t x = p->start >> 4;
  if (index == HW_INDEX_XOR)
    x ^= p->length ^ p->outcomes ^ (p->outcomes >> 32);
  return (uint32_t) (x % sets);
}

static void
ref_hpt_add (struct ref_entry *e, uint32_t ways, uint32_t sets, int index, int replace,
	     uint64_t clock, const hw_path *p, uint32_t count)
{
  struct ref_entry *set = e + (size_t) ref_set (sets, index, p) * ways, *victim = NULL;
  for (uint32_t w = 0; w < ways; w++)
    if (set[w].valid && hw_path_equal (&set[w].path, p))
      {
	set[w].count = set[w].count > UINT32_MAX - count ? UINT32_MAX
		       : set[w].count + count;
	set[w].used = clock;
	return;
      }
  for (uint32_t w = 0; w < ways && !victim; w++)
    if (!set[w].valid)
      victim = &set[w];
  if (!victim)
    {
      /* The least counted (then least recently used), or the least
	 recently used; the first of equals.  */
      victim = &set[0];
      for (uint32_t w = 1; w < ways; w++)
	{
	  const struct ref_entry *o = &set[w];
	  if (replace == HW_REPLACE_LFU
	      ? o->count < victim->count
		|| (o->count == victim->count && o->used < victim->used)
	      : o->used < victim->used)
	    victim = &set[w];
	}
    }
  *victim = (struct ref_entry) { *p, count, clock, true };
}

static void
check_tables (void)
{
  struct unit_property hpt = { .name = "hw: the HPT equals a plain set-associative table, entry by entry (LFU, LRU, repeated paths, evictions)" };
  struct unit_property prof = { .name = "hw: the complete profile counts each path as a plain list does" };
  unsigned long long rng = 11;
  for (int c = 0; c < 400; c++)
    {
      uint32_t ways = 1u << (unit_rand (&rng) % 3), sets = 1 + (uint32_t) (unit_rand (&rng) % 8);
      int index = c % 2 ? HW_INDEX_XOR : HW_INDEX_ADDRESS;
      int replace = c % 4 < 2 ? HW_REPLACE_LFU : HW_REPLACE_LRU;
      hw_hpt h;
      hw_hpt_init (&h, ways * sets, ways, index, replace);
      hw_profile pr;
      hw_profile_init (&pr);
      static struct ref_entry ref[64];
      static hw_path distinct[2048];
      static uint64_t counts[2048];
      memset (ref, 0, sizeof ref);
      memset (counts, 0, sizeof counts);
      /* Up to 2,048 distinct paths (distinct starts): the profile grows
	 past its first 1,024 slots in some cases.  */
      size_t ndistinct = 1 + unit_rand (&rng) % (c % 5 == 0 ? 2048 : 24);
      for (size_t i = 0; i < ndistinct; i++)
	distinct[i] = (hw_path) { 0x1000 + 16 * ((37 * i) % 4096), unit_rand (&rng) % 4,
				  (uint8_t) (1 + unit_rand (&rng) % 8) };
      bool same = true;
      size_t i = 0;
      for (int step = 0; step < 3000; step++)
	{
	  if (unit_rand (&rng) % 3 == 0)	/* else the same path again */
	    i = unit_rand (&rng) % ndistinct;
	  uint32_t count = unit_rand (&rng) % 8 == 0 ? UINT32_MAX / 2 : 1;
	  hw_hpt_add (&h, &distinct[i], count);
	  ref_hpt_add (ref, ways, sets, index, replace, h.clock, &distinct[i], count);
	  hw_profile_add (&pr, &distinct[i], count);
	  counts[i] += count;
	}
      for (uint32_t k = 0; k < ways * sets; k++)
	same &= h.e[k].valid == ref[k].valid
		&& (!ref[k].valid || (hw_path_equal (&h.e[k].path, &ref[k].path)
				      && h.e[k].count == ref[k].count
				      && h.e[k].used == ref[k].used));
      unit_check (&hpt, same, "case %d: %u ways, %u sets, %zu paths", c, ways, sets,
		  ndistinct);
      bool counted = true;
      size_t n = 0;
      for (size_t k = 0; k < ndistinct; k++)
	if (counts[k])
	  {
	    n++;
	    const hw_profile_entry *e = hw_profile_find (&pr, &distinct[k]);
	    counted &= e && e->count == counts[k];
	  }
      unit_check (&prof, counted && pr.n == n, "case %d: %zu paths counted, %zu drawn",
		  c, pr.n, n);
      hw_hpt_free (&h);
      hw_profile_free (&pr);
    }
  unit_report (&hpt);
  unit_report (&prof);
}

struct counter
{
  unsigned branches, samples;
  hw_branch last;
};

static void
count_branch (void *ctx, const hw_branch *b)
{
  struct counter *c = ctx;
  c->branches++;
  c->last = *b;
}

static void
count_sample (void *ctx)
{
  ((struct counter *) ctx)->samples++;
}

static int
read_text (const char *text, bool perf, struct counter *c, char *err, size_t errlen)
{
  FILE *f = fmemopen ((void *) text, strlen (text), "r");
  hw_labels l = { 0 };
  memset (c, 0, sizeof *c);
  int rc = hw_read (f, perf, &l, count_branch, count_sample, c, err, errlen);
  hw_labels_free (&l);
  fclose (f);
  return rc;
}

static void
check_readers (void)
{
  struct counter c;
  char err[300] = "";
  int rc = read_text ("# pathprof-branches 1\nlabel 0x10 main bb2\nthread 3\n"
		      "ct 0x1c 0x40\nr 0x4c 0x19\nend\nct 0x1 0x2\n", false, &c, err,
		      sizeof err);
  unit_result (rc == 0 && c.branches == 2 && c.last.kind == HW_RETURN
	       && c.last.thread == 3 && c.last.dst == 0x19,
	       "hw: a branch stream is read up to its end line", "rc %d: %s", rc, err);
  rc = read_text ("# pathprof-branches 1\nct 0x1c\n", false, &c, err, sizeof err);
  unit_result (rc == -1 && strstr (err, "line 2") != NULL,
	       "hw: a record without its target is refused, naming its line", "%s", err);
  rc = read_text ("something else\n", false, &c, err, sizeof err);
  unit_result (rc == -1 && strstr (err, "line 1") != NULL,
	       "hw: a file that is no branch stream is refused", "%s", err);
  rc = read_text ("# pathprof-branches 1\nzz 0x1 0x2\n", false, &c, err, sizeof err);
  unit_result (rc == -1 && strstr (err, "unknown record") != NULL,
	       "hw: an unknown record kind is refused", "%s", err);
  /* perf script -F ip,brstack: newest entry first, replayed oldest first.  */
  rc = read_text ("          401136 0x401130/0x401100/P/-/-/3  0x401120/0x401128/M/-/-/1 \n"
		  "\n          401000 0x400ff0/0x401000/P/-/-/0\n", true, &c, err,
		  sizeof err);
  unit_result (rc == 0 && c.branches == 3 && c.samples == 2 && c.last.src == 0x400ff0,
	       "hw: perf script brstack samples are replayed oldest first", "rc %d: %s",
	       rc, err);
  rc = read_text ("401136 0x401130-0x401100\n", true, &c, err, sizeof err);
  unit_result (rc == -1 && strstr (err, "FROM/TO") != NULL,
	       "hw: a damaged brstack entry is refused", "%s", err);
  hw_ppcr p;
  rc = hw_ppcr_parse (&p, "call=update-count,push;return=update-count,pop;"
		      "backward=update,pop,push;forward=update", err, sizeof err);
  hw_ppcr bl;
  hw_ppcr_preset (&bl, "ball-larus", 0);
  bl.ops[HW_TYPE_INDIRECT] = 0;
  unit_result (rc == 0 && memcmp (p.ops, bl.ops, sizeof p.ops) == 0,
	       "hw: a PPCR spelt out equals the preset", "%s", err);
  rc = hw_ppcr_parse (&p, "call=update,update-count", err, sizeof err);
  unit_result (rc == -1, "hw: update and update-count together are refused", "");
}

int
main (void)
{
  check_stack ();
  check_forward ();
  check_replacement ();
  check_tables ();
  check_readers ();
  return unit_exit_status ();
}
