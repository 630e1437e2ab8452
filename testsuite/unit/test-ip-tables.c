/* libprof's thread tables of segments (libprof/ip-tables.c): the counts of
   context and piecewise paths, by (start, a, b), that libprof makes in the
   thread's table (pp_ipt_count_segment) and that the code makes in place
   in a start's array (pp_ipt_array_make; pathprof-abi.h struct
   __pathprof_ip_array), against a plain tally of every count.  Random runs
   on two threads count segments both ways (a segment counted in the table
   before its start had an array is counted in the array after), and dumps
   come between them: each snapshot must give every segment once, in
   increasing order of its number (whose words tie often: the top one is
   b, 0 or 1, the next a), its number the one the numbering gives, its
   count the tally's since the last subtract, the segments the numbering cannot name as lost; a snapshot not
   followed by a subtract takes nothing off.  A start's array may give its
   place to a new one while activations still count in the old (libprof
   widens arrays so): both count.  And a thread finds each of its arrays
   by its start (the newest), none of another thread's, gets none past
   the bound on its arrays' counts, and counts the cuts of each start.
   Threads that run one after another hand their table on: each finds the
   previous one's nodes and arrays and the block its runtime handed on,
   and the snapshot has the counts of all of them.  The front's slot of a
   node keeps the node's array as the map has it: none before one is made,
   the array once made, and again when the slot is filled again.  The
   numbers' table, filled one number or a batch at a time, gives back in a
   snapshot what was added, and its subtract takes off what the snapshot
   read and no more, also when new numbers grew the table in between.  */

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "ip-tables.h"
#include "unit.h"

#define NSTARTS 12		/* per thread; starts 0 .. 11 (roots) and nodes */
#define NA 40			/* a in [0, NA) */
#define ROUNDS 60
#define OPS 400

static struct unit_property exact = {
  .name = "ip-tables: every snapshot gives each segment once with the tally's count, "
	  "table and arrays together; the unnamed ones lost" };
static struct unit_property finds = {
  .name = "ip-tables: a thread finds the newest of its arrays by start, not another "
	  "thread's, none past its bound, and counts each start's cuts" };

static pp_ipt_number_fn number;

static struct unit_property hands_on = {
  .name = "ip-tables: a thread that starts after another ended takes over its table, "
	  "nodes, arrays and block; every count stays the profile's" };

/* Threads one after another (relay): each takes over what the one before
   handed on, names a node, counts a segment and finds or makes an array.  */
#define RELAY 5
#define RELAY_START ((uint64_t) 0x7777 << 32 | 3)
static int relay_ends, relay_handed;
static int relay_block[RELAY];	/* the blocks the runtime hands on */

static void *
relay_ending (void)
{
  relay_ends++;
  int *b = pp_malloc (sizeof *b);
  if (b)
    *b = relay_ends;
  return b;
}

static void
relay_handed_on (void)
{
  relay_handed++;
}

static const struct pp_ipt_thread_ops relay_ops = { relay_ending, relay_handed_on };

struct relay
{
  int turn;
  uint64_t node;
  const struct __pathprof_ip_array *array;
  /* The array of the node's start: the map's, and the front slot's after
     the first turn made it and after the slot is filled again.  */
  const struct __pathprof_ip_array *node_array, *made_slot, *filled_slot;
  bool none_before;
};

/* The array the front's slot of KEY keeps (ip-tables.h), or NOT_IN_FRONT.  */
static const struct __pathprof_ip_array not_in_front;
static const struct __pathprof_ip_array *
front_array (const struct pp_ipt_node *key)
{
  const struct pp_ipt_front_slot *x = pp_ipt_node_front (key);
  return x ? x->arr : &not_in_front;
}

static void *
relay_thread (void *arg)
{
  struct relay *r = arg;
  int *block = pp_ipt_thread_starts (&relay_ops);
  relay_block[r->turn] = block ? *block : 0;
  pp_free (block);
  const struct pp_ipt_node key = { 1, 2, 3, 4, 5 };
  r->node = pp_ipt_node (&key);
  if (r->turn == 0)
    {
      r->none_before = front_array (&key) == NULL;
      pp_ipt_array_make (r->node, 0, 4);
    }
  r->made_slot = front_array (&key);
  pp_ipt_node_slow (&key);	/* fills the slot again */
  r->filled_slot = front_array (&key);
  r->node_array = pp_ipt_array_of (r->node);
  r->array = pp_ipt_array_of (RELAY_START);
  if (!r->array)
    r->array = pp_ipt_array_make (RELAY_START, 0, 8);
  for (int i = 0; i <= r->turn; i++)
    pp_ipt_count_segment (RELAY_START, 100, 0);	/* beyond the array */
  return NULL;
}

static void
check_relay (void)
{
  struct relay r[RELAY];
  for (int i = 0; i < RELAY; i++)
    {
      pthread_t t;
      r[i] = (struct relay) { .turn = i };
      if (pthread_create (&t, NULL, relay_thread, &r[i]) || pthread_join (t, NULL))
	{
	  unit_check (&hands_on, false, "thread %d did not run", i);
	  return;
	}
      unit_check (&hands_on, relay_block[i] == i && relay_ends == i + 1
		  && relay_handed == i + 1, "thread %d took over block %d (%d ended, "
		  "%d handed on)", i, relay_block[i], relay_ends, relay_handed);
      unit_check (&hands_on, r[i].node == r[0].node && r[i].node >= (uint64_t) 1 << 32,
		  "thread %d's node %#llx, the first's %#llx", i,
		  (unsigned long long) r[i].node, (unsigned long long) r[0].node);
      unit_check (&hands_on, r[i].array && r[i].array == r[0].array,
		  "thread %d found another array than the first made", i);
      unit_check (&hands_on, r[0].none_before && r[i].node_array
		  && r[i].made_slot == r[i].node_array
		  && r[i].filled_slot == r[i].node_array, "thread %d: the front's "
		  "slot of the node keeps no array before one is made (%d), its "
		  "array once made (%d), and when filled again (%d)", i,
		  r[0].none_before, r[i].made_slot == r[i].node_array,
		  r[i].filled_slot == r[i].node_array);
    }
  pp_unit_data rec;
  memset (&rec, 0, sizeof rec);
  uint64_t key[3] = { RELAY_START, 100, 0 }, want = RELAY * (RELAY + 1) / 2;
  const uint64_t *e = NULL;
  if (pp_ipt_snapshot (&rec, number) >= 0)
    for (uint32_t j = 0; j < rec.nwide && !e; j++)
      if (memcmp (rec.wide + j * 4, key, sizeof key) == 0)
	e = rec.wide + j * 4;
  unit_check (&hands_on, e && e[3] == want, "the threads counted %llu, the snapshot "
	      "says %llu", (unsigned long long) want, e ? (unsigned long long) e[3] : 0ull);
  pp_ipt_subtract ();
  pp_free (rec.wide);
  pp_free (rec.values);
}

static struct unit_property numbered = {
  .name = "ip-tables: numbers added one at a time or a batch at a time; a subtract "
	  "takes off what its snapshot read, whether or not the table grew since" };

/* The numbers' table (pp_ipt_add_number, pp_ipt_add_numbers, which a
   segments dump's flush uses), against a tally: a snapshot, more counts
   of the same numbers (and, with GROW, enough new ones that the table
   moves its slots), the subtract, and a snapshot that must give exactly
   the counts made after the first.  Runs once the segments' counts are
   all taken off, so that the snapshots hold only these numbers.  */
#define NNUM 300
static void
check_numbers (bool grow, uint64_t tag)
{
  static uint64_t keys[NNUM + 4000][3], counts[NNUM + 4000], after[NNUM + 4000];
  uint32_t n = NNUM + (grow ? 4000 : 0);
  for (uint32_t i = 0; i < n; i++)
    {
      keys[i][0] = i * 0x9e3779b97f4aull;
      keys[i][1] = i % 7;
      keys[i][2] = tag;
      counts[i] = 1 + i % 5;
      after[i] = 0;
    }
  /* The first NNUM: half a batch of 100 at a time, half one at a time.  */
  for (uint32_t i = 0; i < NNUM / 2; i += 100)
    pp_ipt_add_numbers (keys[i], &counts[i], NNUM / 2 - i < 100 ? NNUM / 2 - i : 100);
  for (uint32_t i = NNUM / 2; i < NNUM; i++)
    pp_ipt_add_number (keys[i], counts[i]);
  pp_unit_data rec;
  for (int pass = 0; pass < 2; pass++)
    {
      memset (&rec, 0, sizeof rec);
      int rc = pp_ipt_snapshot (&rec, number);
      uint32_t want = 0, good = 0;
      for (uint32_t i = 0; i < n; i++)
	{
	  uint64_t c = pass == 0 ? (i < NNUM ? counts[i] : 0) : after[i];
	  want += c != 0;
	  for (uint32_t j = 0; c && j < rec.nwide; j++)
	    if (memcmp (rec.wide + j * 4, keys[i], sizeof keys[i]) == 0)
	      good += rec.wide[j * 4 + 3] == c;
	}
      unit_check (&numbered, rc >= 0 && rec.nwide == want && good == want,
		  "%s, snapshot %d: %u numbers, %u of the %u the tally has with its count",
		  grow ? "the table grown" : "the table as it was", pass, rec.nwide, good,
		  want);
      pp_free (rec.wide);
      pp_free (rec.values);
      if (pass == 0)
	{
	  /* Counted between the snapshot and its subtract: stay.  */
	  for (uint32_t i = 0; i < n; i += 3)
	    {
	      after[i] = 2;
	      pp_ipt_add_number (keys[i], 2);
	    }
	}
      pp_ipt_subtract ();
    }
}

/* A start of thread THREAD: a segment's ctx.  Starts of different threads
   differ (as node ids do).  */
static uint64_t
start_of (int thread, int i)
{
  return (uint64_t) (thread + 1) << 32 | (uint64_t) i;
}

/* The numbering: (ctx, a, b) as three words; ctx ending in 7 is unnamed.  */
static bool
number (uint64_t ctx, uint64_t a, uint64_t b, uint64_t *key)
{
  if ((ctx & 0xf) == 7)
    return false;
  key[0] = ctx;
  key[1] = a;
  key[2] = b;
  return true;
}

/* The tally since the last subtract, per thread, start, a, b (0 or 1).  */
static uint64_t tally[2][NSTARTS][NA][2];

struct worker
{
  int thread;
  unsigned long long seed;
  const struct __pathprof_ip_array *arr[NSTARTS], *old[NSTARTS];
};

/* One burst of counting on a worker's thread.  */
static void
burst (struct worker *w)
{
  for (int k = 0; k < OPS; k++)
    {
      int i = (int) (unit_rand (&w->seed) % NSTARTS);
      uint64_t a = unit_rand (&w->seed) % NA, b = unit_rand (&w->seed) % 4 == 0;
      uint64_t ctx = start_of (w->thread, i);
      const struct __pathprof_ip_array *arr = w->arr[i];
      unit_check (&finds, pp_ipt_array_of (ctx) == arr, "thread %d start %d: %s",
		  w->thread, i, arr ? "its newest array is not found" : "an array before "
		  "one was made");
      if (unit_rand (&w->seed) % (arr ? 256 : 64) == 0)
	{
	  /* Arrays cover [lo, lo + size), a window of the a's.  */
	  uint64_t lo = unit_rand (&w->seed) % 8, size = 8 + unit_rand (&w->seed) % 32;
	  w->old[i] = arr;
	  arr = w->arr[i] = pp_ipt_array_make (ctx, lo, size);
	  unit_check (&finds, arr && arr->lo == lo && arr->size == size
		      && pp_ipt_array_of (ctx) == arr, "thread %d start %d: the array "
		      "made is not found", w->thread, i);
	}
      if (w->old[i] && unit_rand (&w->seed) % 2)
	arr = w->old[i];	/* an activation that found the old one */
      if (arr && b == 0 && a - arr->lo < arr->size)
	arr->counts[a - arr->lo] += 1;	/* as the code does */
      else
	unit_check (&exact, pp_ipt_count_segment (ctx, a, b), "out of memory");
      tally[w->thread][i][a][b]++;
    }
}

static pthread_barrier_t turn;

/* The second thread: a burst whenever the main thread lets it.  */
static void *
second (void *arg)
{
  struct worker *w = arg;
  for (int r = 0; r < ROUNDS; r++)
    {
      pthread_barrier_wait (&turn);
      burst (w);
      for (int i = 0; i < NSTARTS; i++)
	unit_check (&finds, pp_ipt_array_of (start_of (0, i)) == NULL,
		    "thread 1 finds thread 0's array of start %d", i);
      pthread_barrier_wait (&turn);
    }
  return NULL;
}

/* A snapshot against the tally; SUBTRACT: take it off (the tally too).  */
static void
check_snapshot (int round, bool subtract)
{
  pp_unit_data rec;
  memset (&rec, 0, sizeof rec);
  int rc = pp_ipt_snapshot (&rec, number);
  unit_check (&exact, rc >= 0, "round %d: the snapshot failed", round);
  if (rc < 0)
    return;
  uint64_t counted = 0, lost = 0;
  uint32_t want = 0, seen = 0;
  for (int t = 0; t < 2; t++)
    for (int i = 0; i < NSTARTS; i++)
      for (int a = 0; a < NA; a++)
	for (int b = 0; b < 2; b++)
	  {
	    uint64_t n = tally[t][i][a][b], key[3];
	    if (!n)
	      continue;
	    if (!number (start_of (t, i), (uint64_t) a, (uint64_t) b, key))
	      {
		lost += n;
		continue;
	      }
	    counted += n;
	    want++;
	    const uint64_t *e = NULL;
	    for (uint32_t j = 0; j < rec.nwide && !e; j++)
	      if (memcmp (rec.wide + j * 4, key, sizeof key) == 0)
		e = rec.wide + j * 4;
	    unit_check (&exact, e && e[3] == n, "round %d: segment (%d, %d, %d, %d) "
			"counted %llu, the snapshot says %llu", round, t, i, a, b,
			(unsigned long long) n, e ? (unsigned long long) e[3] : 0ull);
	  }
  for (uint32_t j = 0; j < rec.nwide; j++)
    {
      seen++;
      if (j)
	unit_check (&exact, pp_wide_before (rec.wide + (j - 1) * 4, rec.wide + j * 4, 3),
		    "round %d: numbers %u and %u out of order, or the same", round, j - 1, j);
    }
  unit_check (&exact, seen == want && rec.wide_words == 3, "round %d: %u numbers, "
	      "the tally has %u", round, seen, want);
  const uint64_t *v = rec.values;
  unit_check (&exact, rec.nvalues == 2 && v[0] == counted && v[1] == lost,
	      "round %d: %llu counted and %llu lost, the tally has %llu and %llu", round,
	      (unsigned long long) v[0], (unsigned long long) v[1],
	      (unsigned long long) counted, (unsigned long long) lost);
  pp_free (rec.wide);
  pp_free (rec.values);
  if (subtract)
    {
      pp_ipt_subtract ();
      memset (tally, 0, sizeof tally);
    }
}

int
main (void)
{
  pp_ipt_init (3);
  struct worker w[2] = { { .thread = 0, .seed = 0x1234 }, { .thread = 1, .seed = 0x9876 } };
  pthread_t other;
  pthread_barrier_init (&turn, NULL, 2);
  if (pthread_create (&other, NULL, second, &w[1]))
    return 1;
  unsigned long long seed = 55;
  for (int r = 0; r < ROUNDS; r++)
    {
      burst (&w[0]);
      pthread_barrier_wait (&turn);	/* the other counts */
      pthread_barrier_wait (&turn);
      check_snapshot (r, unit_rand (&seed) % 4 != 0);
    }
  pthread_join (other, NULL);
  check_snapshot (ROUNDS, true);
  /* Each start's cuts, counted.  */
  for (uint32_t k = 1; k <= 100; k++)
    unit_check (&finds, pp_ipt_start_cuts (start_of (0, NSTARTS + 1)) == k,
		"the cuts of a start, counted %u times, not %u", k, k);
  /* Past the bound: none.  */
  unit_check (&finds, pp_ipt_array_make (start_of (0, NSTARTS), 0, PP_IPT_ARRAY_WORDS) == NULL,
	      "an array past the thread's bound");
  unit_check (&finds, pp_ipt_array_of (start_of (0, NSTARTS)) == NULL,
	      "an array refused is found");
  check_relay ();
  check_numbers (false, 0xabc);
  check_numbers (true, 0xdef);
  unit_report (&exact);
  unit_report (&finds);
  unit_report (&hands_on);
  unit_report (&numbered);
  return unit_exit_status ();
}
