/* sqlbench: the SQLite workload of contrib/bench.
   Runs a deterministic SQL workload on an in-memory database (no disk I/O
   to time): bulk inserts through prepared statements, index creation,
   joins, aggregates, sorting, string matching, updates and deletes.  Every
   result row is folded into a checksum and a few results are printed, so
   every instrumented build must print exactly what the plain build prints.
   The optional argument scales the workload (number of orders, default
   100000).  */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"

static sqlite3 *db;
static unsigned long long hash = 1469598103934665603ULL;  /* FNV-1a */
static unsigned rng = 12345;

static unsigned
next (void)
{
  rng = rng * 1103515245u + 12345u;                 /* deterministic LCG */
  return rng >> 8;
}

static void
fold (const char *s)
{
  for (; *s; s++)
    hash = (hash ^ (unsigned char) *s) * 1099511628211ULL;
  hash = (hash ^ '|') * 1099511628211ULL;
}

static void
die (const char *what)
{
  fprintf (stderr, "sqlbench: %s: %s\n", what, sqlite3_errmsg (db));
  exit (1);
}

static void
exec (const char *sql)
{
  char *err = NULL;
  if (sqlite3_exec (db, sql, NULL, NULL, &err) != SQLITE_OK)
    {
      fprintf (stderr, "sqlbench: %s: %s\n", sql, err);
      exit (1);
    }
}

/* Runs a query, folds every column of every row into the checksum and
   prints the first row under LABEL.  */
static void
query (const char *label, const char *sql)
{
  sqlite3_stmt *st;
  int rows = 0;
  if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK)
    die (sql);
  int rc;
  while ((rc = sqlite3_step (st)) == SQLITE_ROW)
    {
      int n = sqlite3_column_count (st);
      if (rows == 0)
        printf ("%s:", label);
      for (int i = 0; i < n; i++)
        {
          const char *t = (const char *) sqlite3_column_text (st, i);
          fold (t ? t : "NULL");
          if (rows == 0)
            printf (" %s", t ? t : "NULL");
        }
      rows++;
    }
  if (rc != SQLITE_DONE)
    die (sql);
  sqlite3_finalize (st);
  printf ("%s (%d rows)\n", rows ? "" : label, rows);
}

int
main (int argc, char **argv)
{
  int norders = argc > 1 ? atoi (argv[1]) : 100000;
  int ncust = norders / 10 + 1, nprod = 500;
  static const char *regions[] = { "north", "south", "east", "west", "centre" };
  static const char *syll[] = { "ka", "lo", "mi", "ne", "su", "ra", "to", "vi" };

  if (sqlite3_open (":memory:", &db) != SQLITE_OK)
    die ("open");
  exec ("CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT, region TEXT);"
        "CREATE TABLE product (id INTEGER PRIMARY KEY, title TEXT, price REAL);"
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, cust INTEGER, prod INTEGER,"
        "                     qty INTEGER, day INTEGER);");

  /* Bulk inserts through prepared statements, in one transaction.  */
  exec ("BEGIN");
  sqlite3_stmt *ins;
  if (sqlite3_prepare_v2 (db, "INSERT INTO customer VALUES (?, ?, ?)", -1,
                          &ins, NULL) != SQLITE_OK)
    die ("prepare");
  for (int i = 1; i <= ncust; i++)
    {
      char name[32] = "";
      for (int k = 0, n = 2 + next () % 3; k < n; k++)
        strcat (name, syll[next () % 8]);
      sqlite3_bind_int (ins, 1, i);
      sqlite3_bind_text (ins, 2, name, -1, SQLITE_TRANSIENT);
      sqlite3_bind_text (ins, 3, regions[next () % 5], -1, SQLITE_STATIC);
      if (sqlite3_step (ins) != SQLITE_DONE)
        die ("insert customer");
      sqlite3_reset (ins);
    }
  sqlite3_finalize (ins);
  if (sqlite3_prepare_v2 (db, "INSERT INTO product VALUES (?, ?, ?)", -1,
                          &ins, NULL) != SQLITE_OK)
    die ("prepare");
  for (int i = 1; i <= nprod; i++)
    {
      char title[32];
      snprintf (title, sizeof title, "%s-%s %d", syll[next () % 8],
                syll[next () % 8], i);
      sqlite3_bind_int (ins, 1, i);
      sqlite3_bind_text (ins, 2, title, -1, SQLITE_TRANSIENT);
      sqlite3_bind_double (ins, 3, (next () % 10000) / 100.0);
      if (sqlite3_step (ins) != SQLITE_DONE)
        die ("insert product");
      sqlite3_reset (ins);
    }
  sqlite3_finalize (ins);
  if (sqlite3_prepare_v2 (db, "INSERT INTO orders VALUES (NULL, ?, ?, ?, ?)",
                          -1, &ins, NULL) != SQLITE_OK)
    die ("prepare");
  for (int i = 0; i < norders; i++)
    {
      sqlite3_bind_int (ins, 1, 1 + next () % ncust);
      sqlite3_bind_int (ins, 2, 1 + next () % nprod);
      sqlite3_bind_int (ins, 3, 1 + next () % 20);
      sqlite3_bind_int (ins, 4, next () % 365);
      if (sqlite3_step (ins) != SQLITE_DONE)
        die ("insert order");
      sqlite3_reset (ins);
    }
  sqlite3_finalize (ins);
  exec ("COMMIT");

  exec ("CREATE INDEX orders_cust ON orders (cust);"
        "CREATE INDEX orders_day ON orders (day, prod);"
        "CREATE INDEX customer_region ON customer (region, name);");

  query ("revenue by region",
         "SELECT c.region, count(*), round(sum(o.qty * p.price), 2)"
         " FROM orders o JOIN customer c ON c.id = o.cust"
         " JOIN product p ON p.id = o.prod"
         " GROUP BY c.region ORDER BY 3 DESC");
  query ("top customers",
         "SELECT c.name, c.id, sum(o.qty) AS q FROM customer c"
         " JOIN orders o ON o.cust = c.id GROUP BY c.id ORDER BY q DESC, c.id"
         " LIMIT 20");
  query ("busiest days",
         "SELECT day, count(DISTINCT cust), sum(qty) FROM orders"
         " WHERE day BETWEEN 100 AND 200 GROUP BY day ORDER BY 3 DESC, day");
  query ("products never bought in spring",
         "SELECT count(*) FROM product p WHERE NOT EXISTS"
         " (SELECT 1 FROM orders o WHERE o.prod = p.id AND o.day < 90"
         "  AND o.qty > 18)");
  query ("name pattern",
         "SELECT region, count(*), min(name), max(name) FROM customer"
         " WHERE name LIKE '%ra%vi%' OR name GLOB 'ka*su' GROUP BY region");
  query ("percentile",
         "SELECT qty, count(*) FROM orders GROUP BY qty"
         " HAVING count(*) > (SELECT count(*) / 25 FROM orders) ORDER BY qty");
  query ("window",
         "SELECT cust, day, sum(qty) OVER (PARTITION BY cust ORDER BY day"
         " ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM orders"
         " WHERE cust % 97 = 0 ORDER BY cust, day, id");

  exec ("BEGIN;"
        "UPDATE product SET price = round(price * 1.1, 2) WHERE id % 3 = 0;"
        "DELETE FROM orders WHERE qty < 3 AND day > 300;"
        "UPDATE customer SET region = 'north' WHERE region = 'centre'"
        " AND id % 2 = 0;"
        "COMMIT");
  query ("after updates",
         "SELECT c.region, count(*), round(avg(o.qty * p.price), 4)"
         " FROM orders o JOIN customer c ON c.id = o.cust"
         " JOIN product p ON p.id = o.prod GROUP BY c.region ORDER BY 1");
  query ("integrity", "PRAGMA integrity_check");

  sqlite3_close (db);
  printf ("checksum %016llx\n", hash);
  return 0;
}
