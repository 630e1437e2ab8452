# The totals of DejaGnu summaries (run-check): every
# "# of expected passes<TAB><TAB>N" and the like summed over the files
# given, printed in DejaGnu's order.  Run with -F '\t+'.
BEGIN { k = split("expected passes|unexpected failures|unexpected successes|" \
                  "expected failures|unresolved testcases|untested testcases|" \
                  "unsupported tests", known, "|")
        for (i = 1; i <= k; i++) order[i] = "# of " known[i] }
/^# of / { if (!($1 in n)) { seen = 0
                             for (i = 1; i <= k; i++) if (order[i] == $1) seen = 1
                             if (!seen) order[++k] = $1 }
           n[$1] += $2 }
END { for (i = 1; i <= k; i++)
        if (order[i] in n) printf "%s\t\t%d\n", order[i], n[order[i]] }
